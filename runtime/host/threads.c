/* pthread_create, interposed. While the program runs one thread, the
 * runtime starts none of its own (PATHPROF_NAMER=auto, shm.c): glibc keeps
 * its single-threaded ways (stdio without its streams' locks, malloc
 * without its arena's) only until the first pthread_create, and a thread of
 * ours would have made the profiled program slower exactly where it does
 * I/O and allocates. The program's first thread ends that anyway: the
 * naming thread starts with it, before it, so that the live segment names
 * what every thread records from then on. The runtime's own threads come
 * through here too (own_thread.c) and start nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

#include "own_thread.h"
#include "runtime.h"
#include "shm.h"

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

PP_EXPORT PP_NOINSTR int pthread_create(pthread_t *restrict thread, const pthread_attr_t *restrict attr,
					void *(*start)(void *), void *restrict arg)
{
	static create_fn real;
	create_fn fn = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
	if (!fn) {
		/* the default version, as a program linked today calls */
		fn = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
		if (!fn)
			return EAGAIN;
		__atomic_store_n(&real, fn, __ATOMIC_RELEASE);
	}
	if (!pp__own_thread_starting)
		pp__shm_namer_now();
	return fn(thread, attr, start, arg);
}
