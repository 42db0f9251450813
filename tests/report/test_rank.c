/* The rank test behind `capture compare`'s verdicts (report/rank_test.c)
 * against tails counted by hand: with n a side there are C(2n, n) orders,
 * and the tails below list how many of them have at least u pairs. */
#include <math.h>
#include <stdio.h>

#include "rank_test.h"

static int fails;

static void tail_is(uint64_t n, uint64_t u, double want, double tol)
{
	double got = pp__rank_upper_tail(n, u);
	if (fabs(got - want) > tol) {
		printf("FAIL: P(U >= %llu | n = %llu) = %.9g, want %.9g\n", (unsigned long long)u,
		       (unsigned long long)n, got, want);
		fails++;
	}
}

static void pairs_are(const uint64_t *x, const uint64_t *y, uint64_t n, uint64_t want)
{
	uint64_t got = pp__rank_pairs_above(x, y, n);
	if (got != want) {
		printf("FAIL: pairs above = %llu, want %llu\n", (unsigned long long)got, (unsigned long long)want);
		fails++;
	}
}

int main(void)
{
	/* n = 4: 70 orders; 1 with all 16 pairs, 1 with 15, 2 with 14 */
	tail_is(4, 16, 1.0 / 70, 1e-12);
	tail_is(4, 15, 2.0 / 70, 1e-12);
	tail_is(4, 14, 4.0 / 70, 1e-12);
	/* n = 5: 252 orders; counts of 25, 24, 23, 22 pairs are 1, 1, 2, 3 */
	tail_is(5, 25, 1.0 / 252, 1e-12);
	tail_is(5, 23, 4.0 / 252, 1e-12);
	tail_is(5, 22, 7.0 / 252, 1e-12);
	/* n = 7: 3432 orders, 30 of them with 43 pairs or more */
	tail_is(7, 43, 30.0 / 3432, 1e-12);
	/* the ends and the middle: symmetric about n^2 / 2 */
	tail_is(6, 0, 1, 0);
	tail_is(6, 37, 0, 0);
	tail_is(3, 5, 0.5, 1e-12); /* 9 pairs: P(U >= 5) = P(U <= 4) */
	/* n = 50, the last exact size: 0.0427256 (counted in Python the same
	 * way); n = 51 takes the normal tail, 0.0415113 at the same z */
	tail_is(50, 1500, 0.042725608, 1e-8);
	tail_is(51, 1560, 0.041511304, 1e-8);
	/* two-sided 5 %: no crossed pair allowed at n = 4, two at n = 5 */
	if (!(2 * pp__rank_upper_tail(4, 16) < 0.05 && 2 * pp__rank_upper_tail(4, 15) >= 0.05 &&
	      2 * pp__rank_upper_tail(5, 23) < 0.05 && 2 * pp__rank_upper_tail(5, 22) >= 0.05)) {
		printf("FAIL: the 5 %% line\n");
		fails++;
	}

	uint64_t a[] = { 10, 20, 30, 40, 50 }, b[] = { 45, 60, 70, 80, 90 }, c[] = { 10, 20, 30, 40, 50 };
	pairs_are(a, b, 5, 24); /* 45 is below 50 only */
	pairs_are(b, a, 5, 1);
	pairs_are(a, c, 5, 10); /* ties add nothing: 20 > 10, 30 > 10, 20, ... */
	if (fails)
		return 1;
	printf("ok: rank test tails exact for n = 4, 5, 7; pairs counted\n");
	return 0;
}
