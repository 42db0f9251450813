/* What the libFuzzer targets share: a private scratch directory (inputs that
 * the code under test only takes as paths are written there, and nothing a
 * target runs may write anywhere else), a small valid profile to start from,
 * and a field-by-field profile comparison for round-trip oracles. */
#ifndef PP_FUZZ_H
#define PP_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* The scratch directory (created on first use under $PP_FUZZ_TMP, /dev/shm
 * or /tmp; emptied and removed at exit). */
const char *fz_dir(void);

/* Write n bytes to <fz_dir>/<name>; returns the path (valid until the next
 * four calls). Aborts when the scratch file cannot be written. */
const char *fz_put(const char *name, const void *data, size_t n);

/* Remove every file of the scratch directory whose name is not in keep
 * (NULL-terminated), so a long campaign cannot fill the disk. */
void fz_clean(const char *const *keep);

/* A small valid profile: three names, three paths, histograms when timed. */
void fz_sample(pp_profile_t *p, int timed);

/* Abort, naming the first difference, unless a and b hold the same data. */
void fz_same_profile(const pp_profile_t *a, const pp_profile_t *b);

/* Abort with "fuzz: <message>" on stderr: a broken oracle is a finding. */
void fz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
