/* Which gated functions a -finstrument-functions build inlined into others,
 * read from the program's machine code (inlined_hooks.c), for `pathprof
 * select --binary`. */
#ifndef PP_INLINED_HOOKS_H
#define PP_INLINED_HOOKS_H

#include <stddef.h>
#include <stdint.h>

/* One entry hook call in another function's code: `key`'s hooks, where
 * the compiler inlined it into `host` (names without a clone's suffix,
 * demangled). */
typedef struct pp__inlined {
	char *host, *key;
	/* the plugin's key of `key`; key is NULL when the program has no
	 * symbol of that name (inlined everywhere): the profile may name it */
	uint64_t hash;
} pp__inlined_t;

/* The (host, key) pairs of `binary`, each once: the cyg hooks', or the
 * LLVM plugin's gates' when plugin is set. build_id, when neither NULL nor
 * "", must be the binary's (the profile's program) unless the binary is a
 * shared library (one the program loads: the profile records no build id
 * of its libraries). 0 with *out (free with pp__inlined_free) and *n; -1
 * after one line on standard error. */
int pp__inlined_hooks(const char *binary, const char *build_id, int plugin, pp__inlined_t **out,
		      size_t *n);
void pp__inlined_free(pp__inlined_t *v, size_t n);
/* The plugin's key of a function: FNV-1a of its mangled name without a
 * clone's suffix, never 0 (frontends/plugin/select.cpp, functionKey). */
uint64_t pp__plugin_key(const char *mangled);

#endif
