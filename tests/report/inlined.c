/* For select --binary (select_inlined.sh): host is called 1 000 000 times
 * and does a few ns of work, so its gates cost more than it holds and
 * select drops it; one call in 500 takes slow_path, a 20 us spin, whose
 * gates cost nothing next to that, and which GCC inlines into host with its
 * -finstrument-functions hooks (always_inline: the same in every GCC
 * version). never_run is inlined there too and never called: the run
 * cannot gate it, the next build would. */
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
	long end = now_ns() + 20000;
	while (now_ns() < end)
		x = x * 2654435761u + 1;
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
