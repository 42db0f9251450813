/* XRay's lean shim: each sled goes straight to the runtime's gate, given the
 * sled's stack slot as its position and the return address found there,
 * and its exit is checked by key, so dead frames are dropped as cyg's are
 * (docs/internals/control-flow.md). It keeps no stack of its own: where the
 * full shim (handler.c) keeps a frame a tail jump left open on its own
 * stack, this one marks the runtime's frame (PP__TAIL_CHAIN or
 * PP__TAIL_UNKNOWN in its position, runtime/include/pathprof/state.h), and
 * the exit that returns to the jumping frame's caller closes it.
 * Calibrated only: without stack slots there are no positions; not while
 * recording a trace (arm.c), whose threads keep no frames to mark.
 * bench/tailinstr.sh, the full shim's instructions a gate against this
 * one's: with tail calls 244.5 -> 216.5 (timed 308.5 -> 295.2; 198.5 and
 * 285.4 since a jump's target and a chain's return have short paths of
 * their own), without them 183.7 -> 139.7 (246.4 -> 206.4); behind
 * pathprof's trampolines (trampoline.c) 154.8 and 106.7. Compiled without
 * vector registers, its calls out going through stubs that keep them
 * (vector_safe.h), so that the trampolines need not: 122.6 and 84.7
 * (timed 216.4 and 152.7 once the path table parted sibling ids' homes,
 * runtime/include/pathprof/state.h). */
#define PP__XRAY_LEAN_C
#include "vector_safe.h"
#include <pathprof/gate.h>
#include "shim.h"
#include "xray_abi.h"

/* The timed exit's pop at an exit sled, where the return registers are
 * the only live vector registers: through a stub that keeps xmm0-1 alone
 * (12 instructions fewer a timed exit than pp__pop_timed's stub) */
#if PP__XRAY_GENERAL_REGS
void pp__xray_v_ret_pop_timed(pp__tls_t *t, uint32_t v, uint64_t now) PP_NOINSTR;
#define POP_AT_EXIT pp__xray_v_ret_pop_timed
#else
#define POP_AT_EXIT pp__pop_timed
#endif

/* 0: not set (the full shim); 1: a program without tail calls; 2: with */
static int lean;
/* pp__xray_generation this thread's frames have caught up with */
static __thread uint32_t lean_gen PP_TLS_IE;

void pp__xray_set_lean(int tails)
{
	lean = tails ? 2 : 1;
	__atomic_store_n(&pp__xray_keyed, 1, __ATOMIC_RELAXED);
}

/* The thread's top frame when the runtime keeps its frames (not beyond the
 * bound, not recording); the sentinel, above every slot, at depth 0. */
static inline __attribute__((always_inline)) pp__frame_t *kept_top(pp__tls_t *t)
{
	if (!t->slab || t->excess || t->trace)
		return NULL;
	return &PP__DS_FRAME(t, t->dstate)[-1];
}

/* Leave the top frame (its own key: a normal exit, timed if its event is) */
static inline __attribute__((always_inline)) void leave_top(const pp__frame_t *f, pp__pop_timed_fn pop)
{
	pp__leave_at(f->key, PP_FE_XRAY, pop, 0);
}

/* First entry since a disarm (as the full shim's catch_up): the runtime's
 * frames whose exits went unseen leave, as they would have, before this
 * entry pushes: those at or below its slot, and those above it whose slot
 * no longer holds the return address it had at entry (a later call
 * overwrote it); a frame a direct tail jump left stays while its slot is
 * above (its target runs there). */
static PP_COLD void lean_catch_up(uintptr_t slot, uint32_t gen)
{
	lean_gen = gen;
	pp__tls_t *t = &pp__tls;
	const pp__frame_t *f;
	while ((f = kept_top(t)) && PP__DS_DEPTH(t->dstate) > 0) {
		uint32_t d = PP__DS_DEPTH(t->dstate);
		uint64_t at = PP__TAIL_SLOT(f->sp);
		if (f->sp == PP__SP_NONE ||
		    (at > slot && (PP__TAIL_MARK(f->sp) == PP__TAIL_CHAIN || slot_word(at) == f->ra)))
			break;
		pp__leave_at(f->key, PP_FE_XRAY, pp__pop_timed, 1);
		if (PP__DS_DEPTH(t->dstate) >= d)
			break; /* not left (a rare state took it): no further */
	}
}

/* An entry whose top frame is not above it, or whose thread is in a rare
 * state, and is not a direct jump's target (lean_enter_target): the
 * tail-left frames on top either continue into it (it nests in them) or
 * are finished (they leave, as the full shim closes them); what remains at
 * or below the slot is dead, which the gate sorts out. */
static PP_NOINLINE void lean_enter_rare(int32_t fid, uintptr_t slot, uint64_t ra)
{
	pp__tls_t *t = &pp__tls;
	const pp__frame_t *f;
	while ((f = kept_top(t)) && PP__TAIL_LEFT(f->sp) && PP__TAIL_SLOT(f->sp) <= slot) {
		if (pp__tail_continues(f, slot, ra, (uint64_t)fid))
			break;
		uint32_t d = PP__DS_DEPTH(t->dstate);
		leave_top(f, pp__pop_timed);
		if (PP__DS_DEPTH(t->dstate) >= d)
			break;
	}
	if ((f = kept_top(t)) && f->sp <= slot)
		pp__enter_resync((uint64_t)fid, PP__FE_ARG(PP_FE_XRAY), slot, ra);
	else
		pp__enter_at((uint64_t)fid, PP_FE_XRAY, slot, ra, 0);
}

/* The usual entry that is not above the top frame: a direct jump's target
 * (the frames exist below either limit), which nests in the frame that
 * jumped. Apart from lean_enter_rare, so that it saves one register
 * where that one saves five (bench/tailinstr.sh: 49 instructions a call
 * inside it, 35 apart). */
static PP_NOINLINE void lean_enter_target(int32_t fid, uintptr_t slot)
{
	pp__tls_t *t = &pp__tls;
	uint32_t v = t->dstate;
	/* as lean_enter knows it: a stack slot */
	if (!slot)
		__builtin_unreachable();
	if (PP_LIKELY(v < PP__LIMIT(t->elimit) || v < PP__LIMIT(t->tlimit))) {
		const pp__frame_t *f = &PP__DS_FRAME(t, v)[-1];
		if (f->sp == (slot | PP__TAIL_CHAIN) && f->tail == (uint64_t)fid) {
			/* the return address read again here, not kept from
			 * the entry: one register fewer, no register saved */
			uint64_t ra = slot_word(slot);
			if (!ra)
				__builtin_unreachable();
			pp__enter_at((uint64_t)fid, PP_FE_XRAY, slot, ra, 0);
			return;
		}
	}
	lean_enter_rare(fid, slot, slot_word(slot));
}

/* The gate at slot. A top frame not above it is dead (XRay's positions
 * are call slots: no two live frames share one, where at cyg's position a
 * gate of an inlined callee nests), so the shim tests that itself, also in
 * a timed event, and the gate tests nothing more (resync 0). The frames
 * exist when either limit is not 0. With tail calls, a frame a tail jump
 * left lies just above its slot: the entry of a direct jump's target nests
 * in it inline (a second compare, and the target's id), anything else
 * goes the rare way. */
static inline __attribute__((always_inline)) void lean_enter(int32_t fid, uintptr_t slot, int tails)
{
	pp__tls_t *t = &pp__tls;
	uint32_t v = t->dstate;
	uint64_t ra = slot_word(slot);
	/* a return address, never 0: the push stores it untested (two
	 * instructions an entry; the full shim passes 0 for none) */
	if (!ra)
		__builtin_unreachable();
	if (tails) {
		if (PP_LIKELY((v < PP__LIMIT(t->elimit) || v < PP__LIMIT(t->tlimit)) &&
			      PP__DS_FRAME(t, v)[-1].sp > (slot | 3)))
			pp__enter_at((uint64_t)fid, PP_FE_XRAY, slot, ra, 0);
		else
			lean_enter_target(fid, slot);
		return;
	}
	if ((v < PP__LIMIT(t->elimit) || v < PP__LIMIT(t->tlimit)) &&
	    PP_UNLIKELY(PP__DS_FRAME(t, v)[-1].sp <= slot)) {
		pp__enter_resync((uint64_t)fid, PP__FE_ARG(PP_FE_XRAY), slot, ra);
		return;
	}
	pp__enter_at((uint64_t)fid, PP_FE_XRAY, slot, ra, 0);
}

/* Is f marked left by a tail jump (CHAIN or UNKNOWN) at this slot? */
static inline __attribute__((always_inline)) int left_at(const pp__frame_t *f, uintptr_t slot)
{
	return f->sp - (slot | PP__TAIL_CHAIN) <= PP__TAIL_UNKNOWN - PP__TAIL_CHAIN;
}

/* The frames a tail jump left at this slot return with the frame that
 * just left: they jumped to it (or to a function that got here). None is
 * a leaf (each has had a child), so untimed their leaves only restore the
 * running hash: all of them at once, from the lowest (20 instructions a
 * frame fewer than a leave each, bench/tailinstr.sh). */
static PP_NOINLINE void close_chain(uintptr_t slot, pp__pop_timed_fn pop)
{
	pp__tls_t *t = &pp__tls;
	if (!kept_top(t))
		return;
	uint32_t v = t->dstate, w = v;
	if (PP_LIKELY(v - PP__FRAME_BYTES < PP__LIMIT(t->limit))) {
		while (left_at(&PP__DS_FRAME(t, w)[-1], slot))
			w -= PP__FRAME_BYTES;
		if (w != v) {
			t->hash = PP__DS_FRAME(t, w)->hash_before;
			t->dstate = PP__DS_OFF(w);
		}
		return;
	}
	for (;;) { /* timed, or a rare state: one leave each */
		v = t->dstate;
		const pp__frame_t *f = &PP__DS_FRAME(t, v)[-1];
		if (!left_at(f, slot))
			return;
		leave_top(f, pop);
		if (t->dstate >= v)
			return; /* not left (a rare state took it) */
	}
}

/* lean_return_chain's other ways, apart so that its own keeps no
 * register across a call (3 instructions a chain's return): the top
 * frame's leaf count missed its slot, or a leave of its own. */
static PP_NOINLINE void chain_leaf_miss(int32_t fid, uintptr_t slot, pp__pop_timed_fn pop)
{
	pp__tls_t *t = &pp__tls;
	(void)fid; /* the caller's arguments where they are */
	pp__leaf_miss(t, t->dstate - PP__FRAME_BYTES);
	close_chain(slot, pop);
}
static PP_NOINLINE void chain_leave(int32_t fid, uintptr_t slot, pp__pop_timed_fn pop)
{
	pp__leave_at((uint64_t)fid, PP_FE_XRAY, pop, 0);
	close_chain(slot, pop);
}

/* The exit of the frame on top, with frames a tail jump left below it at
 * its slot: they return with it. Untimed and in bounds (below the exit's
 * limit: frames kept, not recording), all at once: the top frame's leaf
 * count, then the hash and state from below the lowest of the chain (none
 * of whose frames is a leaf), as close_chain does after a leave (82
 * instructions a call as a leave and close_chain, 48 so). Out of line, so
 * that the usual exit keeps no register across its leave. */
static inline __attribute__((always_inline)) void return_chain(int32_t fid, uintptr_t slot, pp__pop_timed_fn pop)
{
	pp__tls_t *t = &pp__tls;
	uint32_t v = t->dstate - PP__FRAME_BYTES;
	if (PP_LIKELY(v < PP__LIMIT(t->limit))) {
		if (v & 1u) {
			uint64_t h = t->hash;
			pp__slot_t *s = pp__slot_at(t->table, t->smask, h);
			if (PP_UNLIKELY(s->hash != h))
				return chain_leaf_miss(fid, slot, pop);
			s->path->count++;
		}
		uint32_t w = v;
		while (left_at(&PP__DS_FRAME(t, w)[-1], slot))
			w -= PP__FRAME_BYTES;
		t->hash = PP__DS_FRAME(t, w)->hash_before;
		t->dstate = PP__DS_OFF(w);
		return;
	}
	chain_leave(fid, slot, pop);
}
/* pop a constant in each (an argument would take a register the usual
 * way needs: 2 instructions a chain's return) */
static PP_NOINLINE void lean_return_chain(int32_t fid, uintptr_t slot)
{
	return_chain(fid, slot, pp__pop_timed);
}
static PP_NOINLINE void lean_return_chain_at_exit(int32_t fid, uintptr_t slot)
{
	return_chain(fid, slot, POP_AT_EXIT);
}

int pp__xray_armed_late;

/* An exit whose frame is not on top (or, with tail calls, has frames a
 * tail jump left below it): with a frame of its key further down, the gate
 * drops the frames above it (resync). With none, the gate counts it
 * unmatched (a root selection abandoned its frame, as raii and cyg count
 * it), unless sleds were armed while the program ran (pp__xray_armed_late):
 * then it may be a call its entry's arming came too late for, ignored as
 * the full shim ignores it. Either way the frames that jumped to it end.
 * Beyond the depth bound, and while recording, the runtime sorts exits out
 * itself. */
static PP_NOINLINE void lean_leave_rare(int32_t fid, uintptr_t slot, int tails)
{
	pp__tls_t *t = &pp__tls;
	/* A frame a tail jump left, on top at a deeper slot, has finished: the
	 * code it jumped to returned to its caller, which now returns in turn
	 * (`return fp(x)` into unarmed code, fp's return unseen). It leaves as
	 * it would have, counted and timed, as at an entry (lean_enter_rare);
	 * the resync below would drop it as dead, and with it the path. */
	const pp__frame_t *f;
	while (tails && (f = kept_top(t)) && PP__TAIL_LEFT(f->sp) && PP__TAIL_SLOT(f->sp) < slot) {
		uint32_t d = PP__DS_DEPTH(t->dstate);
		leave_top(f, pp__pop_timed);
		if (PP__DS_DEPTH(t->dstate) >= d)
			break;
	}
	if (!t->excess && !t->trace) {
		uint32_t d = PP__DS_DEPTH(t->dstate);
		while (d > 0 && t->stack[d - 1].key != (uint64_t)fid)
			d--;
		if (!d && __atomic_load_n(&pp__xray_armed_late, __ATOMIC_RELAXED)) {
			if (tails)
				close_chain(slot, pp__pop_timed);
			return;
		}
	}
	pp__leave_at((uint64_t)fid, PP_FE_XRAY, pp__pop_timed, 1);
	if (tails)
		close_chain(slot, pp__pop_timed);
}

/* The exit: the key check here, so that a mismatch can be looked at
 * before the gate would count it (the gate then checks nothing more); with
 * tail calls, the frame below tested for a tail jump's mark at this slot
 * (a load and a compare, the slot's computation three more). pop: the
 * timed exit's (POP_AT_EXIT at an exit sled). */
static inline __attribute__((always_inline)) void lean_leave(int32_t fid, uintptr_t slot, int tails,
							     pp__pop_timed_fn pop)
{
	const pp__tls_t *t = &pp__tls;
	uint32_t v = t->dstate - PP__FRAME_BYTES;
	/* the top frame exists below either limit (the gate's own test),
	 * and the one below it or the sentinel. The mark first: the slot is
	 * then no longer needed on the usual way (a register fewer). */
	if (PP_LIKELY(v < PP__LIMIT(t->limit) || v < PP__LIMIT(t->tlimit))) {
		const pp__frame_t *f = PP__DS_FRAME(t, v);
		if (tails && PP_UNLIKELY(f[-1].sp <= (slot | 3))) {
			if (f->key == (uint64_t)fid)
				return pop == POP_AT_EXIT ? lean_return_chain_at_exit(fid, slot)
							  : lean_return_chain(fid, slot);
		} else if (PP_LIKELY(f->key == (uint64_t)fid)) {
			return pp__leave_at((uint64_t)fid, PP_FE_XRAY, pop, 0);
		}
	}
	lean_leave_rare(fid, slot, tails);
}

/* A tail jump out of the top frame (fid's, at slot) to target
 * (pp__xray_tail_fid_miss says what it holds): to an armed function, the
 * frame stays open, marked, until that function returns; an indirect
 * jump, marked so, until an entry or exit at the slot tells; out of armed
 * code, the frame ends now, with the chain that led to it. */
static inline __attribute__((always_inline)) void lean_tail_to(pp__frame_t *f, int32_t fid, uintptr_t slot,
							       int32_t target, const pp__xray_map_t *m)
{
	if (PP_LIKELY(target > 0) && __atomic_load_n(&m->armed[target], __ATOMIC_RELAXED)) {
		/* the target first: a signal handler's gates in between lie
		 * below the slot either way */
		f->tail = (uint64_t)target;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		f->sp = slot | PP__TAIL_CHAIN;
	} else if (target < 0) {
		f->sp = slot | PP__TAIL_UNKNOWN; /* ra: kept from entry */
	} else {
		lean_return_chain(fid, slot);
	}
}

/* A jump that is not fid's last one (its first time, or a function that
 * tail-jumps from several places). */
static PP_NOINLINE void lean_tail_miss(pp__frame_t *f, int32_t fid, uintptr_t slot)
{
	const pp__xray_map_t *m = __atomic_load_n(&pp__xray_map, __ATOMIC_ACQUIRE);
	uintptr_t ip = slot_word(slot - sizeof(void *));
	lean_tail_to(f, fid, slot, pp__xray_tail_fid_miss(m, fid, ip, slot), m);
}

/* The usual tail jump, inline in the handler: fid's last jump again, the
 * marks, and calls only in tail position, so that it keeps no register. */
static inline __attribute__((always_inline)) void lean_tail_from(pp__frame_t *f, int32_t fid, uintptr_t slot)
{
	uintptr_t ip = slot_word(slot - sizeof(void *));
	const pp__xray_map_t *m = __atomic_load_n(&pp__xray_map, __ATOMIC_ACQUIRE);
	int32_t to;
	if (PP_UNLIKELY(!pp__xray_tail_find(m, fid, ip, &to)))
		return lean_tail_miss(f, fid, slot);
	lean_tail_to(f, fid, slot, to, m);
}

/* A tail jump whose frame is not the top one: with frames above it whose
 * exits went unseen, those leave first (as the full shim closes them);
 * with no frame of fid at this slot, or beyond the bound, or while
 * recording, the jump is taken as fid's exit (the target's entry and exit
 * then pair by themselves). */
static PP_NOINLINE void lean_tail_rare(int32_t fid, uintptr_t slot)
{
	pp__tls_t *t = &pp__tls;
	if (kept_top(t)) {
		uint32_t d = PP__DS_DEPTH(t->dstate);
		while (d > 0 && !(t->stack[d - 1].key == (uint64_t)fid && t->stack[d - 1].sp == slot))
			d--;
		if (d) {
			while (PP__DS_DEPTH(t->dstate) > d) {
				uint32_t n = PP__DS_DEPTH(t->dstate);
				leave_top(kept_top(t), pp__pop_timed);
				if (PP__DS_DEPTH(t->dstate) >= n)
					return;
			}
			lean_tail_from(kept_top(t), fid, slot);
			return;
		}
	}
	lean_leave_rare(fid, slot, 1);
}

static inline __attribute__((always_inline)) void lean_tail(int32_t fid, uintptr_t slot)
{
	pp__tls_t *t = &pp__tls;
	uint32_t v = t->dstate - PP__FRAME_BYTES;
	/* the top frame exists below either limit */
	if (PP_LIKELY((v < PP__LIMIT(t->limit) || v < PP__LIMIT(t->tlimit)) &&
		      PP__DS_FRAME(t, v)->key == (uint64_t)fid && PP__DS_FRAME(t, v)->sp == slot))
		lean_tail_from(PP__DS_FRAME(t, v), fid, slot);
	else
		lean_tail_rare(fid, slot);
}

/* Is the runtime's top frame that of fid at slot (entered before a stop)? */
static inline __attribute__((always_inline)) int lean_top_is(int32_t fid, uintptr_t slot)
{
	const pp__tls_t *t = &pp__tls;
	uint32_t d = PP__DS_DEPTH(t->dstate);
	return d && t->stack[d - 1].key == (uint64_t)fid && t->stack[d - 1].sp == slot;
}

/* One event, of type at a sled of that kind (a tail sled's is an exit's
 * without tail calls). The sled's slot is given by pathprof's trampolines
 * (the typed handlers below), else found from the handler's frame (fp). */
static inline __attribute__((always_inline)) void lean_event(int32_t fid, int type, int sled, uintptr_t fp,
							    uintptr_t given, int check, int catching_up,
							    int tails)
{
#define SLOT(kind) (given ? given : sled_slot(fp, kind, 1))
	if (type == PP_XRAY_ENTRY) {
		if (check && stopped(fid))
			return;
		uintptr_t slot = SLOT(PP_XRAY_ENTRY);
		if (catching_up) {
			uint32_t gen = __atomic_load_n(&pp__xray_generation, __ATOMIC_RELAXED);
			if (PP_UNLIKELY(lean_gen != gen))
				lean_catch_up(slot, gen);
		}
		lean_enter(fid, slot, tails);
	} else if (type == PP_XRAY_EXIT || (!tails && type == PP_XRAY_TAIL)) {
		/* without tail calls, a tail sled would be the probes' alone:
		 * as an exit (whose slot only the stopping test needs) */
		if (check && stopped(fid) && !lean_top_is(fid, SLOT(type)))
			return; /* its entry opened no frame */
		lean_leave(fid, tails ? SLOT(PP_XRAY_EXIT) : 0, tails,
			   sled == PP_XRAY_EXIT ? POP_AT_EXIT : pp__pop_timed);
	} else if (type == PP_XRAY_TAIL) {
		uintptr_t slot = SLOT(PP_XRAY_TAIL);
		if (check && stopped(fid) && !lean_top_is(fid, slot))
			return;
		lean_tail(fid, slot);
	}
#undef SLOT
}

static inline __attribute__((always_inline)) void lean_dispatch(int32_t fid, int type, uintptr_t fp, int check,
							       int catching_up, int tails)
{
	lean_event(fid, type, type, fp, 0, check, catching_up, tails);
}

/* lean_ABC: A stopping, B catching up, C with tail calls */
PP__XRAY_VARIANTS(lean, lean_dispatch)

/* The same for pathprof's trampolines, one a kind of sled (lean_ABC_K, K:
 * e entry, x exit, t tail; a tail sled is an exit without tail calls),
 * each given the slot: no test of the kind, no load of the calibrated
 * offset (bench/tailinstr.sh: 166.3 -> 154.8 instructions a gate with tail
 * calls, 113.7 -> 106.7 without), and the sled's own kind, so that an exit
 * sled's timed pop keeps only the return registers (POP_AT_EXIT). The
 * trampolines leave type unset. */
#define LEAN_KIND(abc, k, kind, sled, a, b, c)                                     \
	static PP_NOINLINE void lean_##abc##_##k(int32_t fid, int type, uintptr_t slot) \
	{                                                                          \
		(void)type;                                                        \
		if (!slot)                                                         \
			__builtin_unreachable();                                   \
		lean_event(fid, kind, sled, 0, slot, a, b, c);                     \
	}
#define LEAN_KINDS(abc, a, b, c)                                   \
	LEAN_KIND(abc, e, PP_XRAY_ENTRY, PP_XRAY_ENTRY, a, b, c)   \
	LEAN_KIND(abc, x, PP_XRAY_EXIT, PP_XRAY_EXIT, a, b, c)     \
	LEAN_KIND(abc, t, c ? PP_XRAY_TAIL : PP_XRAY_EXIT, PP_XRAY_TAIL, a, b, c)
LEAN_KINDS(000, 0, 0, 0)
LEAN_KINDS(001, 0, 0, 1)
LEAN_KINDS(010, 0, 1, 0)
LEAN_KINDS(011, 0, 1, 1)
LEAN_KINDS(100, 1, 0, 0)
LEAN_KINDS(101, 1, 0, 1)
LEAN_KINDS(110, 1, 1, 0)
LEAN_KINDS(111, 1, 1, 1)
#undef LEAN_KINDS
#undef LEAN_KIND
#define LEAN_ROW(abc) { lean_##abc, { lean_##abc##_e, lean_##abc##_x, lean_##abc##_t } }
static const struct {
	pp__xray_handler_t any;
	pp__xray_sled_handler_t kind[3];
} lean_kinds[] = {
	LEAN_ROW(000), LEAN_ROW(001), LEAN_ROW(010), LEAN_ROW(011),
	LEAN_ROW(100), LEAN_ROW(101), LEAN_ROW(110), LEAN_ROW(111),
};
#undef LEAN_ROW

pp__xray_handler_t pp__xray_lean_handler(int catching_up, int stopping)
{
	if (!lean)
		return NULL;
	return lean_table[lean == 2][catching_up != 0][stopping != 0];
}

int pp__xray_lean_kinds(pp__xray_handler_t h, pp__xray_sled_handler_t kind[3])
{
	for (size_t i = 0; i < sizeof lean_kinds / sizeof lean_kinds[0]; i++)
		if (lean_kinds[i].any == h) {
			memcpy(kind, lean_kinds[i].kind, sizeof lean_kinds[i].kind);
			return 1;
		}
	return 0;
}
