/* Mann-Whitney's rank test, exact for small samples (report/rank_test.c). */
#ifndef PP_RANK_TEST_H
#define PP_RANK_TEST_H

#include <stdint.h>

/* The number of pairs (x[i], y[j]) with y[j] > x[i]; both arrays of n
 * sorted ascending. Ties add nothing. */
uint64_t pp__rank_pairs_above(const uint64_t *x, const uint64_t *y, uint64_t n);

/* P(U >= u) when both samples of n come from one distribution, U the
 * count above: one-sided; double it for a two-sided p-value. */
double pp__rank_upper_tail(uint64_t n, uint64_t u);

#endif
