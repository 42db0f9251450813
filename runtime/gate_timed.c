/* The timed exit and the timing decision. Every exit of a timed event
 * records its gate's inclusive and self time into its node: the fast case
 * (gate_timed.h: pp__pop_timed here, which raii's inline exit calls, and
 * inline in the cyg and plugin hooks) makes no call; the rest (a new node,
 * a new histogram row, a clock that stepped back, a burst window's edge)
 * goes to pp__pop_timed_rare. The sampling decision is taken at an event's
 * first gate (pp__event_timing, from the inline entry). */
/* GCC's SLP vectoriser packs the node record's adjacent counters into SSE
 * loads, shuffles and stores: six instructions for two adds on every timed
 * exit. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif
#include <errno.h>

#include <pathprof/pathprof.h>
#include "gate_impl.h"
#define PP__TIMED_EVENT_END(t) (t->timing_now = 0, t->wend = PP__NO_WINDOW, pp__set_limits(t))
#include "gate_timed.h"
#include "gate_window.h"
#include "throttle.h"

/* The decision itself */
static inline __attribute__((always_inline)) void event_timing(pp__tls_t *t, pp__frame_t *f)
{
	if (t->trace || !pp__decide_timing(t))
		return; /* a recorded thread decides in pp__traced_enter */
	/* Timing every event: it goes on into the next (PP__ENDLESS), unless
	 * this is a signal handler's event above frames it interrupted, which
	 * may be those of an event that was not timed. */
	if (pp__mode.timing == PP_TIMING_ON && t->wend == PP__NO_WINDOW && f == t->stack)
		t->wend = PP__ENDLESS;
	t->timing_now = 1;
	pp__set_limits(t);
	f->kids = 0;
	f->t = pp_ticks();
}

/* A stopped key starts no event. Between events a thread's entries are
 * inline and test no stopped set (only a timed event's go out of line once
 * a budget stopped a key), so the frame is pushed and counted: both are
 * taken back, and its exit, out of line, finds no frame of its own and
 * returns. Apart, so that the decision keeps no register across the
 * set's lookup: without a budget the test costs an event 4 instructions
 * (bench/gateinstr.sh, timed: 140.9 -> 141.3 a gate at depth 3; 145.9
 * with the lookup inline, whose call made the decision save three). */
static PP_NOINLINE __attribute__((flatten)) void event_timing_budget(pp__tls_t *t, pp__frame_t *f)
{
	/* XRay stops a key by unpatching it, and its shim keeps the frames
	 * it pushed: a key of its own in the set (its unpatching refused)
	 * stays gated there, as its inline gate does not test the set */
	if (PP__THROTTLES(__atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED)) && pp__throttle_stopped(f->key)) {
		t->hash = f->hash_before;
		t->dstate = (uint32_t)((char *)f - (char *)t->stack);
		t->slab->events--;
		return;
	}
	event_timing(t, f);
}

/* flattened: the cold function is built for size, where the decision's
 * helpers, used twice now, would become calls of their own */
__attribute__((flatten)) void pp__event_timing(pp__tls_t *t, pp__frame_t *f)
{
	if (PP_UNLIKELY(__atomic_load_n(&pp__throttle_n, __ATOMIC_RELAXED)))
		return event_timing_budget(t, f);
	event_timing(t, f);
}

/* Allocate a histogram row (cold: once per octave a node ever sees).
 * Allocation is the one thing a re-entrant call must not interleave with. */
static PP_COLD uint32_t new_row(pp__slab_t *s, pp__segrt_t *g, uint32_t row)
{
	if (pp__gate_in_slow)
		return 0;
	pp__gate_in_slow = 1;
	int saved = errno;
	void *m = pp__slab_alloc(s, PP__ROW_BYTES, 1);
	errno = saved;
	pp__gate_in_slow = 0;
	if (!m)
		return 0;
	uint32_t ref = pp__arena_ref(m);
	__atomic_store_n(&g->rows[row], ref, __ATOMIC_RELEASE);
	return ref;
}

static PP_COLD pp__segrt_t *new_timing(pp__slab_t *s, pp__path_t *p)
{
	if (pp__gate_in_slow)
		return NULL;
	pp__gate_in_slow = 1;
	int saved = errno;
	pp__segrt_t *g = pp__slab_alloc(s, sizeof(pp__segrt_t), 0);
	errno = saved;
	pp__gate_in_slow = 0;
	if (!g)
		return NULL;
	g->min = UINT64_MAX;
	__atomic_store_n(&p->seg, (struct pp__seg *)g, __ATOMIC_RELEASE);
	return g;
}

pp__segrt_t *pp__node_timing(pp__tls_t *t, pp__path_t *p)
{
	pp__segrt_t *g = (pp__segrt_t *)p->seg;
	return g ? g : new_timing(pp__slab_of(t), p);
}

__thread int pp__times_given PP_TLS_IE;

void pp__skip_own_work(pp__tls_t *t, uint64_t from)
{
	uint64_t d = pp_ticks() - from;
	t->own_work = 0;
	pp__slab_t *s = pp__slab_of(t);
	s->own_ticks += d;
	s->own_n++;
	/* Out of the open frames of the event it was done in, down to its
	 * root. The frames below a signal handler's event are those it
	 * interrupted: one may have read its exit's clock already, and moving
	 * its start then made it shorter than its children (its self time,
	 * clamped at 0, broke the sum of self times: tests/control's signal
	 * mode, timed); they hold the handler's time as their own anyway. */
	for (uint32_t i = pp__depth_of(t); i-- > 0;) {
		t->stack[i].t += d;
		if (t->stack[i].hash_before == PP__SEED)
			break;
	}
	if (t->wend < PP__ENDLESS)
		t->wend += d; /* a burst window's end; not an endless or held one */
}

/* One timed exit into its node (the cell, its row, sum, self, min, max). 0,
 * or -1 when there was no memory for it. An allocation notes when it began
 * in *w, unless it is set already. */
static inline __attribute__((always_inline)) int record_time(pp__tls_t *t, pp__slab_t *s, pp__path_t *p,
							 uint64_t incl, uint64_t self, uint64_t *w)
{
	pp__segrt_t *g = (pp__segrt_t *)p->seg;
	if (PP_UNLIKELY(!g)) {
		pp__own_begin(t, w);
		if (!(g = new_timing(s, p)))
			return -1;
	}
	uint32_t c = incl ? pp__hist_cell(incl) : PP__CELL_ZERO;
	uint32_t ref = g->rows[c / PP_HIST_SUB];
	if (PP_UNLIKELY(!ref)) {
		pp__own_begin(t, w);
		if (!(ref = new_row(s, g, c / PP_HIST_SUB)))
			return -1;
	}
	((uint64_t *)(pp__arena.base + ((size_t)ref << 7)))[c % PP_HIST_SUB]++;
	pp__seg_times(g, incl, self);
	return 0;
}

/* The exit of a timed event's gate at state v (as pp__pop): the gate's
 * inclusive time (exit - entry) and self time (inclusive - its gated
 * children's inclusive) go to its node, and its inclusive time to its
 * parent's children, so that the self times of an event add up to its
 * root's inclusive time exactly. An event's root (entered with the seed
 * hash) has no parent in the event: the frame below it, if any, is one a
 * signal handler interrupted; its exit ends the timed event. Clocks that
 * step back (migration across unsynchronised sockets) give 0, never a huge
 * unsigned value. */
void pp__pop_timed_rare(pp__tls_t *t, uint32_t v, uint64_t now)
{
	if (PP_UNLIKELY(pp__window_busy) && (now >= t->wend || (PP__DS_FRAME(t, v)->kids & PP__KIDS_CUT))) {
		pp__pop(t, v); /* a signal handler's gate amid a window's edge */
		return;
	}
	if (now >= t->wend) {
		/* past the burst window's end: close it, then leave untimed */
		pp__window_close(t);
		pp__pop(t, v);
		return;
	}
	if (PP__DS_FRAME(t, v)->kids & PP__KIDS_CUT) {
		/* open when the window opened: its time so far, no whole call */
		pp__window_cut_exit(t, v, now); /* and pops the frame */
		return;
	}
	uint32_t d = PP__DS_DEPTH(v);
	pp__frame_t *f = PP__DS_FRAME(t, v);
	uint64_t incl = now > f->t ? now - f->t : 0;
	uint64_t self = incl > f->kids ? incl - f->kids : 0;
	int root = f->hash_before == PP__SEED;
	if (!root)
		f[-1].kids += incl;
	/* A node inserted at its first sight, its timing record or a
	 * histogram row allocated: the runtime's work, which can take a while
	 * (a new chunk of the arena is backed page by page: 200 us here), from
	 * w to the end, taken out of the frames below (pp__skip_own_work),
	 * which would otherwise hold it as their self time. A node found
	 * further along its probe is not: that is the gate's usual cost,
	 * which compensation takes out. */
	uint64_t w = 0;
	uint64_t h = t->hash;
	pp__slot_t *sl = pp__slot_at(t->table, t->smask, h);
	pp__path_t *p;
	if (PP_LIKELY(sl->hash == h)) {
		p = sl->path;
	} else {
		/* for the off-CPU recorder the probe is own work too: a block
		 * in it belongs to no node (this one's time has ended) */
		t->own_work = 1;
		p = pp__node_get(t, d, &w);
		t->own_work = w != 0;
	}
	pp__slab_t *s = pp__slab_of(t);
	uint32_t leaf = v & 1u;
	if (!p) {
		if (pp__gate_in_slow)
			s->drops_signal += leaf;
		else
			s->drops_table += leaf;
		s->drops_time++;
	} else {
		p->count += leaf;
		if (record_time(t, s, p, incl, self, &w) != 0)
			s->drops_time++;
	}
	/* before the pop: the frame left bounds the frames it is taken out
	 * of (after an event's root's exit, none: the event has ended) */
	if (w && !pp__times_given)
		pp__skip_own_work(t, w);
	pp__finish_pop(t, v);
	t->own_work = 0;
	if (root && pp__timing_ends(t))
		PP__TIMED_EVENT_END(t);
}

void pp__pop_timed_rare_incl(pp__tls_t *t, uint32_t v, uint64_t incl)
{
	pp__pop_timed_rare(t, v, PP__DS_FRAME(t, v)->t + incl);
}

/* The exit of a timed event's gate when nothing else is rare (tlimit; the
 * bound and key are checked inline, pp__leave): the call raii's inline exit
 * makes. */
void pp__pop_timed(pp__tls_t *t, uint32_t v, uint64_t now)
{
	pp__pop_timed_fast(t, v, now);
}

void pp__timed_event_end(pp__tls_t *t)
{
	PP__TIMED_EVENT_END(t);
}
