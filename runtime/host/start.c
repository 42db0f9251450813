/* The runtime as a guest of a program: what it does for the process it is
 * loaded into, beyond counting. A constructor starts it when the program
 * loads; it then writes the profile at a fatal or ending signal (crash.c),
 * at _exit and exec (exits.c) and at exit (the first gated thread hooks the
 * exit dump), and gives each gated thread an alternate signal stack.
 *
 * This folder is linked into libpathprof, and every file that includes the
 * gate refers to pp__host_start (pathprof/gate.h), so a static link keeps
 * it; it is linked into nothing else: the
 * pathprof tool links the runtime to replay gates but is nobody's host, so
 * it installs no handler and writes no profile of itself (#28). */
#include <pthread.h>

#include <pathprof/gate.h>
#include "runtime.h"
#include "slab.h"
#include "throttle.h"
#include "gate_window.h"

static PP_NOINSTR void thread_start(pp__tls_t *t)
{
	pp__crash_thread(&((pp__slab_t *)t->slab)->altstack);
	pp__hook_exit();
	pp__throttle_start();
	pp__burst_start();
}

static void start(void)
{
	pp__init();
	uint64_t cpu = pp__thread_cpu_ns(); /* the runtime's, not the program's */
	__atomic_store_n(&pp__host.thread_start, thread_start, __ATOMIC_RELEASE);
	if (pp__g.crash_dump)
		pp__crash_arm();
	pp__exits_arm();
	/* An explicit PATHPROF_OUT is a request for a profile even when no gate
	 * runs (an unarmed XRay binary writes an empty one); so is a thread
	 * that gated before this constructor ran (another library's). */
	if (pp__g.out[0] || pp__threads_seen())
		pp__hook_exit();
	pp__own_cpu_since(cpu);
}

PP_EXPORT void pp__host_start(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, start);
}

__attribute__((constructor(101))) PP_NOINSTR static void at_load(void)
{
	pp__host_start();
}
