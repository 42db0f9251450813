/* A daemon's start-up: close every descriptor it did not open, open its log,
 * write one line, then run gated code on two threads (a new thread takes
 * arena memory, the trace writes chunks at exit). The log must hold exactly
 * that line: the runtime may keep no descriptor the program can close and
 * reuse (#27). usage: fds loop|range LOG */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#include "../modules/gate.h"

static volatile unsigned sink;

G_FN static int work(int x)
{
	GATE("work");
	sink += (unsigned)x;
	return x + 1;
}

G_FN static void *worker(void *arg)
{
	GATE("worker");
	for (int i = 0; i < 100000; i++)
		work(i);
	return arg;
}

G_FN int main(int argc, char **argv)
{
	GATE("main");
	if (argc != 3)
		return 2;
	work(0);
	if (!strcmp(argv[1], "range"))
		close_range(3, ~0U, 0);
	else
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	int log = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (log < 0 || write(log, "hello\n", 6) != 6)
		return 3;
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 4;
	return work(0) - 1;
}
