/* A gate inlined into a function that is not worth its own
 * (docs/guides/selection.md, "Gates inlined into dropped functions";
 * tests/report/select_inlined.sh). host is called 1 000 000 times and does
 * a few ns of work, so its gates cost more than it holds and `pathprof
 * select` drops it; one call in 500 takes slow_path, a 20 us spin, whose
 * gates cost nothing next to that. The compiler inlines slow_path into host
 * (always_inline: the same with every GCC and Clang), and with it the calls
 * of its gate. never_run is inlined there too and never called: a run
 * cannot gate it, the next build would. Prints the sum of host's results,
 * the same on every run. */
#include <stdio.h>
#include <time.h>

__attribute__((no_instrument_function)) static long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static inline __attribute__((always_inline)) unsigned slow_path(unsigned x)
{
	volatile unsigned spin = x;
	long end = now_ns() + 20000;
	while (now_ns() < end)
		spin = spin * 2654435761u + 1;
	return x & 1;
}

static inline __attribute__((always_inline)) unsigned never_run(unsigned x)
{
	return x * 7 + (unsigned)now_ns();
}

__attribute__((noinline)) unsigned host(unsigned x)
{
	if (__builtin_expect(x % 500 == 0, 0))
		return slow_path(x);
	if (__builtin_expect(x == 0x7fffffffu, 0))
		return never_run(x);
	return x * 3u >> 5;
}

int main(void)
{
	unsigned long s = 0;
	for (unsigned i = 1; i <= 1000000; i++)
		s += host(i);
	printf("%lu\n", s);
	return 0;
}
