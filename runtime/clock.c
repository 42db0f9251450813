/* Tick-rate calibration. Timestamps are raw TSC ticks (cheapest to read); the
 * profile records ticks per ns, measured against CLOCK_MONOTONIC_RAW over the
 * whole run, which is both free and more precise than a short busy loop.
 * Each end reads the counter between two reads of the clock, the tightest
 * of a few tries, so it is known to about 30 ns whatever interrupts a try:
 * over 2 ms that is 3e-5 of the rate. A run shorter than that sleeps what
 * is missing; it slept up to 20 ms, which made every short-lived profiled
 * process (a 2 ms command) take 20 ms. */
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

#define MIN_SPAN_NS 2000000u
#define TRIES 5

/* Both clocks at one instant: the counter read between two clock reads,
 * from the try whose clock reads lie closest together. */
static void both_now(uint64_t *ns, uint64_t *ticks)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < TRIES; i++) {
		uint64_t a = mono_ns(), t = pp_ticks(), b = mono_ns();
		if (b >= a && b - a < best) {
			best = b - a;
			*ns = a + (b - a) / 2;
			*ticks = t;
		}
	}
	if (best == UINT64_MAX) {
		*ns = mono_ns();
		*ticks = pp_ticks();
	}
}

void pp__clock_start(void)
{
	both_now(&ns0, &tick0);
}

double pp__clock_ticks_per_ns(void)
{
	uint64_t ns, ticks;
	both_now(&ns, &ticks);
	if (ns - ns0 < MIN_SPAN_NS) {
		struct timespec d = {0, (long)(MIN_SPAN_NS - (ns - ns0))};
		nanosleep(&d, NULL);
		both_now(&ns, &ticks);
	}
	if (ns <= ns0 || ticks <= tick0)
		return 1.0;
	return (double)(ticks - tick0) / (double)(ns - ns0);
}
