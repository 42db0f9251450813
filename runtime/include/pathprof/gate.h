/* The gate: the inline enter/leave every front-end shim calls.
 * It lives in a public header because the raii macros inline it into user code;
 * the cyg, xray and plugin shims inline the same two functions, so all four
 * front-ends share one definition of the path semantics (docs/reference/semantics.md).
 * Nothing here allocates, locks, issues an atomic RMW or a syscall. */
#ifndef PATHPROF_GATE_H
#define PATHPROF_GATE_H

#include <stdint.h>
#include <pathprof/compiler.h>
#include <pathprof/state.h>

PP_EXTERN_C_BEGIN

/* A program that gates is the runtime's host (runtime/host/start.c: the
 * constructor, signal handlers, the exit dump). A constructor alone is not
 * pulled from a static archive, so every file that includes the gate holds a
 * reference to the host's start. The pathprof tool, which replays gates but
 * is nobody's host, and the runtime's own files define PP_NOT_A_HOST. */
PP_EXPORT void pp__host_start(void) PP_NOINSTR;
#ifndef PP_NOT_A_HOST
__attribute__((used)) static void (*const pp__host_ref)(void) = pp__host_start;
#endif

/* Everything the gate does not do inline: registration, frames beyond the
 * bound, recording, and the gates of a timed event that fail the inline
 * checks (the bound, resync). */
PP_EXPORT void pp__enter_slow(uint64_t key, int fe, uint64_t sp, uint64_t ra) PP_NOINSTR;
PP_EXPORT void pp__leave_slow(uint64_t key, int fe) PP_NOINSTR;
/* The exit of a timed event's gate at state v (checked inline against the
 * bound and the key), at time now: inclusive and self time into the gate's
 * node, out of line. */
PP_EXPORT void pp__pop_timed(pp__tls_t *t, uint32_t v, uint64_t now) PP_NOINSTR PP_NOPLT;
/* An event's first gate when timing is not off and the event may be timed
 * (sampling: the one event in N its countdown, kept inline, reached; timing
 * every event: the first, which opens the endless window, PP__ENDLESS): the
 * decision, and for a timed event its root's timestamp and the switch to
 * the slow path.
 * Once a budget stopped a key, a stopped key's frame, pushed inline between
 * events, is taken back there and starts no event (runtime/gate_timed.c). */
PP_EXPORT void pp__event_timing(pp__tls_t *t, pp__frame_t *f) PP_COLD;
/* Resync (docs/internals/control-flow.md). Entering: the top frame lies at or below
 * the new gate's host, so it may be dead (longjmp, an exception that ran no
 * exit hook): drop the frames that are, counting each in `unmatched`, then
 * enter. Leaving: the top frame is not the gate being left: drop the frames
 * above the nearest one that is (each counted), then leave it; with no such
 * frame, count the exit as unmatched. */
PP_EXPORT void pp__enter_resync(uint64_t key, int fe, uint64_t sp, uint64_t ra) PP_COLD;
PP_EXPORT void pp__leave_resync(uint64_t key) PP_COLD;
/* The rest of a leaf's exit, out of line: its path was not found at the
 * first probe (first sight, collision). v is the dstate of the frame being
 * left (pp__leave); it finishes the pop. */
PP_EXPORT void pp__leaf_miss(pp__tls_t *t, uint32_t v) PP_NOINSTR;

/* Keys whose gates a budget stopped (PATHPROF_BUDGET, runtime/throttle.c;
 * pp__throttle_n in state.h counts them). A budget times every event; once
 * a key is stopped, every thread's tlimit is 0 (runtime/thread_state.h), so
 * a timed event's gates go out of line, and there to these, which look the
 * key up. XRay stops a key by unpatching it and never comes here.
 * Entering: is key stopped? Leaving: is it stopped with no frame of its own
 * on top (one entered before the stop leaves as usual)? */
PP_EXPORT void pp__enter_budget(uint64_t key, int fe, uint64_t sp, uint64_t ra, uint64_t site) PP_NOINSTR;
PP_EXPORT void pp__leave_budget(uint64_t key, int fe, uint64_t site) PP_NOINSTR;
#define PP__THROTTLES(fe) ((fe) != PP_FE_XRAY)
/* Where a cyg hook or the plugin's shim returns to: once its key is
 * stopped, the runtime patches the call out of the code there
 * (runtime/site_patch.c). Computed on the budget's branch only. */
#define PP__SITE(fe)                                                                         \
	((fe) == PP_FE_CYG || (fe) == PP_FE_PLUGIN ? (uint64_t)(uintptr_t)__builtin_return_address(0) \
						     : 0)
/* While PATHPROF_FUNCTIONS is in force (pp__select_sites: 1), a cyg
 * hook's or the plugin shim's gate goes out of line through these
 * (runtime/gate_selected.c). A key the selection keeps gets the inline
 * gate's push or pop after one lookup of its class; for a key it leaves
 * out they note where its hook returns to: the runtime then patches that
 * hook call out of the code (runtime/site_patch.c), so a function left
 * out costs what the code around its hooks does, where every call of it
 * went out of line twice before. raii's gates are compiled out by name
 * instead (pathprof/raii.h), XRay's never armed. */
PP_EXPORT extern uint32_t pp__select_sites;
#define PP__SITED(fe) ((fe) == PP_FE_CYG || (fe) == PP_FE_PLUGIN)
PP_EXPORT void pp__enter_selected(uint64_t key, int fe, uint64_t sp, uint64_t ra, uint64_t site) PP_NOINSTR;
PP_EXPORT void pp__leave_selected(uint64_t key, int fe, uint64_t site) PP_NOINSTR;
/* A raii key stopped by a budget: its site says so, a load on the budget's
 * branch instead of the call to look the key up (bench/budget.sh). Where
 * the gate's entry can be patched (pathprof/raii.h, runtime/raii_patch.c),
 * only until the runtime has made it a jump over the gate. */
#define PP__SITE_STOPPED(fe, key)                                                            \
	((fe) == PP_FE_RAII &&                                                                \
	 __atomic_load_n(&((pp_site_t *)(uintptr_t)(key))->stopped, __ATOMIC_RELAXED))

/* Passed with fe to the slow paths by code compiled with -DPP_NO_TIMING: an
 * event it starts is never timed, though the runtime itself could time. */
#define PP__FE_UNTIMED 0x100
#define PP__FE_ARG(fe) ((fe) | (PP__TIMING ? 0 : PP__FE_UNTIMED))

/* Which front-ends resync: those whose gate runs in a frame tied to the
 * gated function (the function itself for raii, a hook it calls for cyg and
 * plugin) and whose exit knows the key it leaves. XRay's handlers sit behind
 * trampolines of different sizes at entry and exit and keep their own shadow
 * stack; its leaves are unchecked. */
#ifdef PP_NO_RESYNC
#define PP__RESYNC(fe) 0
#else
#define PP__RESYNC(fe) ((fe) == PP_FE_RAII || (fe) == PP_FE_CYG || (fe) == PP_FE_PLUGIN)
#endif

/* Set by XRay's lean shim (frontends/xray/handler.c: a program without
 * tail calls), which gives its gates positions (the sleds' stack slots)
 * and checks their keys at exit: the slow paths then check an XRay leave's
 * key as they check those of the front-ends that resync. */
PP_EXPORT extern int pp__xray_keyed;
#define PP__KEYED(fe) \
	(PP__RESYNC(fe) || ((fe) == PP_FE_XRAY && __atomic_load_n(&pp__xray_keyed, __ATOMIC_RELAXED)))

/* The position of the gate's host, compared at entry only. raii: the frame
 * address of the gated function, the same for every function called from
 * the same place whatever its frame size (the return address then tells
 * them apart). cyg and plugin: the hook's stack pointer, one instruction
 * where the frame address would make the hook set up a frame pointer; every
 * entry runs the same hook, so positions differ from the frame address by a
 * constant and compare the same way. */
#if defined(__x86_64__)
#define PP__SP_NOW()                                    \
	__extension__({                                  \
		uint64_t pp__v;                          \
		__asm__("mov %%rsp, %0" : "=r"(pp__v));  \
		pp__v;                                   \
	})
#elif defined(__aarch64__)
#define PP__SP_NOW()                                    \
	__extension__({                                  \
		uint64_t pp__v;                          \
		__asm__("mov %0, sp" : "=r"(pp__v));     \
		pp__v;                                   \
	})
#else
#define PP__SP_NOW() ((uint64_t)(uintptr_t)__builtin_frame_address(0))
#endif
/* GCC derives the canonical frame address from the stack pointer, where the
 * frame address would make every gated function keep a frame pointer; on
 * x86-64 the two differ by 16, so GCC- and Clang-built code agree. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PP__FRAME_NOW() ((uint64_t)(uintptr_t)__builtin_dwarf_cfa() - 16)
#else
#define PP__FRAME_NOW() ((uint64_t)(uintptr_t)__builtin_frame_address(0))
#endif
#define PP__POS(fe) \
	(!PP__RESYNC(fe) ? PP__SP_NONE : (fe) == PP_FE_RAII ? PP__FRAME_NOW() : PP__SP_NOW())
/* The gate's return address: raii's, the host's (which call of the host);
 * cyg's and the plugin's, the hook's, which says which of a function's
 * copies entered it (GCC inlines a small recursive function into itself at
 * -O2: each copy's hook runs at the one position with the one key). */
#define PP__RA(fe) (PP__RESYNC(fe) ? (uint64_t)(uintptr_t)__builtin_return_address(0) : 0)

/* Does a frame XRay's lean shim marked left by a tail jump (PP__TAIL_LEFT)
 * continue into the gate at (slot, ra, key), which is then the jump's
 * target? A direct jump says which id it leads to. An indirect one does
 * not: a new call has written a new return address into the slot unless it
 * comes from the same call site, and a function re-entered from the same
 * site is taken as a new call (a loop), not as a jump to itself. */
PP_INLINE int pp__tail_continues(const pp__frame_t *f, uint64_t slot, uint64_t ra, uint64_t key)
{
	if (f->sp == (slot | PP__TAIL_CHAIN))
		return f->tail == key;
	return f->sp == (slot | PP__TAIL_UNKNOWN) && f->ra == ra && f->key != key;
}

/* Is the open frame f dead, seen from a gate entered at (sp, ra, key)? A
 * frame deeper than the gate's host is dead (its function has gone). At the
 * same position it is an enclosing gate of the same call (a raii outer scope,
 * a cyg or plugin gate of a function inlined into its caller) unless it is
 * this very gate again: raii's key with the host's return address (another
 * one: another call), cyg's and the plugin's key with the hook's (the same
 * copy of an inlined function entered again; another copy of the same
 * function nests, and pp__enter_checked also looks below it). The inline
 * entry only tests f->sp > sp; the rest runs out of line. */
PP_INLINE int pp__dead(const pp__frame_t *f, int fe, uint64_t sp, uint64_t ra, uint64_t key)
{
	if (PP_LIKELY(f->sp > sp))
		/* a frame XRay's lean shim marked left by a tail jump, at or
		 * below this gate's slot, that this gate does not continue:
		 * its chain has returned */
		return fe == PP_FE_XRAY && PP__TAIL_LEFT(f->sp) && PP__TAIL_SLOT(f->sp) <= sp &&
		       !pp__tail_continues(f, sp, ra, key);
	if (fe == PP_FE_CYG || fe == PP_FE_PLUGIN)
		return f->sp < sp || (f->key == key && f->ra == ra);
	/* XRay's positioned frames (its lean shim) are the return-address
	 * slots of calls: no two live ones share a slot */
	return f->sp < sp || f->key == key || fe == PP_FE_XRAY || (fe == PP_FE_RAII && f->ra != ra);
}


/* Must the entry at (sp, key) go out of line to check the top frame? raii:
 * whenever the top is not above it (pp__dead's return-address test needs
 * the return address, which the common case then need not keep). cyg and
 * plugin: only when the top is dead, so the hooks of a function inlined
 * into its caller (the caller's position, another key) push inline. */
PP_INLINE int pp__off_top(const pp__tls_t *t, uint32_t v, int fe, uint64_t sp, uint64_t key)
{
	const pp__frame_t *f = PP__DS_FRAME(t, v) - 1;
#if defined(__x86_64__) && defined(__GNUC__)
	if (fe != PP_FE_RAII) {
		/* One compare, both ways: above (the usual nesting) pushes after
		 * a taken branch, below goes out of line, the same position
		 * (a hook of an inlined callee) tests the key; a compiler's
		 * own code compares twice (one instruction a gate there). */
		__asm__ goto("cmpq %1, %0\n\tja %l[above]\n\tjb %l[below]"
			     : /* no outputs */
			     : "m"(f->sp), "r"(sp)
			     : "cc"
			     : above, below);
		return f->key == key;
	above:
		return 0;
	below:
		return 1;
	}
#endif
	if (PP_LIKELY(f->sp > sp))
		return 0;
	return fe == PP_FE_RAII || f->sp < sp || f->key == key;
}

/* Push a frame for the entry state v (< limit) with no timing; an event's
 * first frame (entered with the seed hash) counts the event and, when timing
 * is not off and decide is set, counts a sampled event down or takes the
 * timing decision out of line.
 * Shared by the inline entry and the slow paths, so every entry builds the
 * same frame. */
PP_INLINE pp__frame_t *pp__push_frame(pp__tls_t *t, uint32_t v, uint64_t key, int fe, uint64_t sp,
				       uint64_t ra, int decide)
{
	uint64_t hb = t->hash;
	uint64_t off = PP__DS_OFF(v);
	pp__frame_t *f = (pp__frame_t *)(void *)((char *)t->stack + off);
	/* Claim the frame before filling it: a signal handler that runs gated
	 * code in between then pushes above it instead of overwriting it. The
	 * barrier only stops the compiler reordering; it costs no instruction.
	 * The new state from the frame's offset (v's bits 1-5 are 0): one add. */
	t->dstate = (uint32_t)(off + PP__FRAME_BYTES + 1u);
	__asm__ volatile("" ::: "memory");
	f->hash_before = hb;
	/* GCC's SLP vectoriser (on at -O2 since GCC 12) otherwise pairs the
	 * two stores through SSE: four instructions for two. */
	__asm__ volatile("" ::: "memory");
	f->sp = sp;
	f->key = key;
	/* XRay's lean shim keeps the return address it found in its slot
	 * (its catch-up after a disarm); the full shim passes 0 */
	if (PP__RESYNC(fe) || (fe == PP_FE_XRAY && ra))
		f->ra = ra;
	t->hash = pp__mix(hb, key);
	if (PP_UNLIKELY(hb == PP__SEED)) {
		t->slab->events++;
		/* Sampling counts its events down here, as pp__decide_timing
		 * would: the decision's call is for the one event in N it
		 * times (a call every event cost the feed example's sampled
		 * gates about 8 instructions each). */
		if (PP__TIMING && decide && PP_UNLIKELY(pp__mode.timing)) {
			/* read again, so that counting only keeps its one
			 * compare with memory (two instructions an event);
			 * volatile, not atomic: at -O0 an atomic load takes a
			 * stack slot, which ASan pads in every gated frame */
			if (*(volatile uint32_t *)&pp__mode.timing == PP_TIMING_SAMPLE &&
			    t->countdown > 1)
				t->countdown--;
			else
				pp__event_timing(t, f);
		}
	}
	return f;
}

PP_INLINE pp__frame_t *pp__push(pp__tls_t *t, uint32_t v, uint64_t key, int fe, uint64_t sp,
				 uint64_t ra)
{
	return pp__push_frame(t, v, key, fe, sp, ra, 1);
}

/* Push a timed event's frame: the push, no children yet, the entry time.
 * No timing decision: the thread is timing already, and an event that
 * starts here (in a burst window, or a signal handler's inside a timed
 * event) is timed with it; without the call the push keeps nothing across
 * one (a saved register less a timed gate). */
PP_INLINE void pp__push_timed_frame(pp__tls_t *t, uint32_t v, uint64_t key, int fe, uint64_t sp, uint64_t ra)
{
	pp__frame_t *f = pp__push_frame(t, v, key, fe, sp, ra, 0);
	f->kids = 0;
	f->t = pp_ticks();
}

/* Pop the frame of state v (the dstate after the leave: its offset, plus
 * the leaf bit); a leaf records its path with one probe of the table,
 * first sight and collisions out of line. */
PP_INLINE void pp__pop(pp__tls_t *t, uint32_t v)
{
	if (v & 1u) {
		uint64_t h = t->hash;
		pp__slot_t *s = pp__slot_at(t->table, t->smask, h);
		if (PP_UNLIKELY(s->hash != h)) {
			pp__leaf_miss(t, v);
			return;
		}
		s->path->count++;
	}
	t->hash = PP__DS_FRAME(t, v)->hash_before;
	t->dstate = PP__DS_OFF(v);
}

/* Enter a gate. Untimed, about 23 instructions (gcc -O2, raii, and one
 * before it, the instruction a budget makes a jump, pathprof/raii.h; the
 * cyg hook 25 and ret, its trampoline's position and jump, the thread
 * state's offset and its own return address loaded among them, 3 more for
 * a hook of an inlined callee): load
 * dstate, compare with the entry's limit (the switch to every rare case,
 * timed events, recording and a root selection included), the resync
 * compare of the top frame's position, four stores into the frame (the
 * parent's hash, the position, the key, the return address), the mix (xor,
 * multiply), two stores into the thread state, the event-start test.
 * bench/gateinstr.sh and bench/inlinstr.sh count it (with the exit) under
 * callgrind. */
PP_INLINE void pp__enter_at(uint64_t key, int fe, uint64_t at, uint64_t at_ra, int resync)
{
	pp__tls_t *t = &pp__tls;
	uint32_t v = t->dstate;
	/* where the shim gives none (0), the host's own, taken here and the
	 * return address where it is used, as late as the compiler likes */
	uint64_t sp = at ? at : PP__POS(fe);
#define PP__RA_AT (at ? at_ra : PP__RA(fe))
	if (PP_UNLIKELY(v >= PP__LIMIT(t->elimit))) {
		/* A timed event's gate, inline: the same checks against the
		 * bound itself, the push, the entry timestamp. Once a budget
		 * stopped a key, tlimit is 0 and a timed gate goes out of line
		 * (pp__enter_budget tests the key). */
		if (PP__TIMING && v < PP__LIMIT(t->tlimit) &&
		    (!resync || !pp__off_top(t, v, fe, sp, key)))
			pp__push_timed_frame(t, v, key, fe, sp, PP__RA_AT);
		else if (PP__SITE_STOPPED(fe, key))
			; /* raii: its site says stopped, before the count */
		else if (PP__THROTTLES(fe) && pp__throttle_n)
			pp__enter_budget(key, PP__FE_ARG(fe), sp, PP__RA_AT, PP__SITE(fe));
		else if (PP__SITED(fe) && pp__select_sites)
			pp__enter_selected(key, PP__FE_ARG(fe), sp, PP__RA_AT, PP__SITE(fe));
		else
			pp__enter_slow(key, PP__FE_ARG(fe), sp, PP__RA_AT);
		return;
	}
	/* Resync check, one load and compare when the top frame (the
	 * sentinel's position is above every stack) lies above this gate's
	 * host; at the same position, cyg and plugin tell a hook of an
	 * inlined callee (another key: push) inline (pp__off_top). */
	if (resync && PP_UNLIKELY(pp__off_top(t, v, fe, sp, key))) {
		pp__enter_resync(key, PP__FE_ARG(fe), sp, PP__RA_AT);
		return;
	}
	pp__push(t, v, key, fe, sp, PP__RA_AT);
#undef PP__RA_AT
}

/* The gate at the host's own position (PP__POS), checked as its front-end
 * is (PP__RESYNC); pp__enter_at is for a shim that finds the position and
 * return address itself (XRay's lean one: the sled's stack slot). */
#define pp__enter(key, fe) pp__enter_at((key), (fe), 0, 0, PP__RESYNC(fe))

/* Leave the gate entered with `key` (fe as at entry). Untimed, about 16
 * instructions and 9 more for a leaf (the cyg hook): load dstate, subtract one level,
 * compare with the limit (depth 0 wraps and fails it too), the resync
 * compare of the top frame's key, restore hash and dstate; a leaf (the bit
 * says no child was entered) bumps its path's count through a one-probe
 * table lookup. A key mismatch means frames above the one left are dead (or
 * the exit is unmatched), sorted out of line. XRay leaves unchecked (its
 * shim matches exits itself). */
typedef void (*pp__pop_timed_fn)(pp__tls_t *t, uint32_t v, uint64_t now);
PP_INLINE void pp__leave_at(uint64_t key, int fe, pp__pop_timed_fn pop_timed, int check)
{
	pp__tls_t *t = &pp__tls;
	uint32_t v = t->dstate - PP__FRAME_BYTES;
	if (PP_UNLIKELY(v >= PP__LIMIT(t->limit))) {
		if (PP__TIMING && v < PP__LIMIT(t->tlimit) &&
		    (!check || PP__DS_FRAME(t, v)->key == key))
			pop_timed(t, v, pp_ticks());
		else if (PP__SITE_STOPPED(fe, key) &&
			 !(v < v + PP__FRAME_BYTES && PP__DS_FRAME(t, v)->key == key))
			; /* a stopped raii site leaves here unless its frame is on
			   * top (entered before the stop: it leaves as usual) */
		else if (PP__THROTTLES(fe) && pp__throttle_n)
			pp__leave_budget(key, fe, PP__SITE(fe));
		else if (PP__SITED(fe) && pp__select_sites)
			pp__leave_selected(key, fe, PP__SITE(fe));
		else
			pp__leave_slow(key, fe);
		return;
	}
	if (check && PP_UNLIKELY(PP__DS_FRAME(t, v)->key != key)) {
		pp__leave_resync(key);
		return;
	}
	pp__pop(t, v);
}

/* Checked as the front-end is (PP__RESYNC); XRay's lean shim checks its
 * keys with pp__leave_at. */
#define pp__leave_with(key, fe, pop_timed) pp__leave_at((key), (fe), (pop_timed), PP__RESYNC(fe))

/* The runtime's own hooks (cyg, plugin) pass the timed exit inline
 * (runtime/gate_timed.h); code compiled into the program calls it. */
PP_INLINE void pp__leave(uint64_t key, int fe)
{
	pp__leave_with(key, fe, pp__pop_timed);
}

/* Gated code in a signal handler. Without this, the handler's gates nest
 * under whatever frame they interrupted, which then stops being a leaf. With
 * it, the handler's gates form events of their own and the interrupted
 * thread's paths and counts are untouched:
 *     static void on_tick(int sig) {
 *             pp_signal_state_t s = pp_signal_begin();
 *             handle_tick();   // gated
 *             pp_signal_end(&s);
 *     }
 * The handler itself must not be gated (cyg: PP_NOINSTR; plugin: not
 * marked); with raii, PP_SIGNAL_SCOPE() as its first statement does both
 * calls. Async-signal-safe once the thread has run a gate. */
typedef struct pp_signal_state {
	uint64_t hash, sp, excess_sp, wend;
	uint32_t dstate, limit, elimit, excess, timing_now, tlimit, top;
} pp_signal_state_t;

/* A burst window opened while the handler ran (runtime/gate_window.c) and
 * is still open: the interrupted code is timed in it from now on. */
PP_EXPORT void pp__signal_window(pp__tls_t *t) PP_NOINSTR;

PP_INLINE pp_signal_state_t pp_signal_begin(void)
{
	pp__tls_t *t = &pp__tls;
	pp_signal_state_t s = {t->hash,	 0,	   t->excess_sp,  t->wend,   t->dstate, PP__LIMIT(t->limit),
			       PP__LIMIT(t->elimit), t->excess, t->timing_now, PP__LIMIT(t->tlimit), 0};
	/* The interrupted top frame may be half-pushed or half-popped: hide
	 * its position, so that a handler on an alternate stack above it does
	 * not take it for dead. Its leaf bit is in the saved dstate. */
	if (t->slab && PP__DS_DEPTH(t->dstate)) {
		pp__frame_t *f = PP__DS_FRAME(t, t->dstate) - 1;
		s.top = 1;
		s.sp = f->sp;
		f->sp = PP__SP_NONE;
	}
	t->excess_sp = PP__SP_NONE;
	t->hash = PP__SEED;
	/* A burst window open here is held: the handler's gates are timed in
	 * it but never close it, so the code it interrupted, which may be
	 * half-way through a timed exit, closes it itself. */
	if (t->wend != PP__NO_WINDOW)
		t->wend = PP__NO_WINDOW - 1;
	__asm__ volatile("" ::: "memory");
	return s;
}

PP_INLINE void pp_signal_end(const pp_signal_state_t *s)
{
	pp__tls_t *t = &pp__tls;
	__asm__ volatile("" ::: "memory");
	t->dstate = s->dstate;
	t->excess = s->excess;
	t->excess_sp = s->excess_sp;
	t->timing_now = s->timing_now;
	PP__LIMIT_SET(t->tlimit, s->tlimit);
	PP__LIMIT_SET(t->limit, s->limit);
	PP__LIMIT_SET(t->elimit, s->elimit);
	if (s->top)
		PP__DS_FRAME(t, s->dstate)[-1].sp = s->sp;
	t->hash = s->hash;
	if (s->wend != PP__NO_WINDOW)
		t->wend = s->wend;
	else if (PP_UNLIKELY(t->wend != PP__NO_WINDOW))
		pp__signal_window(t);
}

#define PP_SIGNAL_SCOPE()                                                                \
	pp_signal_state_t pp__sigstate __attribute__((cleanup(pp_signal_end), unused)) = \
		pp_signal_begin()

PP_EXTERN_C_END

#endif
