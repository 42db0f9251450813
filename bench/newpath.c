/* What a path costs the first time it runs, against the same path run again:
 * the slow path that allocates it in the thread's table (and, exporting a
 * live segment, wakes the naming thread) versus the hashed lookup that finds
 * it. 4096 distinct paths of 12 raii gates ("a"/"b" by the bits of the path
 * number); one pass creates them, the next passes find them. Rounds repeat
 * in fresh processes (bench/newpath.py), so every round really creates.
 * Prints: newpath: new_ns=N old_ns=N per_new_path_ns=N
 * usage: newpath [one]   (one: a single gate, then exit: the start-up run) */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <pathprof/raii.h>

#define DEPTH 12
#define PATHS (1u << DEPTH)

static volatile unsigned sink;

__attribute__((noinline)) static void walk(unsigned bits, int d)
{
	if (d == 0) {
		sink++;
		return;
	}
	if (bits & 1) {
		PP_GATE("a");
		walk(bits >> 1, d - 1);
	} else {
		PP_GATE("b");
		walk(bits >> 1, d - 1);
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t pass(void)
{
	uint64_t t0 = now_ns();
	for (unsigned b = 0; b < PATHS; b++)
		walk(b, DEPTH);
	return now_ns() - t0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "one")) {
		walk(0, 1); /* the first slab: where a segment is exported */
		return 0;
	}
	uint64_t fresh = pass();
	/* the best of three later passes: the lookup cost without noise */
	uint64_t old = pass(), t;
	for (int i = 0; i < 2; i++)
		if ((t = pass()) < old)
			old = t;
	printf("newpath: new_ns=%llu old_ns=%llu per_new_path_ns=%.0f\n", (unsigned long long)fresh,
	       (unsigned long long)old, fresh > old ? (double)(fresh - old) / PATHS : 0.0);
	return 0;
}
