/* Runs main > mid > leaf until an asynchronous signal ends it, then says how
 * it was sent. The signal comes from outside (a terminal, kill, tgkill: mode
 * wait, which prints "ready" once gated calls have run) or from the program
 * itself: sigqueue (SI_QUEUE), a POSIX timer (SI_TIMER), the kernel at the
 * CPU-time limit (SIGXCPU, SI_KERNEL) or a tgkill at its own thread
 * (SI_TKILL). Without pathprof each ends the process by the signal's
 * default action; tests/crash/async.py checks the gated build ends the same.
 * usage: async MODE SIGNAL */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "../modules/gate.h"

static volatile unsigned sink;

G_FN static void leaf(unsigned i)
{
	GATE("leaf");
	sink += i;
}

G_FN static void mid(unsigned i)
{
	GATE("mid");
	leaf(i);
}

G_FN static void spin(unsigned n)
{
	GATE("spin");
	for (unsigned i = 0; i < n; i++)
		mid(i & 1);
}

G_FN int main(int argc, char **argv)
{
	GATE("main");
	if (argc != 3)
		return 2;
	const char *mode = argv[1];
	int sig = atoi(argv[2]);
	spin(1000);
	if (!strcmp(mode, "wait")) {
		printf("ready\n");
		fflush(stdout);
	} else if (!strcmp(mode, "sigqueue")) {
		union sigval v = {.sival_int = 7};
		sigqueue(getpid(), sig, v);
	} else if (!strcmp(mode, "tgkill")) {
		syscall(SYS_tgkill, (long)getpid(), (long)syscall(SYS_gettid), (long)sig);
	} else if (!strcmp(mode, "timer")) {
		struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = sig};
		timer_t t;
		struct itimerspec in = {.it_value = {0, 50 * 1000000L}};
		if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0 || timer_settime(t, 0, &in, NULL) != 0)
			return 3;
	} else if (!strcmp(mode, "cpu")) {
		/* the kernel sends SIGXCPU at the soft limit */
		struct rlimit r = {.rlim_cur = 1, .rlim_max = RLIM_INFINITY};
		if (setrlimit(RLIMIT_CPU, &r) != 0)
			return 3;
	} else {
		return 2;
	}
	/* Up to 20 s of gated calls: the signal ends the process long before. */
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		spin(100000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec < 20);
	printf("still running\n");
	return 0;
}
