/* The benchmark's function trees, built once gated (BENCH_GATED) and once
 * plain. Every function is a real call in both builds (noinline, no clones),
 * and the leaf does a token multiply-add, so the difference between the two
 * builds is the gates and nothing the optimiser could move around them. */
#include "tree.h"

#ifdef BENCH_GATED
#include <pathprof/raii.h>
#define G(name) PP_GATE(name)
#define T(fn) gated_##fn
#else
#define G(name) ((void)0)
#define T(fn) plain_##fn
#endif

#if defined(__clang__)
#define CALL __attribute__((noinline))
#else
#define CALL __attribute__((noinline, noclone))
#endif

static CALL uint64_t T(leaf)(uint64_t x)
{
	G("leaf");
	return x * 0x9e3779b97f4a7c15ull + 1;
}

static CALL uint64_t T(n3)(uint64_t x)
{
	G("n3");
	return T(leaf)(x) ^ T(leaf)(x + 1);
}

static CALL uint64_t T(n2)(uint64_t x)
{
	G("n2");
	return T(n3)(x) + T(n3)(x + 2);
}

CALL uint64_t T(d4)(uint64_t x)
{
	G("d4");
	return T(n2)(x) - T(n2)(x + 4);
}

CALL uint64_t T(d2)(uint64_t x)
{
	G("d2");
	return T(leaf)(x) ^ T(leaf)(x + 1);
}
