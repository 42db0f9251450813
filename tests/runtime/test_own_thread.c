/* The runtime's own threads (runtime/own_thread.c) keep their descriptors
 * in a table of their own: what they open survives the program's
 * close_range(3, ~0U) and never takes a number the program uses, no file of
 * the program stays open through them, and their warnings still reach the
 * program's standard error as it is at the time of the warning. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include "check.h"
#include "own_thread.h"
#include "runtime.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int step; /* what main did last; the thread answers with step + 1 */
static int program_fd; /* a descriptor the program opened before the thread */
static int seen_program_fd, mine = -1, mine_read_after;

static void wait_for(int s)
{
	pthread_mutex_lock(&lock);
	while (step != s)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

static void go(int s)
{
	pthread_mutex_lock(&lock);
	step = s;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static void *own(void *arg)
{
	seen_program_fd = fcntl(program_fd, F_GETFD) >= 0 || errno != EBADF;
	mine = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	pp__warn("first %d", 1);
	go(1);
	wait_for(2); /* main closed everything, opened again, moved stderr */
	char c = 0;
	mine_read_after = read(mine, &c, 1) == 1 && strchr("0123456789abcdef", c);
	pp__warn("second %d", 2);
	close(mine);
	go(3);
	return arg;
}

static void slurp(int fd, char *buf, size_t n)
{
	ssize_t got = pread(fd, buf, n - 1, 0);
	CHECK(got >= 0);
	buf[got] = 0;
}

int main(void)
{
	char err1[] = "/tmp/pp-own-thread-1.XXXXXX", err2[] = "/tmp/pp-own-thread-2.XXXXXX";
	int e1 = mkstemp(err1), e2 = mkstemp(err2);
	CHECK(e1 >= 0 && e2 >= 0);
	int again = open(err2, O_WRONLY | O_APPEND);
	CHECK(again >= 0);
	unlink(err1);
	unlink(err2);
	int saved = dup(2);
	CHECK(dup2(e1, 2) == 2);
	program_fd = open("/dev/null", O_RDONLY);
	int pipefd[2];
	CHECK(pipe(pipefd) == 0);

	pthread_t tid;
	CHECK(pp__own_thread_start(&tid, "test", own, NULL) == 0);
	wait_for(1);
	/* the pipe's write end was copied with the table: closing ours must
	 * end the reader's wait at once, no copy held */
	close(pipefd[1]);
	struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
	int pipe_ended = poll(&p, 1, 2000) == 1 && (p.revents & POLLHUP);
	/* a daemon's start: every descriptor closed (but the test's own),
	 * and standard error goes elsewhere */
	for (int fd = 3; fd < 256; fd++)
		if (fd != saved && fd != e1 && fd != e2 && fd != again)
			close(fd);
	int moved = dup2(again, 2) == 2;
	go(2);
	wait_for(3);
	pthread_join(tid, NULL);
	dup2(saved, 2); /* checked from here on, with the test's stderr back */
	CHECK(pipe_ended);
	CHECK(moved);

	CHECK(!seen_program_fd);
	CHECK(mine >= 0);
	CHECK(mine_read_after);
	char buf[256];
	slurp(e1, buf, sizeof buf);
	CHECK_EQ_STR(buf, "pathprof: first 1\n");
	slurp(e2, buf, sizeof buf);
	CHECK_EQ_STR(buf, "pathprof: second 2\n");
	printf("ok\n");
	return 0;
}
