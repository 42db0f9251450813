/* Code address -> function name, through the ELF symbol tables (.symtab and
 * .dynsym) of every module loaded in this process, via elfutils' libdwfl, so
 * static functions resolve without -rdynamic. C++ names are demangled when the
 * process has __cxa_demangle (it links libstdc++). Called at dump time only. */
#ifndef PP_SYMBOLIZE_H
#define PP_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <pathprof/compiler.h>

PP_EXTERN_C_BEGIN

typedef struct pp__symbolizer pp__symbolizer_t;

/* Open a symbolizer over the modules loaded now. NULL (with a message in err)
 * when libdwfl cannot report this process. */
PP_EXPORT pp__symbolizer_t *pp__symbolizer_open(char *err, size_t errlen);

/* Name of the function containing addr, written to buf (NUL-terminated,
 * truncated to n). When addr resolves to no symbol, writes "0x<hex>" or
 * "<module>+0x<offset>" and returns 1; returns 0 when a symbol was found. */
/* A symbolizer over files instead of this process's modules: paths[i]
 * as another process had it loaded, its address 0 at bias[i] (the tool
 * naming a dead writer's keys, reader/shm_offline.c). Names come out as
 * the writer's own symbolizer gives them. A file that cannot be read
 * names nothing. */
PP_EXPORT pp__symbolizer_t *pp__symbolizer_open_files(const char *const *paths, const uint64_t *bias,
						      size_t n, char *err, size_t errlen);

PP_EXPORT int pp__symbolize(pp__symbolizer_t *s, uint64_t addr, char *buf, size_t n);

PP_EXPORT void pp__symbolizer_close(pp__symbolizer_t *s);

/* Its libdwfl session, for a caller that needs more than names (symbol
 * sizes, call frame information: site_patch.c). */
struct Dwfl;
struct Dwfl *pp__symbolizer_dwfl(pp__symbolizer_t *s);

PP_EXTERN_C_END

#endif
