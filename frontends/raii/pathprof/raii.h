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

/* A gate a budget stopped costs a jump (PATHPROF_BUDGET; x86-64, built
 * with optimisation, where the site's address is a constant the assembler
 * can write down): the entry starts with `cmp $rel32, %eax` (3d and four
 * bytes: flags only, one instruction), whose operand is the distance to
 * the code that skips the gate. Once the budget stops the site the runtime
 * makes that first byte e9, `jmp rel32` (runtime/raii_patch.c): one byte,
 * so a thread running the code sees one instruction or the other. Section
 * pp_raii_patch lists each such instruction and the site it gates, as two
 * offsets from the entry itself (no relocation); the entry is tied to the
 * function's own section ("o"), so it goes where the function goes when
 * the linker drops a duplicate or an unused function. A skipped gate's
 * variable is null, and its leave returns at once: a test and a branch on
 * every leave (GCC: four instructions a gate in all, with the jump that
 * keeps a stopped leave falling through, below; Clang, which keeps the
 * variable in a saved register of its own, seven). PP_RAII_NO_PATCH leaves all this out.
 * Not in C++ built for a shared library (-fPIC without -fPIE): a gate in
 * an inline function or a template has a site the dynamic linker may
 * replace with another module's copy, whose address the assembler cannot
 * write down; such a gate reads its site's flag instead. */
#if defined(__x86_64__) && defined(__OPTIMIZE__) && !defined(PP_RAII_NO_PATCH) && \
	(!defined(__clang__) || __clang_major__ >= 9) &&                            \
	!(defined(__cplusplus) && defined(__PIC__) && !defined(__PIE__))
#define PP__RAII_PATCHABLE 1
#endif

/* A skipped gate's leave falls through to the function's return where the
 * compiler is told the null site is likelier: left to itself it makes the
 * skip a taken branch, which with the entry's jump was half of what a
 * stopped gate still cost (bench/budget.c's helper on an AMD EPYC host,
 * its phase over plain's: GCC 1.16x -> 1.08x, a 4 ns helper; Clang, which
 * folds the helper to 0.9 ns, 1.85x -> 1.56x). It costs a kept gate one
 * instruction count-only, the jump to its return (bench/gateinstr.sh, GCC:
 * 58.8 -> 59.8 at depth 3; the feed's Clang build, bench/run.sh: 63.5 ->
 * 64.6), timed unchanged. GCC gets a probability of 0.6: at 0.9, or with
 * __builtin_expect, it stops duplicating the epilogue and the kept gate
 * pays two; Clang ignores a probability of 0.6 and needs the plain hint. */
#if defined(__clang__)
#define PP__RAII_SKIPPED(x) __builtin_expect(!!(x), 1)
#elif defined(__GNUC__) && __GNUC__ >= 9
#define PP__RAII_SKIPPED(x) __builtin_expect_with_probability(!!(x), 1, 0.6)
#else
#define PP__RAII_SKIPPED(x) (x)
#endif

/* The cleanup variable holds the site, the key the leave checks, or null:
 * the gate is excluded, or the budget's jump skipped its entry. */
PP_INLINE void pp__raii_leave(const pp_site_t **site)
{
#if defined(__clang__) && defined(PP__RAII_PATCHABLE)
	/* Clang otherwise keeps a flag "the jump was taken" in one more saved
	 * register beside the variable (the feed's raii gate: 66.0 -> 62.8
	 * instructions); GCC does better without this (58.8 -> 59.8), and
	 * its -Wclobbered would flag the copy in a function that calls
	 * setjmp. */
	const pp_site_t *s = *site;
	__asm__("" : "+r"(s));
	if (PP__RAII_SKIPPED(!s))
		return;
	pp__leave((uint64_t)(uintptr_t)s, PP_FE_RAII);
#else
#if defined(PP_RAII_EXCLUDED) || defined(PP__RAII_PATCHABLE)
	if (PP__RAII_SKIPPED(!*site))
		return;
#endif
	pp__leave((uint64_t)(uintptr_t)*site, PP_FE_RAII);
#endif
}

PP_INLINE const pp_site_t *pp__raii_enter(const pp_site_t *site)
{
#ifdef PP__RAII_PATCHABLE
	/* The variable, in its register before the patchable instruction:
	 * a kept gate then reaches the body with it there, where a site
	 * taken after the entry cost GCC its address again and a jump back on every
	 * kept gate (bench/gateinstr.sh, GCC: count-only 59.1 / 52.3 ->
	 * 58.1 / 51.3, timed 124.2 / 116.7 -> 123.3 / 115.7 at depths 3 /
	 * 12; Clang unchanged). */
	const pp_site_t *v = site;
	__asm__("" : "+r"(v));
	__asm__ goto(".Lpp__gate%=:\n\t.byte 0x3d\n\t.long %l[stopped] - 1f\n1:\n\t"
		     ".pushsection pp_raii_patch,\"ao\",@progbits,.Lpp__gate%=\n\t"
		     ".balign 4\n\t.long .Lpp__gate%= - ., %c0 - .\n\t.popsection"
		     : /* no outputs */
		     : "i"(site)
		     : "cc"
		     : stopped);
	pp__enter((uint64_t)(uintptr_t)v, PP_FE_RAII);
	/* One value for both ways in, which the compiler cannot see through:
	 * GCC otherwise copies the gated body for a site it knows and one it
	 * knows null, and with the copy loses the entry's branch weights, so
	 * that a kept gate's usual continuation lands in the function's cold
	 * part, three taken jumps (bench/gateinstr.sh, GCC: count-only 60.1
	 * / 54.0 -> 59.1 / 52.3 at depths 3 / 12; the feed's Clang build and
	 * a stopped gate's path unchanged). */
	if (0) {
	stopped:
		v = (const pp_site_t *)0;
	}
	__asm__("" : "+r"(v));
	return v;
#else
	pp__enter((uint64_t)(uintptr_t)site, PP_FE_RAII);
	return site;
#endif
}

#ifdef PP__RAII_PATCHABLE
/* This module's table (null bounds where it has none), for the runtime
 * (pp__raii_patches in pathprof/frontend.h). */
extern const int32_t __start_pp_raii_patch[] __attribute__((weak, visibility("hidden")));
extern const int32_t __stop_pp_raii_patch[] __attribute__((weak, visibility("hidden")));
__attribute__((constructor, used)) PP_NOINSTR static void pp__raii_patches_loaded(void)
{
	pp__raii_patches(__start_pp_raii_patch, __stop_pp_raii_patch, 1);
}
__attribute__((destructor, used)) PP_NOINSTR static void pp__raii_patches_unloaded(void)
{
	pp__raii_patches(__start_pp_raii_patch, __stop_pp_raii_patch, 0);
}
#endif

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
