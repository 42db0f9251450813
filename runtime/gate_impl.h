/* What the gate's out-of-line files share (gate_slow.c, gate_resync.c,
 * gate_timed.c, gate_node.c, gate_record.c): the thread's slab and depth,
 * the pop's last step, and each file's entry points for the others. The
 * gate runs in one thread on its own state, so none of this locks. Split by
 * how often it runs (docs/internals/decisions.md): a walk from an injector's
 * hook to the path table passes each file once. */
#ifndef PP_GATE_IMPL_H
#define PP_GATE_IMPL_H

#include <pathprof/gate.h>
#include "runtime.h"
#include "slab.h"
#include "thread_state.h"

/* Set while a thread allocates (a node, a histogram row): a signal
 * handler's gate then drops its record instead of interleaving. */
extern __thread int pp__gate_in_slow PP_TLS_IE;

static inline pp__slab_t *pp__slab_of(pp__tls_t *t)
{
	return (pp__slab_t *)t->slab;
}

static inline uint32_t pp__depth_of(const pp__tls_t *t)
{
	return PP__DS_DEPTH(t->dstate);
}

/* The pop's last step: the hash and depth below the frame at state v. */
static inline void pp__finish_pop(pp__tls_t *t, uint32_t v)
{
	t->hash = PP__DS_FRAME(t, v)->hash_before;
	t->dstate = PP__DS_OFF(v);
}

/* The sampling decision of an event's first gate: every event when timing
 * is on, one in sample_n when sampling. Inline: it runs at the start of
 * every timed event (pp__event_timing) and of every recorded one. */
static inline uint32_t pp__decide_timing(pp__tls_t *t)
{
	uint32_t m = pp__mode.timing;
	if (m == PP_TIMING_BURST)
		return t->wend != PP__NO_WINDOW; /* inside a window (gate_window.c) */
	if (m != PP_TIMING_SAMPLE)
		return m == PP_TIMING_ON;
	if (t->countdown > 1) {
		t->countdown--;
		return 0;
	}
	t->countdown = pp__mode.sample_n;
	return 1;
}

/* Under a root selection (PATHPROF_ROOT) events are the roots' entries:
 * a gate entered outside every root, which the push counted as an event
 * (events was e0 before it), is counted apart. Also applied by replay. */
static inline void pp__outside_root(pp__tls_t *t, uint64_t e0)
{
	pp__slab_t *s = pp__slab_of(t);
	if (s && s->pub.events != e0) {
		s->pub.events = e0;
		s->outside_roots++;
	}
}

/* gate_resync.c */
void pp__skip_frame(pp__tls_t *t, uint64_t sp);
void pp__drop_dead_excess(pp__tls_t *t, uint64_t sp);
void pp__push_timed(pp__tls_t *t, uint64_t key, int fe, uint64_t sp, uint64_t ra, int given,
		    uint32_t timed, uint64_t at);
void pp__drop_frames(pp__tls_t *t, uint32_t keep);
void pp__enter_checked(pp__tls_t *t, uint64_t key, int fe, uint64_t sp, uint64_t ra);
void pp__leave_checked(pp__tls_t *t, uint64_t key, int checked, uint64_t now);

/* gate_timed.c (and gate_timed.h) */
/* The node's timing record, allocated at first use; NULL without memory. */
pp__segrt_t *pp__node_timing(pp__tls_t *t, pp__path_t *p);
/* The runtime's own work in a timed event (a burst window's edge, a node's
 * first record, an allocation) ran from `from` until now: every frame still
 * open starts that much later, and an open window ends that much later, so
 * no frame's time holds it and the window keeps its share. */
void pp__skip_own_work(pp__tls_t *t, uint64_t from);
/* The runtime's own work begins now, unless *w says it began already. */
static inline void pp__own_begin(pp__tls_t *t, uint64_t *w)
{
	if (!*w) {
		*w = pp_ticks();
		t->own_work = 1;
	}
}
/* Set while a gate applies a time it was given (pp__gate_leave_at: a
 * recorded thread's, whose trace holds its clock reads, and replay's):
 * replay must rebuild the recorded times exactly, so neither takes out
 * the work of a first sight. */
extern __thread int pp__times_given PP_TLS_IE;

/* gate_node.c */
PP_NOINLINE pp__path_t *pp__node_get(pp__tls_t *t, uint32_t d, uint64_t *w);

/* gate_record.c */
void pp__traced_enter(pp__tls_t *t, uint64_t key, int fe);
void pp__traced_leave(pp__tls_t *t);
void pp__root_now(pp__tls_t *t);

#endif
