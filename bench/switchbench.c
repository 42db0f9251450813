/* Cost of off-CPU recording per block (bench/offcpu.sh): two gated threads
 * hand a token back and forth through pipes N times, so every hand-over is
 * one block and one wake-up of each thread. Both run on CPU 0, so a
 * hand-over is a local switch, not a wake-up of an idle CPU (tens of µs on a
 * virtual machine, which would hide what is measured). Prints "round_trips
 * N ns_per_rt X". usage: switchbench N */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <pathprof/raii.h>

static int ping[2], pong[2];
static long rounds;

__attribute__((noinline)) static void hand(int in, int out)
{
	PP_GATE("hand");
	char c;
	if (read(in, &c, 1) != 1 || write(out, &c, 1) != 1)
		exit(1);
}

static void *echo(void *a)
{
	(void)a;
	for (long i = 0; i < rounds; i++) {
		PP_ROOT();
		hand(ping[0], pong[1]);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	rounds = argc > 1 ? atol(argv[1]) : 100000;
	if (pipe(ping) || pipe(pong))
		return 1;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof one, &one); /* the thread below inherits it */
	pthread_t t;
	pthread_create(&t, NULL, echo, NULL);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	char c = 'x';
	for (long i = 0; i < rounds; i++) {
		PP_ROOT();
		PP_GATE("serve");
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(t, NULL);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("round_trips %ld ns_per_rt %.1f\n", rounds, ns / (double)rounds);
	return 0;
}
