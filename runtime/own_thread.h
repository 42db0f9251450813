/* Starting one of the runtime's own threads (the namer, the tickers). */
#ifndef PP_OWN_THREAD_H
#define PP_OWN_THREAD_H

#include <pthread.h>

/* Start fn(arg) on a joinable thread that blocks every signal (the
 * program's signals go to the program's threads), and return only once it
 * runs fn: a fork() after this never copies the thread half-way through
 * its start. 0, or the error pthread_create gave. */
int pp__own_thread_start(pthread_t *tid, void *(*fn)(void *), void *arg);

#endif
