/* The gate's resynchronisation and depth bound: a gate whose stack
 * position says the frames on top are dead (a longjmp, an exception that ran
 * no exit hook, cyg's hooks of inlined callees) drops them before it pushes;
 * an exit finds the nearest open frame of its key; beyond the depth bound a
 * frame is skipped and counted. Reached from the slow entry and exit
 * (gate_slow.c) when the inline gate's position or bound test fails, and
 * from the recorded and replayed gate (gate_record.c). */
#include <errno.h>

#include <pathprof/pathprof.h>
#include "gate_impl.h"
#include "gate_timed.h"

/* Beyond the bound: skip the frame but keep its parent from passing for a
 * leaf, and count it. */
void pp__skip_frame(pp__tls_t *t, uint64_t sp)
{
	t->dstate &= ~1u;
	pp__slab_of(t)->drops_depth++;
	if (t->excess++ == 0)
		t->excess_sp = sp;
	pp__set_limits(t);
}

/* Skipped frames all lie at or below the outermost one's address: a gate
 * above it means they are dead (a longjmp out of a recursion beyond the
 * bound), so the thread leaves the overflow state instead of skipping
 * every later gate. */
void pp__drop_dead_excess(pp__tls_t *t, uint64_t sp)
{
	if (t->excess && sp != PP__SP_NONE && sp > t->excess_sp) {
		pp__slab_of(t)->unmatched += t->excess;
		t->excess = 0;
		pp__set_limits(t);
	}
}

/* Push below the bound, then stamp the frame when the event is timed. The
 * first frame of an event takes the timing decision in pp__push (or is
 * given it: recording and replay; or is never timed: PP__FE_UNTIMED). */
void pp__push_timed(pp__tls_t *t, uint64_t key, int fe, uint64_t sp, uint64_t ra, int given,
		       uint32_t timed, uint64_t at)
{
	if (fe & PP__FE_UNTIMED) {
		fe &= ~PP__FE_UNTIMED;
		given = 1;
		timed = 0;
	}
	uint64_t hb = t->hash;
	if (hb == PP__SEED && !given && t->timing_now && pp__timing_ends(t)) {
		/* a stale decision: a signal handler's event inside a timed one,
		 * or an endless window whose mode was switched off */
		pp__timed_event_end(t);
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

/* Drop the frames on top down to depth `keep`, each counted, one at a time,
 * depth first: a signal handler arriving half-way then pushes above the
 * frames still to be read. A dropped frame is not timed: its time stays in
 * the self time of the frame below, so sums still add up. */
void pp__drop_frames(pp__tls_t *t, uint32_t keep)
{
	uint32_t d;
	while ((d = pp__depth_of(t)) > keep) {
		const pp__frame_t *f = t->stack + d - 1;
		t->dstate = (d - 1) * PP__FRAME_BYTES;
		__asm__ volatile("" ::: "memory");
		t->hash = f->hash_before;
		pp__slab_of(t)->unmatched++;
		if (f->hash_before == PP__SEED && t->timing_now && pp__timing_ends(t))
			pp__timed_event_end(t); /* the timed event's root is gone */
	}
}

/* Leave the top frame as its exit would have at `now` (read by the caller
 * when the thread times): its path counted if a leaf, its time recorded. */
static void leave_top(pp__tls_t *t, uint64_t now)
{
	uint32_t v = t->dstate - PP__FRAME_BYTES;
	if (PP__TIMING && t->timing_now)
		pp__pop_timed_rare(t, v, now);
	else
		pp__pop(t, v);
}

/* Control went up the stack past gated frames without their exits: a C++
 * catch handler entered in the function whose stack pointer at the call
 * was sp (host/catch.c), or a longjmp to a setjmp made at sp (host/
 * longjmp.c). On x86-64 every front-end's position lies within or above
 * its function's frame: cyg's and the plugin's are the stack pointer at the
 * hook's call (their trampolines), raii's the frame address, XRay's lean
 * shim's the return address's slot; the full XRay shim's frames carry
 * PP__SP_NONE, above every stack, and are never taken here. The function
 * at sp has its own frames at or above sp (its stack pointer stays put
 * between its calls), and one it called lies at least a return address
 * lower. So the frames below sp belong to functions that are gone, and
 * they went now: each leaves as its exit would have, here, its path
 * counted and its time up to the jump recorded, as GCC's exit hooks, raii's
 * cleanups and the plugin's landing pads leave theirs while an exception
 * unwinds. Dropped, they would lose the paths that led to the throw or the
 * jump (an interpreter's every error) and leave their time to the frame
 * below (docs/internals/control-flow.md). */
void pp__unwound_to(uint64_t sp)
{
	pp__tls_t *t = &pp__tls;
	if (!t->slab || t->trace)
		return;
	pp__drop_dead_excess(t, sp);
	if (t->excess)
		return; /* the jump lands among frames beyond the bound: every
			 * kept frame lies above it */
	uint32_t d = pp__depth_of(t);
	while (d > 0 && t->stack[d - 1].sp < sp)
		d--;
	uint64_t now = PP__TIMING && t->timing_now ? pp_ticks() : 0;
	while (pp__depth_of(t) > d)
		leave_top(t, now);
}

/* cyg, plugin: the frames at the gate's own position are the gates of
 * functions inlined into one host. One entered again by the very hook
 * (key and return address) is dead, with every frame above it: a copy is
 * entered again only after its frame was abandoned (a longjmp out of it). */
static uint32_t drop_reentered_copy(const pp__tls_t *t, uint32_t d, uint64_t sp, uint64_t ra,
				    uint64_t key)
{
	for (uint32_t i = d; i > 0 && t->stack[i - 1].sp == sp; i--)
		if (t->stack[i - 1].key == key && t->stack[i - 1].ra == ra)
			return i - 1;
	return d;
}

/* Enter on a live, untraced thread below the bound, from a gate at (sp, ra):
 * first drop the dead frames on top (pp__dead). */
void pp__enter_checked(pp__tls_t *t, uint64_t key, int fe, uint64_t sp, uint64_t ra)
{
	int efe = fe & ~PP__FE_UNTIMED;
	if (sp != PP__SP_NONE) { /* a positioned gate: its front-end resyncs */
		uint32_t d = pp__depth_of(t);
		while (d > 0 && pp__dead(t->stack + d - 1, efe, sp, ra, key))
			d--;
		if (efe == PP_FE_CYG || efe == PP_FE_PLUGIN)
			d = drop_reentered_copy(t, d, sp, ra, key);
		pp__drop_frames(t, d);
	}
	if (pp__depth_of(t) >= pp__config.depth) {
		pp__skip_frame(t, sp);
		return;
	}
	pp__push_timed(t, key, fe, sp, ra, 0, 0, 0);
}

void pp__enter_resync(uint64_t key, int fe, uint64_t sp, uint64_t ra)
{
	pp__enter_checked(&pp__tls, key, fe, sp, ra);
}

/* Leave the nearest open frame entered with key: the frames above it have
 * gone without their exit (longjmp, an exception that ran no exit hook).
 * Without one, the exit has no entry (pp_root() inside a gate, a frame
 * already dropped): count it. Within a recursion the nearest frame of the
 * key may be a dead instance rather than the one leaving; the entry check
 * catches most of those (docs/internals/control-flow.md). */
void pp__leave_checked(pp__tls_t *t, uint64_t key, int checked, uint64_t now)
{
	uint32_t d = pp__depth_of(t);
	if (checked)
		while (d > 0 && t->stack[d - 1].key != key)
			d--;
	if (!d) {
		pp__slab_of(t)->unmatched++;
		return;
	}
	if (d != pp__depth_of(t))
		pp__drop_frames(t, d);
	leave_top(t, now);
}

void pp__leave_resync(uint64_t key)
{
	pp__leave_checked(&pp__tls, key, 1, 0);
}

