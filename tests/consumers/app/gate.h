/* How the consumer programs are gated: the raii module (and pathprof::raii)
 * defines PATHPROF_RAII and GATE() becomes a gate; compiler injectors need no
 * source change. PROFILED keeps a function real (no inlining, no clone) so
 * every injector sees the same calls, with a sled and the plugin's mark under
 * clang. */
#ifndef CONSUMER_GATE_H
#define CONSUMER_GATE_H
#ifdef PATHPROF_RAII
#include <pathprof/raii.h>
#define GATE() PP_GATE_FN()
#else
#define GATE() ((void)0)
#endif
#if defined(__clang__)
#define PROFILED __attribute__((noinline, xray_always_instrument, annotate("pathprof")))
#else
#define PROFILED __attribute__((noinline, noclone))
#endif
#ifdef __cplusplus
extern "C" {
#endif
int handle(int i);
int reply(int i);
#ifdef __cplusplus
}
#endif
#endif
