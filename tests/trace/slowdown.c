/* A known slowdown for tests/trace/diff_real.sh: main calls three stages 40
 * times each, every call spinning a fixed time (stage_a 200 us, stage_b 100
 * us, stage_c 150 us); with the argument "slow" stage_b spins twice as
 * long. Nothing else differs between the two runs. */
#include <stdint.h>
#include <string.h>
#include <time.h>

static inline __attribute__((always_inline, no_instrument_function)) uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline __attribute__((always_inline, no_instrument_function)) void spin(uint64_t ns)
{
	uint64_t end = now_ns() + ns;
	while (now_ns() < end)
		;
}

static uint64_t b_ns = 100000;

__attribute__((noinline)) void stage_a(void) { spin(200000); }
__attribute__((noinline)) void stage_b(void) { spin(b_ns); }
__attribute__((noinline)) void stage_c(void) { spin(150000); }

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "slow"))
		b_ns = 200000;
	for (int i = 0; i < 40; i++)
		stage_a();
	for (int i = 0; i < 40; i++)
		stage_b();
	for (int i = 0; i < 40; i++)
		stage_c();
	return 0;
}
