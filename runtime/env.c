/* Start-up: PATHPROF_* variables and one-time initialisation. A bad value is
 * reported once on stderr and the default is used, so a typo in production
 * never stops the program. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "settings.h"
#include "select.h"
#include "shm.h"
#include "slab.h"
#include "recorder.h"
#include "throttle.h"

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* A positive integer within [lo, hi], or the default with a warning. */
static uint64_t env_number(const char *var, uint64_t def, uint64_t lo, uint64_t hi)
{
	const char *s = getenv(var);
	if (!s || !*s)
		return def;
	uint64_t v;
	if (pp__parse_digits(s, lo, hi, &v) != 0) {
		pp__warn("%s=%s: expected a whole number from %llu to %llu; using %llu", var, s,
			 (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)def);
		return def;
	}
	return v;
}

void pp__env_load(void)
{
	const char *s = getenv("PATHPROF_TIMING");
	if (s && *s) {
		uint32_t mode = PP_TIMING_OFF, n = pp__mode.sample_n;
		if (pp__parse_timing(s, &mode, &n) == 0)
			pp__set_timing(mode, n);
		else
			pp__warn("PATHPROF_TIMING=%s: expected off, on, sample:N (N >= 1) or burst[:N] (1 <= N <= 1000); using off", s);
	}
	s = getenv("PATHPROF_OUT");
	if (s && *s) {
		if (strlen(s) >= sizeof pp__g.out)
			pp__warn("PATHPROF_OUT is longer than %zu bytes; using the default name",
				 sizeof pp__g.out - 1);
		else
			strcpy(pp__g.out, s);
	}
	s = getenv("PATHPROF_TRACE");
	if (s && *s) {
		/* a trace replays whole events, timed or not; a window cuts them */
		if (pp__mode.timing == PP_TIMING_BURST) {
			pp__warn("PATHPROF_TIMING=burst: a trace (PATHPROF_TRACE) records whole events; "
				 "timing off");
			pp__set_timing(PP_TIMING_OFF, 0);
		}
		pp__trace_arm(s);
	}
	s = getenv("PATHPROF_CRASH");
	pp__g.crash_dump = 1;
	if (s && *s) {
		if (!strcmp(s, "off"))
			pp__g.crash_dump = 0;
		else if (strcmp(s, "on"))
			pp__warn("PATHPROF_CRASH=%s: expected on or off; using on", s);
	}
	/* A path is at most as deep as the stack bound, and the profile file holds
	 * paths up to 4096 deep (docs/reference/file-format.md). */
	pp__config.depth = (uint32_t)env_number("PATHPROF_DEPTH", pp__config.depth, 2, 4096);
	pp__config.paths = env_number("PATHPROF_PATHS", pp__config.paths, 16, 1u << 26);
	pp__config.arena_mb = env_number("PATHPROF_ARENA_MB", pp__config.arena_mb, 16, 1u << 22);
	pp__shm_env_load();
	pp__select_env_load();
	s = getenv("PATHPROF_BUDGET");
	if (s && *s) {
		const char *timing = getenv("PATHPROF_TIMING");
		pp__throttle_env(s, timing && *timing);
	}
}

static void after_fork_child(void)
{
	pp__g.pid = (uint64_t)getpid();
	pp__g.start_ns = pp__realtime_ns();
	pp__g.own_cpu = 0;
	pp__g.cpu_frozen = 0;
	pp__clock_start();
	pp__shm_after_fork();
	pp__shm_export_after_fork(pp__slab_after_fork());
	pp__g.cpu_at_start = pp__process_cpu_ns(); /* the child's own, from 0 */
}

static void init(void)
{
	pp__g.pid = pp__g.first_pid = (uint64_t)getpid();
	pp__g.start_ns = pp__realtime_ns();
	pp__clock_start();
	pp__env_load();
	pp__process_init();
	pthread_atfork(NULL, NULL, after_fork_child);
	if (pp__config.shm[0])
		pp__shm_export_arm();
	/* the run's CPU time starts after the runtime's own start, which
	 * then holds the runtime's work counted so far (a selection in the
	 * environment reads its symbol tables in pp__env_load): not taken
	 * out twice */
	__atomic_store_n(&pp__g.own_cpu, 0, __ATOMIC_RELAXED);
	pp__g.cpu_at_start = pp__process_cpu_ns();
}

void pp__init(void)
{
	pthread_once(&init_once, init);
}

pp__host_t pp__host;

int pp__thread_start(pp__tls_t *t, int fe)
{
	pp__init();
	/* the registration and the host's thread start (the slab, its first
	 * pages, the alternate stack) are the runtime's work, not the program's */
	uint64_t cpu = pp__thread_cpu_ns();
	if (pp__thread_register(t, fe) != 0)
		return -1;
	void (*started)(pp__tls_t *) = __atomic_load_n(&pp__host.thread_start, __ATOMIC_ACQUIRE);
	if (started)
		started(t);
	pp__own_cpu_since(cpu);
	return 0;
}
