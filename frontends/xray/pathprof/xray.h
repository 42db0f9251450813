/* XRay front-end: gate the functions of a program built with clang
 * -fxray-instrument, arming and disarming them at run time (docs/reference/xray.md).
 * Link the shim whole (-Wl,--whole-archive libpathprof-xray.a
 * -Wl,--no-whole-archive) with the static libpathprof.a, and link with clang
 * -fxray-instrument so that the XRay runtime is included. */
#ifndef PATHPROF_XRAY_H
#define PATHPROF_XRAY_H

#include <pathprof/pathprof.h>

PP_EXTERN_C_BEGIN

/* Arm every instrumented function (patch all sleds). 0, or -1 with one line
 * on stderr. */
PP_EXPORT int pp_xray_arm(void) PP_NOINSTR;

/* Disarm every function: sleds become no-ops again and nothing is recorded
 * until the next arming. Frames open at this point are closed by their
 * callers' later events. 0, or -1 with one line on stderr. */
PP_EXPORT int pp_xray_disarm(void) PP_NOINSTR;

/* Arm, in addition to those already armed, the instrumented functions that
 * the selection list globs selects: globs separated by commas, '!' before
 * one excludes, each matching a whole (demangled) name, with or without its
 * C++ parameters (docs/guides/selection.md). Returns how many matched, or -1 (bad
 * list, no sleds, symbol tables unreadable). */
PP_EXPORT int pp_xray_arm_pattern(const char *glob) PP_NOINSTR;

PP_EXTERN_C_END

#endif
