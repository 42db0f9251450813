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

/* The helper's work: twelve dependent multiply-adds, written out, each
 * kept by an empty asm (else the compiler folds them into one): about 5 ns
 * on an AMD EPYC VM host. Eight of them as a loop (GCC keeps it one) made a
 * helper whose time hung on predicting the loop's exit: there the plain
 * build's 200 000 calls took 0.8 or 1.6 ms from one second to the next,
 * within one process (bench/README.md, "A helper without a loop"). A
 * macro, not a function: -finstrument-functions would gate an inline one. */
#define WORK_STEP(v) v = v * 6364136223846793005ull + 1442695040888963407ull; __asm__("" : "+r"(v))
#define WORK4(v) WORK_STEP(v); WORK_STEP(v); WORK_STEP(v); WORK_STEP(v)
#define WORK(v)                                   \
	do {                                      \
		WORK4(v); WORK4(v); WORK4(v);     \
	} while (0)

__attribute__((noinline)) void helper(uint64_t x)
{
	GATE();
	WORK(x);
	sink += x;
}

/* The same work ungated by any injector: bench/compensate.c times it in the
 * profiled process beside the gated helper, a truth measured next to the
 * estimate rather than in another process. */
NOT_GATED __attribute__((noinline)) void helper_twin(uint64_t x)
{
	WORK(x);
	sink += x;
}

__attribute__((noinline)) void spin(uint64_t ns)
{
	GATE();
	uint64_t end = now_ns() + ns;
	while (now_ns() < end)
		;
}

#endif
