/* The known work bench/compensate.c and bench/budget.c are made of (and
 * tests/report/budget.sh, select.sh): a helper of about 5 ns, whose gate
 * costs several times its work, and a spin of a given time. Built plain,
 * through an injector, or with PATHPROF_RAII defined for raii gates. */
#ifndef PP_BENCH_WORKLOAD_H
#define PP_BENCH_WORKLOAD_H

#include <stdint.h>
#include <time.h>
#ifdef PATHPROF_RAII
#include <pathprof/raii.h>
#define GATE() PP_GATE_FN()
#else
#define GATE() ((void)0)
#endif
#ifdef __clang__
#define NOT_GATED __attribute__((no_instrument_function, xray_never_instrument))
#else
#define NOT_GATED __attribute__((no_instrument_function))
#endif

/* Not gated by any injector: a spin waits for a deadline, so a gate on its
 * clock reads would replace spinning rather than add time, and the builds
 * would gate different functions (raii gates only what says so). */
NOT_GATED static inline uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

volatile uint64_t sink;

__attribute__((noinline)) void helper(uint64_t x)
{
	GATE();
	uint64_t v = x;
	for (int i = 0; i < 8; i++)
		v = v * 6364136223846793005ull + 1442695040888963407ull;
	sink += v;
}

__attribute__((noinline)) void spin(uint64_t ns)
{
	GATE();
	uint64_t end = now_ns() + ns;
	while (now_ns() < end)
		;
}

#endif
