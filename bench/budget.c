/* budget: a program whose small helper is not worth its gate, for
 * bench/budget.sh and tests/report/budget.sh (PATHPROF_BUDGET). main runs
 * BATCHES batches (argument 1, default 30) of 100 000 calls of a helper of
 * about 5 ns, then 100 spins of 100 us whose clock reads are their work.
 * Prints its own run time in ns, so a plain build measures the truth. */
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

__attribute__((noinline)) void batch(int n)
{
	GATE();
	for (int i = 0; i < n; i++)
		helper((uint64_t)i);
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
