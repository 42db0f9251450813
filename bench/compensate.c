/* compensate: known work in two phases, for bench/compensate.sh: many calls
 * of a small helper (about 5 ns each, unprofiled) and a few long spins. The
 * program times each phase itself; a plain build's figures are the truth a
 * profiled build's compensated report is compared with. Each round also
 * times the helper's ungated twin (bench/workload.h) right after the gated
 * calls: a truth taken in the profiled process itself, a few microseconds
 * from the estimate, where the plain build's is taken in another process,
 * at another moment of the host. */
#include <stdio.h>

#include "workload.h"

#define ROUNDS 20

__attribute__((noinline)) void many_calls(int n)
{
	GATE();
	for (int i = 0; i < n; i++)
		helper((uint64_t)i);
}

NOT_GATED __attribute__((noinline)) static void twin_calls(int n)
{
	for (int i = 0; i < n; i++)
		helper_twin((uint64_t)i);
}

__attribute__((noinline)) void long_spins(int n)
{
	GATE();
	for (int i = 0; i < n; i++)
		spin(20000);
}

int main(void)
{
	GATE();
	uint64_t many = 0, twin = 0, spins = 0;
	for (int r = 0; r < ROUNDS; r++) {
		uint64_t t0 = now_ns();
		many_calls(200000 / ROUNDS);
		uint64_t t1 = now_ns();
		twin_calls(200000 / ROUNDS);
		uint64_t t2 = now_ns();
		long_spins(100 / ROUNDS);
		uint64_t t3 = now_ns();
		many += t1 - t0;
		twin += t2 - t1;
		spins += t3 - t2;
	}
	printf("many_calls %llu\nlong_spins %llu\ntwin_calls %llu\n", (unsigned long long)many,
	       (unsigned long long)spins, (unsigned long long)twin);
	return 0;
}
