/* Arming for the XRay front-end: patch every sled, or those of functions whose
 * names match a glob; the PATHPROF_XRAY start-up switch; and naming of keys
 * (XRay function ids) for the runtime. None of this is on the hot path: the
 * first arming builds the function map and calibrates the handler. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/frontend.h>
#include <pathprof/xray.h>
#include "glob.h"
#include "runtime.h"
#include "symbolize.h"
#include "throttle.h"
#include "shim.h"
#include "xray_abi.h"

pp__xray_map_t *pp__xray_map;

static pthread_mutex_t arm_lock = PTHREAD_MUTEX_INITIALIZER;
static int prepared; /* 0 not yet, 1 ready, -1 failed (reported once) */

/* From the map once armed: no lock is taken, so naming works in the crash
 * dump's copy of the process whatever the crashed thread held. */
static PP_NOINSTR uint64_t key_address(uint64_t key)
{
	const pp__xray_map_t *m = __atomic_load_n(&pp__xray_map, __ATOMIC_ACQUIRE);
	if (m)
		return key >= 1 && key <= m->n ? m->addr[key] : 0;
	return key <= INT32_MAX ? __xray_function_address((int32_t)key) : 0;
}

static PP_NOINSTR int by_addr(const void *a, const void *b)
{
	uintptr_t x = ((const pp__xray_fn_t *)a)->addr, y = ((const pp__xray_fn_t *)b)->addr;
	return x < y ? -1 : x > y;
}

static PP_NOINSTR int is_probe(uintptr_t addr)
{
	return addr == (uintptr_t)pp__xray_probe_tail || addr == (uintptr_t)pp__xray_probe_leaf;
}

static PP_NOINSTR pp__xray_map_t *map_build(void)
{
	size_t n = __xray_max_function_id();
	if (n > INT32_MAX)
		n = INT32_MAX;
	pp__xray_map_t *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->by_addr = calloc(n ? n : 1, sizeof *m->by_addr);
	m->armed = calloc(n + 1, 1);
	m->addr = calloc(n + 1, sizeof *m->addr);
	m->tail = calloc(2 * (n + 1), sizeof *m->tail);
	if (!m->by_addr || !m->armed || !m->addr || !m->tail) {
		free(m->by_addr);
		free(m->armed);
		free(m->addr);
		free(m->tail);
		free(m);
		return NULL;
	}
	m->n = n;
	for (size_t id = 1; id <= n; id++) {
		m->addr[id] = __xray_function_address((int32_t)id);
		m->by_addr[id - 1] = (pp__xray_fn_t){m->addr[id], (int32_t)id};
		/* matches no jump of it */
		m->tail[2 * id] = m->tail[2 * id + 1] = PP__XRAY_TAIL_WORD(m->addr[id], 0);
	}
	qsort(m->by_addr, n, sizeof *m->by_addr, by_addr);
	return m;
}

/* 0: no function but the probes has a tail sled (the lean handler leaves
 * out its tail tests); 1: some has; -1: the map cannot be read (as 1). */
static PP_NOINSTR int tail_sleds(void)
{
	const unsigned char *p, *end;
	if (pp__xray_sleds(&p, &end) != 0)
		return -1;
	for (; p < end; p += PP__XRAY_SLED_BYTES)
		if (PP__XRAY_SLED_KIND(p) == PP_XRAY_TAIL && !is_probe(pp__xray_sled_addr(p, 8)))
			return 1;
	return 0;
}

/* First arming: the map, calibration and the handler. Under arm_lock. */
static int throttle_stop(uint64_t key);
static void throttle_round(void);

static PP_NOINSTR int prepare(void)
{
	if (prepared)
		return prepared > 0 ? 0 : -1;
	prepared = -1;
	pp__xray_map_t *m = map_build();
	if (!m) {
		pp__warn("xray: out of memory for the function map");
		return -1;
	}
	size_t real = 0;
	int tails;
	for (size_t i = 0; i < m->n; i++)
		real += m->by_addr[i].addr && !is_probe(m->by_addr[i].addr);
	if (!real) {
		pp__warn("xray: this program has no XRay sleds (build it with clang -fxray-instrument)");
		return -1;
	}
	pp__xray_own_trampolines();
	if (pp__xray_calibrate() != 0)
		pp__warn("xray: could not calibrate the sled handler; tail calls are "
			 "followed without stack checks (docs/reference/xray.md)");
	else if ((tails = tail_sleds()) == 0 || !pp__tracing())
		pp__xray_set_lean(tails != 0);
	__atomic_store_n(&pp__xray_map, m, __ATOMIC_RELEASE);
	if (!pp__xray_use_handler(pp__xray_handler(0))) {
		pp__warn("xray: the XRay runtime refused the handler");
		return -1;
	}
	prepared = 1;
	pp__throttle_frontend(throttle_stop, throttle_round);
	return 0;
}

/* Flags go up before the sleds are live and down after they are dead, so a
 * tail jump never sees an armed target as unarmed. */
static PP_NOINSTR void set_armed(const pp__xray_map_t *m, int32_t id, uint8_t v)
{
	__atomic_store_n(&m->armed[id], v, __ATOMIC_RELAXED);
}

/* A budget stops a function (runtime/throttle.c) in two steps. At once its
 * id is unarmed and the handler that tests for it is installed
 * (pp__xray_handler(1), which ignores the entries of unarmed ids), so
 * it opens no frame. Its sleds are unpatched later, at the end of a round
 * after the next in which no thread has a frame of it open (throttle_round):
 * a call open at the stop must still meet its exit sled, and an entry the
 * usual handler took just before the stop has pushed its frame by then.
 * From the unpatch on, it costs what an unarmed function costs. The
 * handler that tests stays: a thread preempted inside a trampoline it
 * entered through a sled just unpatched would otherwise reach the usual
 * handler once the stop is over, and open a frame whose exit sled is gone
 * (tests/report/budget.sh, under load). It costs the other functions'
 * entries the armed flag's test (about 6 instructions). */
static struct {
	int32_t id;
	uint32_t round; /* the round of the stop */
} pending[PP__THROTTLE_MAX];
static uint32_t npending, rounds;
static int stopping; /* a budget has stopped an id: the testing handler, for good */

static PP_NOINSTR int throttle_stop(uint64_t key)
{
	pthread_mutex_lock(&arm_lock);
	int rc = -1;
	const pp__xray_map_t *m = pp__xray_map;
	if (prepared > 0 && m && key >= 1 && key <= m->n && npending < PP__THROTTLE_MAX) {
		set_armed(m, (int32_t)key, 0);
		if (!stopping) {
			stopping = 1;
			pp__xray_use_handler(pp__xray_handler(1));
		}
		pending[npending].id = (int32_t)key;
		pending[npending].round = rounds;
		npending++;
		rc = 0;
	}
	pthread_mutex_unlock(&arm_lock);
	return rc;
}

static PP_NOINSTR void throttle_round(void)
{
	pthread_mutex_lock(&arm_lock);
	rounds++;
	uint32_t keep = 0;
	for (uint32_t i = 0; i < npending; i++) {
		int32_t id = pending[i].id;
		if (prepared > 0 && (rounds - pending[i].round < 2 || pp__throttle_key_open((uint64_t)id))) {
			pending[keep++] = pending[i];
			continue;
		}
		int st = prepared > 0 ? __xray_unpatch_function(id) : PP_XRAY_SUCCESS;
		if (st != PP_XRAY_SUCCESS)
			pp__warn("xray: unpatching function id %d for the budget failed (status %d); its "
				 "entries stay ignored", id, st);
	}
	npending = keep;
	pthread_mutex_unlock(&arm_lock);
}

/* 1 once the start-up arming (PATHPROF_XRAY, xray_start) is over: any
 * arming after it may find gated functions running. */
static int started;

static PP_NOINSTR void note_arming(void)
{
	if (__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		__atomic_store_n(&pp__xray_armed_late, 1, __ATOMIC_RELAXED);
}

/* Arming and disarming, on a program's thread, are the runtime's work: not
 * in the profile's CPU time (pp__program_cpu_ns). The budget's rounds run
 * on its own thread, whose time is taken out whole. */
static PP_NOINSTR uint64_t arm_begin(void)
{
	uint64_t cpu = pp__thread_cpu_ns();
	pthread_mutex_lock(&arm_lock);
	return cpu;
}

static PP_NOINSTR void arm_end(uint64_t cpu)
{
	pthread_mutex_unlock(&arm_lock);
	pp__own_cpu_since(cpu);
}

int pp_xray_arm(void)
{
	note_arming();
	uint64_t cpu = arm_begin();
	int rc = prepare();
	if (rc == 0) {
		pp__xray_map_t *m = pp__xray_map;
		for (size_t id = 1; id <= m->n; id++)
			set_armed(m, (int32_t)id, 1);
		int st = __xray_patch();
		if (st != PP_XRAY_SUCCESS) {
			pp__warn("xray: patching the sleds failed (status %d)", st);
			rc = -1;
		}
	}
	arm_end(cpu);
	return rc;
}

int pp_xray_disarm(void)
{
	uint64_t cpu = arm_begin();
	int rc = 0;
	if (prepared > 0) {
		int st = __xray_unpatch();
		if (st != PP_XRAY_SUCCESS) {
			pp__warn("xray: unpatching the sleds failed (status %d)", st);
			rc = -1;
		}
		pp__xray_map_t *m = pp__xray_map;
		for (size_t id = 1; id <= m->n; id++)
			set_armed(m, (int32_t)id, 0);
		__atomic_fetch_add(&pp__xray_generation, 1, __ATOMIC_RELAXED);
		/* the handler that catches up with it, for the next arm */
		pp__xray_use_handler(pp__xray_handler(stopping));
	}
	arm_end(cpu);
	return rc;
}

static PP_NOINSTR int arm_matching(const char *glob)
{
	char err[256] = "";
	pp__symbolizer_t *s = pp__symbolizer_open(err, sizeof err);
	if (!s) {
		pp__warn("xray: cannot read the symbol tables: %s", err);
		return -1;
	}
	pp__xray_map_t *m = pp__xray_map;
	int matched = 0, rc = 0;
	char name[1024];
	for (size_t id = 1; id <= m->n && rc == 0; id++) {
		uintptr_t addr = m->addr[id];
		if (!addr || is_probe(addr) || pp__symbolize(s, addr, name, sizeof name) != 0)
			continue;
		if (!pp__select_name(glob, ',', name))
			continue;
		set_armed(m, (int32_t)id, 1);
		int st = __xray_patch_function((int32_t)id);
		if (st != PP_XRAY_SUCCESS) {
			pp__warn("xray: patching %s failed (status %d)", name, st);
			rc = -1;
		}
		matched++;
	}
	pp__symbolizer_close(s);
	return rc ? rc : matched;
}

static PP_NOINSTR int arm_pattern(const char *glob)
{
	note_arming();
	uint64_t cpu = arm_begin();
	int rc = prepare();
	if (rc == 0)
		rc = arm_matching(glob);
	arm_end(cpu);
	return rc;
}

/* A pattern that arms nothing is almost always a typo or a stripped binary,
 * and its only other sign is an empty profile at exit: say so now. */
int pp_xray_arm_pattern(const char *glob)
{
	if (!glob || !*glob) {
		pp__warn("xray: pp_xray_arm_pattern: the pattern is empty; nothing armed");
		return -1;
	}
	char err[256];
	if (pp__select_check(glob, ',', err, sizeof err) != 0) {
		pp__warn("xray: pp_xray_arm_pattern(\"%s\"): %s; nothing armed", glob, err);
		return -1;
	}
	int rc = arm_pattern(glob);
	if (rc == 0)
		pp__warn("xray: pp_xray_arm_pattern(\"%s\"): no XRay-instrumented function matches; "
			 "nothing armed", glob);
	return rc;
}

/* Names first, so that a profile dumped by any path can name xray keys;
 * then PATHPROF_XRAY, so that sleds are live before main runs. */
/* An XRay program nobody armed runs no gate and writes no profile: said at
 * its exit, since a silent run looks like a broken profiler (#32). */
static PP_NOINSTR void say_unarmed(void)
{
	if (!__atomic_load_n(&prepared, __ATOMIC_ACQUIRE))
		pp__warn("xray: the sleds were never armed, so nothing was profiled (set "
			 "PATHPROF_XRAY=all, call pp_xray_arm(), or run under 'pathprof run')");
}

static PP_NOINSTR void arm_from_env(void);

__attribute__((constructor)) static PP_NOINSTR void xray_start(void)
{
	/* The XRay runtime's own start has run by now, in the program's
	 * constructors (about 5 ms of CPU on a test VM, with or without
	 * pathprof): the instrumentation's, not the program's. */
	pp__program_cpu_restart();
	pp_register_key_address(PP_FE_XRAY, key_address);
	arm_from_env();
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
}

static PP_NOINSTR void arm_from_env(void)
{
	const char *v = getenv("PATHPROF_XRAY");
	if (!v) {
		atexit(say_unarmed);
		return;
	}
	if (!*v) {
		pp__warn("PATHPROF_XRAY is empty: expected 'all' or a function-name pattern; not arming");
		return;
	}
	if (strcmp(v, "all") == 0) {
		pp_xray_arm();
		return;
	}
	char err[256];
	if (pp__select_check(v, ',', err, sizeof err) != 0) {
		pp__warn("PATHPROF_XRAY=%s: %s; not arming", v, err);
		return;
	}
	if (arm_pattern(v) == 0)
		pp__warn("PATHPROF_XRAY=%s: no XRay-instrumented function matches; not arming", v);
}
