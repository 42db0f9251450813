/* The raii gate as the program compiled it, for the runtime's measure of
 * its own cost (runtime/gate_cost.c, overhead compensation): the runtime's
 * copy of the inline gate is built into a shared library, whose code finds
 * the thread state through the GOT, where a program's gates (this archive's
 * build for executables, libpathprof-raii-exe.a) reach it at a fixed
 * offset, a few instructions fewer. The runtime calls this one when the
 * program has it (a weak reference) and its own otherwise. The inner gate
 * wraps the measure's body (PP__COST_BODY, pathprof/frontend.h); a new
 * name where the body came in, so that a runtime never takes an older
 * archive's empty function for one with the body. */
#include <pathprof/raii.h>

PP_EXPORT uint64_t pp__raii_cost_loop(uint32_t n) PP_NOINLINE;

/* Both start a cache line, and so does the loop: where the linker placed
 * them decided part of the measure (a third to half a nanosecond of the
 * calibration's error in place, bench/README.md, "A calibration around a
 * body"). */
#if defined(__GNUC__) && !defined(__clang__)
#define PP__COST_LOOP_ALIGN __attribute__((aligned(64), optimize("align-loops=64")))
#else
#define PP__COST_LOOP_ALIGN __attribute__((aligned(64)))
#endif

static PP_NOINLINE __attribute__((aligned(64))) uint64_t cost_inner(uint64_t x)
{
	PP_GATE("pp__raii_cost_inner");
	PP__COST_BODY(x);
	return x;
}

PP__COST_LOOP_ALIGN uint64_t pp__raii_cost_loop(uint32_t n)
{
	PP_GATE("pp__raii_cost_outer");
	uint64_t acc = 0;
	for (uint32_t i = 0; i < n; i++)
		acc ^= cost_inner(i);
	return acc;
}
