/* One call tree gated through raii or cyg (examples/feed/gate.h decides):
 * the canonical listing must be the same for both, with GCC and Clang, at -O0
 * and -O2 (tree.expected). Exercises several returns, recursion, loops with
 * break, a static function, and helpers that must stay ungated. */
#include <stdio.h>
#include <pathprof/pathprof.h>

#include "../../examples/feed/gate.h"

#define NOINL __attribute__((noinline))

static volatile unsigned sink;

/* Not a gate in any front-end: the runtime's own attributes keep it out. */
PP_NOINSTR static unsigned mix(unsigned x)
{
	return x * 2654435761u;
}

NOINL static int classify(unsigned v)
{
	GATE();
	if (v % 5 == 0)
		return 0;
	if (v % 5 == 1)
		return 1;
	return 2;
}

NOINL int depth_first(int n)
{
	GATE();
	if (n <= 1)
		return 1;
	return depth_first(n - 1) + 1;
}

NOINL static void fanout(unsigned v)
{
	GATE();
	for (unsigned i = 0; i < 4; i++) {
		if (i == v % 3)
			break;
		sink += (unsigned)classify(v + i);
	}
}

NOINL void dispatch(unsigned v)
{
	GATE();
	switch (classify(v)) {
	case 0:
		sink += (unsigned)depth_first(3);
		break;
	case 1:
		fanout(v);
		break;
	default:
		sink += mix(v);
		break;
	}
}

/* Parsed by hand: libc's atoi is an inline wrapper at -O2 that clang's
 * -finstrument-functions would gate (a true, but here unwanted, path). */
PP_NOINSTR static unsigned parse(const char *s)
{
	unsigned v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (unsigned)(*s++ - '0');
	return v;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? parse(argv[1]) : 1000;
	for (unsigned i = 0; i < n; i++) {
		pp_root();
		dispatch(i);
	}
	return 0;
}
