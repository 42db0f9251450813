/* Selections that act on keys at their first sight: PATHPROF_ROOT (entering
 * a matching function starts an event, as pp_root() just before it would)
 * and PATHPROF_FUNCTIONS (only matching functions are gates). Each key is
 * named and matched once, then looked up in a table; the gate itself never
 * matches a name (docs/guides/selection.md). */
#ifndef PP_SELECT_H
#define PP_SELECT_H

#include <stdint.h>

/* Which selections are in force (pp__selecting): the inline gate's limits
 * follow it (thread_state.h). */
enum { PP__SEL_ROOTS = 1, PP__SEL_FUNCTIONS = 2 };
extern uint32_t pp__selecting;

/* What a key is to the selections. */
enum { PP__KEY_PLAIN = 0, PP__KEY_ROOT = 1, PP__KEY_SKIP = 2 };

/* The table of classes found (select.c): 2^18 slots, probed linearly from
 * the key's hash, written under a lock, read without one. */
#define PP__CLASS_BITS 18
#define PP__CLASS_SLOTS (1u << PP__CLASS_BITS)
#define PP__CLASS_PROBES 64
typedef struct {
	uint64_t key;
	uint32_t tag; /* 0: empty; else front-end << 4 | class + 1, stored last */
	uint32_t pad;
} pp__class_slot_t;
extern pp__class_slot_t *pp__class_slots;

/* A key's home slot: the top bits of a multiplicative hash. */
static inline uint32_t pp__class_home(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - PP__CLASS_BITS));
}

/* First sight of a key: name it, match it, remember the answer. A key seen
 * re-entrantly while the same thread names another (a signal handler) is
 * plain and not remembered. */
int pp__key_class_miss(int fe, uint64_t key);

/* The class of key (front-end fe) when it was seen before, else -1. About
 * 12 instructions: the hash, one probe, two compares. */
static inline int pp__key_class_seen(int fe, uint64_t key)
{
	pp__class_slot_t *slots = __atomic_load_n(&pp__class_slots, __ATOMIC_ACQUIRE);
	if (slots) {
		uint32_t i = pp__class_home(key);
		for (uint32_t n = 0; n < PP__CLASS_PROBES; n++, i = (i + 1) & (PP__CLASS_SLOTS - 1)) {
			uint32_t tag = __atomic_load_n(&slots[i].tag, __ATOMIC_ACQUIRE);
			if (!tag)
				break;
			if (slots[i].key == key && (int)(tag >> 4) == fe)
				return (int)(tag & 15) - 1;
		}
	}
	return -1;
}

/* The gate cost's measure (gate_cost.c) on its own thread: while on, a key
 * first seen by that thread is plain whatever the lists say, so that its
 * gates take a kept function's way under a selection (and its keys, the
 * runtime's own functions, are never patched out). */
void pp__select_own_keys(int on);

static inline int pp__key_class(int fe, uint64_t key)
{
	int c = pp__key_class_seen(fe, key);
	return c >= 0 ? c : pp__key_class_miss(fe, key);
}

/* The list a GCC plugin applied at compile time (pp__select_compiled):
 * kept for the profile's description, applied to nothing. */
void pp__select_note_compiled(const char *list);

/* PATHPROF_ROOT and PATHPROF_FUNCTIONS (start-up). */
void pp__select_env_load(void);

/* At exit: one line for each selection that matched no function that ran. */
void pp__select_report(void);

/* The selections in force as the profile records them ("PATHPROF_ROOT=a*;
 * PATHPROF_FUNCTIONS=..."; how each was given, then its list), malloc'd;
 * NULL when there is none. */
char *pp__select_describe(void);
/* The root list alone (malloc'd), NULL without one. */
char *pp__select_roots(void);

/* Set one selection (PP__SEL_ROOTS or PP__SEL_FUNCTIONS) from a glob list,
 * NULL or "" to clear it; forgets every class already found. 0, or -1 with
 * one warning for a malformed list (the selection is then unchanged). */
int pp__select_set(uint32_t which, const char *list, const char *what);

#endif
