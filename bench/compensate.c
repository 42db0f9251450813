/* compensate: known work in two phases, for bench/compensate.sh: many calls
 * of a small helper (about 5 ns each, unprofiled) and a few long spins. The
 * program times each phase itself; a plain build's figures are the truth a
 * profiled build's compensated report is compared with. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#ifdef PATHPROF_RAII
#include <pathprof/raii.h>
#define GATE() PP_GATE_FN()
#else
#define GATE() ((void)0)
#endif

/* Not gated by any injector: the spins wait for a deadline, so a gate on
 * their clock reads would replace spinning rather than add time, and the
 * builds would gate different functions (raii gates only what says so). */
__attribute__((no_instrument_function)) static uint64_t now_ns(void)
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

__attribute__((noinline)) void spin(uint64_t ns)
{
	GATE();
	uint64_t end = now_ns() + ns;
	while (now_ns() < end)
		;
}

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
