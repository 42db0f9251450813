/* Where the profile goes (runtime/out_claim.c): the name PATHPROF_OUT or
 * the default makes for this process, and its claim at the first write, so
 * that processes ending together, an exec chain's images and a file that
 * is not a profile each keep what is theirs. */
#ifndef PP_OUT_CLAIM_H
#define PP_OUT_CLAIM_H

#include <stddef.h>

/* path, or (NULL) the configured name for this process, into buf. */
void pp__out_path(const char *path, char *buf, size_t n);
/* Claim file (the configured name) for this process's profile: file may
 * become NAME.N (one line says why). Returns a descriptor holding the claim
 * until the profile is renamed over it, or -1 (no claim needed or possible;
 * the write says why); *created: the claim created the file. */
int pp__out_claim(char *file, size_t n, int *created);
/* The name claimed, for messages ("" before the first claim). */
const char *pp__out_claimed(void);

#endif
