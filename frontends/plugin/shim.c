/* Where the calls the pathprof pass inserts land. Out of line so the pass
 * needs no knowledge of the gate's layout: each is the inline gate of
 * pathprof/gate.h behind one call, and is never instrumented itself. The
 * exit takes a timed event's common case inline (runtime/gate_timed.h). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize") /* as runtime/gate_timed.c */
#endif
#include <pathprof/gate.h>
#include "gate_timed.h"
#include <pathprof/plugin.h>

PP_EXPORT PP_NOINSTR void pp_plugin_enter(uint64_t key)
{
	pp__enter(key, PP_FE_PLUGIN);
}

PP_EXPORT PP_NOINSTR void pp_plugin_leave(uint64_t key)
{
	pp__leave_with(key, PP_FE_PLUGIN, pp__pop_timed_fast);
}
