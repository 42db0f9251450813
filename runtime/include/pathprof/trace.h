/* Recording the raw gate events of a run into a trace file, so that
 * `pathprof replay` can rebuild the same profile offline (docs/guides/trace.md).
 * PATHPROF_TRACE=<file> does the same from the environment. */
#ifndef PATHPROF_TRACE_H
#define PATHPROF_TRACE_H

#include <pathprof/compiler.h>

PP_EXTERN_C_BEGIN

/* Record every gate event of the threads that run their first gate from now
 * on (and of the calling thread, when no gate of it is open) to path, which
 * is created or truncated; "%p" is replaced by the pid. Call it before gated
 * code runs, e.g. first thing in main(): a replay only equals the live
 * profile when the trace saw every event. Returns 0, or -1 with one line on
 * stderr (already recording, or the file cannot be created). */
PP_EXPORT int pp_trace_open(const char *path) PP_NOINSTR;

/* Write the calling thread's buffered events now (a thread's events also
 * reach the file when its buffer fills, when it ends, at exit and in
 * pp_dump()). */
PP_EXPORT void pp_trace_flush(void) PP_NOINSTR;

PP_EXTERN_C_END

#endif
