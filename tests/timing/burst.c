/* A program with one event whose time split is known, for burst timing
 * (tests/timing/burst.sh): main runs ROUNDS rounds; each spins 60 us in
 * main itself, calls work() three times (30 us each, a leaf step() inside
 * of 10 us) and rest() once (40 us). Spins read the clock, so the split
 * holds whatever the gates cost: of every round's 190 us, main's own 60,
 * work's own 60 and step's 30, rest's 40. A second thread runs the same
 * rounds when asked, so windows are checked on both; or the process forks
 * and a child runs them (a pre-forking server's worker keeps its timing).
 * usage: burst ROUNDS [2 | fork] */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gates.h"

/* the spin is no gate in any build */
NOGATE __attribute__((noinline)) static void spin(uint64_t ns)
{
	uint64_t end = now_ns() + ns;
	while (now_ns() < end)
		;
}

__attribute__((noinline)) void step(void)
{
	G("step");
	spin(10000);
}

__attribute__((noinline)) void work(void)
{
	G("work");
	spin(20000);
	step();
}

__attribute__((noinline)) void rest(void)
{
	G("rest");
	spin(40000);
}

NOGATE static void rounds(int n)
{
	for (int r = 0; r < n; r++) {
		spin(60000);
		for (int i = 0; i < 3; i++)
			work();
		rest();
	}
}

static int nrounds;

static void *other(void *arg)
{
	G("other");
	rounds(nrounds);
	return arg;
}

int main(int argc, char **argv)
{
	G("main");
	nrounds = argc > 1 ? atoi(argv[1]) : 2000;
	pthread_t t;
	int two = argc > 2 && atoi(argv[2]) == 2;
	if (argc > 2 && !strcmp(argv[2], "fork")) {
		pid_t c = fork();
		if (c == 0) {
			rounds(nrounds);
			exit(0);
		}
		int st;
		return c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st);
	}
	if (two && pthread_create(&t, NULL, other, NULL) != 0)
		return 1;
	rounds(nrounds);
	if (two)
		pthread_join(t, NULL);
	return 0;
}
