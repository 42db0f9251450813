/* Process images that end without exit(): an exec chain and forked children
 * that _exit (#27). usage:
 *   images exec K     runs K*10 leaf calls, then execs itself with K-1 (K>0)
 *   images fork N     N children each run 7 leaf calls and _exit(0); the
 *                     parent runs 3 and exits
 *   images hold MS    runs 5 leaf calls, sleeps MS ms, exits (several at once
 *                     share one PATHPROF_OUT) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../modules/gate.h"

static volatile unsigned sink;

G_FN static void leaf(unsigned i)
{
	GATE("leaf");
	sink += i;
}

G_FN static void calls(unsigned n)
{
	GATE("calls");
	for (unsigned i = 0; i < n; i++)
		leaf(i);
}

G_FN int main(int argc, char **argv)
{
	GATE("main");
	if (argc != 3)
		return 2;
	long k = atol(argv[2]);
	if (!strcmp(argv[1], "exec")) {
		calls((unsigned)k * 10);
		if (k > 1) {
			char next[32];
			snprintf(next, sizeof next, "%ld", k - 1);
			execl("/proc/self/exe", argv[0], "exec", next, (char *)NULL);
			return 3;
		}
		return 0;
	}
	if (!strcmp(argv[1], "fork")) {
		for (long i = 0; i < k; i++) {
			pid_t p = fork();
			if (p == 0) {
				calls(7);
				_exit(0);
			}
			int st;
			if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
				return 4;
		}
		calls(3);
		return 0;
	}
	if (!strcmp(argv[1], "hold")) {
		calls(5);
		struct timespec t = {k / 1000, (k % 1000) * 1000000L};
		nanosleep(&t, NULL);
		return 0;
	}
	return 2;
}
