/* How the feed example is gated: the program is written once and this header
 * decides, per build, what a gate is. With FEED_RAII every GATE() becomes a
 * raii gate; for cyg, xray and the plugin the compiler instruments the GATED
 * functions itself and GATE() is empty; without either it is the baseline. */
#ifndef FEED_GATE_H
#define FEED_GATE_H

#include <pathprof/compiler.h>

#if defined(FEED_RAII)
#include <pathprof/raii.h>
#define GATE() PP_GATE_FN()
#define ROOT() PP_ROOT()
#elif defined(FEED_PATHPROF)
#include <pathprof/pathprof.h>
#define GATE() ((void)0)
#define ROOT() pp_root()
#else
#define GATE() ((void)0)
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

/* Everything else is never a gate, even when inlined into a gated caller
 * (GCC's -finstrument-functions instruments inlined bodies too). */
#define HELPER PP_NOINSTR

#endif
