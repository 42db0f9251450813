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

#if defined(__x86_64__)
/* The entry's position is the instrumented function's stack pointer at its
 * call of the hook, taken by a two-instruction trampoline before any code
 * of the hook's own runs: where the hook read its own stack pointer, the
 * position lay below that by whatever the compiler pushed first (8 bytes
 * built plainly, 16 with GCC's ASan), which no other code could know. A
 * C++ catch (runtime/host/catch.c) compares positions with the catching
 * function's stack pointer, and needs them exact; among themselves they
 * compare as before. Costs the jump: one instruction an entry. */
void pp__cyg_enter_at(void *fn, void *call_site, uint64_t at) PP_NOINSTR __attribute__((visibility("hidden")));
__asm__(".text\n\t"
	".globl __cyg_profile_func_enter\n\t"
	".type __cyg_profile_func_enter, @function\n"
	"__cyg_profile_func_enter:\n\t"
	".cfi_startproc\n\t"
#ifdef __CET__
	"endbr64\n\t"
#endif
	"lea 8(%rsp), %rdx\n\t"
	"jmp pp__cyg_enter_at\n\t"
	".cfi_endproc\n\t"
	".size __cyg_profile_func_enter, . - __cyg_profile_func_enter");

void pp__cyg_enter_at(void *fn, void *call_site, uint64_t at)
{
	(void)call_site;
	if (!at) /* a stack address: never 0 */
		__builtin_unreachable();
	pp__enter_at((uint64_t)(uintptr_t)fn, PP_FE_CYG, at, (uint64_t)(uintptr_t)__builtin_return_address(0),
		     PP__RESYNC(PP_FE_CYG));
}
#else
void __cyg_profile_func_enter(void *fn, void *call_site)
{
	(void)call_site;
	pp__enter((uint64_t)(uintptr_t)fn, PP_FE_CYG);
}
#endif

void __cyg_profile_func_exit(void *fn, void *call_site)
{
	(void)call_site;
	pp__leave_with((uint64_t)(uintptr_t)fn, PP_FE_CYG, pp__pop_timed_fast);
}
