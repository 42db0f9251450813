/* What the programs of tests/timing share: G(name), a raii gate when built
 * with PATHPROF_RAII and nothing otherwise (the other injectors gate every
 * function themselves), NOGATE for what no injector may gate, and a clock
 * that is no gate in any build: the one profiles' tick rate is measured
 * against (CLOCK_MONOTONIC drifts from it while NTP slews). */
#ifndef PP_TESTS_TIMING_GATES_H
#define PP_TESTS_TIMING_GATES_H

#include <stdint.h>
#include <time.h>

#ifdef PATHPROF_RAII
#include <pathprof/raii.h>
#define G(name) PP_GATE(name)
#else
#define G(name)
#endif

#if defined(__clang__)
#define NOGATE __attribute__((no_instrument_function, xray_never_instrument))
#else
#define NOGATE __attribute__((no_instrument_function))
#endif

NOGATE static inline uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

#endif
