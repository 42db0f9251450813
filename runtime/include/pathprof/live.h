/* pathprof live view: the running profile in a named POSIX shared-memory
 * segment (every process exports one, /pathprof.PID unless PATHPROF_SHM says
 * otherwise) that `pathprof top` reads from another process without stopping
 * or touching this one, and `pathprof recover` after a kill (docs/guides/live.md). */
#ifndef PATHPROF_LIVE_H
#define PATHPROF_LIVE_H

#include <pathprof/compiler.h>

PP_EXTERN_C_BEGIN

/* Leave the segment in place when the program exits normally (it is removed
 * by default). Same as PATHPROF_SHM_KEEP=1. */
#define PP_SHM_KEEP 1u

/* Export this process's profile under name (the POSIX shm object "/name";
 * "%p" in name becomes the pid), as PATHPROF_SHM=name does. After the default
 * export (pathprof.PID, when PATHPROF_SHM is unset), the segment is renamed
 * in place. A forked child
 * exports its own profile under "name.<pid>" (or its own %p expansion).
 * Call it early, before other threads run gates: counts that other threads
 * add while the data moves into the segment may be lost. The naming thread
 * then runs from the start, as with PATHPROF_NAMER=on. Returns 0, or -1
 * with one line on stderr (bad name, already exported, a live process owns
 * the name, no shared memory). */
PP_EXPORT int pp_shm_export(const char *name, unsigned flags) PP_NOINSTR;

PP_EXTERN_C_END

#endif
