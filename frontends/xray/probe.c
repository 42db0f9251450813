/* Calibration probes: the only code of the shim built with XRay sleds. The
 * shim patches them once, before arming, to measure where an instrumented
 * function's return-address slot lies relative to the handler's frame for
 * each kind of sled, since that depends on the XRay runtime's trampolines. */
#include <stdint.h>
#include "shim.h"

volatile uintptr_t pp__xray_probe_slot;

/* With a frame pointer, the return-address slot sits just above the saved
 * frame pointer: that is the stack pointer the sleds of this call saw. */
__attribute__((xray_always_instrument, noinline)) int pp__xray_probe_leaf(int x)
{
	pp__xray_probe_slot = (uintptr_t)__builtin_frame_address(0) + sizeof(void *);
	return x + 1;
}

/* musttail guarantees a TAIL sled followed by a direct jump to the leaf. */
__attribute__((xray_always_instrument, noinline)) int pp__xray_probe_tail(int x)
{
	__attribute__((musttail)) return pp__xray_probe_leaf(x);
}
