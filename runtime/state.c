/* The variables every part of the runtime reads: the per-thread gate state,
 * the timing mode and the process-wide totals. Defined here, at the bottom,
 * so that no subsystem reaches up into the gate or into start-up for them. */
#include "runtime.h"

PP_EXPORT __thread pp__tls_t pp__tls PP_TLS_IE;
PP_EXPORT pp__mode_t pp__mode = {PP_TIMING_OFF, 64};
pp__global_t pp__g;

int pp__set_timing(enum pp_timing mode, unsigned sample_n)
{
	if (mode == PP_TIMING_SAMPLE && sample_n == 0)
		return -1;
	if (mode != PP_TIMING_OFF && mode != PP_TIMING_ON && mode != PP_TIMING_SAMPLE)
		return -1;
	if (mode == PP_TIMING_SAMPLE && sample_n == 1)
		mode = PP_TIMING_ON;
	if (mode == PP_TIMING_SAMPLE)
		__atomic_store_n(&pp__mode.sample_n, sample_n, __ATOMIC_RELAXED);
	__atomic_store_n(&pp__mode.timing, (uint32_t)mode, __ATOMIC_RELAXED);
	return 0;
}
