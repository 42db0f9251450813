/* A thread of the runtime's own that runs one round every so often until
 * stopped: the budget's judge (throttle.c) and the timing windows' pacer
 * (burst.c). The program's signals never reach it (it blocks them all), a
 * fork() waits for its round to end and the child has none of them, and
 * stopping it joins it. */
#ifndef PP_TICKER_H
#define PP_TICKER_H

#include <pthread.h>
#include <stdint.h>

typedef struct pp__ticker {
	const char *name;       /* the thread's, after PP__OWN_THREAD_PREFIX (6 characters at most) */
	const char *what;       /* for the warning when it cannot start */
	void (*begin)(void);    /* once, in the thread, before the first wait (may be NULL) */
	uint64_t (*round)(void); /* one round; returns ns to wait before the next */
	void (*end)(void);      /* once, in the thread, when stopped (may be NULL) */
	uint64_t first_wait_ns;
	/* private */
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int running, stopping;
} pp__ticker_t;

#define PP__TICKER_INIT(name_, what_, begin_, round_, end_, first_)                   \
	{ .name = (name_), .what = (what_), .begin = (begin_), .round = (round_),       \
	  .end = (end_), .first_wait_ns = (first_), .lock = PTHREAD_MUTEX_INITIALIZER }

/* Start it (once per ticker: call under a pthread_once). 0, or -1 with a
 * warning. */
int pp__ticker_start(pp__ticker_t *k);
/* Stop it and wait for its last round; nothing when it is not running. */
void pp__ticker_stop(pp__ticker_t *k);
/* In a forked child, where it is not running: start it afresh (from a
 * child fork handler registered after the ticker was first started, so
 * that ticker.c's own handler has made its lock fresh). */
int pp__ticker_restart_in_child(pp__ticker_t *k);
/* Is it running (started, not stopped, not lost in a fork)? */
int pp__ticker_running(const pp__ticker_t *k);

#endif
