/* The cyg gate as a program's compiler makes it, for the runtime's measure
 * of its own cost (runtime/gate_cost.c, overhead compensation): this file
 * alone of the hooks' library is built with -finstrument-functions, so the
 * two functions below are gated the way every function of the program is
 * (the frame the hooks' calls need, the argument kept across them, the
 * exit hook reached by a tail jump), where calling the hooks by hand from
 * the runtime left that out and came out about a nanosecond off around a
 * 5 ns helper (bench/compensate.sh). Their keys are their own addresses,
 * recorded only into the measure's scratch slab. cyg.c refers to the loop,
 * so the linker takes this member wherever it takes the hooks. */
#include <pathprof/frontend.h>

/* noinline, not PP_NOINLINE, which also says not to instrument */
PP_EXPORT uint64_t pp__cyg_cost_loop(uint32_t n) __attribute__((noinline));

static __attribute__((noinline)) uint64_t cost_inner(uint64_t x)
{
	PP__COST_BODY(x);
	return x;
}

uint64_t pp__cyg_cost_loop(uint32_t n)
{
	uint64_t acc = 0;
	for (uint32_t i = 0; i < n; i++)
		acc ^= cost_inner(i);
	return acc;
}
