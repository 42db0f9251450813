/* cyg front-end: the hooks GCC and Clang call from every function compiled
 * with -finstrument-functions. Key = the function's address, named at dump
 * time from the ELF symbol tables. The hooks only forward to the inline gate;
 * they are themselves never instrumented, and the runtime's slow paths save
 * errno, so instrumented code sees no side effect. The exit takes a timed
 * event's common case inline (runtime/gate_timed.h). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize") /* as runtime/gate_timed.c */
#endif
#include <pathprof/gate.h>
#include "gate_timed.h"

/* The gate as the compiler makes it, for the measure of its cost
 * (cost.c): referred to here, so the linker takes it with the hooks. */
PP_EXPORT uint64_t pp__cyg_cost_loop(uint32_t n);
__attribute__((used)) static uint64_t (*const pp__cyg_cost_ref)(uint32_t) = pp__cyg_cost_loop;

PP_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site) PP_NOINSTR;
PP_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site) PP_NOINSTR;

void __cyg_profile_func_enter(void *fn, void *call_site)
{
	(void)call_site;
	pp__enter((uint64_t)(uintptr_t)fn, PP_FE_CYG);
}

void __cyg_profile_func_exit(void *fn, void *call_site)
{
	(void)call_site;
	pp__leave_with((uint64_t)(uintptr_t)fn, PP_FE_CYG, pp__pop_timed_fast);
}
