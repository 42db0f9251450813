/* The burst pacer (PATHPROF_TIMING=burst:N, gate_window.c): a thread of
 * the runtime's own that, every period of N times 100 us (uniform in half
 * to one and a half of it, so no loop of the program keeps step with it),
 * asks every live thread to time the next 1/N of the time since its last
 * round. It writes the
 * request's time and flag into the thread's gate state and zeroes the
 * state's limits, so that the thread's next gate, entry or exit, goes out
 * of line and opens the window there; the inline gate itself never tests
 * anything for it. A thread blocked or running without gates meanwhile
 * finds the request at its next gate: the window then holds what the
 * thread did since the request, up to the window's end.
 * How the gate reads the limits it writes: PP__LIMIT in pathprof/state.h. */
#include <time.h>

#include <pathprof/gate.h>
#include "gate_window.h"
#include "runtime.h"
#include "slab.h"
#include "ticker.h"

/* A window lasts about WINDOW_NS, the period N times that: a window much
 * shorter would spend a noticeable part of itself warming the caches the
 * timed gates use (the nodes' timing records), which a run timed
 * throughout keeps warm; N = 32 with 31 us windows put up to +7 % on a
 * node of bench/tailparse.c, 100 us windows under 3 %. */
#define WINDOW_NS 100000u

static uint64_t window_ticks;
static double ticks_per_ns;
static uint64_t last_round;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

/* A thread that has not taken the last request (it was off the CPU, or
 * in a stretch without gates, for a whole period) keeps that request's
 * start and gets this one's share added: its window then holds the shares
 * of every request it missed, so the windows still hold 1/N of its run. */
static void request(pp__tls_t *t)
{
	if (!__atomic_load_n(&t->wreq, __ATOMIC_ACQUIRE))
		__atomic_store_n(&t->wstart, pp_ticks(), __ATOMIC_RELAXED);
	__atomic_fetch_add(&t->wlen, __atomic_load_n(&window_ticks, __ATOMIC_RELAXED),
			   __ATOMIC_RELAXED);
	__atomic_store_n(&t->wreq, 1, __ATOMIC_RELEASE);
	PP__LIMIT_SET(t->limit, 0);
	PP__LIMIT_SET(t->elimit, 0);
}

static uint64_t period_ns(void)
{
	uint32_t n = __atomic_load_n(&pp__mode.sample_n, __ATOMIC_RELAXED);
	return (uint64_t)WINDOW_NS * (n ? n : 1);
}

/* A window holds 1/N of the time since the last round, not of the period
 * asked for: on a loaded machine this thread waits for a CPU too, and its
 * rounds come late; the windows then grow (up to 32 periods' share), so
 * they still hold 1/N of each thread's run. */
static uint64_t burst_round(void)
{
	uint64_t now = pp_ticks(), since = now - last_round;
	last_round = now;
	if (__atomic_load_n(&pp__mode.timing, __ATOMIC_RELAXED) == PP_TIMING_BURST) {
		uint32_t n = __atomic_load_n(&pp__mode.sample_n, __ATOMIC_RELAXED);
		uint64_t most = (uint64_t)(32.0 * period_ns() * ticks_per_ns);
		__atomic_store_n(&window_ticks, (since < most ? since : most) / (n ? n : 1),
				 __ATOMIC_RELAXED);
		pp__slab_for_each_owner(request);
	}
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return period_ns() / 2 + rng % period_ns();
}

/* On the pacing thread: the tick rate, whose first measure may wait up to
 * 2 ms for the clocks to drift apart (runtime/clock.c); measured in the
 * constructor, the program waited for it before main. */
static void burst_begin(void)
{
	ticks_per_ns = pp__clock_ticks_per_ns();
}

static pp__ticker_t ticker = PP__TICKER_INIT(
	"burst", "PATHPROF_TIMING=burst: cannot start the pacing thread; nothing is timed", burst_begin,
	burst_round, NULL, WINDOW_NS * 8);

/* A forked child (a pre-forking server's worker) keeps burst timing: its
 * own pacer. Registered after the ticker's own handler, so it runs after
 * that one marked the parent's pacer gone. */
static void after_fork_child(void)
{
	last_round = pp_ticks();
	__atomic_store_n(&pp__g.windows, 0, __ATOMIC_RELAXED); /* its profile counts its own */
	if (__atomic_load_n(&pp__mode.timing, __ATOMIC_RELAXED) == PP_TIMING_BURST)
		pp__ticker_restart_in_child(&ticker);
}

static void spawn(void)
{
	last_round = pp_ticks();
	rng ^= last_round;
	if (pp__ticker_start(&ticker) == 0)
		pthread_atfork(NULL, NULL, after_fork_child);
}

void pp__burst_start(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	if (__atomic_load_n(&pp__mode.timing, __ATOMIC_RELAXED) == PP_TIMING_BURST)
		pthread_once(&once, spawn);
}

void pp__burst_stop(void)
{
	pp__ticker_stop(&ticker);
}
