/* The gates' side of a budget (PATHPROF_BUDGET; the decisions are
 * throttle.c's): the set of keys whose gates were stopped, and where a
 * timed event's gates go once one was (pathprof/gate.h says why they
 * cost an untimed gate nothing). Hot: built with the gate's other slow
 * paths. */
#include <pathprof/pathprof.h>
#include "gate_impl.h"
#include "site_patch.h"
#include "throttle.h"

#define THROTTLE_BITS 12
#define THROTTLE_SLOTS (1u << THROTTLE_BITS)

uint32_t pp__throttle_n;
/* the stopped keys: open addressing, key 0 empty, filled by the
 * throttling thread only, read by the gates with relaxed loads */
static uint64_t set[THROTTLE_SLOTS];

static uint32_t slot_of(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - THROTTLE_BITS));
}

/* Is key stopped? The set is never full (half its slots at most). */
static inline int stopped(uint64_t key)
{
	for (uint32_t i = slot_of(key);; i = (i + 1) & (THROTTLE_SLOTS - 1)) {
		uint64_t k = __atomic_load_n(&set[i], __ATOMIC_RELAXED);
		if (k == key)
			return 1;
		if (!k)
			return 0;
	}
}

int pp__throttle_stopped(uint64_t key)
{
	return stopped(key);
}

/* A timed event's entry once a key is stopped: the stopped key pushes no
 * frame; the others are pushed as the inline gate would, when it would.
 *
 * A hook call (site set) shows its frame before it tests the key, and
 * takes it back if the key is stopped: site_patch.c patches a stopped
 * key's exit hook out only once no thread shows a frame of that key
 * (pp__throttle_key_open), and an entry that tested the key just before
 * the stop, then lost the CPU before pushing, would otherwise push a frame
 * after that look, whose exit then never comes (an unmatched exit, seen
 * under AddressSanitizer on a loaded machine). The round the throttling
 * thread waits before it looks (throttle.c) orders the two sides: either
 * this load sees the stop, or the frame is visible to the look.
 *
 * Both ways note that the thread came this way once its tlimit was zeroed
 * (budget_seen): a frame its inline gate pushed late, having read the
 * tlimit before, is pushed by then (pp__throttle_threads_past). */
void pp__enter_budget(uint64_t key, int fe, uint64_t sp, uint64_t ra, uint64_t site)
{
	pp__tls_t *t = &pp__tls;
	uint32_t v = t->dstate;
	int tfe = fe & ~PP__FE_UNTIMED;
	if (t->state == PP__ST_LIVE) {
		if (!PP__LIMIT(t->tlimit))
			__atomic_store_n(&pp__slab_of(t)->budget_seen, 1, __ATOMIC_RELEASE);
		int push = v >= PP__LIMIT(t->elimit) && v < pp__tlimit_of(t) &&
			   (!PP__RESYNC(tfe) || !pp__off_top(t, v, tfe, sp, key));
		if (push && site) {
			PP__DS_FRAME(t, v)->key = key;
			__atomic_store_n(&t->dstate, (uint32_t)(PP__DS_OFF(v) + PP__FRAME_BYTES + 1u),
					 __ATOMIC_RELEASE);
			__asm__ volatile("" ::: "memory");
			if (stopped(key)) {
				__atomic_store_n(&t->dstate, v, __ATOMIC_RELAXED);
				pp__site_note(site, key, 0);
				return;
			}
		} else if (stopped(key)) {
			if (site)
				pp__site_note(site, key, 0);
			return;
		}
		if (push) {
			pp__push_timed_frame(t, v, key, tfe, sp, ra);
			return;
		}
	}
	pp__enter_slow(key, fe, sp, ra);
}

/* A timed event's exit once a key is stopped: a stopped key's with no
 * frame of its own on top (its entry pushed nothing) does nothing; the
 * others leave as the inline gate would, when it would. */
void pp__leave_budget(uint64_t key, int fe, uint64_t site)
{
	pp__tls_t *t = &pp__tls;
	uint32_t v = t->dstate - PP__FRAME_BYTES;
	if (t->state == PP__ST_LIVE) {
		if (!PP__LIMIT(t->tlimit))
			__atomic_store_n(&pp__slab_of(t)->budget_seen, 1, __ATOMIC_RELEASE);
		int own = v < t->dstate && PP__DS_FRAME(t, v)->key == key;
		if (!own && stopped(key)) {
			if (site)
				pp__site_note(site, key, 1);
			return;
		}
		if (own && v >= PP__LIMIT(t->limit) && v < pp__tlimit_of(t)) {
			pp__pop_timed(t, v, pp_ticks());
			return;
		}
	}
	pp__leave_slow(key, fe);
}

/* Only the throttling thread adds; gates read. Key 0 is never a key a
 * gate passes (an address, an id from 1, a name's hash). */
void pp__throttle_stop_key(uint64_t key)
{
	uint32_t i = slot_of(key);
	while (set[i])
		i = (i + 1) & (THROTTLE_SLOTS - 1);
	__atomic_store_n(&set[i], key, __ATOMIC_RELAXED);
	/* a raii site says so itself (PP__SITE_STOPPED), unless its library
	 * is going away: its gates then find the key in the set */
	if (__atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED) == PP_FE_RAII) {
		pp_site_t *site = (pp_site_t *)(uintptr_t)key;
		pp__modules_hold();
		if (pp__modules_holds((uintptr_t)site, sizeof *site))
			__atomic_store_n(&site->stopped, 1, __ATOMIC_RELAXED);
		pp__modules_release();
	}
	__atomic_add_fetch(&pp__throttle_n, 1, __ATOMIC_RELEASE);
}

