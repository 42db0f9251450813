/* Jumping over the entries of raii gates a budget stopped (raii_patch.c;
 * the tables come from pathprof/raii.h through pp__raii_patches). */
#ifndef PP_RAII_PATCH_H
#define PP_RAII_PATCH_H

#include <stdint.h>

/* The throttling thread, each round: patch the entries of sites stopped
 * (or of tables loaded) since the last time. */
void pp__raii_patch_pending(void);

/* Entries of stopped sites: patched, and left as they were (the dump). */
void pp__raii_patch_counts(uint32_t *patched, uint32_t *left);

#endif
