/* Declarations shared by the XRay shim's files: the sled handler and its
 * calibration (handler.c), the map of instrumented functions that tail-call
 * resolution reads (built by arm.c), and the calibration probes (probe.c). */
#ifndef PP_XRAY_SHIM_H
#define PP_XRAY_SHIM_H

#include <stddef.h>
#include <stdint.h>
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

/* Learn where the sleds' stack slot lies relative to the handler, with the
 * probes below. 0 on success; -1 leaves the shim in its degraded mode
 * (docs/reference/xray.md, "Tail calls"). Call with no sled patched. */
int pp__xray_calibrate(void) PP_NOINSTR;

/* Probes compiled with -fxray-instrument (probe.c): tail jumps to leaf. */
int pp__xray_probe_tail(int x);
int pp__xray_probe_leaf(int x);
extern volatile uintptr_t pp__xray_probe_slot;

#endif
