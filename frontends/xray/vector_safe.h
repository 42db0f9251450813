/* Why: pathprof's trampolines (trampoline.c) do not save the vector
 * registers (xmm0-7 hold arguments at an entry and a tail sled, xmm0-1
 * return values at an exit): 16 of an entry's 37 instructions. That holds
 * only while nothing the lean handler runs can touch them. lean.c is
 * compiled with -mgeneral-regs-only (the compiler then never uses them
 * there, frontends/xray/meson.build), and the functions it calls out of
 * itself, compiled normally, are reached through stubs that keep xmm0-7
 * around the call: the names below, defined in trampoline.c
 * (PP__XRAY_VECTOR_SAFE_CALLS). Only slow paths and the timed exit call
 * out; at an exit sled the timed pop goes through one more stub,
 * pp__xray_v_ret_pop_timed, which keeps xmm0-1 alone (declared in lean.c,
 * after the thread state's type). tests/frontends/xray/lean_calls.sh
 * fails on a call out of lean.c that is not a stub, and on any vector
 * register in it. lean.c defines PP__XRAY_LEAN_C and includes this before
 * every other header, so its declarations and calls take the stubs'
 * names. Sanitizer builds (which call their run time from every function)
 * reach the lean handler through an adapter that keeps xmm0-7 instead
 * (trampoline.c). */
#ifndef PP_XRAY_VECTOR_SAFE_H
#define PP_XRAY_VECTOR_SAFE_H

#if PP__XRAY_GENERAL_REGS && defined(PP__XRAY_LEAN_C)
#define pp__enter_resync pp__xray_v_enter_resync
#define pp__enter_slow pp__xray_v_enter_slow
#define pp__event_timing pp__xray_v_event_timing
#define pp__leaf_miss pp__xray_v_leaf_miss
#define pp__leave_resync pp__xray_v_leave_resync
#define pp__leave_slow pp__xray_v_leave_slow
#define pp__pop_timed pp__xray_v_pop_timed
#define pp__xray_tail_fid_miss pp__xray_v_xray_tail_fid_miss
#endif

/* The same names for trampoline.c's stubs: X(real function, stub suffix) */
#define PP__XRAY_VECTOR_SAFE_CALLS(X)                                   \
	X(pp__enter_resync, enter_resync) X(pp__enter_slow, enter_slow) \
	X(pp__event_timing, event_timing) X(pp__leaf_miss, leaf_miss)   \
	X(pp__leave_resync, leave_resync) X(pp__leave_slow, leave_slow) \
	X(pp__pop_timed, pop_timed) X(pp__xray_tail_fid_miss, xray_tail_fid_miss)

#endif
