/* The runtime's own threads start with every signal blocked and are waited
 * for until they run their function. Why wait: a thread's start is not
 * fork-safe everywhere. Under ASan (gcc 12, clang 14) it allocates and frees
 * inside the sanitizer's allocator, which takes no lock at fork(); a fork
 * in that instant gave a child whose allocator lock is held by a thread it
 * does not have, and whose own namer then hung at its start (CI, live-cli).
 * Once started, each thread keeps its allocations under a lock that its
 * fork handlers take (shm.c, ticker.c). */
#define _GNU_SOURCE /* pthread_setname_np */
#include <signal.h>
#include <stdio.h>

#include "own_thread.h"

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
	/* s lives on the starter's stack, which it leaves once it sees up under
	 * the lock: the unlock is the last use of s */
	pthread_mutex_lock(&s->lock);
	s->up = 1;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return fn(arg);
}

int pp__own_thread_start(pthread_t *tid, const char *name, void *(*fn)(void *), void *arg)
{
	struct start s = { name, fn, arg, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };
	sigset_t every, old;
	sigfillset(&every);
	pthread_sigmask(SIG_SETMASK, &every, &old);
	int rc = pthread_create(tid, NULL, trampoline, &s);
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
