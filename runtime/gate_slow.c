/* The gate's out-of-line entry and exit: where the inline gate (gate.h)
 * goes when its thread is in any rare state. A thread's first gate
 * registers it; a selection (PATHPROF_ROOT, PATHPROF_FUNCTIONS) decides
 * per key; a recorded thread goes to gate_record.c, a dead frame or the
 * depth bound to gate_resync.c. Each is reached at most once per event,
 * per new path or per selected gate, so clarity wins over cycles here. */
#include <errno.h>

#include <pathprof/pathprof.h>
#include "gate_impl.h"
#include "gate_window.h"
#include "recorder.h"

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
		return (pp__selecting & PP__SEL_ROOTS) ? 2 : 0; /* 2: a gate outside every root */
	/* The seed hash: this gate starts an event anyway (depth 0, or the
	 * first gate of a signal handler's event). */
	if (t->hash == PP__SEED && !t->excess)
		return 0;
	uint32_t r = pp__depth_of(t);
	while (r > 0 && t->stack[r - 1].hash_before != PP__SEED)
		r--;
	/* The open event's root is stack[r - 1]: the thread's own at 0, a
	 * signal handler's above the frames it interrupted. */
	if (r <= 1 && (r == 0 || pp__key_class(fe, t->stack[0].key) != PP__KEY_ROOT))
		pp__root_now(t);
	return 0;
}

/* Is the thread in no rare state but a selection's? Then a gate sent out of
 * line only for its key's class can do what the inline gate would. */
static inline int only_selecting(const pp__tls_t *t, uint32_t v)
{
	return t->state == PP__ST_LIVE && !t->trace && !t->timing_now && !t->excess &&
	       !__atomic_load_n(&t->wreq, __ATOMIC_RELAXED) &&
	       v < pp__config.depth * PP__FRAME_BYTES;
}

int pp__xray_keyed;

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
		    (sp == PP__SP_NONE || PP__DS_FRAME(t, v)[-1].sp > sp)) {
			/* code built with -DPP_NO_TIMING never times its events */
			uint64_t e0 = t->slab->events;
			pp__push_frame(t, v, key, efe, sp, ra, !(fe & PP__FE_UNTIMED));
			if (pp__selecting & PP__SEL_ROOTS)
				pp__outside_root(t, e0); /* a plain key: never a root */
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
		if (__atomic_load_n(&t->wreq, __ATOMIC_ACQUIRE))
			pp__window_open(t);
		int sel = PP_UNLIKELY(pp__selecting) ? select_entry(t, fe, key) : 0;
		uint64_t e0 = t->slab->events;
		if (sel == 1) {
			/* not a gate */
		} else if (t->trace) {
			pp__traced_enter(t, key, fe);
		} else {
			pp__drop_dead_excess(t, sp); /* positioned gates only */
			if (t->excess)
				pp__skip_frame(t, sp);
			else
				pp__enter_checked(t, key, fe | untimed, sp, ra);
		}
		if (sel == 2)
			pp__outside_root(t, e0);
	} else if (t->state == PP__ST_NEW) {
		t->state = PP__ST_REGISTERING;
		if (pp__thread_start(t, fe) == 0) {
			t->state = PP__ST_LIVE;
			t->excess = 0;
			t->timing_now = 0;
			if (pp__trace_armed)
				pp__trace_attach(t, fe);
			pp__set_limits(t);
			int sel = PP_UNLIKELY(pp__selecting) ? select_entry(t, fe, key) : 0;
			uint64_t e0 = t->slab->events;
			if (sel == 1)
				; /* not a gate */
			else if (t->trace)
				pp__traced_enter(t, key, fe);
			else
				pp__enter_checked(t, key, fe | untimed, sp, ra);
			if (sel == 2)
				pp__outside_root(t, e0);
		} else {
			t->state = PP__ST_DEAD;
			__atomic_fetch_add(&pp__g.unprofiled_threads, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&pp__g.skipped, 1, __ATOMIC_RELAXED);
			t->excess++;
			PP__LIMIT_SET(t->limit, 0);
			PP__LIMIT_SET(t->elimit, 0);
		}
	} else {
		/* PP__ST_REGISTERING: a signal handler's gate while its thread
		 * registers; PP__ST_DEAD: a thread that could not. */
		__atomic_fetch_add(t->state == PP__ST_REGISTERING ? &pp__g.signal_skipped : &pp__g.skipped,
				   1, __ATOMIC_RELAXED);
		t->excess++;
		PP__LIMIT_SET(t->limit, 0);
		PP__LIMIT_SET(t->elimit, 0);
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
		if (only_selecting(t, v) && (!PP__KEYED(fe) || PP__DS_FRAME(t, v)->key == key)) {
			pp__pop(t, v);
			return;
		}
	}
	leave_rare(t, key, fe);
}

static void leave_rare(pp__tls_t *t, uint64_t key, int fe)
{
	if (PP_LIKELY(t->state == PP__ST_LIVE)) {
		if (__atomic_load_n(&t->wreq, __ATOMIC_ACQUIRE))
			pp__window_open(t);
		uint64_t now = PP__TIMING && t->timing_now ? pp_ticks() : 0;
		int saved = errno;
		if (t->trace && pp__trace_stopped())
			pp__gate_untrace(t);
		if (t->trace) {
			pp__traced_leave(t);
		} else if (t->excess) {
			pp__gate_leave_at(t, 0);
		} else {
			pp__leave_checked(t, key, PP__KEYED(fe), now);
		}
		errno = saved;
		return;
	}
	if (t->excess)
		t->excess--;
}

