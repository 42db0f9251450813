/* Writing the program's own code, one byte at a time (x86-64): what
 * site_patch.c (cyg and plugin hook calls) and raii_patch.c (raii gate
 * entries) share. Used by the throttling thread only, in rounds: read the
 * maps, poke, close. */
#ifndef PP_CODE_PATCH_H
#define PP_CODE_PATCH_H

#include <stdint.h>

/* /proc/self/maps, read at the start of a round: 0, or -1. */
int pp__code_maps(void);

/* Can [a, a+n) be read (by the last maps read)? */
int pp__code_readable(uint64_t a, uint64_t n);

/* The byte at a, read once. */
uint8_t pp__code_byte(uint64_t a);

/* Change the byte at a from old to to, on private r-x code: 0, or -1 (not
 * such code, not that byte, or writing code is refused: then, once
 * warned, every later poke fails). */
int pp__code_poke(uint64_t a, uint8_t old, uint8_t to);

/* The round's end: the pages poked are r-x again. */
void pp__code_close(void);

/* Did the system refuse to let code be written? */
int pp__code_refused(void);

/* The throttling thread stops: release the maps. */
void pp__code_end(void);

#endif
