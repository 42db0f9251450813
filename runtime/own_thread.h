/* Starting one of the runtime's own threads (the namer, the tickers). */
#ifndef PP_OWN_THREAD_H
#define PP_OWN_THREAD_H

#include <pthread.h>

/* Every such thread is named PP__OWN_THREAD_PREFIX and a word before it
 * runs anything (ps, top, perf and gdb show it so): `pathprof run --offcpu`
 * leaves the blocks of a process's threads so named out, from the first,
 * without waiting to learn their ids (tools/offcpu/offcpu.bpf.c). */
#define PP__OWN_THREAD_PREFIX "pathprof:"

/* Start fn(arg) on a joinable thread named PP__OWN_THREAD_PREFIX name
 * (15 characters in all at most) that blocks every signal (the program's
 * signals go to the program's threads), and return only once it runs fn: a
 * fork() after this never copies the thread half-way through its start. 0,
 * or the error pthread_create gave. */
int pp__own_thread_start(pthread_t *tid, const char *name, void *(*fn)(void *), void *arg);

/* Set while pp__own_thread_start creates its thread: the pthread_create
 * the runtime interposes (host/threads.c) then starts no naming thread
 * (the gate-cost measure at exit is such a thread; the tickers start
 * the namer themselves). */
extern __thread int pp__own_thread_starting;

/* Such a thread has a descriptor table of its own (own_thread.c), so its
 * descriptor 2 is not the program's. -2 on any other thread (write to
 * stderr as usual); else a descriptor of the program's standard error now,
 * or -1 when the program has none, to be given back to
 * pp__own_thread_stderr_done. */
int pp__own_thread_stderr(void);
void pp__own_thread_stderr_done(int fd);

#endif
