/* The runtime's periodic threads (ticker.h). Each waits on a condition
 * variable against CLOCK_MONOTONIC, so stopping one wakes it at once. */
#include <time.h>

#include "own_thread.h"
#include "shm.h"
#include "runtime.h"
#include "ticker.h"

#define MAX_TICKERS 4

static pp__ticker_t *all[MAX_TICKERS];
static uint32_t nall;

/* begin and every round run under the ticker's lock, which its fork
 * handler takes: no fork() copies a round half-way (a round may allocate). */
static void *ticker_main(void *arg)
{
	pp__ticker_t *k = arg;
	uint64_t wait_ns = k->first_wait_ns;
	pthread_mutex_lock(&k->lock);
	if (k->begin)
		k->begin();
	while (!k->stopping) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		uint64_t t = (uint64_t)until.tv_nsec + wait_ns;
		until.tv_sec += (time_t)(t / 1000000000u);
		until.tv_nsec = (long)(t % 1000000000u);
		while (!k->stopping && pthread_cond_timedwait(&k->cond, &k->lock, &until) == 0)
			;
		if (k->stopping)
			break;
		wait_ns = k->round();
	}
	if (k->end)
		k->end();
	pthread_mutex_unlock(&k->lock);
	return NULL;
}

static void fork_prepare(void)
{
	for (uint32_t i = 0; i < nall; i++)
		pthread_mutex_lock(&all[i]->lock);
}

static void fork_parent(void)
{
	for (uint32_t i = nall; i-- > 0;)
		pthread_mutex_unlock(&all[i]->lock);
}

/* A forked child has none of its parent's threads; the locks it holds
 * (fork_prepare's) are made fresh. */
static void fork_child(void)
{
	for (uint32_t i = 0; i < nall; i++) {
		pthread_mutex_init(&all[i]->lock, NULL);
		all[i]->running = 0;
	}
}

/* Its condition variable (fresh: in a forked child the parent's may be
 * mid-use) and its thread. */
static int spawn(pp__ticker_t *k)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&k->cond, &ca);
	pthread_condattr_destroy(&ca);
	pp__shm_namer_now(); /* the process has more than one thread from here */
	if (pp__own_thread_start(&k->tid, k->name, ticker_main, k) != 0) {
		pp__warn("%s", k->what);
		return -1;
	}
	k->running = 1;
	return 0;
}

int pp__ticker_start(pp__ticker_t *k)
{
	static pthread_mutex_t reg = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutex_lock(&reg);
	if (nall == 0)
		pthread_atfork(fork_prepare, fork_parent, fork_child);
	if (nall < MAX_TICKERS)
		all[nall++] = k;
	pthread_mutex_unlock(&reg);
	return spawn(k);
}

int pp__ticker_restart_in_child(pp__ticker_t *k)
{
	k->running = 0;
	k->stopping = 0;
	return spawn(k);
}

void pp__ticker_stop(pp__ticker_t *k)
{
	if (!k->running)
		return;
	pthread_mutex_lock(&k->lock);
	k->stopping = 1;
	pthread_cond_signal(&k->cond);
	pthread_mutex_unlock(&k->lock);
	pthread_join(k->tid, NULL);
	k->running = 0;
}

int pp__ticker_running(const pp__ticker_t *k)
{
	return k->running && !k->stopping;
}
