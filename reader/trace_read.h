/* Reading a trace file (trace_read.c): its chunks by thread and sequence,
 * what was damaged or lost, and a decoder of each chunk's events. Layout:
 * format/trace_format.h. */
#ifndef PP_TRACE_READ_H
#define PP_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>
#include "profile.h"
#include "trace_format.h"


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
