/* Throttling under a budget (throttle.c): what start-up, the host, the dump,
 * the XRay front-end and an event's timing decision ask of it. The gate's side (the set it reads) is
 * in pathprof/gate.h. */
#ifndef PP_THROTTLE_H
#define PP_THROTTLE_H

#include <stdint.h>
#include <pathprof/compiler.h>

/* The most functions one run throttles (its set has twice the slots). */
#define PP__THROTTLE_MAX 2048u

typedef struct pp__throttle_entry {
	uint64_t key;
	uint64_t calls, incl; /* over the run when it was throttled (ticks) */
	uint64_t at_ns;       /* after the run started */
} pp__throttle_entry_t;

/* PATHPROF_BUDGET=s; timing_set: PATHPROF_TIMING was given. A budget turns
 * timing on; with timing explicitly not on, or a trace, it is refused with
 * one warning. 0, or -1 (no budget). */
int pp__throttle_env(const char *s, int timing_set);
/* The budget as a fraction of the work (0: none). */
double pp__throttle_budget(void);
/* Start the throttling thread once, when there is a budget or when
 * PATHPROF_FUNCTIONS leaves cyg or plugin functions out, whose hook calls
 * it then patches out of the code (the host, at a thread's first gate;
 * select.c, when the list is set after one); stop it (the exit dump),
 * reporting a full list. */
void pp__throttle_start(void);
void pp__throttle_stop(void);
/* A front-end that stops a key's gates itself (XRay: unpatch its sleds):
 * stop(key) returns 0 when it did; otherwise the key goes to the gates' set.
 * round, if not NULL, runs on the throttling thread at the end of each
 * round (XRay unpatches there what no open call needs any more). */
PP_EXPORT void pp__throttle_frontend(int (*stop)(uint64_t key), void (*round)(void));
/* Is a frame of key open in some thread? The throttling thread only. */
PP_EXPORT int pp__throttle_key_open(uint64_t key);
/* Has every thread gone past the first stop, so that no frame pushed on a
 * test made before it is still to come (site_patch.c: only then is a cyg
 * exit hook patched out)? The throttling thread only. */
int pp__throttle_threads_past(void);
/* Might the owner of s still push a frame on a test made before the first
 * stop (it has not come the budget's way, is not asleep, and has not run
 * since it was first asked about)? The throttling thread (under the slabs'
 * lock) and tests only. */
struct pp__slab_priv;
int pp__throttle_thread_lags(struct pp__slab_priv *s);
/* Stop key's gates (gate_budget.c): the gates of the injectors that test
 * the set return at once from then on. The throttling thread only. */
void pp__throttle_stop_key(uint64_t key);
/* Is key stopped (in the gates' set)? Any thread. */
int pp__throttle_stopped(uint64_t key);
/* The throttled functions so far, in order; safe in a crash's copy. */
uint32_t pp__throttle_list(const pp__throttle_entry_t **out);
/* The thread's CPU time so far, ns (pathprof's, not the program's). */
uint64_t pp__throttle_cpu_ns(void);

#endif
