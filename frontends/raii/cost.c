/* The raii gate as the program compiled it, for the runtime's measure of
 * its own cost (runtime/gate_cost.c, overhead compensation): the runtime's
 * copy of the inline gate is built into a shared library, whose code finds
 * the thread state through the GOT, where a program's gates (this archive's
 * build for executables, libpathprof-raii-exe.a) reach it at a fixed
 * offset, a few instructions fewer. The runtime calls this one when the
 * program has it (a weak reference) and its own otherwise. */
#include <pathprof/raii.h>

PP_EXPORT void pp__raii_cost_outer(uint32_t n) PP_NOINLINE;

static PP_NOINLINE void cost_inner(void)
{
	PP_GATE("pp__raii_cost_inner");
	__asm__ volatile("" ::: "memory");
}

void pp__raii_cost_outer(uint32_t n)
{
	PP_GATE("pp__raii_cost_outer");
	for (uint32_t i = 0; i < n; i++)
		cost_inner();
}
