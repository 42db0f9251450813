/* Per-thread slabs carved from one arena.
 * Each thread that runs a gate gets a slab: its shadow stack, its path table
 * and the memory its paths and histograms live in. A slab has one writer (its
 * thread) and outlives it: at thread exit it is kept for the dump and handed
 * to the next new thread, which keeps adding to it (the profile is a sum, so
 * reuse loses nothing and bounds memory by the peak number of live threads). */
#ifndef PP_SLAB_H
#define PP_SLAB_H

#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <pathprof/state.h>
#include "hist.h"

#define PP__SLAB_MAGIC 0x62616c73666f7270ull /* "prpfslab" */

/* A node's timing as the hot path keeps it: inclusive time (sum, min, max,
 * histogram in the cell layout of hist.h) and self time, in ticks; its calls
 * are the histogram's total, counted by readers. Dense rows of 16 counters
 * are allocated on first use, so a node's timing costs 288 bytes plus 128
 * per octave of durations it actually saw. Rows are referenced by 32-bit
 * arena offsets (units of 128 bytes) to keep the record small. */
typedef struct pp__segrt {
	uint64_t sum, min, max;
	uint64_t self; /* inclusive minus the gated children's inclusive */
	uint64_t open; /* burst timing: inclusive time of calls a window cut (gate_window.c) */
	uint32_t rows[PP__CELL_ROWS];
} pp__segrt_t;

#define PP__ROW_BYTES (PP_HIST_SUB * sizeof(uint64_t))

typedef struct pp__slab_priv {
	struct pp__slab pub; /* magic, events: read by the inline gate */
	uint64_t drops_table; /* leaf records dropped: table or memory full */
	uint64_t drops_depth; /* frames skipped beyond the stack bound */
	uint64_t drops_time;  /* timed exits not recorded: node table or memory full */
	uint64_t drops_signal; /* records of a signal handler that interrupted an insert */
	uint64_t unmatched;   /* leaves without an open frame */
	uint64_t outside_roots; /* under a root selection: gates entered outside every root */
	uint64_t npaths;
	pp__path_t *head; /* newest first; published with release stores */
	void *altstack;   /* the signal stack its threads get (crash.c) */
	char *bump, *end; /* current chunk of path memory */
	uint32_t chunk_bytes; /* the next chunk's size (0: the first) */
	struct pp__slab_priv *next_all;
	struct pp__slab_priv *next_free;
	uint32_t live;
	pp__tls_t *owner; /* the live thread's gate state (NULL when none), under slab_lock */
	uint32_t uses; /* threads that have owned this slab */
	pp__slot_t *table;
	uint64_t mask;
	uint64_t capacity; /* paths this slab may hold */
	pp__frame_t *frames; /* frames[0] is the sentinel; stack = frames + 1 */
	/* the runtime's own work taken out of timed frames (pp__skip_own_work):
	 * its ticks, and how many times */
	uint64_t own_ticks, own_n;
	/* a budget stopped something, and the owner's gates took the budget's
	 * way since (gate_budget.c; throttle.c reads it) */
	uint32_t budget_seen;
	/* the owner thread, for the throttling thread's look at a thread that
	 * has not come the budget's way (throttle.c): its id, its handle (for
	 * its CPU clock), and its CPU time when first seen so, plus 1 (0: not
	 * seen yet); set with owner, under slab_lock */
	int tid;
	pthread_t thread;
	uint64_t lag_cpu;
} pp__slab_t;

/* Bytes below this arena offset are never handed out: they hold the live
 * segment's header when the arena is exported (shm.h), and offset 0 means
 * "no row" in segment references. */
#define PP__ARENA_HDR_BYTES 4096u

struct pp__shm_hdr;

typedef struct pp__arena {
	char *base;
	size_t size;
	size_t used; /* bumped atomically (cold path only) */
	/* Exported (hdr set) but /dev/shm could not back an allocation: from
	 * then on new memory is private (counts stay exact, the live view
	 * stops). No descriptor of the object is kept: the program may close
	 * and reuse any number (#27). */
	int detached;
	int detach_err; /* errno of the allocation that could not be backed */
	struct pp__shm_hdr *hdr; /* at base when exported, else NULL */
} pp__arena_t;

extern pp__arena_t pp__arena;

/* Run-time configuration, fixed at init from PATHPROF_*. */
typedef struct pp__config {
	uint32_t depth;   /* shadow stack bound */
	uint64_t paths;   /* path table capacity per slab */
	size_t arena_mb;  /* arena reservation */
	char shm[256];    /* PATHPROF_SHM: export the arena under this name ("" = no) */
	int shm_keep;     /* PATHPROF_SHM_KEEP: leave the segment at exit */
	int shm_default;  /* shm is the default name (PATHPROF_SHM unset) */
	int namer_on;     /* PATHPROF_NAMER=on: the naming thread from the start */
} pp__config_t;

extern pp__config_t pp__config;

/* Reserve the arena (once). 1 when it is usable, 0 when profiling is off. */
int pp__arena_ready(void);

/* Carve n bytes (rounded to 64) from the arena; NULL when it is full. */
void *pp__arena_alloc(size_t n);

/* Run before the arena's next allocation hands memory out, then cleared by
 * the function itself (the pending export, export.c). The arena knows no
 * segment: the layer above arms it. */
extern int (*pp__arena_pending)(void);

/* Once the arena is shared, fork() must copy the forking thread's shadow
 * stack for the child (the parent keeps writing it): export.c asks for it. */
void pp__slab_keep_fork_frames(void);
/* Arena offset reference of p in 128-byte units (p from pp__slab_alloc). */
uint32_t pp__arena_ref(const void *p);
void *pp__arena_ptr(uint32_t ref);

/* Allocate n zeroed bytes (n <= chunk) in slab s, 128-byte aligned when
 * align128; NULL when the arena is full. Only the owning thread calls it. */
void *pp__slab_alloc(pp__slab_t *s, size_t n, int align128);

/* A slab handed to another thread (a new thread, a forked child) starts
 * with an empty table when its own is half full or more, so the new owner
 * never inherits a full table: the old records stay in the slab's list.
 * 0, or -1 when the arena is full (the table is kept). */
int pp__slab_renew_table(pp__slab_t *s);

/* The owner thread t's slab s holds as many paths as half its table's
 * slots: move them into a table twice the size, up to the capacity's
 * (PATHPROF_PATHS). A slab starts with a small table, because the arena
 * backs every byte it hands out at once (a 2 MiB table took 1.5-2 ms of
 * each thread's first gate). Called with pp__gate_in_slow set, so no
 * signal handler's insert can land in the table being left. 0, or -1 when
 * the table is as large as it gets or the arena is full. */
int pp__slab_grow(pp__tls_t *t, pp__slab_t *s);

/* Give the calling thread a slab (a retired one if any). -1 when none can be
 * had; the thread then runs ungated. */
int pp__thread_register(pp__tls_t *t, int fe);

/* First slab of the list of every slab ever created (for readers). */
pp__slab_t *pp__slab_first(void);

/* A slab of `paths` paths in no list: no dump, export or reader sees what
 * is recorded into it (the gate's cost calibration, gate_cost.c). */
pp__slab_t *pp__slab_scratch(uint64_t paths);

/* Point thread state t at slab s, at depth 0 with no event open. */
void pp__slab_attach(pp__tls_t *t, pp__slab_t *s);
/* fn(t) for every live thread's gate state, under the registry lock (a
 * thread cannot exit meanwhile): the burst pacer's requests (burst.c). */
void pp__slab_for_each_owner(void (*fn)(pp__tls_t *t));

/* Zero every count and histogram in every slab. */
void pp__slab_reset_all(void);

/* Call fn(ctx, key) for every key of every path of every slab (keys repeat). */
void pp__slab_for_each_key(void (*fn)(void *ctx, uint64_t key), void *ctx);

/* Number of threads that ever registered. */
uint64_t pp__threads_seen(void);

/* After fork(): the child's only thread keeps its slab (zeroed); slabs of
 * threads that do not exist in the child are retired. When the parent
 * exports its arena, the child instead starts a fresh private arena (keeping
 * only its shadow stack) and exports it under its own name at its first
 * allocation (the caller arms it), so it never writes into the parent's
 * segment. */
int pp__slab_after_fork(void); /* 1: a fresh arena (the parent's was exported) */

#endif
