/* A known workload for the trace tests: raii gates on several threads (two of
 * them run one after the other, so the second reuses the first's slab),
 * events started with pp_root(), recursion past a small depth bound, an
 * unmatched exit, and busy-waits so that timed segments differ. With an
 * argument "api" it starts recording itself through pp_trace_open(). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pathprof/raii.h>
#include <pathprof/trace.h>

#define NOINL __attribute__((noinline))

static __thread volatile unsigned sink; /* per thread: no data race under TSan */

static void spin(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sink += i;
}

NOINL static void leaf(unsigned n)
{
	PP_GATE("leaf");
	spin(n);
}

NOINL static void parse(unsigned i)
{
	PP_GATE("parse");
	spin(50);
	leaf(20 + i % 7 * 30);
	if (i % 3 == 0)
		leaf(5);
}

NOINL static void deep(int n)
{
	PP_GATE("deep");
	if (n > 0)
		deep(n - 1);
}

NOINL static void handle(unsigned i)
{
	PP_GATE("handle");
	if (i % 5 == 0) {
		PP_GATE("validate");
		spin(100);
	}
	parse(i);
}

static void *worker(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg;
	for (unsigned i = 0; i < 300 + id * 50; i++) {
		pp_root();
		handle(i + id);
	}
	deep(12); /* beyond PATHPROF_DEPTH=8 */
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "api") && pp_trace_open(argv[2]) != 0)
		return 1;
	pthread_t th[3];
	for (unsigned i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	worker(0);
	for (unsigned i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	/* Runs after the first two ended: it gets one of their slabs. */
	pthread_create(&th[2], NULL, worker, (void *)(uintptr_t)3);
	pthread_join(th[2], NULL);
	{
		PP_GATE("outer");
		pp_root(); /* abandons "outer": its exit is unmatched */
		leaf(3);
	}
	/* "slow": keep the trace open while another process starts recording */
	if (argc > 1 && !strcmp(argv[1], "slow"))
		sleep(1);
	return 0;
}
