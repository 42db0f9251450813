/* The call trees the gate-cost benchmark times. tree.c is compiled twice:
 * with raii gates (gated_*) and without (plain_*), so the baseline is the same
 * machine code minus the gates. */
#ifndef BENCH_TREE_H
#define BENCH_TREE_H

#include <stdint.h>

/* depth 2: root -> 2 leaves: 3 gates, 2 leaf returns per call */
uint64_t plain_d2(uint64_t x);
uint64_t gated_d2(uint64_t x);
/* depth 4: binary tree, 1 + 2 + 4 + 8 = 15 gates, 8 leaf returns per call */
uint64_t plain_d4(uint64_t x);
uint64_t gated_d4(uint64_t x);

#define TREE_D2_GATES 3
#define TREE_D4_GATES 15

#endif
