/* lock: one thread waits for a lock another holds for 25 ms (20 asleep, 5
 * computing), five times;
 * the example of docs/guides/offcpu.md (`pathprof run --offcpu`). The two
 * threads hand the rounds over through an atomic flag they spin on with
 * sched_yield, which never blocks, so the only blocks are the ones the page
 * shows: `contender` on the futex (woken by `holder`'s unlock) and
 * `holder`'s sleep (woken by the kernel's timer). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 5

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int turn; /* 2 * round: holder's move, 2 * round + 1: contender's */

static void wait_turn(int t)
{
	while (atomic_load(&turn) != t)
		sched_yield();
}

__attribute__((noinline)) static void hold(void)
{
	struct timespec ms20 = {0, 20 * 1000 * 1000};
	nanosleep(&ms20, NULL);
}

/* On the CPU: the lock's wait is longer than the sleep, so the page's
 * edges come in one order. */
__attribute__((noinline)) static void compute(void)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 5000000L);
}

__attribute__((noinline)) static void *holder(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		wait_turn(2 * r);
		pthread_mutex_lock(&lock);
		atomic_store(&turn, 2 * r + 1);
		hold();
		compute();
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

__attribute__((noinline)) static void contend(void)
{
	pthread_mutex_lock(&lock); /* blocks until holder's unlock */
	pthread_mutex_unlock(&lock);
}

__attribute__((noinline)) static void *contender(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		wait_turn(2 * r + 1);
		contend();
		atomic_store(&turn, 2 * r + 2);
	}
	return NULL;
}

int main(void)
{
	pthread_t a, b;
	/* The recorder names a blocked thread's gates through the live segment,
	 * which the runtime exports a few ms after the first gate: blocks
	 * before that count "outside any gate" (docs/guides/offcpu.md). */
	struct timespec ms50 = {0, 50 * 1000 * 1000};
	nanosleep(&ms50, NULL);
	pthread_create(&a, NULL, holder, NULL);
	pthread_create(&b, NULL, contender, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("lock: %d rounds\n", ROUNDS);
	return 0;
}
