/* Attribute macros shared by the runtime and every front-end shim.
 * Defined once so that "never instrument the profiler" is spelled the same way
 * everywhere: GCC's -finstrument-functions also instruments inlined functions,
 * and clang's XRay patches anything not marked, so the inline gate needs both. */
#ifndef PATHPROF_COMPILER_H
#define PATHPROF_COMPILER_H

#if defined(__clang__)
#define PP_NOXRAY __attribute__((xray_never_instrument))
#else
#define PP_NOXRAY
#endif

#define PP_NOINSTR __attribute__((no_instrument_function)) PP_NOXRAY
#define PP_INLINE static inline __attribute__((always_inline)) PP_NOINSTR
#define PP_NOINLINE __attribute__((noinline)) PP_NOINSTR
#define PP_COLD __attribute__((cold, noinline)) PP_NOINSTR
#define PP_LIKELY(x) __builtin_expect(!!(x), 1)
#define PP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PP_TLS_IE __attribute__((tls_model("initial-exec")))
#define PP_EXPORT __attribute__((visibility("default")))
/* A call from a program's code into the runtime through its GOT slot, not
 * a PLT stub: one jump less a call (the timed raii exit's pp__pop_timed).
 * GCC's attribute; Clang has only the -fno-plt flag. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define PP_NOPLT __attribute__((noplt))
#else
#define PP_NOPLT
#endif
#define PP_HIDDEN __attribute__((visibility("hidden")))

#ifdef __cplusplus
#define PP_EXTERN_C_BEGIN extern "C" {
#define PP_EXTERN_C_END }
#else
#define PP_EXTERN_C_BEGIN
#define PP_EXTERN_C_END
#endif

#endif
