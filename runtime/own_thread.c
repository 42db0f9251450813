/* The runtime's own threads start with every signal blocked and are waited
 * for until they run their function. Why wait: a thread's start is not
 * fork-safe everywhere. Under ASan (gcc 12, clang 14) it allocates and frees
 * inside the sanitizer's allocator, which takes no lock at fork(); a fork
 * in that instant gave a child whose allocator lock is held by a thread it
 * does not have, and whose own namer then hung at its start (CI, live-cli).
 * Once started, each thread keeps its allocations under a lock that its
 * fork handlers take (shm.c, ticker.c).
 *
 * Each also gets a descriptor table of its own (own_table). The namer and
 * the throttling thread open files (/proc/self/maps, every module's ELF file)
 * while the program runs; in the program's table, a daemon's close_range(3,
 * ~0U) or closing loop closed them half-way (the symbolizer failed and every
 * function was named by address, CI, safety-fds), and the program's next
 * open() could reuse the number, so that our read or close landed on the
 * program's file. */
#define _GNU_SOURCE /* pthread_setname_np, unshare */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "own_thread.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* In an own thread with a private table: a pidfd of the process, through
 * which pp__own_thread_stderr reaches the program's descriptor 2; -2 in
 * every other thread. */
static __thread int program_pidfd = -2;

/* Raw syscalls: the sanitizers' descriptor bookkeeping is by number, and
 * these numbers are not the program's. */
static void close_private(int fd)
{
	syscall(SYS_close, fd);
}

/* Close every descriptor of this thread's private table but 2. Kernels
 * before 5.9 have no close_range: the table is listed instead
 * (/proc/thread-self, as /proc/self is the main thread's table). */
static void close_all_but_stderr(void)
{
	if (syscall(SYS_close_range, 0, 1, 0) == 0 && syscall(SYS_close_range, 3, ~0U, 0) == 0)
		return;
	DIR *d = opendir("/proc/thread-self/fd");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (e->d_name[0] != '.' && fd != dirfd(d) && fd != 2)
			close_private(fd);
	}
	closedir(d);
}

/* The table starts as a copy of the program's and is emptied at once, so
 * that no file of the program stays open through us (a pipe's reader would
 * wait for an end of file that never comes). Descriptor 2 is kept only
 * where the kernel cannot lend the program's at each warning (before 5.6,
 * or a security module refusing pidfd_getfd). Where unshare is refused (a
 * seccomp filter), the thread keeps sharing the program's table as before. */
static void own_table(void)
{
	if (unshare(CLONE_FILES) != 0)
		return;
	close_all_but_stderr();
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	int probe = pidfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pidfd, 2, 0) : -1;
	if (probe >= 0 || (pidfd >= 0 && errno == EBADF)) {
		if (probe >= 0)
			close_private(probe);
		close_private(2);
		program_pidfd = pidfd;
	} else {
		if (pidfd >= 0)
			close_private(pidfd);
		program_pidfd = -1;
	}
}

int pp__own_thread_stderr(void)
{
	if (program_pidfd == -2)
		return -2;
	if (program_pidfd == -1)
		return dup(2);
	return (int)syscall(SYS_pidfd_getfd, program_pidfd, 2, 0);
}

void pp__own_thread_stderr_done(int fd)
{
	if (fd >= 0)
		close_private(fd);
}

struct start {
	const char *name;
	void *(*fn)(void *);
	void *arg;
	int up; /* 1 once the thread runs */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void *trampoline(void *p)
{
	struct start *s = p;
	void *(*fn)(void *) = s->fn;
	void *arg = s->arg;
	char name[16];
	snprintf(name, sizeof name, "%s%s", PP__OWN_THREAD_PREFIX, s->name);
	pthread_setname_np(pthread_self(), name);
	own_table();
	/* s lives on the starter's stack, which it leaves once it sees up under
	 * the lock: the unlock is the last use of s */
	pthread_mutex_lock(&s->lock);
	s->up = 1;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return fn(arg);
}

__thread int pp__own_thread_starting;

int pp__own_thread_start(pthread_t *tid, const char *name, void *(*fn)(void *), void *arg)
{
	struct start s = { name, fn, arg, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };
	sigset_t every, old;
	sigfillset(&every);
	pthread_sigmask(SIG_SETMASK, &every, &old);
	pp__own_thread_starting = 1;
	int rc = pthread_create(tid, NULL, trampoline, &s);
	pp__own_thread_starting = 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc == 0) {
		pthread_mutex_lock(&s.lock);
		while (!s.up)
			pthread_cond_wait(&s.cond, &s.lock);
		pthread_mutex_unlock(&s.lock);
	}
	pthread_cond_destroy(&s.cond);
	pthread_mutex_destroy(&s.lock);
	return rc;
}
