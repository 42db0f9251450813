/* PATHPROF_FUNCTIONS's way for the cyg hooks and the plugin's shim
 * (pathprof/gate.h, PP__SITED): under a function selection every gate
 * leaves the inline path, since only a look at its key says whether it is
 * one. A key the selection leaves out has its hook call noted for the
 * patcher (site_patch.c), which makes it harmless at its next round. A kept
 * key, the common case once those are patched, gets here what the inline
 * gate would have done: one class lookup, then the same push and pop,
 * timed or not: about 196 instructions a gate count-only and 251 timed
 * on bench/inlparse.c, where the inline gate takes 57 and 104 (bench/
 * inlinstr.sh; the rest is the call into the runtime, the lookup, and the
 * thread's rare states tested again, which its zeroed limits stand for).
 * Before, it went on to pp__enter_slow and pp__leave_slow, which looked
 * its class up again and, in a timed event or for a hook of an inlined
 * callee, went all the way to the rare paths: 529 and 659.
 * Only under a function selection alone: a root selection's accounting
 * (gates outside every root) stays with pp__enter_slow. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize") /* as gate_timed.h asks of its includers */
#endif
#include "gate_impl.h"
#include "gate_timed.h"
#include "site_patch.h"

/* Can a kept key's gate at state v do what the inline one would? The
 * inline gate's limits (thread_state.h) without the selection's part: no
 * recording, no frames beyond the bound, no window waiting to open, and
 * for a timed event no budget (a budget is off under a selection, but a
 * selection set by pp_select_functions may meet one). */
static inline int kept_inline(const pp__tls_t *t, uint32_t v)
{
	return t->state == PP__ST_LIVE && !t->trace && !t->excess &&
	       !__atomic_load_n(&t->wreq, __ATOMIC_RELAXED) && v < pp__config.depth * PP__FRAME_BYTES &&
	       (!t->timing_now || !__atomic_load_n(&pp__throttle_n, __ATOMIC_RELAXED));
}

/* A left-out key's hook call, for the patcher. */
static void note_left_out(uint64_t key, int fe, uint64_t site, int how)
{
	if (site && pp__tls.state == PP__ST_LIVE && (pp__selecting & PP__SEL_FUNCTIONS) &&
	    pp__key_class(fe, key) == PP__KEY_SKIP)
		pp__site_note(site, key, how | PP__SITE_LEFT_OUT);
}

void pp__enter_selected(uint64_t key, int fe, uint64_t sp, uint64_t ra, uint64_t site)
{
	pp__tls_t *t = &pp__tls;
	int efe = fe & ~PP__FE_UNTIMED;
	uint32_t v = t->dstate;
	if (PP_LIKELY(__atomic_load_n(&pp__selecting, __ATOMIC_RELAXED) == PP__SEL_FUNCTIONS) &&
	    kept_inline(t, v)) {
		int c = pp__key_class(efe, key);
		if (c == PP__KEY_PLAIN && !pp__off_top(t, v, efe, sp, key)) {
			if (PP__TIMING && t->timing_now)
				pp__push_timed_frame(t, v, key, efe, sp, ra);
			else /* code built with -DPP_NO_TIMING never times its events */
				pp__push_frame(t, v, key, efe, sp, ra, !(fe & PP__FE_UNTIMED));
			return;
		}
		if (c == PP__KEY_SKIP) {
			/* no gate, as pp__enter_slow would find */
			if (site)
				pp__site_note(site, key, PP__SITE_LEFT_OUT);
			return;
		}
	}
	note_left_out(key, efe, site, 0);
	pp__enter_slow(key, fe, sp, ra);
}

/* A kept key's exit needs no lookup: a key left out never has a frame, so
 * the top frame's key being this one says it was kept. */
void pp__leave_selected(uint64_t key, int fe, uint64_t site)
{
	pp__tls_t *t = &pp__tls;
	uint32_t v = t->dstate - PP__FRAME_BYTES;
	if (PP_LIKELY(__atomic_load_n(&pp__selecting, __ATOMIC_RELAXED) == PP__SEL_FUNCTIONS) &&
	    kept_inline(t, v) && PP__DS_FRAME(t, v)->key == key) {
		if (PP__TIMING && t->timing_now)
			pp__pop_timed_fast(t, v, pp_ticks());
		else
			pp__pop(t, v);
		return;
	}
	note_left_out(key, fe, site, PP__SITE_LEAVE);
	pp__leave_slow(key, fe);
}
