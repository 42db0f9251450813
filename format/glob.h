/* The one glob syntax every selection of functions uses: PATHPROF_XRAY,
 * PATHPROF_ROOT, PATHPROF_FUNCTIONS (cyg), the wrapper's --exclude-functions
 * and the plugin's -pathprof-list file. Plain C with no dependency, so the
 * pass plugin compiles the same file into the compiler (docs/guides/selection.md). */
#ifndef PP_GLOB_H
#define PP_GLOB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from the runtime for the XRay front-end's arming. */
#define PP__GLOB_API __attribute__((visibility("default")))

/* Does the whole of name match the glob's first glen bytes? '*' matches any
 * run of characters (':' and '/' included), '?' one character, '[abc]',
 * '[a-z]' one of a set ('[!...]' or '[^...]' one not in it), '\c' the
 * character c. A name is never matched by a part of it: "lex" matches "lex"
 * only, "lex*" also "lexer_start". */
PP__GLOB_API int pp__glob_match(const char *glob, size_t glen, const char *name);

/* A selection list: globs separated by sep (',' in variables and options,
 * '\n' in the plugin's list file; a separator inside [...] or after a
 * backslash belongs to the glob); a glob starting with '!' excludes. A
 * function known by several names (C++: with and without its parameters)
 * is selected when none of its names matches an exclusion and either the
 * list has no inclusion or one of its names matches one. "ts_*,!ts_lex"
 * selects "ts_lexer_start" but not "ts_lex". */
PP__GLOB_API int pp__select_match(const char *list, char sep, const char *const *names, size_t n);

/* pp__select_match over a name as the runtime prints it and, for a C++
 * name, the same without its parameters ("ns::f" for "ns::f(int) const"),
 * the form the plugin's list files also match. */
PP__GLOB_API int pp__select_name(const char *list, char sep, const char *name);

/* The length of the list's entry at s: up to the separator that ends it
 * (not one inside [...], <...> or (...), nor one after a backslash). */
PP__GLOB_API size_t pp__select_entry_len(const char *s, char sep);

/* Is the list well formed (no empty entry, no unclosed '[', no trailing
 * backslash)? 0, or -1 with the reason in err. */
PP__GLOB_API int pp__select_check(const char *list, char sep, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
