/* raii front-end: source-level gates for C and C++ (GCC, Clang).
 *   void handle(msg_t *m) { PP_GATE("handle"); ... }
 * The gate leaves when the enclosing scope ends, whichever way it ends
 * (return from any branch, goto or break out of the block), because it is a
 * variable with a cleanup handler. Key = address of a per-site static
 * descriptor, so naming costs nothing on the hot path. */
#ifndef PATHPROF_RAII_H
#define PATHPROF_RAII_H

#include <pathprof/pathprof.h>
#include <pathprof/frontend.h>

PP_EXTERN_C_BEGIN

/* A gate whose name `pathprof-cc --exclude-functions` lists is not there:
 * the wrapper's header defines PP_RAII_EXCLUDED(name), which the compiler
 * folds (names are literals or __func__), so such a gate holds no site and
 * its variable is a constant null that the leave tests away. */
#ifdef PP_RAII_EXCLUDED
#define PP__RAII_KEEPS(name) (!PP_RAII_EXCLUDED(name))
#else
#define PP__RAII_KEEPS(name) 1
#endif

/* The cleanup variable holds the site: the key the leave checks. */
PP_INLINE void pp__raii_leave(const pp_site_t **site)
{
#ifdef PP_RAII_EXCLUDED
	if (!*site)
		return;
#endif
	pp__leave((uint64_t)(uintptr_t)*site, PP_FE_RAII);
}

PP_INLINE const pp_site_t *pp__raii_enter(const pp_site_t *site)
{
	pp__enter((uint64_t)(uintptr_t)site, PP_FE_RAII);
	return site;
}

PP_EXTERN_C_END

#define PP__CAT2(a, b) a##b
#define PP__CAT(a, b) PP__CAT2(a, b)

/* Gate the rest of the enclosing scope under the name `name` (a string
 * literal). At most one PP_GATE per scope. */
#define PP_GATE(name)                                                                    \
	static pp_site_t PP__CAT(pp__site_, __LINE__) = {name, __FILE__, __LINE__, 0};    \
	const pp_site_t *PP__CAT(pp__gate_, __LINE__)                                     \
		__attribute__((cleanup(pp__raii_leave), unused)) =                        \
			PP__RAII_KEEPS(name) ? pp__raii_enter(&PP__CAT(pp__site_, __LINE__))    \
					     : (const pp_site_t *)0

/* Gate the enclosing function under its own name (__func__). */
#define PP_GATE_FN() PP_GATE(__func__)

/* Start a new event here (see pp_root()). */
#define PP_ROOT() pp_root_inline()

#endif
