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

/* The kernel's id of the running boot (/proc/sys/kernel/random/boot_id,
 * 36 characters) into buf; "" when it cannot be read. A reading of
 * another boot says nothing about this boot's counter. */
void pp__boot_id(char *buf, size_t n);

#endif
