/* The timed gate's own cost, measured in the running process, so reports
 * can take it out of the times they show (overhead compensation, #29;
 * docs/reference/semantics.md, "The gate's own cost"). A timed gate runs
 * partly inside the interval it times (after its entry's clock read, before
 * its exit's): that part, `in`, is in every call's inclusive time. The rest,
 * `out`, lands in the caller's self time. Once, at exit (or at a budget's
 * first round), a thread of the runtime's own calls a small gated function
 * N times from inside a gated function, through the injector's own entry
 * points, recording into a scratch slab no profile or reader sees. Per call:
 *   out = the outer node's self time - the same loop calling an empty
 *         ungated function;
 *   in  = the inner node's inclusive time - what its body adds to that
 *         loop (the loop calling an ungated function with the body, less
 *         the loop calling the empty one).
 * The inner function has a body (PP__COST_BODY, four dependent
 * multiply-adds) because no gated function is empty, and a gate around work
 * costs less than one around nothing: the processor runs part of it in the
 * shadow of the body's latency (bench/compensate.sh: raii's gate came out
 * 1.0-1.4 ns a call above its cost in place around a 5 ns helper when the
 * inner function was empty). Of several rounds the least of each time is
 * kept: preemption and interrupts only ever add.
 * A process that never reaches its exit (killed, crashed) would have no
 * figures: the namer measures once while the program runs too, and
 * publishes that in the live segment, so that a recovered profile is
 * compensated as a written one is; the exit measures again, on a quieter
 * process (docs/guides/crash.md). */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include <pathprof/frontend.h>
#include <pathprof/pathprof.h>
#include "gate_impl.h"
#include "own_thread.h"
#include "shm.h"

/* The injectors' entry points the compiler calls, when this program has
 * them (resolved at load; NULL otherwise). raii's gate is inline: the raii
 * archive's copy when linked, else the one below; XRay's trampolines cannot
 * be entered from here: it uses the inline gate. */
extern void __cyg_profile_func_enter(void *fn, void *site) __attribute__((weak, visibility("default")));
extern void __cyg_profile_func_exit(void *fn, void *site) __attribute__((weak, visibility("default")));
extern void pp_plugin_enter(uint64_t key) __attribute__((weak, visibility("default")));
extern void pp_plugin_leave(uint64_t key) __attribute__((weak, visibility("default")));
/* raii's gate compiled as the program's are (frontends/raii/cost.c), when
 * the program links the raii archive: the runtime's own copy below is built
 * into a shared library, whose gates find the thread state another way. */
extern uint64_t pp__raii_cost_loop(uint32_t n) __attribute__((weak, visibility("default")));
/* cyg's, compiled with -finstrument-functions (frontends/cyg/cost.c): its
 * keys are its functions' addresses */
extern uint64_t pp__cyg_cost_loop(uint32_t n) __attribute__((weak, visibility("default")));

enum { COST_CALLS = 1000, COST_ROUNDS = 7 };

/* distinct addresses, the keys: sites, which a raii gate may read */
static pp_site_t key_outer = { "", "", 0, 0 }, key_inner = { "", "", 0, 0 };
#define K_OUTER ((uint64_t)(uintptr_t)&key_outer)
#define K_INNER ((uint64_t)(uintptr_t)&key_inner)

/* One pair of functions per way of entering a gate: the outer one gated
 * around n calls of the inner one, gated around the body. */
#define PP__COST_FNS(name, enter, leave)                                  \
	static PP_NOINLINE PP_NOINSTR uint64_t name##_inner(uint64_t x)   \
	{                                                                 \
		enter(K_INNER);                                           \
		PP__COST_BODY(x);                                         \
		leave(K_INNER);                                           \
		return x;                                                 \
	}                                                                 \
	static PP_NOINLINE PP_NOINSTR uint64_t name##_loop(uint32_t n)    \
	{                                                                 \
		enter(K_OUTER);                                           \
		uint64_t acc = 0;                                         \
		for (uint32_t i = 0; i < n; i++)                          \
			acc ^= name##_inner(i);                           \
		leave(K_OUTER);                                           \
		return acc;                                               \
	}

#define RAII_IN(k) pp__enter((k), PP_FE_RAII)
#define RAII_OUT(k) pp__leave((k), PP_FE_RAII)
#define XRAY_IN(k) pp__enter((k), PP_FE_XRAY)
#define XRAY_OUT(k) pp__leave((k), PP_FE_XRAY)
#define CYG_IN(k) __cyg_profile_func_enter((void *)(uintptr_t)(k), NULL)
#define CYG_OUT(k) __cyg_profile_func_exit((void *)(uintptr_t)(k), NULL)
#define PLUGIN_IN(k) pp_plugin_enter(k)
#define PLUGIN_OUT(k) pp_plugin_leave(k)
PP__COST_FNS(raii, RAII_IN, RAII_OUT)
PP__COST_FNS(xray, XRAY_IN, XRAY_OUT)
PP__COST_FNS(cyg, CYG_IN, CYG_OUT)
PP__COST_FNS(plugin, PLUGIN_IN, PLUGIN_OUT)

/* The same loop without gates, calling an empty function (what the outer
 * self time holds besides them) and one with the body (what the body adds
 * to the inner inclusive time). */
static PP_NOINLINE PP_NOINSTR uint64_t empty_inner(uint64_t x)
{
	__asm__("" : "+r"(x));
	return x;
}

static PP_NOINLINE PP_NOINSTR uint64_t body_inner(uint64_t x)
{
	PP__COST_BODY(x);
	return x;
}

static volatile uint64_t cost_sink;

static PP_NOINLINE PP_NOINSTR uint64_t plain_loop(uint32_t n, uint64_t (*inner)(uint64_t))
{
	uint64_t acc = 0, t0 = pp_ticks();
	for (uint32_t i = 0; i < n; i++)
		acc ^= inner(i);
	uint64_t t = pp_ticks() - t0;
	cost_sink = acc;
	return t;
}

struct cost_job {
	int fe;
	double in, out; /* ticks per gate; left 0 when not measured */
	uint64_t cpu;   /* the thread's CPU time: pathprof's, not the program's */
};

/* The scratch slab's node at depth d (1: outer, 2: inner), or NULL. */
static const pp__segrt_t *node_seg(const pp__slab_t *s, uint32_t depth)
{
	for (const pp__path_t *p = s->head; p; p = p->next)
		if (p->depth == depth)
			return (const pp__segrt_t *)p->seg;
	return NULL;
}

static PP_NOINSTR void *measure(void *arg)
{
	struct cost_job *j = arg;
	uint64_t (*loop)(uint32_t) = j->fe == PP_FE_CYG && pp__cyg_cost_loop        ? pp__cyg_cost_loop
				     : j->fe == PP_FE_CYG && __cyg_profile_func_enter ? cyg_loop
				     : j->fe == PP_FE_PLUGIN && pp_plugin_enter    ? plugin_loop
				     : j->fe == PP_FE_XRAY                         ? xray_loop
				     : pp__raii_cost_loop                          ? pp__raii_cost_loop
										   : raii_loop;
	pp__slab_t *s = pp__slab_scratch(8);
	if (!s)
		return NULL;
	pp__tls_t *t = &pp__tls;
	pp__slab_attach(t, s);
	t->excess = 0;
	t->trace = NULL;
	t->timing_now = 0;
	/* burst timing: one window that never ends, over the whole measurement */
	if (pp__mode.timing == PP_TIMING_BURST)
		t->wend = PP__NO_WINDOW - 1;
	t->state = PP__ST_LIVE;
	pp__set_limits(t);
	pp__select_own_keys(1);
	double best_in = 0, best_self = 0, best_empty = 0, best_body = 0;
	uint64_t in_sum = 0, out_self = 0;
	for (int r = 0; r < COST_ROUNDS; r++) {
		double empty = (double)plain_loop(COST_CALLS, empty_inner) / COST_CALLS;
		double body = (double)plain_loop(COST_CALLS, body_inner) / COST_CALLS;
		t->countdown = 1; /* sampled timing: this round's event is timed */
		cost_sink = loop(COST_CALLS);
		const pp__segrt_t *o = node_seg(s, 1), *i = node_seg(s, 2);
		if (!o || !i || t->dstate != 0)
			return NULL; /* not recorded as planned: no figure rather than a wrong one */
		double in = (double)(i->sum - in_sum) / COST_CALLS;
		double self = (double)(o->self - out_self) / COST_CALLS;
		in_sum = i->sum;
		out_self = o->self;
		if (r == 0 || in < best_in)
			best_in = in;
		if (r == 0 || self < best_self)
			best_self = self;
		if (r == 0 || empty < best_empty)
			best_empty = empty;
		if (r == 0 || body < best_body)
			best_body = body;
	}
	double body = best_body > best_empty ? best_body - best_empty : 0;
	j->in = best_in > body ? best_in - body : 0;
	j->out = best_self > best_empty ? best_self - best_empty : 0;
	pp__gate_dead(t);
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		j->cpu = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return NULL;
}

/* One measure at a time: two at once would each slow the other down. A
 * fork during one (the namer's runs beside the program's threads) leaves
 * the child a lock nobody releases: it takes a new one. The handlers are
 * registered when the runtime loads, before any thread can fork: ones
 * registered by the first measure could come too late for a fork already
 * under way in another thread (a child then waited at exit forever).
 *
 * Nor does a fork() copy a measure half-way: the measuring thread and the
 * one it starts allocate, and a child forked while one of them held an
 * allocator's lock inherits it held by a thread it does not have (gcc 12's
 * AddressSanitizer has no fork handler of its own: tests/live's forked
 * writer hung in its first allocation, under load in CI). A fork waits for
 * a measure under way (about a millisecond) and a measure for a fork; by
 * two counters rather than the lock, which a budget's round takes under
 * its ticker's lock, whose fork handler may run before or after this one.
 * The crash path's copy is cloned without handlers (host/crash.c). */
static pthread_mutex_t measuring = PTHREAD_MUTEX_INITIALIZER;
static int cost_running, cost_forking;

static void pause_100us(void)
{
	struct timespec ts = { 0, 100000 };
	nanosleep(&ts, NULL);
}

static void measuring_prepare(void)
{
	__atomic_add_fetch(&cost_forking, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&cost_running, __ATOMIC_SEQ_CST))
		pause_100us();
}

static void measuring_parent(void)
{
	__atomic_sub_fetch(&cost_forking, 1, __ATOMIC_SEQ_CST);
}

static void measuring_after_fork(void)
{
	pthread_mutex_init(&measuring, NULL);
	cost_running = cost_forking = 0;
}

__attribute__((constructor)) static void measuring_init(void)
{
	pthread_atfork(measuring_prepare, measuring_parent, measuring_after_fork);
}

/* Around the measure's thread: no fork in between (above). */
static void measure_begin(void)
{
	for (;;) {
		__atomic_add_fetch(&cost_running, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&cost_forking, __ATOMIC_SEQ_CST))
			return;
		__atomic_sub_fetch(&cost_running, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&cost_forking, __ATOMIC_SEQ_CST))
			pause_100us();
	}
}

static void measure_end(void)
{
	__atomic_sub_fetch(&cost_running, 1, __ATOMIC_SEQ_CST);
}

/* The figures measured while the program ran, and the attempts made. The
 * figures, pp__g's too, are read without the lock (the dump, a crash's
 * copy): stored and loaded whole. */
static double early_in, early_out;
static int early_tries;

static double load(const double *v)
{
	double x;
	__atomic_load(v, &x, __ATOMIC_ACQUIRE);
	return x;
}

static void store(double *v, double x)
{
	__atomic_store(v, &x, __ATOMIC_RELEASE);
}

/* Measure into *in and *out (left as they are when nothing can be
 * measured); the caller holds `measuring`. 0 when measured. */
static int measure_locked(double *in, double *out)
{
	int fe = __atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED);
	/* Under a function selection alone, a cyg or plugin gate kept takes
	 * its own way (gate_selected.c), which the measure takes too; every
	 * other selection sends gates out of line by ways it does not. */
	uint32_t sel = __atomic_load_n(&pp__selecting, __ATOMIC_RELAXED);
	if (pp__mode.timing == PP_TIMING_OFF || (sel && !(sel == PP__SEL_FUNCTIONS && PP__SITED(fe))) ||
	    pp__g.mixed_frontends || fe == PP_FE_NONE || fe == PP_FE_REPLAY)
		return -1;
	struct cost_job j = { .fe = fe };
	pthread_t th;
	measure_begin();
	if (pp__own_thread_start(&th, "cost", measure, &j) != 0) {
		measure_end();
		return -1;
	}
	pthread_join(th, NULL);
	measure_end();
	__atomic_fetch_add(&pp__g.own_cpu, j.cpu, __ATOMIC_RELAXED);
	if (!(j.in > 0 || j.out > 0))
		return -1;
	store(out, j.out);
	store(in, j.in);
	pp__shm_gate_cost(j.in, j.out);
	return 0;
}

static int measured(const double *in, const double *out)
{
	return load(in) > 0 || load(out) > 0;
}

void pp__gate_cost_measure(void)
{
	pthread_mutex_lock(&measuring);
	if (!measured(&pp__g.gate_in, &pp__g.gate_out))
		measure_locked(&pp__g.gate_in, &pp__g.gate_out);
	pthread_mutex_unlock(&measuring);
}

void pp__gate_cost_early(void)
{
	if (pp__mode.timing == PP_TIMING_OFF || __atomic_load_n(&early_tries, __ATOMIC_RELAXED) >= 3 ||
	    measured(&early_in, &early_out) || measured(&pp__g.gate_in, &pp__g.gate_out))
		return;
	if (pthread_mutex_trylock(&measuring) != 0)
		return;
	/* a measure that could run and failed is not tried again and again */
	if (__atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED) != PP_FE_NONE &&
	    measure_locked(&early_in, &early_out) != 0)
		__atomic_store_n(&early_tries, early_tries + 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&measuring);
}

void pp__gate_cost_get(double *in, double *out)
{
	int late = measured(&pp__g.gate_in, &pp__g.gate_out);
	*in = load(late ? &pp__g.gate_in : &early_in);
	*out = load(late ? &pp__g.gate_out : &early_out);
}
