/* The public control calls (pathprof.h, trace.h, live.h) that need the
 * runtime started: a library's constructor may call them before ours has
 * run, so each runs start-up first, then hands over to its subsystem. The
 * gate's own entry points (gate_slow.c) start up at a thread's first gate. */
#include <pathprof/live.h>
#include <pathprof/pathprof.h>
#include <pathprof/trace.h>
#include "gate_timed.h"
#include "gate_window.h"
#include "runtime.h"
#include "select.h"
#include "shm.h"
#include "thread_state.h"
#include "recorder.h"

int pp_dump(const char *path)
{
	pp__init();
	pp__gate_cost_measure();
	return pp__dump(path);
}

void pp_summary(FILE *out, int n)
{
	pp__init();
	pp__summary(out, n);
}

void pp_disable_exit_dump(void)
{
	pp__init();
	pp__disable_exit_dump();
}

int pp_set_timing(enum pp_timing mode, unsigned sample_n)
{
	pp__init();
	int rc = pp__set_timing(mode, sample_n);
	if (rc == 0)
		pp__burst_start(); /* the pacer, when the mode is burst */
	/* The calling thread between events follows the new mode at once;
	 * another that times every event, at its next root's exit (its event
	 * open then, or the next it starts, stays timed: gate_timed.h). */
	pp__tls_t *t = &pp__tls;
	if (rc == 0 && pp__gate_live(t) && !PP__DS_DEPTH(t->dstate) && t->wend == PP__ENDLESS &&
	    pp__timing_ends(t))
		pp__timed_event_end(t);
	return rc;
}

int pp_trace_open(const char *path)
{
	pp__init();
	return pp__trace_open(path);
}

int pp_shm_export(const char *name, unsigned flags)
{
	pp__init();
	/* a live view asked for in the code: its names while it runs, as
	 * PATHPROF_NAMER=on (docs/guides/live.md, "Names") */
	pp__config.namer_on = 1;
	int rc = pp__shm_export(name, (flags & PP_SHM_KEEP) != 0);
	if (rc == 0)
		pp__shm_namer_now();
	return rc;
}

/* The calling thread's gate follows the new selection at once. */
static int select_now(uint32_t which, const char *globs, const char *what)
{
	pp__init();
	int rc = pp__select_set(which, globs, what);
	if (rc == 0 && pp__gate_live(&pp__tls))
		pp__set_limits(&pp__tls);
	return rc;
}

int pp_select_roots(const char *globs)
{
	return select_now(PP__SEL_ROOTS, globs, "pp_select_roots");
}

int pp_select_functions(const char *globs)
{
	return select_now(PP__SEL_FUNCTIONS, globs, "pp_select_functions");
}

void pp__select_compiled(const char *globs)
{
	pp__select_note_compiled(globs);
}
