/* The synthetic call chains of the scaling benchmark (scale.c). chain.c is
 * compiled twice, with raii gates (gated_*) and without (plain_*), so the
 * baseline is the same machine code minus the gates. An event walks `depth`
 * functions chosen by `code` among CHAIN_FUNCS, so the number of distinct
 * codes an experiment cycles through is its number of distinct paths. */
#ifndef BENCH_CHAIN_H
#define BENCH_CHAIN_H

#include <stdint.h>

#define CHAIN_FUNCS 100
/* Codes below CHAIN_FUNCS^3 name distinct paths at every depth >= 3, and codes
 * below CHAIN_FUNCS^2 at depth 2 as well: the last three levels spell the code
 * in base CHAIN_FUNCS. */
#define CHAIN_MAX_CODES (CHAIN_FUNCS * CHAIN_FUNCS * CHAIN_FUNCS)

/* One event of `depth` gates (one leaf return): the gated variant starts it
 * with pp_root(). */
uint64_t plain_event(uint64_t code, uint32_t depth);
uint64_t gated_event(uint64_t code, uint32_t depth);

#endif
