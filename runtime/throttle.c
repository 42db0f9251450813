/* Throttling under a budget (PATHPROF_BUDGET, #29; docs/guides/selection.md,
 * "A budget at run time"). A thread of the runtime's own looks at the timed
 * nodes every few milliseconds and stops gating a function whose gates cost
 * more than the budget's share of the work they hold, as measured over the
 * last window: its calls times the gate's cost this process measured,
 * against its inclusive time less the part of each call the gate itself
 * put in; and then more, worst first, while the gates still running cost
 * more than the budget's share of all the work (judge). Windows, not
 * totals: once a parent's small children stop being gated, the next
 * window shows the parent's own work without their gates' cost, and a
 * function whose calls change with the program's phase is judged on what
 * it does now.
 *
 * How a function stops: XRay unpatches its sleds (the front-end registers a
 * hook), so it costs nothing at all from then on; the other injectors' gates
 * find the key in a small set and return at once, and cyg's hook calls are
 * then patched out of the code (site_patch.c), raii's entries made jumps
 * over the gate (raii_patch.c). That test sits on the
 * timed event's branch of the inline gate only (every event is timed under
 * a budget), after a check of one global that is 0 until something is
 * throttled: untimed gates and runs without a budget never see it.
 *
 * Without a budget, the same thread only patches out the hook calls of the
 * cyg and plugin functions PATHPROF_FUNCTIONS leaves out (site_patch.c):
 * one patcher, on one thread, whose symbolizer lives in that thread's own
 * descriptor table.
 *
 * Nothing here is on the hot path: the gates' side is gate_budget.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pathprof/gate.h>
#include "map.h"
#include "select.h"
#include "runtime.h"
#include "settings.h"
#include "raii_patch.h"
#include "site_patch.h"
#include "slab.h"
#include "throttle.h"
#include "ticker.h"

/* A function's gates must have run this often since it was last judged
 * before it is judged again: fewer calls say too little, and cost too
 * little to matter. */
#define MIN_CALLS 1000u
/* Rounds: 2 ms, or 20 times the last scan's own duration if longer, so
 * its scans never take more than 5 % of a CPU (throttle_round). */
#define WINDOW_MS 2u
/* The first round follows the gate's measure closely: until it, every
 * function is gated, and a 5 ns function costs 8x while it waits (the
 * measure itself takes about a millisecond). Its judgement weighs every
 * call since the start, MIN_CALLS being the only bar. */
#define FIRST_WAIT_US 200u
/* Exit hooks stay until every thread took the budget's way once, or is
 * seen not to be in a gate (pp__throttle_threads_past); a thread neither,
 * ready to run but given no CPU, is waited for up to this long after the
 * first stop. */
#define EXIT_WAIT_NS 2000000000u
/* CPU time a thread not seen in the budget's way must have run since it
 * was first seen so: one that lost the CPU between its test and its push
 * pushes within nanoseconds of running again. */
#define LAG_CPU_NS 1000000u

static double budget;    /* fraction of the work; 0: no budget */
static int (*fe_hook)(uint64_t key);
static void (*fe_round)(void); /* the front-end's own work each round */
static pp__throttle_entry_t list[PP__THROTTLE_MAX];
static uint32_t nlist;   /* published with release stores */
static uint32_t full;    /* the list filled up: later candidates kept gated */
static uint64_t thread_cpu; /* the thread's CPU, ns, updated each window */

int pp__throttle_env(const char *s, int timing_set)
{
	double v;
	if (pp__parse_percent(s, &v) != 0 || v == 0) {
		pp__warn("PATHPROF_BUDGET=%s: expected a percentage above 0 and up to 100 (e.g. 5%%); "
			 "no budget", s);
		return -1;
	}
	if (timing_set && pp__mode.timing != PP_TIMING_ON) {
		pp__warn("PATHPROF_BUDGET=%s: a budget weighs every call's time, and PATHPROF_TIMING is "
			 "not on; no budget", s);
		return -1;
	}
	if (getenv("PATHPROF_TRACE") && *getenv("PATHPROF_TRACE")) {
		pp__warn("PATHPROF_BUDGET=%s: not with PATHPROF_TRACE (a replay could not stop the same "
			 "gates); no budget", s);
		return -1;
	}
	budget = v / 100;
	pp__set_timing(PP_TIMING_ON, 0);
	return 0;
}

double pp__throttle_budget(void)
{
	/* a selection keeps the budget off (throttle_round): none in force */
	return __atomic_load_n(&pp__selecting, __ATOMIC_RELAXED) ? 0 : budget;
}

void pp__throttle_frontend(int (*stop)(uint64_t key), void (*round)(void))
{
	__atomic_store_n(&fe_round, round, __ATOMIC_RELEASE);
	__atomic_store_n(&fe_hook, stop, __ATOMIC_RELEASE);
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Is a frame of key open in some thread? Read racily from each thread's
 * state: a stopped key pushes no new frame, and an entry that tested the
 * key before the stop showed its frame first (gate_budget.c), so once none
 * is seen a round after the stop none can appear. That round (2 ms or
 * more) is the fence between a thread's frame store and its load of the
 * stopped set, which a store buffer holds for nanoseconds; membarrier
 * would make it one, but registering for it took 12-15 ms of this thread
 * (an RCU grace period, this VM), rounds the program spent gated:
 * bench/budget.c's cyg build 4 % slower. */
static uint64_t probe_key;
static int probe_open;
static uint64_t first_stop_ns; /* CLOCK_MONOTONIC of the first stop, 0 before it */
static int caught_up;
static int lagging;

static void probe(pp__tls_t *t)
{
	uint32_t depth = PP__DS_DEPTH(__atomic_load_n(&t->dstate, __ATOMIC_ACQUIRE));
	pp__frame_t *stack = __atomic_load_n(&t->stack, __ATOMIC_RELAXED);
	for (uint32_t d = 0; stack && d < depth && d < pp__config.depth && !probe_open; d++)
		probe_open = __atomic_load_n(&stack[d].key, __ATOMIC_RELAXED) == probe_key;
}

int pp__throttle_key_open(uint64_t key)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	probe_key = key;
	probe_open = 0;
	pp__slab_for_each_owner(probe);
	return probe_open;
}

/* Is every thread past the first stop? Until it, the inline gate pushes a
 * timed frame after one test of its thread's tlimit, which the stop zeroes:
 * a thread that lost the CPU between the two pushes its frame of a key
 * that may be stopped whenever it runs again, after any look. Its next gate
 * takes the budget's way (tlimit is 0 for good) and says so (budget_seen,
 * only with its tlimit 0: a gate's rare way before no_lean_way reached the
 * thread says nothing), so once every thread did, no such frame is still
 * to come. A thread that has not is past too when it is seen
 *   - to have run LAG_CPU_NS of CPU since it was first seen lagging: code
 *     without gates (a frame pushed late is pushed by then, and shows); or
 *   - asleep (/proc/self/task/TID/stat: S, I, Z or X): not between a test
 *     and a push, short of a signal handler that blocks right there.
 * One ready to run but not running (R, D, T, t) is waited for, up to
 * EXIT_WAIT_NS after the first stop. Before, any thread was counted past
 * 50 ms after the first stop: on a loaded machine a worker that had tested
 * its tlimit waited longer than that for a CPU, and pushed a frame of a
 * key whose exit hook was gone by then (tests/patch, once in CI's load). */
static int thread_asleep(int tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	/* ENOENT: the thread is gone, or no /proc is mounted (then a thread
	 * counts as asleep, as every thread did 50 ms after the stop before
	 * this look); anything else (no descriptor left): waited for */
	if (fd < 0)
		return errno == ENOENT;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	const char *p = strrchr(buf, ')'); /* the name may hold anything */
	return p && p[1] == ' ' && strchr("SIZX", p[2]) && p[2];
}

static uint64_t thread_cpu_ns(pthread_t th)
{
	clockid_t c;
	struct timespec ts;
	if (pthread_getcpuclockid(th, &c) != 0 || clock_gettime(c, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int pp__throttle_thread_lags(pp__slab_t *s)
{
	if (__atomic_load_n(&s->budget_seen, __ATOMIC_ACQUIRE))
		return 0;
	uint64_t cpu = thread_cpu_ns(s->thread) + 1;
	if (!s->lag_cpu)
		s->lag_cpu = cpu;
	else if (cpu - s->lag_cpu >= LAG_CPU_NS)
		return 0;
	return !thread_asleep(s->tid);
}

static void lags(pp__tls_t *t)
{
	if (pp__throttle_thread_lags((pp__slab_t *)t->slab))
		lagging = 1;
}

int pp__throttle_threads_past(void)
{
	if (caught_up)
		return 1;
	if (!first_stop_ns)
		return 0;
	lagging = 0;
	pp__slab_for_each_owner(lags);
	caught_up = !lagging || now_ns(CLOCK_MONOTONIC) - first_stop_ns >= EXIT_WAIT_NS;
	return caught_up;
}

uint32_t pp__throttle_list(const pp__throttle_entry_t **out)
{
	*out = list;
	return __atomic_load_n(&nlist, __ATOMIC_ACQUIRE);
}

/* What the thread knows of a function: calls, inclusive and self ticks
 * over the run (the last scan), the same at the last round and at its last
 * judgement, and whether it was throttled. */
typedef struct acc {
	uint64_t key;
	uint64_t calls, incl, self;
	uint64_t r_calls, r_self; /* at the last round */
	uint64_t j_calls, j_incl; /* at the last judgement */
	/* the last round's gate cost (ticks); since the last judgement, the
	 * gates' cost and the work held, when judged this round */
	double r_cost, w_gates, w_work;
	int w_judged;
	int done;
} acc_t;

static acc_t *accs;
static uint32_t naccs, cap_accs;
static pp__map_t acc_at; /* key -> index */

static acc_t *acc_of(uint64_t key)
{
	uint32_t i;
	if (pp__map_get(&acc_at, key, &i))
		return &accs[i];
	if (naccs == cap_accs) {
		uint32_t cap = cap_accs ? cap_accs * 2 : 256;
		acc_t *m = realloc(accs, cap * sizeof *m);
		if (!m)
			return NULL;
		accs = m;
		cap_accs = cap;
	}
	if (pp__map_put(&acc_at, key, naccs) != 0)
		return NULL;
	accs[naccs] = (acc_t){ .key = key };
	return &accs[naccs++];
}

/* Timed calls of a node: its histogram's total. */
static uint64_t node_calls(const pp__segrt_t *g)
{
	uint64_t n = 0;
	for (uint32_t r = 0; r < PP__CELL_ROWS; r++) {
		uint32_t ref = __atomic_load_n(&g->rows[r], __ATOMIC_ACQUIRE);
		if (!ref)
			continue;
		const uint64_t *cells = pp__arena_ptr(ref);
		for (uint32_t c = 0; c < PP_HIST_SUB; c++)
			n += __atomic_load_n(&cells[c], __ATOMIC_RELAXED);
	}
	return n;
}

/* Sum every function's calls and inclusive time over every slab's nodes; a
 * recursive function's inclusive time is taken at its outermost frame. */
static int scan(void)
{
	for (uint32_t i = 0; i < naccs; i++)
		accs[i].calls = accs[i].incl = accs[i].self = 0;
	for (pp__slab_t *s = pp__slab_first(); s; s = s->next_all)
		for (const pp__path_t *q = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE); q; q = q->next) {
			const pp__segrt_t *g = __atomic_load_n((pp__segrt_t **)&q->seg, __ATOMIC_ACQUIRE);
			if (!g || !q->depth)
				continue;
			uint64_t key = q->keys[q->depth - 1];
			acc_t *a = acc_of(key);
			if (!a)
				return -1;
			a->calls += node_calls(g);
			a->self += __atomic_load_n(&g->self, __ATOMIC_RELAXED);
			int outer = 1;
			for (uint32_t d = 0; d + 1 < q->depth && outer; d++)
				outer = q->keys[d] != key;
			if (outer)
				a->incl += __atomic_load_n(&g->sum, __ATOMIC_RELAXED);
		}
	return 0;
}

/* Stop gating a's function: listed, then its front-end's way or the key's. */
static void stop_acc(acc_t *a)
{
	if (nlist == PP__THROTTLE_MAX) {
		full = 1;
		return;
	}
	a->done = 1;
	list[nlist] = (pp__throttle_entry_t){ .key = a->key, .calls = a->calls, .incl = a->incl,
					      .at_ns = pp__realtime_ns() - pp__g.start_ns };
	__atomic_store_n(&nlist, nlist + 1, __ATOMIC_RELEASE);
	if (!first_stop_ns)
		first_stop_ns = now_ns(CLOCK_MONOTONIC);
	int (*stop)(uint64_t) = __atomic_load_n(&fe_hook, __ATOMIC_ACQUIRE);
	if (!stop || stop(a->key) != 0)
		pp__throttle_stop_key(a->key);
}

/* Judge each function on the calls since it was last judged, once it has
 * MIN_CALLS of them. First, every function whose gates cost more than the
 * budget's share of the work its calls hold stops. That alone does not
 * bound the program's slowdown: functions nested 30 deep, each within its
 * share of what it holds, add up (SQLite: 2x of plain at 5 %). So, second,
 * while the gates still running cost more than the budget's share of all
 * the work the round saw (the self times of the calls that ended in it,
 * less those gates), the judged function whose gates cost most for the
 * work it holds stops too: short leaves first; the functions that hold the
 * program's work (its dispatchers and phases) stay gated. */
static void judge(double in, double out)
{
	double total = 0, cost = 0;
	for (uint32_t i = 0; i < naccs; i++) {
		acc_t *a = &accs[i];
		uint64_t rc = a->calls > a->r_calls ? a->calls - a->r_calls : 0;
		total += a->self > a->r_self ? (double)(a->self - a->r_self) : 0;
		a->r_calls = a->calls;
		a->r_self = a->self;
		a->r_cost = (double)rc * (in + out);
		a->w_judged = 0;
		if (a->done)
			continue;
		uint64_t jc = a->calls > a->j_calls ? a->calls - a->j_calls : 0;
		if (jc >= MIN_CALLS) {
			double incl = a->incl > a->j_incl ? (double)(a->incl - a->j_incl) : 0;
			a->j_calls = a->calls;
			a->j_incl = a->incl;
			a->w_judged = 1;
			a->w_gates = (double)jc * (in + out);
			a->w_work = incl > (double)jc * in ? incl - (double)jc * in : 0;
			if (a->w_gates > budget * a->w_work) {
				stop_acc(a);
				continue;
			}
		}
		cost += a->r_cost;
	}
	while (cost > budget * (total - cost)) {
		acc_t *worst = NULL;
		for (uint32_t i = 0; i < naccs; i++) {
			acc_t *a = &accs[i];
			if (!a->done && a->w_judged &&
			    (!worst || a->w_gates * worst->w_work > worst->w_gates * a->w_work))
				worst = a;
		}
		if (!worst || nlist == PP__THROTTLE_MAX)
			break;
		stop_acc(worst);
		cost -= worst->r_cost;
	}
}

/* The first gate ran: the injector is known, its gate can be measured. */
static void throttle_begin(void)
{
	if (budget > 0)
		pp__gate_cost_measure();
}

/* Without a budget the thread only patches the hook calls of the
 * functions PATHPROF_FUNCTIONS leaves out (pp__select_sites), at a
 * calmer pace: each is noted at its first call, and until patched goes
 * out of line as before. */
#define PATCH_ONLY_MS 10u

static void throttle_end(void)
{
	__atomic_store_n(&thread_cpu, now_ns(CLOCK_THREAD_CPUTIME_ID), __ATOMIC_RELEASE);
}

/* A budget stopped a key: the thread's timed gates leave the lean way
 * (runtime/thread_state.h). */
static void no_lean_way(pp__tls_t *t)
{
	PP__LIMIT_SET(t->tlimit, 0);
}

static uint64_t throttle_round(void)
{
	/* No budget under a selection: the budget's slow paths come before
	 * the selection's in the gate (pathprof/gate.h) and know nothing of
	 * it. Only the selection's patching goes on. */
	if (budget == 0 || __atomic_load_n(&pp__selecting, __ATOMIC_RELAXED)) {
		if (!pp__g.mixed_frontends)
			pp__site_patch_pending();
		throttle_end();
		return (uint64_t)PATCH_ONLY_MS * 1000000u;
	}
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	/* the gate's cost, measured once the injector is known */
	if (!(pp__g.gate_in > 0 || pp__g.gate_out > 0))
		pp__gate_cost_measure();
	if ((pp__g.gate_in > 0 || pp__g.gate_out > 0) && scan() == 0)
		judge(pp__g.gate_in, pp__g.gate_out);
	if (__atomic_load_n(&pp__throttle_n, __ATOMIC_ACQUIRE))
		pp__slab_for_each_owner(no_lean_way);
	uint64_t judged = now_ns(CLOCK_MONOTONIC);
	void (*round)(void) = __atomic_load_n(&fe_round, __ATOMIC_ACQUIRE);
	if (round)
		round();
	/* stopped cyg keys' hook calls seen since the last round, stopped
	 * raii sites' entries */
	if (!pp__g.mixed_frontends) {
		pp__site_patch_pending();
		pp__raii_patch_pending();
	}
	/* The scan and the judgement, which run every round, take at most 5 %
	 * of a CPU; unpatching and patching code, once per function or call
	 * site, at most half while they last: counted 20 times over, they
	 * spaced SQLite's rounds 200 ms apart, and every gate still going
	 * out of line paid for it meanwhile. */
	uint64_t end = now_ns(CLOCK_MONOTONIC);
	uint64_t wait_ns = (uint64_t)WINDOW_MS * 1000000u;
	uint64_t scan_ns = 20 * (judged - t0), patch_ns = end - judged;
	if (wait_ns < scan_ns)
		wait_ns = scan_ns;
	if (wait_ns < patch_ns)
		wait_ns = patch_ns;
	throttle_end();
	return wait_ns;
}

/* The thread's last act: what it opened (the patcher's symbolizer) it
 * closes itself, as its descriptors are in its own table (own_thread.c). */
static void throttle_last(void)
{
	throttle_end();
	pp__site_patch_end();
}

static pp__ticker_t ticker = PP__TICKER_INIT(
	"budget", "cannot start the throttling thread: a budget (PATHPROF_BUDGET) stops no function, "
		  "and the hook calls of functions PATHPROF_FUNCTIONS leaves out stay in the code",
	throttle_begin, throttle_round, throttle_last, FIRST_WAIT_US * 1000u);

static void spawn(void)
{
	pp__ticker_start(&ticker);
}

void pp__throttle_start(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	/* the selection's patching: cyg and the plugin, whose hook calls
	 * site_patch.c knows */
	int fe = __atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED);
	if (budget > 0 || (__atomic_load_n(&pp__select_sites, __ATOMIC_ACQUIRE) && PP__SITED(fe)))
		pthread_once(&once, spawn);
}

void pp__throttle_stop(void)
{
	if (!pp__ticker_running(&ticker))
		return;
	pp__ticker_stop(&ticker); /* its last act closes the patcher */
	if (budget > 0 && __atomic_load_n(&pp__selecting, __ATOMIC_RELAXED))
		pp__warn("PATHPROF_BUDGET: not applied under a selection (PATHPROF_ROOT, "
			 "PATHPROF_FUNCTIONS); nothing was throttled");
	else if (budget > 0 && !(pp__g.gate_in > 0 || pp__g.gate_out > 0))
		pp__warn("PATHPROF_BUDGET: the gate's cost could not be measured (with gates of two "
			 "injectors); nothing was throttled");
	if (full)
		pp__warn("PATHPROF_BUDGET: %u functions throttled, the most one run keeps; others over the "
			 "budget stayed gated", PP__THROTTLE_MAX);
}

uint64_t pp__throttle_cpu_ns(void)
{
	return __atomic_load_n(&thread_cpu, __ATOMIC_ACQUIRE);
}
