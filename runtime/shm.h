/* The live segment's writer side: the arena placed in a named POSIX
 * shared-memory object so that another process (`pathprof top`) can read a
 * running or dead program's slabs without stopping or touching it (create,
 * name keys in the background, remove at exit). Its layout is in segment.h,
 * which the reader (reader/shm_read.h) includes too (docs/guides/live.md). */
#ifndef PP_SHM_H
#define PP_SHM_H

#include <stdint.h>
#include <stddef.h>
#include "profile.h"

#include "segment.h"

/* ---- writer ---- */

/* The process met fatal signal sig: say so in the segment, if one is
 * exported. Async-signal-safe (one store). */
void pp__shm_crashed(int sig);

/* The timed gate's cost was measured (ticks a gate, gate_cost.c): publish
 * it in the segment, if one is exported, for `pathprof recover`. */
void pp__shm_gate_cost(double in, double out);


/* A fatal signal: no naming pass starts from now on, and the one running is
 * waited for (at most max_ms), so that the copy that writes the profile
 * inherits none of its locks. Async-signal-safe. */
void pp__shm_hold(long max_ms);

/* The profile is written: passes may run again (a program whose own handler
 * lets it go on after the signal). */
void pp__shm_release(void);

/* A thread recorded a new path: ask the namer for a pass now. At most one
 * futex wake per pass; async-signal-safe. */
void pp__shm_nudge(void);

/* Give the exported segment the name name (pp_shm_export() after the
 * default export): renamed in place. 0, or -1 warned. */
int pp__shm_rename(const char *name, int keep);

/* The profile was written at a signal: remove the segment unless it is to
 * be kept (a system call; the crash handler's copy runs it). */
void pp__shm_discard(void);

/* Read PATHPROF_SHM and PATHPROF_SHM_KEEP into pp__config. */
void pp__shm_env_load(void);

/* Is s a usable segment name (1-200 bytes, no '/' past a leading one)? */
int pp__shm_name_ok(const char *s);

/* The object name to create for name: "%p" becomes the pid, and a forked
 * child without "%p" gets ".<pid>" appended. */
void pp__shm_object_name(const char *name, char *buf, size_t n);

/* Create the object (n bytes at object) for a segment of size bytes; a
 * stale one (its writer is gone) is replaced, or set aside when it holds
 * counts no profile has (pp__shm_make_room), a live writer's is not, and a
 * name another user holds becomes object.uUID (said once). fd or -1
 * (warned). */
int pp__shm_create(char *object, size_t n, size_t size);

/* CLOCK_BOOTTIME when this image began exporting (0 before; set by
 * pp__shm_create): what tells this image's segment from an earlier
 * image's under the same pid (shm_create.c). */
extern uint64_t pp__shm_boot_ns;

/* Frees the name OBJECT for this image's segment: what a dead writer left
 * there is set aside when it holds counts, removed otherwise. -1, with
 * one line ending in why_it_matters, when the name is taken. */
int pp__shm_make_room(const char *object, const char *why_it_matters);

/* Fill the header of a freshly mapped arena and start serving readers: the
 * namer thread and the at-exit removal. keep: leave the object at exit. */
void pp__shm_start(pp__shm_hdr_t *h, const char *object, int keep);

/* List the modules mapped now in the segment h (shm_modules.c). */
void pp__shm_modules_publish(pp__shm_hdr_t *h);

/* A naming thread deferred while the program ran alone (PATHPROF_NAMER=
 * auto) starts now: the process is about to have one more thread anyway
 * (pthread_create, the program's or the runtime's own: host/threads.c,
 * ticker.c), or the program asked for a live view (pp_shm_export). Not
 * from a signal handler. */
void pp__shm_namer_now(void);

/* Forget the parent's segment in a forked child (its namer does not exist
 * there and its state may be half-updated). */
void pp__shm_after_fork(void);
/* The name the naming thread published for key (pointers into the arena,
 * which stay); 0 when it has none whole, or is in a pass just now. The
 * exit dump takes it rather than resolve the key again: names are
 * resolved once in a process. */
int pp__shm_named(uint64_t key, const char **name, const char **file, uint32_t *line);

/* Export the arena under pp__config.shm at its next allocation (start-up,
 * a forked child): a process that only execs or exits never creates one. */
void pp__shm_export_arm(void);

/* In a forked child: a fresh lock, and the export armed again when the
 * child got a fresh arena (fresh: pp__slab_after_fork()). */
void pp__shm_export_after_fork(int fresh);

/* pp_shm_export() without the start-up (api.c runs it first). */
int pp__shm_export(const char *name, int keep);

#endif
