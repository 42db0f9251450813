/* Burst timing (PATHPROF_TIMING=burst:N, #30): timing that works on a
 * program with one event (a parser, a batch job), where sample:N, which
 * decides per event, times all or nothing. A pacer thread (burst.c) picks,
 * for every thread, a window of time at random in each period: a 1/N
 * share of the thread's run. Inside a window every gate is timed as in a
 * timed event; outside it the gates count only. Counts stay exact.
 *
 * A window cuts the calls open across its edges. When it opens, at the
 * first gate after the pacer's request, the frames already open are given
 * the request's time as their start and a mark in their children's total
 * (PP__KIDS_CUT), so their exits go out of line; when it ends (the first
 * timed exit past its end), every open frame's time up to the end is
 * taken. A cut call adds its share of the window to its node's self time
 * and to its `open` time (inclusive time of calls seen in part), never to
 * its calls, histogram or inclusive sum: those describe whole calls only,
 * which ran inside one window. So a node's self time is the time the
 * windows saw the thread in it, whatever the shape of the program, and the
 * self times of all nodes add up to the windows' time exactly. */
#include <pathprof/pathprof.h>
#include "gate_impl.h"
#include "gate_window.h"

__thread int pp__window_busy PP_TLS_IE;

/* Add a cut call's share of the window to the node of frame i (0-based)
 * of the open stack: incl, of which self is the frame's own. */
static void add_cut(pp__tls_t *t, uint32_t i, uint64_t incl, uint64_t self)
{
	uint64_t h = t->hash;
	/* the node of frame i is named by the hash after its push (not the
	 * next frame's hash_before: that may be a signal handler's event root) */
	t->hash = pp__mix(t->stack[i].hash_before, t->stack[i].key);
	pp__path_t *p = pp__node_get(t, i, NULL);
	t->hash = h;
	pp__segrt_t *g = p ? pp__node_timing(t, p) : NULL;
	if (!g) {
		pp__slab_of(t)->drops_time++;
		return;
	}
	g->self += self;
	g->open += incl;
}

/* Each of the three below marks the thread busy before it reads the
 * window's state, and re-reads it then: a signal handler's gate that came
 * between the caller's test and here may have opened or closed the window. */
void pp__window_open(pp__tls_t *t)
{
	if (pp__window_busy)
		return; /* a signal handler amid a window's edge: the request waits */
	pp__window_busy = 1;
	if (t->wend != PP__NO_WINDOW) {
		pp__window_busy = 0;
		return; /* a window is open: the request waits for its end */
	}
	__atomic_store_n(&t->wreq, 0, __ATOMIC_RELAXED);
	uint64_t start = __atomic_load_n(&t->wstart, __ATOMIC_RELAXED);
	uint64_t len = __atomic_exchange_n(&t->wlen, 0, __ATOMIC_ACQ_REL);
	if (pp__mode.timing != PP_TIMING_BURST || t->timing_now || t->trace || t->excess) {
		pp__set_limits(t); /* the request zeroed them */
		pp__window_busy = 0;
		return;
	}
	uint64_t now = 0;
	pp__own_begin(t, &now);
	if (start > now)
		start = now;
	uint32_t d = pp__depth_of(t);
	for (uint32_t i = 0; i < d; i++) {
		t->stack[i].t = start;
		t->stack[i].kids = PP__KIDS_CUT;
	}
	t->wend = start + len;
	t->timing_now = 1;
	__atomic_add_fetch(&pp__g.windows, 1, __ATOMIC_RELAXED);
	pp__set_limits(t);
	if (now >= t->wend) {
		t->own_work = 0;
		pp__window_busy = 0;
		pp__window_close(t);
	} else {
		pp__skip_own_work(t, now);
		pp__window_busy = 0;
	}
}

void pp__window_close(pp__tls_t *t)
{
	pp__window_busy = 1;
	uint64_t end = t->wend;
	if (end == PP__NO_WINDOW) {
		pp__window_busy = 0;
		return; /* a signal handler's gate closed it */
	}
	uint32_t d = pp__depth_of(t);
	for (uint32_t i = d; i-- > 0;) {
		pp__frame_t *f = t->stack + i;
		uint64_t incl = end > f->t ? end - f->t : 0;
		uint64_t kids = f->kids & ~PP__KIDS_CUT;
		add_cut(t, i, incl, incl > kids ? incl - kids : 0);
		if (i > 0)
			f[-1].kids += incl;
	}
	t->wend = PP__NO_WINDOW;
	t->timing_now = 0;
	/* a request made during the window starts its own where this one ends
	 * (the pacer leaves wstart alone while a request waits) */
	int waiting = __atomic_load_n(&t->wreq, __ATOMIC_ACQUIRE);
	if (waiting && __atomic_load_n(&t->wstart, __ATOMIC_RELAXED) < end)
		__atomic_store_n(&t->wstart, end, __ATOMIC_RELAXED);
	pp__set_limits(t);
	/* ... and opens at the next gate: the limits it zeroed were restored
	 * just now. (Elsewhere a request that lands while the thread sets its
	 * limits can be undone the same way; it then waits for the pacer's next
	 * round, which adds its share: the windows keep their 1/N.) */
	if (waiting) {
		PP__LIMIT_SET(t->limit, 0);
		PP__LIMIT_SET(t->elimit, 0);
	}
	pp__window_busy = 0;
}

void pp__signal_window(pp__tls_t *t)
{
	/* a window the handler opened holds the interrupted frames too: it
	 * marked every open frame */
	t->timing_now = 1;
	pp__set_limits(t);
}

void pp__window_cut_exit(pp__tls_t *t, uint32_t v, uint64_t now)
{
	pp__frame_t *f = PP__DS_FRAME(t, v);
	pp__window_busy = 1;
	t->own_work = 1; /* from now (the exit's clock) to pp__skip_own_work */
	if (t->wend == PP__NO_WINDOW || !(f->kids & PP__KIDS_CUT)) {
		t->own_work = 0;
		pp__pop(t, v); /* a signal handler's gate closed the window */
		pp__window_busy = 0;
		return;
	}
	uint64_t incl = now > f->t ? now - f->t : 0;
	uint64_t kids = f->kids & ~PP__KIDS_CUT;
	add_cut(t, PP__DS_DEPTH(v), incl, incl > kids ? incl - kids : 0);
	if (PP__DS_DEPTH(v) > 0)
		f[-1].kids += incl;
	pp__pop(t, v);
	pp__skip_own_work(t, now);
	pp__window_busy = 0;
}
