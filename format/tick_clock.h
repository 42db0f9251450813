/* How the tick counter (pp_ticks) relates to the machine's clock
 * (CLOCK_MONOTONIC_RAW): both read at one instant, the rate between two
 * such readings, and the boot they belong to. The runtime measures its
 * tick rate from its first reading to now; the tool measures a dead
 * writer's the same way, from the first reading the writer left in its
 * segment to one of its own, when the writer never published a rate (a
 * program that ran one thread has no naming pass: docs/guides/crash.md).
 * The counter is the machine's (x86-64's invariant TSC, AArch64's virtual
 * counter), so two processes of one boot read the same one. */
#ifndef PP_TICK_CLOCK_H
#define PP_TICK_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* The clock and the counter at one instant: the counter read between two
 * clock reads, from the try whose clock reads lie closest together, so it
 * is known to about 30 ns whatever interrupts a try. */
void pp__tick_pair(uint64_t *ns, uint64_t *ticks);

/* Ticks per ns from the reading (ns0, ticks0) to now, over at least 2 ms
 * (a later call sleeps what is missing: over 2 ms, 30 ns is 3e-5 of the
 * rate). 0 when the counter or the clock did not move forward. */
double pp__tick_rate_since(uint64_t ns0, uint64_t ticks0);

/* Now on a run's clock: the wall time the run started (start_wall_ns,
 * CLOCK_REALTIME) plus CLOCK_MONOTONIC_RAW since the reading clock0_ns
 * taken with it. A run's length is then measured on the clock ticks are
 * converted by, so no time in a profile exceeds its run; the wall clock
 * may step and runs up to 500 ppm apart while NTP slews it (8 us in a
 * 16 ms test, 30 ms in a minute). */
uint64_t pp__run_clock_ns(uint64_t start_wall_ns, uint64_t clock0_ns);

/* The kernel's id of the running boot (/proc/sys/kernel/random/boot_id,
 * 36 characters) into buf; "" when it cannot be read. A reading of
 * another boot says nothing about this boot's counter. */
void pp__boot_id(char *buf, size_t n);

#endif
