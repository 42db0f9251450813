/* The two builds of a benchmark workload (chain.c, tree.c): with
 * -DBENCH_GATED every function opens a raii gate and is named gated_*,
 * otherwise it is the same code without gates, named plain_*, so a baseline
 * is the gated machine code minus its gates. */
#ifndef BENCH_VARIANT_H
#define BENCH_VARIANT_H

#ifdef BENCH_GATED
#include <pathprof/raii.h>
#define G() PP_GATE_FN()
#define T(fn) gated_##fn
#else
#define G() ((void)0)
#define T(fn) plain_##fn
#endif

#endif
