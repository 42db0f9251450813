/* The out-of-line halves of the gate: thread registration and depth overflow
 * (enter_slow/leave_slow), first sight of a node (node_get) and the timing
 * of every exit of a timed event (pp__exit_timed). Each is reached at most once per event or
 * per new path, so clarity wins over cycles here. A re-entrancy flag keeps a
 * signal handler that runs gated code from corrupting a half-done insert: the
 * nested record is dropped and counted instead. */
/* GCC's SLP vectoriser packs the node record's adjacent counters into SSE
 * loads, shuffles and stores: six instructions for two adds on every timed
 * exit. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif
#include <errno.h>
#include <string.h>

#include <pathprof/pathprof.h>
#include "runtime.h"
#include "shm.h"
#include "slab.h"
#include "thread_state.h"
#include "recorder.h"

static __thread int in_slow PP_TLS_IE;

static inline pp__slab_t *slab_of(pp__tls_t *t)
{
	return (pp__slab_t *)t->slab;
}

static inline uint32_t depth_of(const pp__tls_t *t)
{
	return PP__DS_DEPTH(t->dstate);
}

/* Beyond the bound: skip the frame but keep its parent from passing for a
 * leaf, and count it. */
static void skip_frame(pp__tls_t *t, uint64_t sp)
{
	t->dstate &= ~1u;
	slab_of(t)->drops_depth++;
	if (t->excess++ == 0)
		t->excess_sp = sp;
	pp__set_limits(t);
}

/* Skipped frames all lie at or below the outermost one's address: a gate
 * above it means they are dead (a longjmp out of a recursion beyond the
 * bound), so the thread leaves the overflow state instead of skipping
 * every later gate. */
static void drop_dead_excess(pp__tls_t *t, uint64_t sp)
{
	if (t->excess && sp != PP__SP_NONE && sp > t->excess_sp) {
		slab_of(t)->unmatched += t->excess;
		t->excess = 0;
		pp__set_limits(t);
	}
}

/* Push below the bound, then stamp the frame when the event is timed. The
 * first frame of an event takes the timing decision in pp__push (or is
 * given it: recording and replay; or is never timed: PP__FE_UNTIMED). */
static void push_timed(pp__tls_t *t, uint64_t key, int fe, uint64_t sp, uint64_t ra, int given,
		       uint32_t timed, uint64_t at)
{
	if (fe & PP__FE_UNTIMED) {
		fe &= ~PP__FE_UNTIMED;
		given = 1;
		timed = 0;
	}
	uint64_t hb = t->hash;
	if (hb == PP__SEED && !given && t->timing_now) {
		/* a stale decision: a signal handler's event inside a timed one */
		t->timing_now = 0;
		pp__set_limits(t);
	}
	pp__frame_t *f = pp__push_frame(t, t->dstate, key, fe, sp, ra, !given);
	if (given && hb == PP__SEED) {
		t->timing_now = PP__TIMING && timed;
		pp__set_limits(t);
	}
	if (PP__TIMING && t->timing_now && (given || hb != PP__SEED)) {
		f->kids = 0;
		f->t = given ? at : pp_ticks();
	}
}

/* The sampling decision of an event's first gate: every event when timing
 * is on, one in sample_n when sampling. */
static uint32_t decide_timing(pp__tls_t *t)
{
	uint32_t m = pp__mode.timing;
	if (m != PP_TIMING_SAMPLE)
		return m == PP_TIMING_ON;
	if (t->countdown > 1) {
		t->countdown--;
		return 0;
	}
	t->countdown = pp__mode.sample_n;
	return 1;
}

void pp__event_timing(pp__tls_t *t, pp__frame_t *f)
{
	if (t->trace || !decide_timing(t))
		return; /* a recorded thread decides in traced_enter */
	t->timing_now = 1;
	pp__set_limits(t);
	f->kids = 0;
	f->t = pp_ticks();
}

void pp__gate_enter_at(pp__tls_t *t, uint64_t key, uint32_t timed, uint64_t at)
{
	if (t->excess || depth_of(t) >= pp__config.depth) {
		skip_frame(t, PP__SP_NONE);
		return;
	}
	push_timed(t, key, PP_FE_NONE, PP__SP_NONE, 0, 1, timed, at);
}

/* Drop the frames on top down to depth `keep`, each counted, one at a time,
 * depth first: a signal handler arriving half-way then pushes above the
 * frames still to be read. A dropped frame is not timed: its time stays in
 * the self time of the frame below, so sums still add up. */
static void drop_frames(pp__tls_t *t, uint32_t keep)
{
	uint32_t d;
	while ((d = depth_of(t)) > keep) {
		const pp__frame_t *f = t->stack + d - 1;
		t->dstate = (d - 1) * PP__FRAME_BYTES;
		__asm__ volatile("" ::: "memory");
		t->hash = f->hash_before;
		slab_of(t)->unmatched++;
		if (f->hash_before == PP__SEED && t->timing_now) {
			t->timing_now = 0; /* the timed event's root is gone */
			pp__set_limits(t);
		}
	}
}

/* Enter on a live, untraced thread below the bound, from a gate at (sp, ra):
 * first drop the dead frames on top (pp__dead). */
static void enter_checked(pp__tls_t *t, uint64_t key, int fe, uint64_t sp, uint64_t ra)
{
	int efe = fe & ~PP__FE_UNTIMED;
	if (PP__RESYNC(efe) && sp != PP__SP_NONE) {
		uint32_t d = depth_of(t);
		while (d > 0 && pp__dead(t->stack + d - 1, efe, sp, ra, key))
			d--;
		drop_frames(t, d);
	}
	if (depth_of(t) >= pp__config.depth) {
		skip_frame(t, sp);
		return;
	}
	push_timed(t, key, fe, sp, ra, 0, 0, 0);
}

void pp__enter_resync(uint64_t key, int fe, uint64_t sp, uint64_t ra)
{
	enter_checked(&pp__tls, key, fe, sp, ra);
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
static PP_NOINLINE void pop_timed(pp__tls_t *t, uint32_t v, uint64_t now);

/* Leave the nearest open frame entered with key: the frames above it have
 * gone without their exit (longjmp, an exception that ran no exit hook).
 * Without one, the exit has no entry (pp_root() inside a gate, a frame
 * already dropped): count it. Within a recursion the nearest frame of the
 * key may be a dead instance rather than the one leaving; the entry check
 * catches most of those (docs/internals/control-flow.md). */
static void leave_checked(pp__tls_t *t, uint64_t key, int checked, uint64_t now)
{
	uint32_t d = depth_of(t);
	if (checked)
		while (d > 0 && t->stack[d - 1].key != key)
			d--;
	if (!d) {
		slab_of(t)->unmatched++;
		return;
	}
	if (d != depth_of(t))
		drop_frames(t, d);
	uint32_t v = t->dstate - PP__FRAME_BYTES;
	if (PP__TIMING && t->timing_now)
		pop_timed(t, v, now);
	else
		pp__pop(t, v);
}

void pp__leave_resync(uint64_t key)
{
	leave_checked(&pp__tls, key, 1, 0);
}

void pp__gate_leave_at(pp__tls_t *t, uint64_t at)
{
	if (t->excess) {
		if (--t->excess == 0)
			pp__set_limits(t);
		t->dstate &= ~1u;
		return;
	}
	leave_checked(t, 0, 0, at);
}

void pp__gate_root(pp__tls_t *t)
{
	t->hash = PP__SEED;
	t->dstate = 0;
	t->excess = 0;
	t->excess_sp = 0;
	t->timing_now = 0;
	pp__set_limits(t);
}

/* A recorded gate: take the timing decision and read the clock here, record
 * exactly what the gate then uses, and apply it through the same code replay
 * uses, so a replay of the trace reproduces this thread's slab. */
static void traced_enter(pp__tls_t *t, uint64_t key, int fe)
{
	int rec = pp__trace_begin(t->trace);
	if (rec < 0)
		return; /* frozen: the profile has been taken */
	/* named before the clock is read: the first sight's cost goes to the
	 * parent's self time, once per key */
	uint64_t id = rec ? pp__trace_first_sight(fe, key) : 0;
	uint32_t push = !t->excess && depth_of(t) < pp__config.depth;
	uint32_t timed = t->timing_now;
	if (push && t->hash == PP__SEED)
		timed = decide_timing(t);
	uint64_t at = push && timed ? pp_ticks() : 0;
	if (rec)
		pp__trace_put(t->trace, push && timed ? PP_EV_ENTER_T : PP_EV_ENTER, id, at);
	pp__gate_enter_at(t, key, timed, at);
	if (rec)
		pp__trace_end(t->trace);
}

static void traced_leave(pp__tls_t *t)
{
	int rec = pp__trace_begin(t->trace);
	if (rec < 0)
		return;
	int timed = !t->excess && depth_of(t) && t->timing_now;
	uint64_t at = timed ? pp_ticks() : 0;
	if (rec)
		pp__trace_put(t->trace, timed ? PP_EV_LEAVE_T : PP_EV_LEAVE, 0, at);
	pp__gate_leave_at(t, at);
	if (rec)
		pp__trace_end(t->trace);
}


/* pp_root() on a live thread, recorded when the thread is being traced so
 * that a replay starts the event at the same place. */
static void root_now(pp__tls_t *t)
{
	int rec = t->trace && !pp__trace_stopped() ? pp__trace_begin(t->trace) : 0;
	if (rec < 0)
		return;
	if (rec) {
		pp__trace_put(t->trace, PP_EV_ROOT, 0, 0);
		pp__trace_end(t->trace);
	}
	pp__gate_root(t);
}

/* The selections' say at the entry of key on a live thread (select.c): 1
 * when the key is no gate (PATHPROF_FUNCTIONS). A root (PATHPROF_ROOT)
 * starts an event as pp_root() just before it would, unless the event open
 * is rooted at a root itself: the outermost open root wins, so a recursive
 * or nested root stays inside its event. Nor inside a signal handler's
 * event (pp_signal_begin), whose root lies above the frames it interrupted:
 * those must be there when the handler returns. */
static int select_entry(pp__tls_t *t, int fe, uint64_t key)
{
	int c = pp__key_class(fe, key);
	if (c == PP__KEY_SKIP)
		return 1;
	if (c != PP__KEY_ROOT)
		return 0;
	/* The seed hash: this gate starts an event anyway (depth 0, or the
	 * first gate of a signal handler's event). */
	if (t->hash == PP__SEED && !t->excess)
		return 0;
	uint32_t r = depth_of(t);
	while (r > 0 && t->stack[r - 1].hash_before != PP__SEED)
		r--;
	/* The open event's root is stack[r - 1]: the thread's own at 0, a
	 * signal handler's above the frames it interrupted. */
	if (r <= 1 && (r == 0 || pp__key_class(fe, t->stack[0].key) != PP__KEY_ROOT))
		root_now(t);
	return 0;
}

/* Is the thread in no rare state but a selection's? Then a gate sent out of
 * line only for its key's class can do what the inline gate would. */
static inline int only_selecting(const pp__tls_t *t, uint32_t v)
{
	return t->state == PP__ST_LIVE && !t->trace && !t->timing_now && !t->excess &&
	       v < pp__config.depth * PP__FRAME_BYTES;
}

static PP_NOINLINE void enter_rare(pp__tls_t *t, uint64_t key, int fe, uint64_t sp, uint64_t ra);

/* Kept small, so that a selection's gate pays no big function's register
 * saves: when the key was seen and is plain, the inline entry's push behind
 * a call, five state checks and the class lookup, about 66 instructions more
 * per gate than without a selection (bench/gateinstr.sh with PATHPROF_ROOT
 * set, depth 3: 129 against 63). Everything else is enter_rare. */
void pp__enter_slow(uint64_t key, int fe, uint64_t sp, uint64_t ra)
{
	pp__tls_t *t = &pp__tls;
	uint32_t v = t->dstate;
	if (PP_LIKELY(pp__selecting) && only_selecting(t, v)) {
		int efe = fe & ~PP__FE_UNTIMED;
		if (pp__key_class_seen(efe, key) == PP__KEY_PLAIN &&
		    (!PP__RESYNC(efe) || PP__DS_FRAME(t, v)[-1].sp > sp)) {
			/* code built with -DPP_NO_TIMING never times its events */
			pp__push_frame(t, v, key, efe, sp, ra, !(fe & PP__FE_UNTIMED));
			return;
		}
	}
	enter_rare(t, key, fe, sp, ra);
}

static void enter_rare(pp__tls_t *t, uint64_t key, int fe, uint64_t sp, uint64_t ra)
{
	int saved = errno;
	int untimed = fe & PP__FE_UNTIMED;
	fe &= ~PP__FE_UNTIMED;
	if (PP_LIKELY(t->state == PP__ST_LIVE)) {
		if (t->trace && pp__trace_stopped())
			pp__gate_untrace(t);
		if (PP_UNLIKELY(pp__selecting) && select_entry(t, fe, key)) {
			/* not a gate */
		} else if (t->trace) {
			traced_enter(t, key, fe);
		} else {
			if (PP__RESYNC(fe))
				drop_dead_excess(t, sp);
			if (t->excess)
				skip_frame(t, sp);
			else
				enter_checked(t, key, fe | untimed, sp, ra);
		}
	} else if (t->state == PP__ST_NEW) {
		t->state = PP__ST_REGISTERING;
		if (pp__thread_start(t, fe) == 0) {
			t->state = PP__ST_LIVE;
			t->excess = 0;
			t->timing_now = 0;
			if (pp__trace_armed)
				pp__trace_attach(t, fe);
			pp__set_limits(t);
			if (PP_UNLIKELY(pp__selecting) && select_entry(t, fe, key))
				; /* not a gate */
			else if (t->trace)
				traced_enter(t, key, fe);
			else
				enter_checked(t, key, fe | untimed, sp, ra);
		} else {
			t->state = PP__ST_DEAD;
			__atomic_fetch_add(&pp__g.unprofiled_threads, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&pp__g.skipped, 1, __ATOMIC_RELAXED);
			t->excess++;
			t->limit = t->elimit = 0;
		}
	} else {
		/* PP__ST_REGISTERING: a signal handler's gate while its thread
		 * registers; PP__ST_DEAD: a thread that could not. */
		__atomic_fetch_add(t->state == PP__ST_REGISTERING ? &pp__g.signal_skipped : &pp__g.skipped,
				   1, __ATOMIC_RELAXED);
		t->excess++;
		t->limit = t->elimit = 0;
	}
	errno = saved;
}

/* Beyond the bound, a leave belongs to a skipped frame: exits carry no
 * position, so skipped frames left dead by a longjmp are only noticed at
 * the next entry (drop_dead_excess). In a timed event the clock is read
 * first, so the bookkeeping here is not charged to the gate. */
static PP_NOINLINE void leave_rare(pp__tls_t *t, uint64_t key, int fe);

/* Small for the same reason as pp__enter_slow: under PATHPROF_FUNCTIONS
 * every exit comes here too, and a plain key's exit is the inline pop
 * behind a call and the class lookup (entry and exit together: 207
 * instructions per gate at depth 3, against 63 without a selection). */
void pp__leave_slow(uint64_t key, int fe)
{
	pp__tls_t *t = &pp__tls;
	if (PP_LIKELY(pp__selecting & PP__SEL_FUNCTIONS) && t->state == PP__ST_LIVE) {
		int c = pp__key_class(fe, key);
		if (c == PP__KEY_SKIP)
			return; /* its entry was not a gate either */
		uint32_t v = t->dstate - PP__FRAME_BYTES;
		if (only_selecting(t, v) && (!PP__RESYNC(fe) || PP__DS_FRAME(t, v)->key == key)) {
			pp__pop(t, v);
			return;
		}
	}
	leave_rare(t, key, fe);
}

static void leave_rare(pp__tls_t *t, uint64_t key, int fe)
{
	if (PP_LIKELY(t->state == PP__ST_LIVE)) {
		uint64_t now = PP__TIMING && t->timing_now ? pp_ticks() : 0;
		int saved = errno;
		if (t->trace && pp__trace_stopped())
			pp__gate_untrace(t);
		if (t->trace) {
			traced_leave(t);
		} else if (t->excess) {
			pp__gate_leave_at(t, 0);
		} else {
			leave_checked(t, key, PP__RESYNC(fe), now);
		}
		errno = saved;
		return;
	}
	if (t->excess)
		t->excess--;
}

/* The node named by the running hash (its gate open at depth d), inserted
 * at first sight with a count of 0. NULL when the table or the arena is full
 * or when a signal handler interrupted an insert (the caller counts the
 * drop). */
static PP_NOINLINE pp__path_t *node_get(pp__tls_t *t, uint32_t d)
{
	pp__slab_t *s = slab_of(t);
	uint64_t h = t->hash;
	uint64_t mask = t->mask;
	pp__slot_t *slot = NULL;
	for (uint64_t i = pp__slot_index(h, mask), n = 0; n <= mask; i++, n++) {
		pp__slot_t *c = t->table + (i & mask);
		uint64_t ch = c->hash;
		if (ch == h)
			return c->path;
		if (ch == 0) {
			slot = c;
			break;
		}
	}
	if (in_slow || !slot || s->npaths >= s->capacity || h == 0)
		return NULL;
	in_slow = 1;
	int saved = errno;
	/* The node's prefix runs from the innermost frame entered with the
	 * seed hash (the event's root) up to depth d. */
	uint32_t r = d;
	while (r > 0 && t->stack[r].hash_before != PP__SEED)
		r--;
	uint32_t depth = d - r + 1;
	pp__path_t *p = pp__slab_alloc(s, sizeof(*p) + depth * sizeof(uint64_t), 0);
	if (!p) {
		in_slow = 0;
		errno = saved;
		return NULL;
	}
	p->hash = h;
	p->count = 0;
	p->depth = depth;
	p->flags = 0;
	p->seg = NULL;
	for (uint32_t i = 0; i < depth; i++)
		p->keys[i] = t->stack[r + i].key;
	p->next = s->head;
	s->npaths++;
	/* Readers walk the list and the table concurrently: publish a node only
	 * once it is whole. */
	__atomic_store_n(&s->head, p, __ATOMIC_RELEASE);
	slot->path = p;
	__atomic_store_n(&slot->hash, h, __ATOMIC_RELEASE);
	/* Exporting: name its keys now, so a kill right after loses few. */
	if (pp__arena.hdr)
		pp__shm_nudge();
	in_slow = 0;
	errno = saved;
	return p;
}

/* Allocate a histogram row (cold: once per octave a node ever sees).
 * Allocation is the one thing a re-entrant call must not interleave with. */
static PP_COLD uint32_t new_row(pp__slab_t *s, pp__segrt_t *g, uint32_t row)
{
	if (in_slow)
		return 0;
	in_slow = 1;
	int saved = errno;
	void *m = pp__slab_alloc(s, PP__ROW_BYTES, 1);
	errno = saved;
	in_slow = 0;
	if (!m)
		return 0;
	uint32_t ref = pp__arena_ref(m);
	__atomic_store_n(&g->rows[row], ref, __ATOMIC_RELEASE);
	return ref;
}

static PP_COLD pp__segrt_t *new_timing(pp__slab_t *s, pp__path_t *p)
{
	if (in_slow)
		return NULL;
	in_slow = 1;
	int saved = errno;
	pp__segrt_t *g = pp__slab_alloc(s, sizeof(pp__segrt_t), 0);
	errno = saved;
	in_slow = 0;
	if (!g)
		return NULL;
	g->min = UINT64_MAX;
	__atomic_store_n(&p->seg, (struct pp__seg *)g, __ATOMIC_RELEASE);
	return g;
}

/* One timed exit into its node (the cell, its row, sum, self, min, max). 0,
 * or -1 when there was no memory for it. */
static inline __attribute__((always_inline)) int record_time(pp__slab_t *s, pp__path_t *p, uint64_t incl,
							 uint64_t self)
{
	pp__segrt_t *g = (pp__segrt_t *)p->seg;
	if (PP_UNLIKELY(!g) && !(g = new_timing(s, p)))
		return -1;
	uint32_t c = incl ? pp__hist_cell(incl) : PP__CELL_ZERO;
	uint32_t ref = g->rows[c / PP_HIST_SUB];
	if (PP_UNLIKELY(!ref) && !(ref = new_row(s, g, c / PP_HIST_SUB)))
		return -1;
	((uint64_t *)(pp__arena.base + ((size_t)ref << 7)))[c % PP_HIST_SUB]++;
	g->sum += incl;
	g->self += self;
	if (incl < g->min)
		g->min = incl;
	if (incl > g->max)
		g->max = incl;
	return 0;
}

/* A new event starts from an empty stack: frames still open below are
 * abandoned (their exits later count as unmatched). This is also what lets a
 * thread recover from exits it never saw (longjmp, or C++ exceptions through
 * code whose compiler emits no exit hook on unwinding). */
void pp_root(void)
{
	pp__tls_t *t = &pp__tls;
	if (t->state == PP__ST_LIVE)
		root_now(t);
}

void pp_reset(void)
{
	pp__tls_t *t = &pp__tls;
	int rec = t->state == PP__ST_LIVE && t->trace && !pp__trace_stopped()
			  ? pp__trace_begin(t->trace)
			  : 0;
	if (rec < 0)
		return;
	if (rec) {
		pp__trace_put(t->trace, PP_EV_RESET, 0, 0);
		pp__trace_end(t->trace);
	}
	pp__slab_reset_all();
}

static inline void finish_pop(pp__tls_t *t, uint32_t v)
{
	t->hash = PP__DS_FRAME(t, v)->hash_before;
	t->dstate = PP__DS_OFF(v);
}

void pp__leaf_miss(pp__tls_t *t, uint32_t v)
{
	pp__path_t *p = node_get(t, PP__DS_DEPTH(v));
	if (p)
		p->count++;
	else if (in_slow)
		slab_of(t)->drops_signal++; /* a handler interrupted an insert */
	else
		slab_of(t)->drops_table++;
	finish_pop(t, v);
}

static PP_NOINLINE void pop_timed(pp__tls_t *t, uint32_t v, uint64_t now)
{
	uint32_t d = PP__DS_DEPTH(v);
	pp__frame_t *f = PP__DS_FRAME(t, v);
	uint64_t incl = now > f->t ? now - f->t : 0;
	uint64_t self = incl > f->kids ? incl - f->kids : 0;
	int root = f->hash_before == PP__SEED;
	if (!root)
		f[-1].kids += incl;
	uint64_t h = t->hash;
	pp__slot_t *sl = t->table + pp__slot_index(h, t->mask);
	pp__path_t *p = PP_LIKELY(sl->hash == h) ? sl->path : node_get(t, d);
	pp__slab_t *s = slab_of(t);
	uint32_t leaf = v & 1u;
	if (!p) {
		if (in_slow)
			s->drops_signal += leaf;
		else
			s->drops_table += leaf;
		s->drops_time++;
	} else {
		p->count += leaf;
		if (record_time(s, p, incl, self) != 0)
			s->drops_time++;
	}
	finish_pop(t, v);
	if (root) {
		t->timing_now = 0;
		pp__set_limits(t);
	}
}

/* The exit of a timed event's gate when nothing else is rare (tlimit; the
 * bound and key are checked inline, pp__leave). The common case (the node
 * and its histogram row exist, the clock moved forward, the children took
 * less than the gate) makes no call, so it needs no saved registers;
 * anything else goes to pop_timed as a tail call, before any state has
 * changed. About 45 instructions: the frame and the node's probe (12), the
 * times (6), the cell and its row (9), sum, self, min and max (7), the leaf
 * count (2), the pop and the parent's children (6). */
void pp__pop_timed(pp__tls_t *t, uint32_t v, uint64_t now)
{
	pp__frame_t *f = PP__DS_FRAME(t, v);
	uint64_t h = t->hash;
	pp__slot_t *sl = t->table + pp__slot_index(h, t->mask);
	pp__path_t *p;
	pp__segrt_t *g;
	if (PP_UNLIKELY(sl->hash != h) || PP_UNLIKELY(!(g = (pp__segrt_t *)(p = sl->path)->seg)))
		return pop_timed(t, v, now);
	uint64_t incl = now - f->t, kids = f->kids;
	if (PP_UNLIKELY(now <= f->t) || PP_UNLIKELY(kids >= incl))
		return pop_timed(t, v, now);
	uint32_t c = pp__hist_cell(incl);
	uint32_t ref = g->rows[c / PP_HIST_SUB];
	if (PP_UNLIKELY(!ref))
		return pop_timed(t, v, now);
	uint64_t hb = f->hash_before;
	p->count += v & 1u;
	((uint64_t *)(pp__arena.base + ((size_t)ref << 7)))[c % PP_HIST_SUB]++;
	g->sum += incl;
	g->self += incl - kids;
	if (incl < g->min)
		g->min = incl;
	if (incl > g->max)
		g->max = incl;
	t->hash = hb;
	t->dstate = PP__DS_OFF(v);
	if (hb != PP__SEED) {
		f[-1].kids += incl;
		return;
	}
	t->timing_now = 0; /* the event's root: the timed event ends */
	pp__set_limits(t);
}
