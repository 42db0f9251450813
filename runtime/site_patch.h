/* Patching the hook calls of stopped cyg and plugin functions out of the
 * code (site_patch.c). */
#ifndef PP_SITE_PATCH_H
#define PP_SITE_PATCH_H

#include <stdint.h>

/* A stopped key's cyg hook (or plugin shim) was called and returns to ra
 * (how: PP__SITE_LEAVE for the exit hook, else the entry hook; with
 * PP__SITE_LEFT_OUT, the key is one PATHPROF_FUNCTIONS leaves out, which
 * never has a frame, so its exit hook need not wait for open ones). Hot
 * side: a probe of a fixed table, no lock, no syscall; nothing once the
 * table is half full. */
#define PP__SITE_LEAVE 1
#define PP__SITE_LEFT_OUT 2
void pp__site_note(uint64_t ra, uint64_t key, int how);

/* The throttling thread, each round: patch what was noted since. */
void pp__site_patch_pending(void);

/* Call sites patched and refused so far (bench, tests, the docs' figures). */
void pp__site_patch_counts(uint32_t *patched, uint32_t *refused);
/* Of those patched, the ones PATHPROF_FUNCTIONS left out. */
uint32_t pp__site_patched_left_out(void);

/* The throttling thread stops: release what patching held. On that thread:
 * its symbolizer holds descriptors of the thread's own table (own_thread.c). */
void pp__site_patch_end(void);

#endif
