/* compensate: known work in two phases, for bench/compensate.sh: many calls
 * of a small helper (about 5 ns each, unprofiled) and a few long spins. The
 * program times each phase itself; a plain build's figures are the truth a
 * profiled build's compensated report is compared with. */
#include <stdio.h>

#include "workload.h"

__attribute__((noinline)) void many_calls(int n)
{
	GATE();
	for (int i = 0; i < n; i++)
		helper((uint64_t)i);
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
	uint64_t t0 = now_ns();
	many_calls(200000);
	uint64_t t1 = now_ns();
	long_spins(100);
	uint64_t t2 = now_ns();
	printf("many_calls %llu\nlong_spins %llu\n", (unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1));
	return 0;
}
