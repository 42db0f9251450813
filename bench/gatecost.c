/* gatecost: one batch of chain events for callgrind to count, so the
 * instructions a gate costs come out exact and repeatable:
 *     valgrind --tool=callgrind --toggle-collect=run_batch gatecost gated 12 100000
 * minus the same run with `plain`, divided by events x depth. The timing mode
 * comes from PATHPROF_TIMING as in any profiled program; one path is walked
 * (code 0), so the table lookups hit and the figure is the gate itself.
 * usage: gatecost plain|gated DEPTH EVENTS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "chain.h"

static volatile uint64_t sink, warm_sink;

static inline uint64_t batch(int gated, uint32_t depth, uint64_t n)
{
	uint64_t acc = 0;
	for (uint64_t i = 0; i < n; i++)
		acc += gated ? gated_event(0, depth) : plain_event(0, depth);
	return acc;
}

/* The warm-up is a function of its own, left out of the count: its first
 * gate starts the runtime's one-time work (the live segment's export, its
 * module list), which is no gate's cost and grew with the segment. Each
 * writes a sink of its own: two identical functions would be folded into
 * one (GCC's identical code folding), and both counted. */
__attribute__((noinline)) static void warm_batch(int gated, uint32_t depth, uint64_t n)
{
	warm_sink = batch(gated, depth, n);
}

__attribute__((noinline)) static void run_batch(int gated, uint32_t depth, uint64_t n)
{
	sink = batch(gated, depth, n);
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "plain") && strcmp(argv[1], "gated"))) {
		fprintf(stderr, "usage: gatecost plain|gated DEPTH EVENTS\n");
		return 2;
	}
	int gated = !strcmp(argv[1], "gated");
	uint32_t depth = (uint32_t)strtoul(argv[2], NULL, 10);
	uint64_t n = strtoull(argv[3], NULL, 10);
	if (depth < 1 || depth > 64 || !n) {
		fprintf(stderr, "gatecost: DEPTH 1..64, EVENTS > 0\n");
		return 2;
	}
	warm_batch(gated, depth, n / 10); /* first sight of the path, pages */
	run_batch(gated, depth, n);
	return 0;
}
