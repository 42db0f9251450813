/* How a program written once is gated per build: this header decides what a
 * gate is. With FEED_RAII every GATE() becomes a raii gate; for cyg, xray and
 * the plugin (FEED_PATHPROF) the compiler instruments the GATED functions
 * itself and GATE() is empty; without either it is the baseline. The feed
 * example and verify's C++ workload (verify/workload/) both use it. */
#ifndef FEED_GATE_H
#define FEED_GATE_H

#include <pathprof/compiler.h>

#if defined(FEED_RAII)
#include <pathprof/raii.h>
#ifdef __cplusplus
/* C++ gates carry explicit names (verify/workload/names.hpp), equal to the
 * demangled names cyg, xray and the plugin report: __func__ is the bare one. */
#define GATE(name) PP_GATE(name)
#else
#define GATE() PP_GATE_FN()
#endif
#define ROOT() PP_ROOT()
#elif defined(FEED_PATHPROF)
#include <pathprof/pathprof.h>
#define GATE(...) ((void)0)
#define ROOT() pp_root()
#else
#define GATE(...) ((void)0)
#define ROOT() ((void)0)
#endif

/* A gated function stays a real, out-of-line, uncloned call in every build, so
 * every injector sees the same call tree (a clone would carry another symbol
 * name; XRay skips small functions unless told otherwise). */
#if defined(__clang__)
#define GATED __attribute__((noinline, xray_always_instrument))
#else
#define GATED __attribute__((noinline, noclone))
#endif

/* Everything else, C++ constructors included, is never a gate, even when
 * inlined into a gated caller (GCC's -finstrument-functions instruments
 * inlined bodies too, and the plugin's all-mode would gate it). */
#define HELPER PP_NOINSTR

#endif
