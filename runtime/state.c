/* The variables every part of the runtime reads: the per-thread gate state,
 * the timing mode and the process-wide totals. Defined here, at the bottom,
 * so that no subsystem reaches up into the gate or into start-up for them. */
#include "runtime.h"

PP_EXPORT __thread pp__tls_t pp__tls PP_TLS_IE;
/* Referred to by executables that define their own weak pp__tls (state.h). */
PP_EXPORT const int pp__runtime_abi = PP_ABI;
PP_EXPORT pp__mode_t pp__mode = {PP_TIMING_OFF, 64};
pp__global_t pp__g;

int pp__set_timing(enum pp_timing mode, unsigned sample_n)
{
	int every_n = mode == PP_TIMING_SAMPLE || mode == PP_TIMING_BURST;
	if (every_n && (sample_n == 0 || (mode == PP_TIMING_BURST && sample_n > 1000)))
		return -1;
	if (mode != PP_TIMING_OFF && mode != PP_TIMING_ON && !every_n)
		return -1;
	if (every_n && sample_n == 1)
		mode = PP_TIMING_ON;
	else if (every_n)
		__atomic_store_n(&pp__mode.sample_n, sample_n, __ATOMIC_RELAXED);
	__atomic_store_n(&pp__mode.timing, (uint32_t)mode, __ATOMIC_RELAXED);
	return 0;
}
