/* How the C++ workload is gated, the C++ twin of examples/feed/gate.h: the
 * program is written once and WL_RAII / WL_PATHPROF pick what a gate is. raii
 * gates carry explicit names (names.hpp) equal to the demangled names that
 * cyg, xray and the plugin report, so every front-end lists the same paths. */
#ifndef WL_GATE_HPP
#define WL_GATE_HPP

#include <pathprof/compiler.h>

#if defined(WL_RAII)
#include <pathprof/raii.h>
#define GATE(name) PP_GATE(name)
#define ROOT() PP_ROOT()
#elif defined(WL_PATHPROF)
#include <pathprof/pathprof.h>
#define GATE(name) ((void)0)
#define ROOT() pp_root()
#else
#define GATE(name) ((void)0)
#define ROOT() ((void)0)
#endif

/* A gated function stays a real, out-of-line, uncloned call in every build
 * (a clone carries another symbol name; XRay skips small functions unless
 * told otherwise). */
#if defined(__clang__)
#define GATED __attribute__((noinline, xray_always_instrument))
#else
#define GATED __attribute__((noinline, noclone))
#endif

/* Everything else, constructors included, is never a gate: -finstrument-
 * functions and the plugin's all-mode would otherwise gate it. */
#define HELPER PP_NOINSTR

#endif
