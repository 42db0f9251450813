/* The trace recorder's hooks (recorder.c): what the gate's slow paths and
 * the dump call to record a run's gate events (docs/guides/trace.md), and the gate
 * semantics with a caller-supplied time that replay drives. Recording works
 * by keeping a recorded thread's limit at 0, so every gate takes the slow
 * path and nothing is added to the inline gate. The file layout is
 * format/trace_format.h. */
#ifndef PP_RECORDER_H
#define PP_RECORDER_H

#include <stdint.h>
#include <stddef.h>
#include <pathprof/state.h>
#include "profile.h"
#include "trace_format.h"


/* Set by PATHPROF_TRACE or pp_trace_open(): threads registering from now on
 * are recorded. */
extern int pp__trace_armed;

/* PATHPROF_TRACE=<file>: arm; the file is created at the first recorded
 * gate, so a process that never runs a gate (the CLI) never touches it. */
void pp__trace_arm(const char *path);

/* Give a thread that just registered its buffer and a start record; 0, or
 * -1 (t->trace stays NULL and the thread runs unrecorded). */
int pp__trace_attach(pp__tls_t *t, int fe);

/* Event writers for the gate's slow paths (single writer: the owning thread).
 * begin() returns 1 to record; 0 when the recorder is already busy on this
 * thread (a signal handler ran gated code inside it): that event is applied
 * but not recorded, and the count goes into the thread's end record; -1
 * once the exit dump froze recording: the event is neither recorded nor
 * applied. */
struct pp__trace_buf;
int pp__trace_begin(struct pp__trace_buf *b);
void pp__trace_end(struct pp__trace_buf *b);
void pp__trace_put(struct pp__trace_buf *b, int op, uint64_t key, uint64_t ticks);
/* Recording stopped for the whole process (fork child, write error). */
int pp__trace_stopped(void);

/* A recorded gate entered key: its id in the trace (small integers from 1,
 * so that an entry costs the same bytes whatever the injector's keys look
 * like: 64-bit hashes, addresses, XRay ids). The first time a key is seen
 * it is named and the definition put in the file at once, so that a trace
 * cut by a kill still replays with names. Costs a lock only when the
 * thread's cache misses. 0 when out of memory. */
uint64_t pp__trace_first_sight(int fe, uint64_t key);
/* dump.c: a key was named while collecting; record the definition (and
 * give the key its id) once. */
void pp__trace_name(int fe, uint64_t key, const char *name, const char *file, uint32_t line);
/* dump.c: a profile was collected for writing; record its meta fields and
 * flush the calling thread's chunk. */
void pp__trace_dumped(const pp_profile_t *p);
/* The exit dump is about to collect the profile: flush every recorded
 * thread's buffer with its end record and record nothing from now on;
 * recorded threads' gates then do nothing (pp__trace_begin returns -1), so
 * the profile and the trace hold the same events. */
void pp__trace_freeze(void);

/* pp_trace_open() without the start-up (api.c runs it first). */
int pp__trace_open(const char *path);

/* --- gate semantics with caller-supplied time (gate_record.c) --- */
void pp__gate_enter_at(pp__tls_t *t, uint64_t key, uint32_t timed, uint64_t at);
void pp__gate_leave_at(pp__tls_t *t, uint64_t at);
void pp__gate_root(pp__tls_t *t);

#endif
