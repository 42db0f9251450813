/* budget: a program whose small helper is not worth its gate, for
 * bench/budget.sh and tests/report/budget.sh (PATHPROF_BUDGET). main runs
 * BATCHES batches (argument 1, default 30) of 100 000 calls of a helper of
 * about 5 ns, then 100 spins of 100 us whose clock reads are their work.
 * Prints its own run time in ns, so a plain build measures the truth. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef PATHPROF_RAII
#include <pathprof/raii.h>
#define GATE() PP_GATE_FN()
#else
#define GATE() ((void)0)
#endif

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

volatile uint64_t sink;

__attribute__((noinline)) void helper(uint64_t x)
{
	GATE();
	uint64_t v = x;
	for (int i = 0; i < 8; i++)
		v = v * 6364136223846793005ull + 1442695040888963407ull;
	sink += v;
}

__attribute__((noinline)) void batch(int n)
{
	GATE();
	for (int i = 0; i < n; i++)
		helper((uint64_t)i);
}

__attribute__((noinline)) void spin(uint64_t ns)
{
	GATE();
	uint64_t end = now_ns() + ns;
	while (now_ns() < end)
		;
}

int main(int argc, char **argv)
{
	GATE();
	int batches = argc > 1 ? atoi(argv[1]) : 30;
	uint64_t t0 = now_ns();
	for (int b = 0; b < batches; b++)
		batch(100000);
	for (int i = 0; i < 100; i++)
		spin(100000);
	printf("%llu\n", (unsigned long long)(now_ns() - t0));
	return 0;
}
