/* The merged profile in memory, and its file format (docs/reference/file-format.md).
 * One model serves the runtime's dump, the CLI's readers and writers (report,
 * merge, diff, replay): the file is written and read field by field, never as
 * a struct dump, and every size and offset is validated before use. */
#ifndef PP_PROFILE_H
#define PP_PROFILE_H

#include <stdint.h>
#include <stddef.h>
#include "hist.h"

#define PP_PROFILE_MAGIC "PATHPROF"
/* 2: calling-context nodes time each gate once (inclusive, self); paths
 * carry counts only. 3: a CRC-32 after every section (#27: flipped bits
 * were read as other counts). Version 2 is still read; version 1
 * (per-path segments) is refused. */
#define PP_PROFILE_VERSION 3u
#define PP_PROFILE_VERSION_OLDEST 2u

typedef struct pp_name {
	char *name; /* function or gate name, demangled */
	char *file; /* source file when known (raii), else "" */
	uint32_t line;
} pp_name_t;

/* A name sequence and what was measured on it, for the two lists of a
 * profile. A path (root->leaf) has its exact count of leaf returns and no
 * times. A calling-context node (the prefix ending at a gate, docs/reference/semantics.md)
 * has the times of the gate's timed exits there: incl holds the inclusive
 * time of each call (incl.count = timed calls), self the sum of inclusive
 * minus gated children's inclusive time; its count is 0. A path's id is the
 * id of its leaf node. */
typedef struct pp_ppath {
	uint64_t id;    /* stable id: pp__path_id() of the name sequence */
	uint64_t count; /* paths: leaf returns */
	uint32_t depth;
	uint32_t *names; /* depth indices into pp_profile_t.names, root first */
	uint64_t self;   /* nodes: self ticks, summed */
	pp_seg_t incl;   /* nodes: inclusive ticks per call */
	uint64_t open;   /* nodes, burst timing: inclusive ticks of calls a window
			  * cut (entered before it or left after it), in no
			  * call of incl (section OPEN) */
	uint64_t gate;   /* nodes of a compensated profile: the self ticks
			  * compensation took out as the gates' own cost
			  * (report/compensate.c); 0 otherwise, never in a file */
} pp_ppath_t;
typedef pp_ppath_t pp_pnode_t;

/* Why a thread was off the CPU, from its kernel stack when it blocked. */
enum pp_offcpu_reason {
	PP_OFF_OTHER = 0, PP_OFF_FUTEX = 1, PP_OFF_POLL = 2, PP_OFF_DISK = 3, PP_OFF_NET = 4,
	PP_OFF_SLEEP = 5,
	PP_OFF_PREEMPT = 6, /* runnable, switched out for another thread: waited for a CPU */
	PP_OFF_REASONS
};

/* Who woke it. */
enum pp_waker {
	PP_WAKER_NONE = 0,    /* not seen (woken before the recorder saw it block) */
	PP_WAKER_GATED = 1,   /* a thread of the process, on the path node `waker` */
	PP_WAKER_THREAD = 2,  /* a thread of the process outside any gate */
	PP_WAKER_PROCESS = 3, /* another process */
	PP_WAKER_KERNEL = 4,  /* an interrupt, a timer or a kernel thread */
	PP_WAKER_KINDS
};

/* Off-CPU time of one (blocked node, reason, waker) triple (section
 * OFFCPU): every time a thread of the process blocked on the node `blocked`
 * (depth 0: outside any gate) for that reason and was woken by that waker.
 * time is in nanoseconds: count = blocks, sum = total off-CPU time. */
typedef struct pp_offcpu {
	pp_ppath_t blocked;
	pp_ppath_t waker; /* depth 0 unless waker_kind is PP_WAKER_GATED */
	uint32_t reason;
	uint32_t waker_kind;
	pp_seg_t time;
	char *kstack; /* kernel functions where it blocked, innermost first,
		       * ';'-separated (the first block's); "" when unknown */
} pp_offcpu_t;

/* A function the runtime stopped gating during the run (PATHPROF_BUDGET,
 * section THROTTLE): its gates cost more than the budget's share of the
 * work they held. calls and incl (ticks) are what the runtime had seen of
 * it, over every calling context, when it decided: the evidence; the nodes
 * hold what was counted before the gate stopped. at_ns: when, after the
 * run started. */
typedef struct pp_throttled {
	uint32_t name; /* index into pp_profile_t.names */
	uint64_t calls;
	uint64_t incl;
	uint64_t at_ns;
} pp_throttled_t;

/* Names of the reasons and waker kinds as reports print them. */
const char *pp__offcpu_reason_name(uint32_t reason);
const char *pp__waker_name(uint32_t kind);

typedef struct pp_profile {
	uint32_t version;
	char *frontend; /* "raii", "cyg", "xray", "plugin", "replay", ... */
	char *command;  /* command line of the profiled program */
	uint64_t pid;
	/* ns since the epoch: start_ns is CLOCK_REALTIME, end_ns the start plus
	 * the run's length on CLOCK_MONOTONIC_RAW (tick_clock.h) */
	uint64_t start_ns, end_ns;
	double ticks_per_ns;       /* calibrated tick rate */
	uint32_t timing;           /* enum pp_timing at dump */
	uint32_t sample_n;
	uint64_t windows;          /* burst timing: windows opened in all (section OPEN) */
	uint64_t events;        /* events started: frames entered with no gate open (or after pp_root) */
	uint64_t records;       /* leaf returns seen (recorded + dropped) */
	uint64_t drops_table;   /* leaf returns dropped: path table or memory full */
	uint64_t drops_depth;   /* frames skipped beyond the stack bound */
	uint64_t unmatched;     /* leaves with no open frame (ignored) */
	uint64_t drops_time;    /* timed exits not recorded: node table or memory full */
	uint64_t unprofiled_frames;  /* gates run by threads that got no slab (arena full) */
	uint64_t unprofiled_threads; /* threads that got no slab */
	uint64_t drops_signal;  /* gates of signal handlers that ran while their thread was
				 * inside the runtime's slow path (docs/internals/control-flow.md) */
	uint64_t threads;       /* threads that ever registered */
	uint32_t crash_signal;  /* written at a fatal signal: its number, else 0 */
	uint64_t crash_tid;     /* ... and the thread (kernel tid) it hit */
	uint32_t recovered;     /* 1: rebuilt from a dead process's live segment */
	uint32_t recovered_signal;   /* ... the signal that killed it, 0 if unknown */
	uint32_t recovered_raw_keys; /* ... keys it never named (shown FRONTEND:0xKEY) */
	/* Who wrote it (section PROCESS): NULL when the file has none; "" for
	 * a value that is unknown or differs between merged profiles. */
	char *service, *host, *build_id;
	/* The timed gate's cost as the process measured it (section GATECOST),
	 * in ticks per gate: the part inside the interval a gate times and the
	 * part its caller's self time holds; both 0 when not measured. */
	double gate_in, gate_out;
	/* The runtime's own work in timed events (a node's first record, an
	 * arena chunk, a burst window's edge), taken out of every frame open
	 * across it, so no time below holds it (section OWNWORK): ticks in
	 * all, and how many times. */
	uint64_t own_ticks, own_n;
	/* The process's CPU time (user + system, all threads) and context
	 * switches at dump (section CPU; getrusage): the run's timed figures
	 * are wall-clock, and nivcsw says how often a thread was preempted.
	 * has_cpu 0: not recorded. */
	uint32_t has_cpu;
	uint64_t cpu_ns, nvcsw, nivcsw;
	/* The function selections the process ran under (section SELECT:
	 * "PATHPROF_ROOT=...; PATHPROF_FUNCTIONS=..."), NULL when none, ""
	 * when merged profiles ran under different ones. */
	char *selection;
	char *roots;            /* ... the root list alone, for replay; NULL: none */
	uint64_t outside_roots; /* gate entries outside every root (not events) */
	/* The run-time budget (PATHPROF_BUDGET, percent; 0: none; -1: merged
	 * profiles ran under different ones) and the functions it throttled. */
	double budget;
	uint32_t nthrottled;
	pp_throttled_t *throttled; /* in the order they were throttled */
	/* Hook call sites of throttled cyg functions the runtime patched out
	 * of the code, and those it found but left (runtime/site_patch.c). */
	uint32_t patched_sites, refused_sites;
	/* Set by pp__profile_compensate() (the tool, never in a file): the
	 * times have had the gate's cost taken out; gate_removed ticks in all. */
	uint32_t compensated;
	double gate_removed;
	/* Set by the exit dump's collect (never in a file): every path's and
	 * node's id is its names' (pp__path_id), found as they were gathered,
	 * so the writer writes them as they are rather than find them again
	 * (on SQLite's exit dump, 4.3 M instructions of 49). Any other profile
	 * has its ids derived from its names as it is written. */
	uint32_t ids_from_names;
	/* Off-CPU time by blocked node, reason and waker (pathprof run --offcpu). */
	uint32_t noffcpu;
	pp_offcpu_t *offcpu;
	uint32_t nnames;
	pp_name_t *names;
	uint32_t npaths;
	pp_ppath_t *paths;  /* sorted by id */
	uint32_t nnodes;
	pp_pnode_t *nodes;  /* sorted by id */
} pp_profile_t;

/* Stable 64-bit id of a path from its name sequence (root first): equal for
 * the same names across runs, builds and front-ends. */
uint64_t pp__path_id(const char *const *names, uint32_t depth);

/* Its steps (profile.c says why this hash), for a caller that keeps the
 * hash of a prefix (path_ids.c): start, one step per name, the end. */
static inline uint64_t pp__path_fnv_start(void)
{
	return 0xcbf29ce484222325ull;
}

static inline uint64_t pp__path_fnv(uint64_t h, const char *name)
{
	for (const unsigned char *s = (const unsigned char *)(name ? name : ""); *s; s++)
		h = (h ^ *s) * 0x100000001b3ull;
	return h * 0x100000001b3ull; /* the separator byte 0 */
}

static inline uint64_t pp__path_fnv_end(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

/* Write p to path. Returns 0, or -1 with a one-line message in err. */
int pp__profile_write(const pp_profile_t *p, const char *path, char *err, size_t errlen);

/* Read path into p (zeroed first). Returns 0, or -1 with a one-line message in
 * err naming what is wrong (never crashes on bad input). */
int pp__profile_read(pp_profile_t *p, const char *path, char *err, size_t errlen);

void pp__profile_free(pp_profile_t *p);

/* The node with stable id `id`, or NULL (binary search: nodes are sorted). */
const pp_pnode_t *pp__profile_node(const pp_profile_t *p, uint64_t id);

/* Stage i of path q: the node of its prefix of length i+1, NULL when that
 * prefix was never timed. */
const pp_pnode_t *pp__profile_stage(const pp_profile_t *p, const pp_ppath_t *q, uint32_t i);

/* Sum of the self time of every node: the gated time, in ticks. */
uint64_t pp__profile_gated_ticks(const pp_profile_t *p);

/* Convert ticks to ns with the profile's rate (ticks unchanged when the rate
 * is unknown). */
double pp__ticks_ns(const pp_profile_t *p, uint64_t ticks);

/* Sort names by (name, file, line) and paths by id, remapping indices. 0, or
 * -1 when out of memory (p unchanged). */
int pp__profile_canonical(pp_profile_t *p);

#endif
