/* One source for every injector: raii gates with PP_GATE, plugin marks with
 * PATHPROF, cyg and xray need nothing in the source. */
#ifndef MODULES_GATE_H
#define MODULES_GATE_H
#if defined(USE_RAII)
#include <pathprof/raii.h>
#define GATE(n) PP_GATE(n)
#else
#define GATE(n)
#endif
#if defined(USE_PLUGIN)
#include <pathprof/plugin.h>
#define G_FN __attribute__((noinline)) PATHPROF
#else
#define G_FN __attribute__((noinline))
#endif
#endif
