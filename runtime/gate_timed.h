/* The common case of a timed exit, inline. raii gates are compiled into the
 * program and reach it through one call (pp__pop_timed, gate_timed.c); the
 * cyg hooks and the plugin's shim are the runtime's own code, built with
 * this header, and take it inline: no call, and the thread state and the
 * frame they have already computed are not computed again (bench/
 * inlinstr.sh, timed). Anything uncommon goes to pp__pop_timed_rare, before
 * any state has changed. */
#ifndef PP_GATE_TIMED_H
#define PP_GATE_TIMED_H

#include <pathprof/gate.h>
#include "gate_window.h"
#include "slab.h"

/* Everything a timed exit does when the fast case below does not apply. */
PP_EXPORT PP_NOINLINE void pp__pop_timed_rare(pp__tls_t *t, uint32_t v, uint64_t now) PP_NOINSTR;
/* The same, given the inclusive time: the clock is the entry time plus it. */
PP_EXPORT PP_NOINLINE void pp__pop_timed_rare_incl(pp__tls_t *t, uint32_t v, uint64_t incl) PP_NOINSTR;
/* The exit of a timed event's root: the event's timing ends. The hooks
 * call it; the runtime's own pp__pop_timed has it inline. */
PP_EXPORT void pp__timed_event_end(pp__tls_t *t) PP_NOINSTR;
#ifndef PP__TIMED_EVENT_END
#define PP__TIMED_EVENT_END(t) pp__timed_event_end(t)
#endif

/* A timed event's root has left: does its timing end? Not while a window
 * holds it: a burst window goes on into the next event, and so does the
 * endless one of PATHPROF_TIMING=on (PP__ENDLESS) while timing is still on
 * (pp_set_timing may have changed the mode since) and the thread is not
 * recording (a recorded event takes its own decision). An ending timing
 * closes the endless window (PP__TIMED_EVENT_END). */
static inline int pp__timing_ends(const pp__tls_t *t)
{
	uint64_t w = t->wend;
	return w == PP__NO_WINDOW ||
	       (w == PP__ENDLESS && (__atomic_load_n(&pp__mode.timing, __ATOMIC_RELAXED) != PP_TIMING_ON || t->trace));
}

/* A timed exit's times into its node's record, beside its histogram cell
 * (the fast case below and gate_timed.c's rare one). */
static inline __attribute__((always_inline)) void pp__seg_times(pp__segrt_t *g, uint64_t incl, uint64_t self)
{
	g->sum += incl;
	g->self += self;
	if (incl < g->min)
		g->min = incl;
	if (incl > g->max)
		g->max = incl;
}

/* The exit at state v (the bound and key checked by pp__leave) when the
 * node and its histogram row exist, the clock moved forward and the
 * children took less than the gate. About 43 instructions: the frame and
 * the node's probe (10), the times and their checks (5), the burst
 * window's end (2: a compare with memory and its branch), the cell and its
 * row (9), sum, self, min and max (7), the leaf count (2), the pop and the
 * parent's children (6). A cut frame (PP__KIDS_CUT) fails the children
 * test and goes out of line at no extra cost. Its includers turn GCC's SLP
 * vectoriser off, which would pack the record's adjacent counters through
 * SSE: six instructions for two adds. */
static inline __attribute__((always_inline)) void pp__pop_timed_fast(pp__tls_t *t, uint32_t v, uint64_t now)
{
	pp__frame_t *f = PP__DS_FRAME(t, v);
	if (PP_UNLIKELY(now >= t->wend))
		return pp__pop_timed_rare(t, v, now);
	/* From here the rare way is given incl, and finds the clock again
	 * from the frame's entry time: now and the entry time need not stay
	 * live beside incl (a saved register less). */
	uint64_t incl = now - f->t;
	uint64_t h = t->hash;
	pp__slot_t *sl = pp__slot_at(t->table, t->smask, h);
	pp__path_t *p;
	pp__segrt_t *g;
	if (PP_UNLIKELY(sl->hash != h) || PP_UNLIKELY(!(g = (pp__segrt_t *)(p = sl->path)->seg)))
		return pp__pop_timed_rare_incl(t, v, incl);
	uint64_t kids = f->kids;
	/* One signed compare: the children took less than the gate, and the
	 * clock moved forward (else incl is 0 or negative); a cut frame's
	 * kids (PP__KIDS_CUT) are above any time. */
	if (PP_UNLIKELY((int64_t)incl <= (int64_t)kids))
		return pp__pop_timed_rare_incl(t, v, incl);
	pp__cell_at_t c = pp__hist_cell_at(incl); /* incl >= 1, < 2^62 */
	uint32_t ref = g->rows[c.row];
	if (PP_UNLIKELY(!ref))
		return pp__pop_timed_rare_incl(t, v, incl);
	/* In this order, so that p and the times are dead early: two saved
	 * registers fewer in the hooks that inline it. */
#if defined(__x86_64__)
	/* the leaf bit added from the carry flag: no register for v & 1,
	 * which in pp__pop_timed was the one it saved (bt, adc: 2 where the
	 * save, the copy, the mask, the add and the restore were 5) */
	__asm__("btl $0, %k1\n\tadcq $0, %0" : "+m"(p->count) : "r"(v) : "cc");
#else
	p->count += v & 1u;
#endif
	uint64_t self = incl - kids;
	__asm__("" : "+r"(self)); /* a subtraction, not a reload of the sum */
	((uint64_t *)(t->abase + ((size_t)ref << 7)))[c.col]++;
	pp__seg_times(g, incl, self);
	uint64_t hb = f->hash_before;
	t->hash = hb;
	t->dstate = (uint32_t)PP__DS_OFF(v);
	if (PP_LIKELY(hb != PP__SEED)) {
		f[-1].kids += incl;
		return;
	}
	if (pp__timing_ends(t))
		PP__TIMED_EVENT_END(t);
}

#endif
