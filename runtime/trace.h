/* The raw event trace (docs/trace.md): its on-file layout, shared by the
 * recorder (trace.c) and the reader (trace_read.c), and the hooks the gate's
 * slow paths and the dump call. Recording works by keeping a recorded
 * thread's limit at 0, so every gate takes the slow path and nothing is added
 * to the inline gate. */
#ifndef PP_TRACE_H
#define PP_TRACE_H

#include <stdint.h>
#include <stddef.h>
#include <pathprof/state.h>
#include "profile.h"

/* File: an 8-byte magic, u32 version, u32 header length, then chunks. */
#define PP_TRACE_MAGIC "PPTRACE\n"
/* 2: every exit of a timed event carries its timestamp (node timing);
 * 3: every thread's stream ends with its end record (thread exit, the exit
 * dump's freeze, or the exiting thread at exit), so a stream without one
 * was cut; entries and names carry a key's id, not the key */
#define PP_TRACE_VERSION 3u
#define PP_TRACE_HEADER 16u

/* Chunk header (little-endian): u32 magic, u32 payload length, u64 stream,
 * u64 sequence, u32 event count, u32 CRC-32 of bytes 4..28 and the payload.
 * Stream 0 carries process records (config, names, dumps); stream n >= 1 is
 * the n-th thread recorded. */
#define PP_CHUNK_MAGIC 0x4b435050u /* "PPCK" */
#define PP_CHUNK_HEADER 32u
#define PP_CHUNK_MAX (1u << 24) /* readers refuse longer payloads */

/* Event opcodes. Keys and timestamps are zigzag varints of the difference
 * to the previous one in the same chunk (both start at 0 in every chunk, so
 * each chunk decodes on its own). */
enum pp_trace_op {
	PP_EV_ENTER = 1,   /* key id delta (ids: NAME records) */
	PP_EV_ENTER_T = 2, /* key id delta, tick delta: a pushed frame of a timed event */
	PP_EV_LEAVE = 3,
	PP_EV_LEAVE_T = 4, /* tick delta: a timed leaf return */
	PP_EV_ROOT = 5,    /* pp_root() */
	PP_EV_RESET = 6,   /* pp_reset() called by this thread */
	PP_EV_START = 7,   /* os tid, slab ref, slab use, front-end */
	PP_EV_END = 8,     /* events not recorded (signal handlers nested in the recorder) */
	/* stream 0 */
	PP_EV_CONFIG = 16, /* pid, start ns, depth bound, paths per slab */
	PP_EV_NAME = 17,   /* key id, front-end, line, name, file */
	PP_EV_META = 18,   /* the meta fields of a profile dumped live */
	PP_EV_CLOSE = 19,  /* chunks written before this one (at process exit) */
	PP_EV_PROCESS = 20, /* service, host, build id of a profile dumped live */
};


/* --- recorder hooks (trace.c) --- */

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

/* --- gate semantics with caller-supplied time (gate.c) --- */
void pp__gate_enter_at(pp__tls_t *t, uint64_t key, uint32_t timed, uint64_t at);
void pp__gate_leave_at(pp__tls_t *t, uint64_t at);
void pp__gate_root(pp__tls_t *t);

/* --- reader (trace_read.c) --- */

typedef struct pp_trace_name {
	uint64_t key;
	uint32_t fe, line;
	char *name, *file;
} pp_trace_name_t;

typedef struct pp_trace_chunk {
	uint64_t seq;
	uint64_t offset; /* of the chunk header in the file */
	const uint8_t *data;
	uint32_t len, nevents;
} pp_trace_chunk_t;

typedef struct pp_trace_thread {
	uint64_t stream;
	uint32_t nchunks, cap;
	pp_trace_chunk_t *chunks; /* sorted by sequence */
	uint64_t missing;         /* chunks absent from the sequence */
	uint64_t duplicates;      /* chunks whose sequence number came again: dropped */
} pp_trace_thread_t;

/* One stretch of the file that could not be used. */
typedef struct pp_trace_damage {
	uint64_t offset, length;
	char what[96];
} pp_trace_damage_t;

typedef struct pp_trace {
	const uint8_t *buf;
	struct pp__input *input; /* where buf comes from (input.h) */
	uint64_t size;
	/* CONFIG */
	int has_config;
	uint64_t pid, start_ns, depth, paths;
	uint64_t other_pid; /* a second writer's pid (two processes, one file), or 0 */
	/* last META */
	int has_meta;
	pp_profile_t meta; /* only the meta fields are set */
	uint64_t skipped;
	uint32_t nnames, cap_names;
	pp_trace_name_t *names;
	uint32_t nthreads, cap_threads;
	pp_trace_thread_t *threads; /* by stream */
	int closed; /* the end record was found */
	uint64_t duplicates; /* chunks dropped: their (stream, sequence) came before */
	uint64_t chunks_ok, bytes_lost, chunks_missing;
	uint32_t ndamage, cap_damage;
	pp_trace_damage_t *damage;
} pp_trace_t;

/* Read a trace file. 0 when every byte was used, 1 when some were lost
 * (tr->damage says where; every complete chunk is kept), -1 when the file is
 * not a usable trace (message in err). */
int pp__trace_load(pp_trace_t *tr, const char *path, char *err, size_t errlen);
void pp__trace_free(pp_trace_t *tr);

/* One decoded event. */
typedef struct pp_trace_ev {
	int op;
	uint64_t key, ticks;
	uint64_t a[4]; /* START: os tid, slab ref, slab use, fe; END: unrecorded */
} pp_trace_ev_t;

/* Decoder over one chunk's payload. */
typedef struct pp_trace_cursor {
	const uint8_t *p, *end;
	uint64_t key, ticks;
} pp_trace_cursor_t;

void pp__trace_cursor(pp_trace_cursor_t *c, const pp_trace_chunk_t *ch);
/* 1 and *ev set, 0 at the end, -1 on a malformed event. */
int pp__trace_next(pp_trace_cursor_t *c, pp_trace_ev_t *ev);

#endif
