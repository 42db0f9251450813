/* Does a thread lag the budget's first stop (runtime/throttle.c,
 * pp__throttle_thread_lags)? A cyg exit hook is patched out only once no
 * thread can still push a frame on a test of its tlimit made before the
 * stop: one that lost the CPU between the two. Three threads, each gated
 * once (so each owns a slab) and none come the budget's way:
 *   - asleep on a condition variable: not lagging at the first look;
 *   - spinning in code without gates: lagging at the first look (it runs),
 *     not once it has run a millisecond of CPU since;
 *   - ready to run but given no CPU: pinned to CPU 0 beside a SCHED_FIFO
 *     thread spinning there for 300 ms, lagging at every look in that time
 *     (the old rule counted every thread past 50 ms after the stop), and
 *     not once the FIFO thread is gone and it has run again.
 * The third part needs two CPUs and the right to set SCHED_FIFO; without
 * them it is skipped, said on stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pathprof/raii.h>
#include "check.h"
#include "runtime.h"
#include "slab.h"
#include "throttle.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int quit, waiting;
static int stop_spin, hog_run; /* atomic: read by other threads */

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* One gate, so the thread owns a slab; the slab, for the main thread. */
__attribute__((noinline)) static void gated(pp__slab_t **out)
{
	PP_GATE("gated");
	__atomic_store_n(out, (pp__slab_t *)pp__tls.slab, __ATOMIC_RELEASE);
}

static void *sleeper(void *arg)
{
	gated(arg);
	pthread_mutex_lock(&mu);
	waiting = 1;
	while (!quit)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *spinner(void *arg)
{
	gated(arg);
	while (!__atomic_load_n(&stop_spin, __ATOMIC_RELAXED))
		;
	return NULL;
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *starved(void *arg)
{
	pin(0);
	gated(arg);
	while (!__atomic_load_n(&stop_spin, __ATOMIC_RELAXED))
		;
	return NULL;
}

static void *hog(void *arg)
{
	(void)arg;
	double until = now_ms() + 300;
	while (now_ms() < until)
		;
	__atomic_store_n(&hog_run, 0, __ATOMIC_RELAXED);
	return NULL;
}

static pp__slab_t *wait_slab(pp__slab_t **p)
{
	pp__slab_t *s;
	while (!(s = __atomic_load_n(p, __ATOMIC_ACQUIRE)))
		sleep_ms(1);
	return s;
}

/* Looks at s every 10 ms until it says past or ms have gone: the number of
 * looks that said lagging. */
static int lagging_looks(pp__slab_t *s, double ms)
{
	int n = 0;
	for (double end = now_ms() + ms; now_ms() < end; sleep_ms(10)) {
		if (!pp__throttle_thread_lags(s))
			break;
		n++;
	}
	return n;
}

/* Does s say past within ms (looked at every 10 ms)? */
static int past_within(pp__slab_t *s, double ms)
{
	for (double end = now_ms() + ms; now_ms() < end; sleep_ms(10))
		if (!pp__throttle_thread_lags(s))
			return 1;
	return 0;
}

/* The starved thread: 0 passed, 1 skipped. */
static int starved_part(void)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "skip starved thread: one CPU\n");
		return 1;
	}
	pin(1);
	pp__slab_t *slab = NULL;
	pthread_t st, ht;
	pthread_attr_t a;
	struct sched_param prio = {.sched_priority = 1};
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	pthread_attr_setschedparam(&a, &prio);
	pthread_attr_setaffinity_np(&a, sizeof set, &set);
	__atomic_store_n(&stop_spin, 0, __ATOMIC_RELAXED);
	CHECK(pthread_create(&st, NULL, starved, &slab) == 0);
	pp__slab_t *s = wait_slab(&slab);
	sleep_ms(20); /* settled on CPU 0, spinning */
	__atomic_store_n(&hog_run, 1, __ATOMIC_RELAXED);
	int e = pthread_create(&ht, &a, hog, NULL);
	pthread_attr_destroy(&a);
	if (e) {
		__atomic_store_n(&hog_run, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&stop_spin, 1, __ATOMIC_RELAXED);
		pthread_join(st, NULL);
		fprintf(stderr, "skip starved thread: no SCHED_FIFO thread (%s)\n", strerror(e));
		return 1;
	}
	sleep_ms(20); /* the FIFO thread has CPU 0 */
	double t0 = now_ms();
	int looks = lagging_looks(s, 200);
	double took = now_ms() - t0;
	int during = __atomic_load_n(&hog_run, __ATOMIC_RELAXED);
	pthread_join(ht, NULL);
	/* lagging all along: every look said so while the FIFO thread ran */
	if (!during || looks < 15) {
		fprintf(stderr, "starved thread: %d lagging looks in %.0f ms, FIFO thread %s\n", looks,
			took, during ? "running" : "gone");
		CHECK(during && looks >= 15);
	}
	/* the FIFO thread is gone: the starved thread runs again */
	CHECK(past_within(s, 2000));
	CHECK(!pp__throttle_thread_lags(s));
	__atomic_store_n(&stop_spin, 1, __ATOMIC_RELAXED);
	pthread_join(st, NULL);
	return 0;
}

int main(void)
{
	pp__slab_t *sl = NULL, *sp = NULL;
	pthread_t a, b;
	CHECK(pthread_create(&a, NULL, sleeper, &sl) == 0);
	CHECK(pthread_create(&b, NULL, spinner, &sp) == 0);
	pp__slab_t *s_sleep = wait_slab(&sl), *s_spin = wait_slab(&sp);
	for (int w = 0; !w; sleep_ms(1)) {
		pthread_mutex_lock(&mu); /* held by the sleeper until it waits */
		w = waiting;
		pthread_mutex_unlock(&mu);
	}
	sleep_ms(20); /* asleep on the condition variable by now */
	CHECK(!pp__throttle_thread_lags(s_sleep));
	/* running, not asleep: lagging until it has run a millisecond since */
	CHECK(pp__throttle_thread_lags(s_spin));
	CHECK(past_within(s_spin, 2000));
	CHECK(!pp__throttle_thread_lags(s_spin));
	/* a thread that came the budget's way is past whatever it does */
	__atomic_store_n(&s_spin->budget_seen, 1, __ATOMIC_RELEASE);
	s_spin->lag_cpu = 0;
	CHECK(!pp__throttle_thread_lags(s_spin));
	__atomic_store_n(&stop_spin, 1, __ATOMIC_RELAXED);
	pthread_join(b, NULL);
	pthread_mutex_lock(&mu);
	quit = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(a, NULL);
	int skipped = starved_part();
	printf("ok%s\n", skipped ? " (starved thread skipped)" : "");
	return 0;
}
