/* Tick-rate calibration. Timestamps are raw TSC ticks (cheapest to read); the
 * profile records ticks per ns, measured against CLOCK_MONOTONIC_RAW over the
 * whole run, which is both free and more precise than a short busy loop. A
 * run shorter than 20 ms gets a short sleep so the ratio is still sound. */
#define _GNU_SOURCE
#include <time.h>

#include "runtime.h"

static uint64_t tick0, ns0;

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t pp__realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Only for targets without a cycle counter instruction (see gate.h). */
uint64_t pp__ticks_fallback(void);
PP_EXPORT uint64_t pp__ticks_fallback(void)
{
	return mono_ns();
}

void pp__clock_start(void)
{
	ns0 = mono_ns();
	tick0 = pp_ticks();
}

double pp__clock_ticks_per_ns(void)
{
	uint64_t ns = mono_ns();
	if (ns - ns0 < 20000000u) {
		struct timespec d = {0, (long)(20000000u - (ns - ns0))};
		nanosleep(&d, NULL);
		ns = mono_ns();
	}
	uint64_t ticks = pp_ticks();
	if (ns <= ns0 || ticks <= tick0)
		return 1.0;
	return (double)(ticks - tick0) / (double)(ns - ns0);
}
