/* The workload the live tests watch: threads running a known number of
 * events through the raii front-end while `pathprof top` reads the segment,
 * and a fork in the middle of a gate. Every count it produces is a formula
 * of its arguments, so the tests check exact values. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pathprof/live.h>
#include <pathprof/raii.h>

#define NOINL __attribute__((noinline))

static __thread volatile unsigned sink; /* per thread: no data race under TSan */
static long iters;
/* "threads N ITERS hold": each thread stops half-way until a line (or the
 * end) on standard input releases it, so a reader can take as many looks
 * as it needs while the run is unfinished, however slowly it looks (the
 * tool under ASan on a host whose page faults cost 10 us took 6 in the
 * whole run). */
static int held, released;

NOINL static void leaf1(void)
{
	PP_GATE("leaf1");
	sink++;
}

NOINL static void leaf2(void)
{
	PP_GATE("leaf2");
	sink++;
}

NOINL static void event(void)
{
	PP_ROOT();
	PP_GATE("outer");
	{
		PP_GATE("a");
		leaf1();
	}
	{
		PP_GATE("b");
		leaf2();
		leaf2();
	}
}

/* Thread k runs (k + 1) * iters events, pausing now and then so that a
 * reader gets many looks while it runs. */
static void *worker(void *arg)
{
	long n = ((long)(intptr_t)arg + 1) * iters;
	struct timespec pause = {0, 1000000};
	for (long i = 0; i < n; i++) {
		while (held && i == n / 2 && !__atomic_load_n(&released, __ATOMIC_ACQUIRE))
			nanosleep(&pause, NULL);
		event();
		if (i % 1000 == 999)
			nanosleep(&pause, NULL);
	}
	return NULL;
}

/* threads N ITERS [hold]: run, print "done", wait for standard input to
 * close. */
static int run_threads(int nthreads)
{
	pthread_t t[64];
	for (int k = 0; k < nthreads; k++)
		pthread_create(&t[k], NULL, worker, (void *)(intptr_t)k);
	char buf[64];
	if (held) {
		if (!fgets(buf, sizeof buf, stdin))
			buf[0] = '\0';
		__atomic_store_n(&released, 1, __ATOMIC_RELEASE);
	}
	for (int k = 0; k < nthreads; k++)
		pthread_join(t[k], NULL);
	printf("done %d\n", (int)getpid());
	fflush(stdout);
	while (fread(buf, 1, sizeof buf, stdin) > 0)
		;
	return 0;
}

/* fork N1 N2 N3: N1 events, then fork inside gate "forker". The child
 * leaves "forker" without a gated child (one "forker" record) and runs N2
 * events of "cwork>leaf1"; the parent enters "inparent" N3 times inside
 * "forker" at once (racing the child's start), then N1 more events. */
static int run_fork(long n1, long n2, long n3)
{
	for (long i = 0; i < n1; i++)
		event();
	pid_t pid;
	{
		PP_ROOT();
		PP_GATE("forker");
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid > 0) {
			for (long i = 0; i < n3; i++) {
				PP_GATE("inparent");
				sink++;
			}
		}
	}
	if (pid == 0) {
		for (long i = 0; i < n2; i++) {
			PP_ROOT();
			PP_GATE("cwork");
			leaf1();
		}
		exit(0);
	}
	for (long i = 0; i < n1; i++)
		event();
	int st;
	waitpid(pid, &st, 0);
	printf("child %d\n", (int)pid);
	return !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "threads")) {
		iters = atol(argv[3]);
		held = argc >= 5 && !strcmp(argv[4], "hold");
		return run_threads(atoi(argv[2]));
	}
	if (argc >= 5 && !strcmp(argv[1], "fork"))
		return run_fork(atol(argv[2]), atol(argv[3]), atol(argv[4]));
	if (argc >= 4 && !strcmp(argv[1], "export")) {
		/* export NAME ITERS: through the API, after gates already ran */
		iters = atol(argv[3]);
		for (long i = 0; i < iters; i++)
			event();
		if (pp_shm_export(argv[2], PP_SHM_KEEP) != 0)
			return 1;
		for (long i = 0; i < iters; i++)
			event();
		return 0;
	}
	fprintf(stderr, "usage: live_writer threads N ITERS [hold] | fork N1 N2 N3 | export NAME ITERS\n");
	return 2;
}
