/* Tick-rate calibration. Timestamps are raw TSC ticks (cheapest to read); the
 * profile records ticks per ns, measured against CLOCK_MONOTONIC_RAW over the
 * whole run, which is both free and more precise than a short busy loop.
 * Each end is a reading of both at one instant (format/tick_clock.c), so
 * it is known to about 30 ns whatever interrupts it:
 * over 2 ms that is 3e-5 of the rate. A run shorter than that sleeps what
 * is missing; it slept up to 20 ms, which made every short-lived profiled
 * process (a 2 ms command) take 20 ms. */
#define _GNU_SOURCE
#include <time.h>

#include "runtime.h"
#include "tick_clock.h"

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
	pp__tick_pair(&ns0, &tick0);
}

void pp__clock_origin(uint64_t *ns, uint64_t *ticks)
{
	*ns = ns0;
	*ticks = tick0;
}

uint64_t pp__run_now_ns(void)
{
	return pp__run_clock_ns(pp__g.start_ns, ns0);
}

double pp__clock_ticks_per_ns(void)
{
	double r = pp__tick_rate_since(ns0, tick0);
	return r > 0 ? r : 1.0;
}
