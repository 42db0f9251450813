/* Declarations shared by the XRay shim's files: the sled handler
 * (handler.c) and its calibration (calibrate.c), the map of instrumented functions that tail-call
 * resolution reads (built by arm.c), and the calibration probes (probe.c). */
#ifndef PP_XRAY_SHIM_H
#define PP_XRAY_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <pathprof/compiler.h>

/* Instrumented functions sorted by entry address, and which ids are armed. */
typedef struct pp__xray_fn {
	uintptr_t addr;
	int32_t id;
} pp__xray_fn_t;

typedef struct pp__xray_map {
	size_t n;                 /* = __xray_max_function_id() */
	pp__xray_fn_t *by_addr;   /* n entries, ascending addr */
	uint8_t *armed;           /* n + 1 flags, indexed by id */
	/* n + 1 entry addresses, indexed by id. XRay's own
	 * __xray_function_address takes a spin lock: called from the handler,
	 * a signal landing inside it left the lock held for the crash dump's
	 * copy of the process, which then hung naming keys (#27); it also cost
	 * about a third of a tail-call gate (#30). */
	uintptr_t *addr;
} pp__xray_map_t;

/* Published once (release) by arm.c before the first sled is patched. */
extern pp__xray_map_t *pp__xray_map;

/* Bumped by each disarm: exits of frames open then were never seen. */
extern uint32_t pp__xray_generation;

/* The handler every patched sled calls; with stopping set, the one
 * installed once a budget has stopped an id (arm.c): it ignores the
 * entries of ids not armed, a test the usual handler does not pay. Each comes calibrated or not (pp__xray_calibrate
 * decides, before either is installed), so neither tests that per event,
 * and, once pp__xray_generation is not 0, catching up with a disarm (each
 * thread's first entry since checks its frames): pp_xray_disarm installs
 * that one. */
typedef void (*pp__xray_handler_t)(int32_t fid, int type);
pp__xray_handler_t pp__xray_handler(int stopping) PP_NOINSTR;

/* The program has no tail sleds outside the probes: the lean handler
 * (handler.c), once calibrated. Call before the handler is installed. */
void pp__xray_set_lean(void) PP_NOINSTR;

/* A fixed point of the handler's own frame, from which the sled's stack
 * slot lies at a calibrated offset. GCC gives the canonical frame address
 * without setting up a frame pointer; the frame address would make the
 * handler keep one (two instructions an event, and a register). */
#if defined(__GNUC__) && !defined(__clang__)
#define HANDLER_BASE() ((uintptr_t)__builtin_dwarf_cfa())
#else
#define HANDLER_BASE() ((uintptr_t)__builtin_frame_address(0))
#endif

/* Sled stack pointer = HANDLER_BASE() + pp__xray_slot_off[kind]. Set once
 * by calibration (calibrate.c), before the handler is installed; with
 * pp__xray_calibrated 0 the offsets are unknown. */
/* hidden: the handler reaches them without the GOT (2 instructions a gate) */
extern intptr_t pp__xray_slot_off[3] __attribute__((visibility("hidden")));
extern int pp__xray_calibrated __attribute__((visibility("hidden")));

static inline PP_NOINSTR uintptr_t slot_word(uintptr_t slot)
{
	uintptr_t w;
	memcpy(&w, (const void *)slot, sizeof w);
	return w;
}

/* The instruction a TAIL sled returns to is the tail jump itself; decode its
 * target when it is direct (e9 rel32, eb rel8), else 0. */
static inline PP_NOINSTR uintptr_t tail_target(uintptr_t slot)
{
#if defined(__x86_64__)
	const uint8_t *ip;
	memcpy(&ip, (const void *)(slot - sizeof(void *)), sizeof ip);
	if (ip[0] == 0xe9) {
		int32_t rel;
		memcpy(&rel, ip + 1, sizeof rel);
		return (uintptr_t)(ip + 5) + (uintptr_t)(intptr_t)rel;
	}
	if (ip[0] == 0xeb)
		return (uintptr_t)(ip + 2) + (uintptr_t)(intptr_t)(int8_t)ip[1];
#endif
	(void)slot;
	return 0;
}

/* Learn where the sleds' stack slot lies relative to the handler, with the
 * probes below. 0 on success; -1 leaves the shim in its degraded mode
 * (docs/reference/xray.md, "Tail calls"). Call with no sled patched. */
int pp__xray_calibrate(void) PP_NOINSTR;

/* Probes compiled with -fxray-instrument (probe.c): tail jumps to leaf. */
int pp__xray_probe_tail(int x);
int pp__xray_probe_leaf(int x);
extern volatile uintptr_t pp__xray_probe_slot;

#endif
