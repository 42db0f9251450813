/* Where the calls the pathprof pass inserts land. Out of line so the pass
 * needs no knowledge of the gate's layout: each is the inline gate of
 * pathprof/gate.h behind one call, and is never instrumented itself. */
#include <pathprof/gate.h>
#include <pathprof/plugin.h>

PP_EXPORT PP_NOINSTR void pp_plugin_enter(uint64_t key)
{
	pp__enter(key, PP_FE_PLUGIN);
}

PP_EXPORT PP_NOINSTR void pp_plugin_leave(uint64_t key)
{
	pp__leave(key, PP_FE_PLUGIN);
}
