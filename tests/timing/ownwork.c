/* A program whose first pass meets thousands of nodes for the first time
 * and whose second pass meets none, the same work otherwise, for
 * tests/timing/ownwork.sh: main calls walk() twice; each walk takes every
 * code of DEPTH (10) bits down a chain of DEPTH gated calls, left() for a 1 bit
 * and right() for a 0, so the first walk opens 2^(DEPTH+1) - 2 nodes below
 * it and the second only revisits them. It prints the two walks' times as
 * its own clock saw them (ns), which hold the runtime's work of the first
 * sight (registering each node, backing the arena's new chunks); the
 * profile's times must not. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "gates.h"

static volatile unsigned sink;
NOGATE __attribute__((noinline)) static void branch(int d, unsigned code);

__attribute__((noinline)) void left(int d, unsigned code)
{
	G("left");
	branch(d, code);
	sink++; /* not a tail call: every injector sees the same exit */
}

__attribute__((noinline)) void right(int d, unsigned code)
{
	G("right");
	branch(d, code);
	sink++;
}

NOGATE __attribute__((noinline)) static void branch(int d, unsigned code)
{
	if (d == 0)
		return;
	if (code & 1)
		left(d - 1, code >> 1);
	else
		right(d - 1, code >> 1);
	sink++;
}

__attribute__((noinline)) void walk(int depth)
{
	G("walk");
	for (unsigned code = 0; code < 1u << depth; code++)
		branch(depth, code);
}

enum { DEPTH = 10 };

int main(void)
{
	G("main");
	int depth = DEPTH;
	uint64_t t0 = now_ns();
	walk(depth);
	uint64_t t1 = now_ns();
	walk(depth);
	uint64_t t2 = now_ns();
	printf("%llu %llu\n", (unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1));
	return 0;
}
