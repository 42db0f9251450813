/* pathprof public API: control and read-out of the path profiler.
 * Front-ends call the gate (pathprof/gate.h); programs call these to mark
 * events, change the timing mode and write or print the profile. */
#ifndef PATHPROF_PATHPROF_H
#define PATHPROF_PATHPROF_H

#include <stdio.h>
#include <stdint.h>
#include <pathprof/compiler.h>
#include <pathprof/gate.h>

PP_EXTERN_C_BEGIN

#define PATHPROF_VERSION_MAJOR 0
#define PATHPROF_VERSION_MINOR 1

/* Start a new event on the calling thread: reset its running hash and shadow
 * stack, so gates entered after this call form paths rooted here. Gates still
 * open are abandoned (their exits count as unmatched): call it outside gated
 * scopes, e.g. at the top of each iteration of the event loop. */
PP_EXPORT void pp_root(void) PP_NOINSTR;

/* pp_root() inlined (PP_ROOT() in raii): about 5 instructions when the
 * thread is in no rare state (the limit is set: registered, not recording,
 * no timed event or skipped frames open), 4 more where nothing is open
 * and nothing is recorded (timing every event keeps the limit at 0 from
 * one event to the next), a call to pp_root() otherwise. */
PP_INLINE void pp_root_inline(void)
{
	pp__tls_t *t = &pp__tls;
	if (PP_LIKELY(PP__LIMIT(t->limit))) {
		t->hash = PP__SEED;
		t->dstate = 0;
		return;
	}
	if (!t->dstate && !t->trace)
		return;
	pp_root();
}

/* Selections by function name (docs/guides/selection.md), as PATHPROF_ROOT and
 * PATHPROF_FUNCTIONS set them at start-up: globs separated by commas, '!'
 * before one excludes, each matching a whole name. pp_select_roots: entering
 * a selected function starts an event, as pp_root() just before it would.
 * pp_select_functions: only selected functions are gates. NULL or "" clears
 * the selection. Meant for start-up, before other threads gate anything
 * (those already gating see it at their next event's rare path, not at
 * once). 0, or -1 with one line on stderr for a malformed list. */
PP_EXPORT int pp_select_roots(const char *globs) PP_NOINSTR;
PP_EXPORT int pp_select_functions(const char *globs) PP_NOINSTR;
/* For pathprof-cc: the function list gcc applied when it compiled the
 * program (the functions it leaves out have no hooks at all,
 * frontends/cyg/gcc_select.cc), recorded so the profile says so; the
 * runtime does not apply it again. */
PP_EXPORT void pp__select_compiled(const char *globs) PP_NOINSTR;

/* Zero every count and histogram of every thread. Meant for phase boundaries
 * (after warm-up); increments racing on other threads may be lost. */
PP_EXPORT void pp_reset(void) PP_NOINSTR;

/* Write the merged profile of all threads (live and exited) to path, or to
 * $PATHPROF_OUT / "<program>.<pid>.pathprof" when path is NULL. A file at
 * path that holds anything but a profile is never replaced (an error).
 * Returns 0, or -1 with one line on stderr saying why. */
PP_EXPORT int pp_dump(const char *path) PP_NOINSTR;

/* Print the totals and the n hottest paths by count to out. */
PP_EXPORT void pp_summary(FILE *out, int n) PP_NOINSTR;

/* Change the timing mode for events that start from now on (on the
 * calling thread at once; a thread that was timing every event times the
 * one event it starts next as well, and follows from its end): PP_TIMING_OFF,
 * PP_TIMING_ON, PP_TIMING_SAMPLE timing one event in sample_n, or
 * PP_TIMING_BURST timing windows that hold 1/sample_n of each thread's run
 * (1 <= sample_n <= 1000; any program, one event or many; counts stay exact
 * in every mode). Returns 0, or -1 for a bad argument. Also settable with
 * PATHPROF_TIMING=off|on|sample:N|burst[:N]. */
PP_EXPORT int pp_set_timing(enum pp_timing mode, unsigned sample_n) PP_NOINSTR;

/* Do not write a profile at exit (pp_dump still works). */
PP_EXPORT void pp_disable_exit_dump(void) PP_NOINSTR;

PP_EXTERN_C_END

#endif
