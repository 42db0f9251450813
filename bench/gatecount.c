/* gatecount: exact counts of what the feed run asks of a profiler, so the
 * overhead table divides by counted gates rather than estimated ones. Built
 * into feed with -finstrument-functions -DFEED_PATHPROF in place of the cyg
 * shim: every gated entry is a gate, an exit with no gated child in between is
 * a leaf return (checked against feed --expect), and pp_root() is an event. */
#include <stdint.h>
#include <pathprof/compiler.h>
#include <pathprof/state.h>

PP_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site) PP_NOINSTR;
PP_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site) PP_NOINSTR;
PP_EXPORT void pp_root(void) PP_NOINSTR;

uint64_t bench_gates, bench_leaves, bench_events;
static int entered_since_exit; /* single-threaded workload */

void __cyg_profile_func_enter(void *fn, void *call_site)
{
	(void)fn;
	(void)call_site;
	bench_gates++;
	entered_since_exit = 1;
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
	(void)fn;
	(void)call_site;
	bench_leaves += entered_since_exit;
	entered_since_exit = 0;
}

void pp_root(void)
{
	bench_events++;
}

/* The feed's files include the gate, which makes them name the runtime's
 * host start (pathprof/gate.h, #28); this build has no runtime to start. */
PP_EXPORT void pp__host_start(void) PP_NOINSTR;
void pp__host_start(void)
{
}

/* ... and, built into an executable, its ABI mark (pathprof/state.h). */
const int pp__runtime_abi = PP_ABI;
