/* The rules of a thread's gate state that both the gate (gate_*.c) and the
 * trace recorder (recorder.c) apply: registration states and the two limits the
 * inline gate reads. Kept apart from the gate's files so the recorder, which the gate
 * calls, never calls back into it. */
#ifndef PP_THREAD_STATE_H
#define PP_THREAD_STATE_H

#include <pathprof/state.h>
#include "select.h"
#include "slab.h"

/* pp__tls_t.state */
enum { PP__ST_NEW = 0, PP__ST_REGISTERING = 1, PP__ST_LIVE = 2, PP__ST_DEAD = 3 };

/* The switches of the inline gate, from the thread's state: the limit is
 * the bound times the frame size, or 0 (every gate out of line) while
 * recording, inside a timed event, or with frames beyond the bound open;
 * tlimit lets the gates of a timed event, when nothing else is rare, take
 * their own lean way under the same bound. A function selection sends every
 * gate out of line; a root selection only the entries (elimit), so that the
 * slow path sees each key entered while the exits stay inline. */
/* The lean way's limit but for a budget, from the selection and the bound:
 * the budget's own slow paths (gate_budget.c) apply it to the keys a
 * budget did not stop. */
static inline uint32_t pp__lean_limit(const pp__tls_t *t, uint32_t sel, uint32_t bound)
{
	return PP__TIMING && t->timing_now && !t->trace && !t->excess && !sel ? bound : 0;
}

static inline uint32_t pp__tlimit_of(const pp__tls_t *t)
{
	return pp__lean_limit(t, pp__selecting, pp__config.depth * PP__FRAME_BYTES);
}

/* Once a budget stopped a key, no timed gate takes the lean way: the
 * inline entry then need not test the budget (4 instructions a timed
 * gate). The throttling thread zeroes the tlimit of every thread when it
 * stops a key, and again at each round, which settles a thread that read
 * the count just before it grew. */
static inline void pp__set_limits(pp__tls_t *t)
{
	uint32_t bound = pp__config.depth * PP__FRAME_BYTES;
	uint32_t sel = pp__selecting;
	int rare = t->trace || t->timing_now || t->excess || (sel & PP__SEL_FUNCTIONS);
	PP__LIMIT_SET(t->limit, rare ? 0 : bound);
	PP__LIMIT_SET(t->elimit, rare || sel ? 0 : bound);
	uint32_t lean = pp__lean_limit(t, sel, bound);
	PP__LIMIT_SET(t->tlimit, lean && __atomic_load_n(&pp__throttle_n, __ATOMIC_RELAXED) ? 0 : lean);
}

/* The thread has no slab any more (it is exiting, or a forked child got
 * none): every later gate of it is skipped, unregistered. */
static inline void pp__gate_dead(pp__tls_t *t)
{
	PP__LIMIT_SET(t->limit, 0);
	PP__LIMIT_SET(t->elimit, 0);
	PP__LIMIT_SET(t->tlimit, 0);
	t->state = PP__ST_DEAD;
	t->excess = 0;
	t->dstate = 0;
	t->slab = NULL;
}

static inline int pp__gate_live(const pp__tls_t *t)
{
	return t->state == PP__ST_LIVE;
}

/* Stop recording this thread (its buffer is the caller's to free). */
static inline void pp__gate_untrace(pp__tls_t *t)
{
	t->trace = NULL;
	if (t->state == PP__ST_LIVE)
		pp__set_limits(t);
}

#endif
