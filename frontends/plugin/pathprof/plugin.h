/* Marking functions for the pathprof LLVM pass plugin (docs/reference/plugin.md).
 * PATHPROF before a function definition gates it when the program is built
 * with clang -fpass-plugin=pathprof-plugin.so in the default (annotated) mode;
 * with other compilers it expands to nothing. */
#ifndef PATHPROF_PLUGIN_H
#define PATHPROF_PLUGIN_H

#include <stdint.h>
#include <pathprof/compiler.h>

#if defined(__clang__)
#define PATHPROF __attribute__((annotate("pathprof")))
#else
#define PATHPROF
#endif

PP_EXTERN_C_BEGIN

/* Called by the code the pass inserts; not meant to be called by hand. */
PP_EXPORT void pp_plugin_enter(uint64_t key) PP_NOINSTR;
PP_EXPORT void pp_plugin_leave(uint64_t key) PP_NOINSTR; /* key: as entered */

PP_EXTERN_C_END

#endif
