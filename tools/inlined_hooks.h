/* Which gated functions a -finstrument-functions build inlined into others,
 * read from the program's machine code (inlined_hooks.c), for `pathprof
 * select --binary`. */
#ifndef PP_INLINED_HOOKS_H
#define PP_INLINED_HOOKS_H

#include <stddef.h>

/* One entry hook call in another function's code: `key`'s hooks, where
 * the compiler inlined it into `host` (names without a clone's suffix). */
typedef struct pp__inlined {
	char *host, *key;
} pp__inlined_t;

/* The (host, key) pairs of the executable `binary`, each once. build_id,
 * when neither NULL nor "", must be the binary's (the profile's program).
 * 0 with *out (free with pp__inlined_free) and *n; -1 after one line on
 * standard error. */
int pp__inlined_hooks(const char *binary, const char *build_id, pp__inlined_t **out, size_t *n);
void pp__inlined_free(pp__inlined_t *v, size_t n);

#endif
