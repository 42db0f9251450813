/* cputime: the profile's CPU time is the program's own
 * (tests/report/cputime.sh). main and a second thread each use a known
 * amount of CPU in gated code, and main prints the process's CPU time over
 * its own body, first statement to last. What the runtime does on the
 * program's threads (its start, the symbol tables a selection set by a
 * constructor reads, each thread's registration, the exit's work) and on
 * its own threads is not in the profile's CPU time; before it was taken
 * out, an empty main read about 2 ms. Built through an injector, or with
 * PATHPROF_RAII for raii gates (bench/workload.h).
 * usage: cputime [MS]   (each thread's CPU time, 20 by default) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "workload.h"

NOT_GATED static uint64_t cpu_ns(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

__attribute__((noinline)) void step(void)
{
	GATE();
	for (int i = 0; i < 1000; i++)
		sink += (uint64_t)i * 7u;
}

/* gated steps until the calling thread has used ms of CPU */
__attribute__((noinline)) void burn(uint64_t ms)
{
	GATE();
	uint64_t end = cpu_ns(CLOCK_THREAD_CPUTIME_ID) + ms * 1000000u;
	while (cpu_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		step();
}

static uint64_t ms = 20;

__attribute__((noinline)) void *worker(void *arg)
{
	GATE();
	(void)arg;
	burn(ms);
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t from = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (argc > 1)
		ms = strtoull(argv[1], NULL, 10);
	pthread_t th;
	if (pthread_create(&th, NULL, worker, NULL) != 0)
		return 1;
	burn(ms);
	pthread_join(th, NULL);
	printf("%llu\n", (unsigned long long)(cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - from));
	return 0;
}
