/* Selections that act on keys at their first sight: PATHPROF_ROOT (entering
 * a matching function starts an event, as pp_root() just before it would)
 * and PATHPROF_FUNCTIONS (only matching functions are gates). Each key is
 * named and matched once, then looked up in a table; the gate itself never
 * matches a name (docs/selection.md). */
#ifndef PP_SELECT_H
#define PP_SELECT_H

#include <stdint.h>

/* Which selections are in force (pp__selecting): the inline gate's limits
 * follow it (thread_state.h). */
enum { PP__SEL_ROOTS = 1, PP__SEL_FUNCTIONS = 2 };
extern uint32_t pp__selecting;

/* What a key is to the selections. */
enum { PP__KEY_PLAIN = 0, PP__KEY_ROOT = 1, PP__KEY_SKIP = 2 };

/* The class of key (front-end fe): named and matched at its first sight,
 * looked up after that. A key seen re-entrantly while the same thread names
 * another (a signal handler) is plain and not remembered. */
int pp__key_class(int fe, uint64_t key);

/* PATHPROF_ROOT and PATHPROF_FUNCTIONS (start-up). */
void pp__select_env_load(void);

/* Set one selection (PP__SEL_ROOTS or PP__SEL_FUNCTIONS) from a glob list,
 * NULL or "" to clear it; forgets every class already found. 0, or -1 with
 * one warning for a malformed list (the selection is then unchanged). */
int pp__select_set(uint32_t which, const char *list, const char *what);

#endif
