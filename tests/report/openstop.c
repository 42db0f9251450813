/* openstop: a budget stops tick while one call of it is open. One thread
 * enters tick and waits inside it; the main thread then calls tick (a few
 * nanoseconds of work, far below its gate's cost) until the budget has
 * stopped it and many throttling rounds have passed, and lets the waiting
 * call leave. That call was entered before the stop: it must leave as
 * usual, its whole wait in the profile and no exit unmatched
 * (tests/report/openstop.sh). The thread then calls tick as an event of its
 * own: stopped, it must not count. Built plain, through an injector, or with
 * PATHPROF_RAII for raii gates (bench/workload.h).
 * usage: openstop [MS]   (the main thread's calls last at least MS, 200) */
#include <pthread.h>
#include <stdlib.h>

#include "workload.h"

static volatile int release, waiting;

__attribute__((noinline)) void tick(int wait)
{
	GATE();
	if (wait) {
		waiting = 1;
		while (!release)
			;
		/* stopped by now: calls of its own, which are not gated, must
		 * not leave the frame of this one */
		for (int i = 0; i < 1000; i++)
			tick(0);
	}
	sink++;
}

NOT_GATED static void *long_tick(void *arg)
{
	(void)arg;
	tick(1);
	/* tick is stopped: these calls start no event of their own, though
	 * the thread is between events, where a gate's entry is inline */
	for (int i = 0; i < 1000; i++)
		tick(0);
	return NULL;
}

int main(int argc, char **argv)
{
	GATE();
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 200;
	pthread_t th;
	if (pthread_create(&th, NULL, long_tick, NULL) != 0)
		return 1;
	while (!waiting)
		;
	uint64_t end = now_ns() + ms * 1000000u;
	for (long i = 0; i < 2000000 || now_ns() < end; i++)
		tick(0);
	release = 1;
	pthread_join(th, NULL);
	return 0;
}
