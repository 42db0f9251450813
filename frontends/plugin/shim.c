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

#if defined(__x86_64__)
/* The entry's position is the calling function's stack pointer at its call,
 * taken by a trampoline before any code of the shim's own runs, as cyg's
 * (frontends/cyg/cyg.c): the shim's own stack pointer lay lower by what
 * its compiler pushed, so that a longjmp's or a catch's target, compared
 * with it, took the function that called setjmp for one it had left
 * (runtime/gate_resync.c, pp__unwound_to). The position goes in the third
 * argument's register, where the compiler keeps it anyway (given in the
 * second, GCC copied it out of the register it wanted for the stack's
 * base: one instruction more). Costs the jump: one instruction an
 * entry. */
void pp__plugin_enter_at(uint64_t key, uint64_t unused, uint64_t at) PP_NOINSTR
	__attribute__((visibility("hidden")));
__asm__(".text\n\t"
	".globl pp_plugin_enter\n\t"
	".type pp_plugin_enter, @function\n"
	"pp_plugin_enter:\n\t"
	".cfi_startproc\n\t"
#ifdef __CET__
	"endbr64\n\t"
#endif
	"lea 8(%rsp), %rdx\n\t"
	"jmp pp__plugin_enter_at\n\t"
	".cfi_endproc\n\t"
	".size pp_plugin_enter, . - pp_plugin_enter");

void pp__plugin_enter_at(uint64_t key, uint64_t unused, uint64_t at)
{
	(void)unused;
	if (!at) /* a stack address: never 0 */
		__builtin_unreachable();
	pp__enter_at(key, PP_FE_PLUGIN, at, (uint64_t)(uintptr_t)__builtin_return_address(0),
		     PP__RESYNC(PP_FE_PLUGIN));
}
#else
PP_EXPORT PP_NOINSTR void pp_plugin_enter(uint64_t key)
{
	pp__enter(key, PP_FE_PLUGIN);
}
#endif

PP_EXPORT PP_NOINSTR void pp_plugin_leave(uint64_t key)
{
	pp__leave_with(key, PP_FE_PLUGIN, pp__pop_timed_fast);
}
