/* Mann-Whitney's rank test on two samples of equal size, for verdicts
 * drawn from a few repeated runs (`pathprof capture compare`): a rank test
 * assumes nothing about the shape of the times, and its exact tail holds
 * for the 4-10 passes a side a user waits for, where a normal bound does
 * not. Counting orders rather than summing ranks keeps it integer. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "rank_test.h"

/* Above this many a side the exact table ((n + 1) x (n^2 + 1) doubles)
 * grows as n^3; the normal approximation with continuity correction is
 * within a few thousandths of the exact tail there. */
#define RANK_EXACT_N 50

/* P(U >= u) under no change, U the number of pairs (a, b) with b > a in
 * two samples of n: the share of the C(2n, n) orders of the pooled passes
 * with at least u such pairs. Exact up to RANK_EXACT_N a side, counted by
 * placing the largest pass: a b above i a's adds i pairs, an a adds none,
 * so cnt(i, j, u) = cnt(i, j - 1, u - i) + cnt(i - 1, j, u). */
double pp__rank_upper_tail(uint64_t n, uint64_t u)
{
	uint64_t top = n * n;
	if (u == 0)
		return 1;
	if (u > top)
		return 0;
	if (n > RANK_EXACT_N) {
		double mu = (double)top / 2, sd = sqrt((double)top * (double)(2 * n + 1) / 12);
		return 0.5 * erfc(((double)u - 0.5 - mu) / sd / sqrt(2));
	}
	/* cnt[i][v] for the current j; j = 0: one order with no pairs */
	double *cnt = calloc((n + 1) * (top + 1), sizeof *cnt);
	if (!cnt)
		return 1; /* no memory: no verdict */
	for (uint64_t i = 0; i <= n; i++)
		cnt[i * (top + 1)] = 1;
	for (uint64_t j = 1; j <= n; j++)
		for (uint64_t i = 0; i <= n; i++) /* i ascending: row i - 1 already holds j */
			for (uint64_t v = top + 1; v-- > 0;) {
				double *c = &cnt[i * (top + 1) + v];
				*c = (v >= i ? c[-(ptrdiff_t)i] : 0) + (i ? c[-(ptrdiff_t)(top + 1)] : 0);
			}
	double all = 0, tail = 0;
	for (uint64_t v = 0; v <= top; v++) {
		all += cnt[n * (top + 1) + v];
		if (v >= u)
			tail += cnt[n * (top + 1) + v];
	}
	free(cnt);
	return tail / all;
}

/* Pairs with y > x, both sorted ascending. */
uint64_t pp__rank_pairs_above(const uint64_t *x, const uint64_t *y, uint64_t n)
{
	uint64_t u = 0, i = 0;
	for (uint64_t j = 0; j < n; j++) {
		while (i < n && x[i] < y[j])
			i++;
		u += i;
	}
	return u;
}

