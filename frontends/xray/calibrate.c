/* Calibration of the XRay sled handler (handler.c): where the sled's stack
 * slot lies relative to the handler's frame for each kind of sled, learnt
 * by running two patched probe functions (probe.c) under a handler of its
 * own, so that the shim does not depend on the layout of a given XRay
 * runtime's trampolines (docs/reference/xray.md, "Tail calls"). */
#include <string.h>

#include <pathprof/gate.h>
#include "shim.h"
#include "xray_abi.h"

intptr_t pp__xray_slot_off[3];
int pp__xray_calibrated;

/* Calibration: patch only the probes, call the tail probe, and record the
 * handler's frame address for each sled. The first pass measures the
 * offsets; the second checks them (same return address seen at every sled,
 * tail jump decoded to the leaf probe). */
#define CAL_EVENTS 8

static struct {
	int pass;
	int n;
	int32_t fid[CAL_EVENTS];
	int type[CAL_EVENTS];
	uintptr_t fp[CAL_EVENTS];
	uintptr_t ret[CAL_EVENTS];
	uintptr_t target[CAL_EVENTS];
} cal;

static PP_NOINLINE void cal_handler(int32_t fid, int type)
{
	uintptr_t fp = HANDLER_BASE();
	if (cal.n == CAL_EVENTS || (unsigned)type > PP_XRAY_TAIL)
		return;
	int k = cal.n++;
	cal.fid[k] = fid;
	cal.type[k] = type;
	cal.fp[k] = fp;
	if (cal.pass) {
		uintptr_t slot = fp + (uintptr_t)pp__xray_slot_off[type];
		cal.ret[k] = slot_word(slot);
		cal.target[k] = type == PP_XRAY_TAIL ? tail_target(slot) : 0;
	}
}

/* The expected sequence: ENTRY(tail) TAIL(tail) ENTRY(leaf) EXIT(leaf). */
static PP_NOINSTR int cal_sequence_ok(int32_t tid, int32_t lid)
{
	static const int want_type[4] = {PP_XRAY_ENTRY, PP_XRAY_TAIL, PP_XRAY_ENTRY, PP_XRAY_EXIT};
	const int32_t want_fid[4] = {tid, tid, lid, lid};
	if (cal.n != 4)
		return 0;
	for (int k = 0; k < 4; k++)
		if (cal.type[k] != want_type[k] || cal.fid[k] != want_fid[k])
			return 0;
	return 1;
}

static PP_NOINSTR int cal_run(int32_t tid, int32_t lid)
{
	int (*volatile call)(int) = pp__xray_probe_tail;
	memset(cal.fid, 0, sizeof cal.fid);
	cal.n = 0;
	pp__xray_probe_slot = 0;
	if (call(1) != 2 || !cal_sequence_ok(tid, lid))
		return -1;
	uintptr_t slot = pp__xray_probe_slot;
	if (!cal.pass) {
		intptr_t off[3] = {0};
		for (int k = 0; k < 4; k++) {
			intptr_t o = (intptr_t)(slot - cal.fp[k]);
			/* The slot lies a little above the handler's frame. */
			if (o <= 0 || o > 4096 || (off[cal.type[k]] && off[cal.type[k]] != o))
				return -1;
			off[cal.type[k]] = o;
		}
		memcpy(pp__xray_slot_off, off, sizeof off);
		return 0;
	}
	for (int k = 0; k < 4; k++)
		if (cal.fp[k] + (uintptr_t)pp__xray_slot_off[cal.type[k]] != slot || cal.ret[k] != cal.ret[0] || !cal.ret[0])
			return -1;
	return cal.target[1] == (uintptr_t)pp__xray_probe_leaf ? 0 : -1;
}

int pp__xray_calibrate(void)
{
#if defined(__x86_64__)
	int32_t tid = 0, lid = 0;
	size_t max = __xray_max_function_id();
	for (size_t id = 1; id <= max && id <= INT32_MAX; id++) {
		uintptr_t a = __xray_function_address((int32_t)id);
		if (a == (uintptr_t)pp__xray_probe_tail)
			tid = (int32_t)id;
		else if (a == (uintptr_t)pp__xray_probe_leaf)
			lid = (int32_t)id;
	}
	if (!tid || !lid)
		return -1;
	if (!pp__xray_use_handler(cal_handler))
		return -1;
	int rc = -1;
	if (__xray_patch_function(tid) == PP_XRAY_SUCCESS &&
	    __xray_patch_function(lid) == PP_XRAY_SUCCESS) {
		cal.pass = 0;
		if (cal_run(tid, lid) == 0) {
			cal.pass = 1;
			rc = cal_run(tid, lid);
		}
	}
	__xray_unpatch_function(tid);
	__xray_unpatch_function(lid);
	pp__xray_use_handler(NULL);
	pp__xray_calibrated = rc == 0;
	return rc;
#else
	return -1;
#endif
}
