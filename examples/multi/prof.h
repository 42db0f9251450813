/* How multi is gated. Compiler-instrumented builds (cyg, xray, plugin) need no
 * source change; the raii build turns GATE() into a gate. The raii pkg-config
 * module (and so pathprof-cc --via=raii) defines PATHPROF_RAII. */
#ifndef MULTI_PROF_H
#define MULTI_PROF_H

#ifdef PATHPROF_RAII
#include <pathprof/raii.h>
#define GATE() PP_GATE_FN()
#else
#define GATE() ((void)0)
#endif

/* A profiled function stays one real, uncloned function with every compiler,
 * so every injector sees the same calls: an inlined body has no XRay sled,
 * and a GCC clone would carry another symbol name. Under clang it also gets
 * sleds whatever their size, and the plugin's mark (annotated mode). */
/* Helpers are never gated, inlined or not (GCC's -finstrument-functions also
 * instruments inlined bodies; the plugin in 'all' mode skips these too). */
#if defined(__clang__)
#define PROFILED __attribute__((noinline, xray_always_instrument, annotate("pathprof")))
#define HELPER __attribute__((no_instrument_function, xray_never_instrument))
#else
#define PROFILED __attribute__((noinline, noclone))
#define HELPER __attribute__((no_instrument_function))
#endif

#endif
