/* The gate with its time given: what a recorded thread's gate does (take the
 * timing decision, read the clock, record both in the trace, then apply
 * them) and what `pathprof replay` applies from a trace (pp__gate_*_at), so
 * that a replay rebuilds the recorded thread's slab exactly; and pp_root()
 * and pp_reset(), which a trace records too. */
#include <errno.h>

#include <pathprof/pathprof.h>
#include "gate_impl.h"
#include "gate_timed.h"
#include "recorder.h"

void pp__gate_enter_at(pp__tls_t *t, uint64_t key, uint32_t timed, uint64_t at)
{
	if (t->excess || pp__depth_of(t) >= pp__config.depth) {
		pp__skip_frame(t, PP__SP_NONE);
		return;
	}
	pp__push_timed(t, key, PP_FE_NONE, PP__SP_NONE, 0, 1, timed, at);
}

void pp__gate_leave_at(pp__tls_t *t, uint64_t at)
{
	if (t->excess) {
		if (--t->excess == 0)
			pp__set_limits(t);
		t->dstate &= ~1u;
		return;
	}
	pp__times_given = 1;
	pp__leave_checked(t, 0, 0, at);
	pp__times_given = 0;
}

void pp__gate_root(pp__tls_t *t)
{
	t->hash = PP__SEED;
	t->dstate = 0;
	t->excess = 0;
	t->excess_sp = 0;
	/* timing every event, the next is timed as well: the endless window
	 * goes on (gate_timed.h) */
	if (t->wend != PP__ENDLESS || pp__timing_ends(t)) {
		t->timing_now = 0;
		if (t->wend == PP__ENDLESS)
			t->wend = PP__NO_WINDOW;
	}
	pp__set_limits(t);
}

/* A recorded gate: take the timing decision and read the clock here, record
 * exactly what the gate then uses, and apply it through the same code replay
 * uses, so a replay of the trace reproduces this thread's slab. */
void pp__traced_enter(pp__tls_t *t, uint64_t key, int fe)
{
	int rec = pp__trace_begin(t->trace);
	if (rec < 0)
		return; /* frozen: the profile has been taken */
	/* named before the clock is read: the first sight's cost goes to the
	 * parent's self time, once per key */
	uint64_t id = rec ? pp__trace_first_sight(fe, key) : 0;
	uint32_t push = !t->excess && pp__depth_of(t) < pp__config.depth;
	uint32_t timed = t->timing_now;
	if (push && t->hash == PP__SEED)
		timed = pp__decide_timing(t);
	uint64_t at = push && timed ? pp_ticks() : 0;
	if (rec)
		pp__trace_put(t->trace, push && timed ? PP_EV_ENTER_T : PP_EV_ENTER, id, at);
	pp__gate_enter_at(t, key, timed, at);
	if (rec)
		pp__trace_end(t->trace);
}

void pp__traced_leave(pp__tls_t *t)
{
	int rec = pp__trace_begin(t->trace);
	if (rec < 0)
		return;
	int timed = !t->excess && pp__depth_of(t) && t->timing_now;
	uint64_t at = timed ? pp_ticks() : 0;
	if (rec)
		pp__trace_put(t->trace, timed ? PP_EV_LEAVE_T : PP_EV_LEAVE, 0, at);
	pp__gate_leave_at(t, at);
	if (rec)
		pp__trace_end(t->trace);
}

/* pp_root() on a live thread, recorded when the thread is being traced so
 * that a replay starts the event at the same place. */
void pp__root_now(pp__tls_t *t)
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

/* A new event starts from an empty stack: frames still open below are
 * abandoned (their exits later count as unmatched). This is also what lets a
 * thread recover from exits it never saw (longjmp, or C++ exceptions through
 * code whose compiler emits no exit hook on unwinding). */
void pp_root(void)
{
	pp__tls_t *t = &pp__tls;
	/* with nothing open and nothing recorded there is nothing to do (a
	 * live thread skips frames only beyond the bound, never at depth 0) */
	if (t->state == PP__ST_LIVE && (t->dstate || t->trace))
		pp__root_now(t);
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

