/* XRay's full shim, the fallback where the lean one (lean.c) cannot run:
 * an uncalibrated handler (no stack slots, so no positions) and a traced
 * run with tail calls (no runtime frames to mark). ENTRY/EXIT/TAIL events
 * of XRay function ids become the runtime's inline gate; a small
 * per-thread shadow of the shim's own frames lets a tail call give the
 * source-level path: the jumping frame stays open until its tail-callee
 * returns (docs/reference/xray.md, "Tail calls"). Also here: the choice of
 * handler, and the jump cache both shims read. */
#include <string.h>

#include <pathprof/gate.h>
#include "shim.h"
#include "xray_abi.h"

/* Frames the shim tracks per thread (the runtime's default depth bound);
 * deeper frames still gate, but a tail call among them leaves at once. */
#define XFRAMES 256

enum {
	TAIL_NONE = 0,    /* open frame */
	TAIL_CHAIN = 1,   /* left by a direct jump to an armed function */
	TAIL_UNKNOWN = 2, /* left by an indirect jump: target unknown */
};

typedef struct xframe {
	uintptr_t slot; /* return-address slot of the activation; 0 uncalibrated */
	uintptr_t aux;  /* CHAIN: the id of the jump's target; else the return address in slot */
	int32_t fid;
	uint32_t tail;
} xframe_t;

typedef struct xstack {
	uint32_t n;
	uint32_t excess; /* frames beyond XFRAMES: plain enter/leave pairs */
	uint32_t gen;    /* pp__xray_generation this stack has caught up with */
	/* f[0] is a sentinel below the first frame, open and never written:
	 * the tests of the frame below the top need no depth test (XF; five
	 * instructions a gate, bench/tailinstr.sh) */
	xframe_t f[XFRAMES + 1];
} xstack_t;

/* Frame i (0-based) of the shim's stack; -1 is the sentinel. */
#define XF(x, i) (&(x)->f[(i) + 1])

static __thread xstack_t xs PP_TLS_IE;

/* The id of the instrumented function whose entry is addr, 0 for none.
 * Binary search of the arming map. */
static PP_NOINSTR int32_t fid_at(const pp__xray_map_t *m, uintptr_t addr)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->by_addr[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->n || m->by_addr[lo].addr != addr)
		return 0;
	return m->by_addr[lo].id;
}

__thread pp__xray_tcache_t pp__xray_tcache[PP__XRAY_TCACHE] PP_TLS_IE;

int32_t pp__xray_tail_fid_miss(const pp__xray_map_t *m, int32_t fid, uintptr_t ip, uintptr_t slot)
{
	pp__xray_tcache_t *c = &pp__xray_tcache[PP__XRAY_TCACHE_AT(ip)];
	int32_t to;
	if (c->ip == ip) {
		to = c->fid;
	} else {
		uintptr_t target = tail_target(slot);
		to = !target ? -1 : fid_at(m, target);
		c->ip = ip;
		c->fid = to;
	}
	/* the later first; the one before it second */
	uint64_t *w = &m->tail[2 * (size_t)fid];
	__atomic_store_n(&w[1], __atomic_load_n(&w[0], __ATOMIC_RELAXED), __ATOMIC_RELAXED);
	__atomic_store_n(&w[0], PP__XRAY_TAIL_WORD(ip, to), __ATOMIC_RELAXED);
	return to;
}

/* Push frame n (below XFRAMES) of the shim's stack and enter the gate. */
PP_INLINE void push_frame(xstack_t *x, uint32_t n, int32_t fid, uintptr_t slot)
{
	/* Claim the slot as an open frame before filling it, so that a signal
	 * handler running gated code in between never takes it for a stale
	 * tail frame. */
	xframe_t *f = XF(x, n);
	/* the barriers would have the compiler find the frame again */
	__asm__("" : "+r"(f));
	f->tail = TAIL_NONE;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	x->n = n + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	f->slot = slot;
	f->aux = slot ? slot_word(slot) : 0;
	f->fid = fid;
	pp__enter((uint64_t)fid, PP_FE_XRAY);
}

PP_INLINE void push(xstack_t *x, int32_t fid, uintptr_t slot)
{
	if (PP_UNLIKELY(x->excess || x->n == XFRAMES)) {
		x->excess++;
		pp__enter((uint64_t)fid, PP_FE_XRAY);
		return;
	}
	push_frame(x, x->n, fid, slot);
}

PP_INLINE void pop(xstack_t *x)
{
	pp__leave((uint64_t)XF(x, x->n - 1)->fid, PP_FE_XRAY);
	x->n--;
}

/* A frame left by a tail jump and still open: does the function now entered
 * at the same slot continue it (it is the jump's target) or is the frame
 * stale (its tail-callee returned and the caller called again)? */
static PP_NOINSTR int continues(const xframe_t *t, int32_t fid, uintptr_t slot)
{
	if (!pp__xray_calibrated)
		return 1;
	if (t->tail == TAIL_CHAIN)
		return t->aux == (uintptr_t)fid;
	/* Indirect jump: a new call has written a new return address unless it
	 * comes from the same call site; a function re-entered from the same
	 * site is taken as a new call (a loop), not as a jump to itself. */
	return slot_word(slot) == t->aux && fid != t->fid;
}

/* Close tail-left frames on top that a later event proves finished: their
 * slot is deeper than `slot` (or equal, when `equal` says so). */
PP_INLINE void drop_stale(xstack_t *x, uintptr_t slot, int equal)
{
	while (x->n) {
		const xframe_t *t = XF(x, x->n - 1);
		if (t->tail == TAIL_NONE || t->slot > slot || (t->slot == slot && !equal))
			break;
		pop(x);
	}
}

uint32_t pp__xray_generation;

/* First entry since a disarm: frames whose exit sled was unpatched may have
 * returned unseen. A frame has returned when its slot is at or below this
 * entry's, or when a later call overwrote the return address in its slot.
 * Done once per disarm and thread, so code that switches stacks is not
 * second-guessed on every call. */
static PP_COLD void catch_up(xstack_t *x, uintptr_t slot, uint32_t gen)
{
	x->gen = gen;
	if (!pp__xray_calibrated || x->excess)
		return;
	while (x->n) {
		const xframe_t *t = XF(x, x->n - 1);
		if (t->slot > slot && (t->tail == TAIL_CHAIN || slot_word(t->slot) == t->aux))
			break;
		pop(x);
	}
}

static PP_NOINLINE void on_entry_checked(xstack_t *x, int32_t fid, uintptr_t slot, uint32_t gen)
{
	if (PP_UNLIKELY(x->gen != gen))
		catch_up(x, slot, gen);
	while (x->n && !x->excess) {
		const xframe_t *t = XF(x, x->n - 1);
		/* An open frame is the caller; a tail-left frame whose slot is
		 * above this one is still running its (uninstrumented) callee. */
		if (t->tail == TAIL_NONE || t->slot > slot)
			break;
		if (t->slot == slot && continues(t, fid, slot))
			break;
		pop(x);
	}
	push(x, fid, slot);
}

/* An entry whose top frame was left by a tail jump: usually the jump's
 * target entering (on tail-calling code, every other entry), which pushes
 * above the frame it continues; apart from the usual entry so that neither
 * keeps registers for the other. */
static PP_NOINLINE void on_entry_after_tail(xstack_t *x, int32_t fid, uintptr_t slot, uint32_t gen)
{
	uint32_t n = x->n;
	const xframe_t *t = XF(x, n - 1);
	if (PP_LIKELY(t->slot == slot && t->tail == TAIL_CHAIN && t->aux == (uintptr_t)fid)) {
		push_frame(x, n, fid, slot);
		return;
	}
	on_entry_checked(x, fid, slot, gen);
}

/* Usually nothing is to be closed first: no disarm to catch up with (only
 * tested once pp_xray_disarm has run: catching_up, see pp__xray_handler), no
 * frame beyond the bound (n below XFRAMES says so: excess only grows at
 * XFRAMES frames), and the top frame open (the caller) or lying above this
 * slot (a tail-left frame still running its callee). Then the push,
 * without its own bound test; anything else is sorted out of line. */
PP_INLINE void on_entry(xstack_t *x, int32_t fid, uintptr_t slot, int catching_up)
{
	uint32_t n = x->n;
	if (PP_LIKELY((!catching_up || x->gen == __atomic_load_n(&pp__xray_generation, __ATOMIC_RELAXED)) &&
		      n < XFRAMES)) {
		if (PP_LIKELY(XF(x, n - 1)->tail == TAIL_NONE) || XF(x, n - 1)->slot > slot) {
			push_frame(x, n, fid, slot);
			return;
		}
		/* n > 0 here */
		return on_entry_after_tail(x, fid, slot, __atomic_load_n(&pp__xray_generation, __ATOMIC_RELAXED));
	}
	on_entry_checked(x, fid, slot, __atomic_load_n(&pp__xray_generation, __ATOMIC_RELAXED));
}

/* Index + 1 of the open frame of (fid, slot), searching down from the top;
 * 0 when its entry was not seen (armed while it ran). */
PP_INLINE uint32_t find_open(const xstack_t *x, int32_t fid, uintptr_t slot)
{
	for (uint32_t i = x->n; i; i--) {
		const xframe_t *f = XF(x, i - 1);
		if (f->fid == fid && f->slot == slot && f->tail == TAIL_NONE)
			return i;
	}
	return 0;
}

/* Frames above the one returning never saw their exit (unwound by an
 * exception or longjmp, or disarmed while they ran): close them first. */
PP_INLINE void close_above(xstack_t *x, uint32_t i)
{
	while (x->n > i)
		pop(x);
}

/* The frame at the top returns to its caller: so do the frames that reached
 * it by tail jumps (same slot). */
PP_INLINE void return_chain(xstack_t *x, uintptr_t slot)
{
	pop(x);
	drop_stale(x, slot, 1);
}

/* Shared start of an exit and a tail jump: the open frame (1-based) that
 * fid leaves, with everything above it closed; 0 when the event is settled
 * here (a frame beyond the bound, or no open frame matches). */
static PP_NOINLINE uint32_t settle_search(xstack_t *x, int32_t fid, uintptr_t slot)
{
	if (x->excess) {
		x->excess--;
		pp__leave((uint64_t)fid, PP_FE_XRAY);
		return 0;
	}
	uint32_t i = find_open(x, fid, slot);
	if (!i) {
		drop_stale(x, slot, 1);
		return 0;
	}
	close_above(x, i);
	return i;
}

/* Usually the frame left is the top one, open, and no frame is beyond the
 * bound (while one is, n is XFRAMES): its index + 1 then, else 0 (settle_search's
 * turn, which on_exit and on_tail call in tail position, so that the
 * search makes the handler keep no register). */
PP_INLINE uint32_t settle_top(const xstack_t *x, int32_t fid, uintptr_t slot)
{
	uint32_t n = x->n;
	if (PP_LIKELY(n - 1u < XFRAMES - 1u)) {
		const xframe_t *f = XF(x, n - 1);
		if (PP_LIKELY(f->fid == fid && f->slot == slot && f->tail == TAIL_NONE))
			return n;
	}
	return 0;
}

/* return_chain out of line: inline, it would make its caller keep
 * registers across its gates' leaves on every path (on_exit's usual one
 * leaves once, last; tail_from's marks the frame and calls nothing). */
static PP_NOINLINE void return_chain_out(xstack_t *x, uintptr_t slot)
{
	return_chain(x, slot);
}

static PP_NOINLINE void on_exit_checked(xstack_t *x, int32_t fid, uintptr_t slot)
{
	if (settle_search(x, fid, slot))
		return_chain(x, slot);
}

/* The usual exit, inline in the handler: the top frame is the one leaving,
 * open, and none is beyond the bound. With an open frame (or none) below
 * it, the gate's leave is the last call, and the handler keeps no register
 * across a call: the frame leaves the shim's stack first, which a signal
 * handler's gates see as after the pop (they push above the new top).
 * With tail-left frames below, the chain's end, and anything else the
 * search, out of line, before any change (bench/tailinstr.sh, xray built
 * --xray-no-tail-calls: 213.7 -> 199.7 instructions a gate; with tail
 * calls, and on_tail's own split, 258.1 -> 257.2). */
PP_INLINE void on_exit(xstack_t *x, int32_t fid, uintptr_t slot)
{
	uint32_t n = settle_top(x, fid, slot);
	if (PP_UNLIKELY(!n))
		return on_exit_checked(x, fid, slot);
	if (XF(x, n - 2)->tail != TAIL_NONE)
		return return_chain_out(x, slot);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	x->n = n - 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pp__leave((uint64_t)fid, PP_FE_XRAY);
}

/* A tail jump out of open frame i (1-based): where it leads. */
static PP_NOINLINE void tail_from(xstack_t *x, uint32_t i, uintptr_t slot)
{
	xframe_t *f = XF(x, i - 1);
	if (!pp__xray_calibrated) {
		f->tail = TAIL_UNKNOWN;
		return;
	}
	const pp__xray_map_t *m = __atomic_load_n(&pp__xray_map, __ATOMIC_ACQUIRE);
	int32_t target = tail_fid(m, f->fid, slot);
	if (target < 0) {
		f->tail = TAIL_UNKNOWN; /* aux: the return address, kept from entry */
	} else if (target && __atomic_load_n(&m->armed[target], __ATOMIC_RELAXED)) {
		f->aux = (uintptr_t)target;
		f->tail = TAIL_CHAIN;
	} else {
		/* The jump leaves armed code: nothing gated can continue this
		 * frame's path, so it ends now, with the chain that led here. */
		return_chain_out(x, slot);
	}
}

static PP_NOINLINE void on_tail_checked(xstack_t *x, int32_t fid, uintptr_t slot)
{
	uint32_t i = settle_search(x, fid, slot);
	if (i)
		tail_from(x, i, slot);
}

/* A tail jump, inline in the handler: usually out of the top frame, open,
 * else the search; each a call in tail position, so that neither makes the
 * handler keep registers. */
PP_INLINE void on_tail(xstack_t *x, int32_t fid, uintptr_t slot)
{
	uint32_t n = settle_top(x, fid, slot);
	if (PP_LIKELY(n))
		return tail_from(x, n, slot);
	on_tail_checked(x, fid, slot);
}

static inline __attribute__((always_inline)) void dispatch(int32_t fid, int type, uintptr_t fp, int check,
							  int cal, int catching_up)
{
	if ((unsigned)type > PP_XRAY_TAIL)
		return;
	/* errno is not saved here: nothing below sets it, and the runtime's
	 * slow paths save their own (ten instructions an event, #30). */
	xstack_t *x = &xs;
	if (type == PP_XRAY_ENTRY) {
		if (check && stopped(fid))
			return;
		on_entry(x, fid, sled_slot(fp, PP_XRAY_ENTRY, cal), catching_up);
	} else if (type == PP_XRAY_EXIT)
		on_exit(x, fid, sled_slot(fp, PP_XRAY_EXIT, cal));
	else
		on_tail(x, fid, sled_slot(fp, PP_XRAY_TAIL, cal));
}

/* One handler per combination, handler_ABC, each with its tests compiled
 * in or out: A, stopping, ids a budget stopped are ignored (their
 * entries); B, the handler was calibrated (stack slots); C, catching up,
 * pp_xray_disarm has run, so a thread's first entry since may find frames
 * whose exits went unseen (three instructions an entry while it never
 * has, bench/tailinstr.sh). */
PP__XRAY_VARIANTS(handler, dispatch)

pp__xray_handler_t pp__xray_handler(int stopping)
{
	int catching_up = __atomic_load_n(&pp__xray_generation, __ATOMIC_RELAXED) != 0;
	if (pp__xray_calibrated) {
		pp__xray_handler_t lean = pp__xray_lean_handler(catching_up, stopping);
		if (lean)
			return lean;
	}
	return handler_table[catching_up][pp__xray_calibrated != 0][stopping != 0];
}
