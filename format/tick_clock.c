/* The tick counter against the machine's clock (tick_clock.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pathprof/state.h>

#include "tick_clock.h"

#define TRIES 5
#define MIN_SPAN_NS 2000000u

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pp__tick_pair(uint64_t *ns, uint64_t *ticks)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < TRIES; i++) {
		uint64_t a = mono_ns(), t = pp_ticks(), b = mono_ns();
		if (b >= a && b - a < best) {
			best = b - a;
			*ns = a + (b - a) / 2;
			*ticks = t;
		}
	}
	if (best == UINT64_MAX) {
		*ns = mono_ns();
		*ticks = pp_ticks();
	}
}

double pp__tick_rate_since(uint64_t ns0, uint64_t ticks0)
{
	uint64_t ns, ticks;
	pp__tick_pair(&ns, &ticks);
	if (ns >= ns0 && ns - ns0 < MIN_SPAN_NS) {
		struct timespec d = {0, (long)(MIN_SPAN_NS - (ns - ns0))};
		nanosleep(&d, NULL);
		pp__tick_pair(&ns, &ticks);
	}
	if (ns <= ns0 || ticks <= ticks0)
		return 0;
	return (double)(ticks - ticks0) / (double)(ns - ns0);
}

uint64_t pp__run_clock_ns(uint64_t start_wall_ns, uint64_t clock0_ns)
{
	uint64_t now = mono_ns();
	return start_wall_ns + (now > clock0_ns ? now - clock0_ns : 0);
}

void pp__boot_id(char *buf, size_t n)
{
	if (!n)
		return;
	buf[0] = '\0';
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t got = read(fd, buf, n - 1);
	close(fd);
	if (got <= 0) {
		buf[0] = '\0';
		return;
	}
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}
