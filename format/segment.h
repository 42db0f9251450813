/* The live segment's layout: the header at arena offset 0 and the name
 * records, as the writer (shm.c, and the arena's allocator in slab.c) stores
 * them and the reader (reader/shm_read.c) checks them. Only definitions:
 * both sides include this, neither copies it (docs/guides/live.md). */
#ifndef PP_SEGMENT_H
#define PP_SEGMENT_H

#include <stdint.h>

#define PP__SHM_MAGIC "PPLIVE\r\n"
/* Bumped whenever the header or any structure a reader walks (slab, path,
 * segment timing, name record) changes shape. */
#define PP__SHM_VERSION 6u /* 2: one timing record per node (self time); 3: histogram cells
			    * (hist.h); 4: service, host, build id; 5: cut calls' time
			    * (burst timing); 6: the clock's origin and the boot, a tick rate
			    * without a naming pass; the modules */

/* DETACHED: /dev/shm could not back the writer's memory; it goes on in
 * private memory and the segment no longer follows it. */
enum { PP__SHM_RUNNING = 1, PP__SHM_EXITED = 2, PP__SHM_DETACHED = 3 };

/* At arena offset 0. Only the writer stores here; every 64-bit field is
 * naturally aligned so a reader's plain load never tears. Pointers the
 * reader follows are the writer's addresses: subtract base, then check the
 * result against used before touching it. */
typedef struct pp__shm_hdr {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	/* sizes of what a reader walks: must equal the reader's own */
	uint32_t slab_size, path_size, segrt_size, name_size;
	uint32_t hist_rows, hist_sub;
	uint64_t arena_size; /* bytes of the object (mapping size) */
	uint64_t used;       /* bytes handed out: no valid reference reaches beyond */
	uint64_t base;       /* writer's address of offset 0 */
	uint64_t pid;
	/* start_ns CLOCK_REALTIME; the others on the run's clock (start_ns plus
	 * CLOCK_MONOTONIC_RAW since clock0_ns, tick_clock.h); exit_ns 0 while
	 * running */
	uint64_t start_ns, exit_ns;
	uint64_t update_ns;  /* writer last known alive: export, each naming pass
			      * (its start and end) */
	uint64_t generation; /* bumped when counts may go down (pp_reset) */
	uint64_t slabs;      /* writer address of the newest slab, 0 = none */
	uint64_t names;      /* arena offset of the newest name record, 0 = none */
	uint64_t threads;    /* threads that ever registered */
	uint64_t skipped;    /* frames of threads that could not register */
	double ticks_per_ns;
	uint32_t frontend, timing, sample_n, state;
	uint32_t crash_signal; /* set by the fatal-signal handler (crash.c) */
	/* The timed gate's own cost as the process measured it while it ran
	 * (runtime/gate_cost.c), for a profile recovered after a kill: inside
	 * in the low 16 bits, outside in the high 16, each in sixteenths of a
	 * tick (up to 4095.9 ticks); 0 until measured. In what was padding, so
	 * no offset moved: a reader of an older writer finds 0 (not measured),
	 * an older reader never looks. */
	uint32_t gate_cost;
	uint64_t start_boot_ns; /* CLOCK_BOOTTIME when exporting began: tells the
				 * writer from a later process given its pid */
	char program[64];
	char command[512];
	char service[64];  /* PATHPROF_SERVICE or the program's name */
	char host[64];
	char build_id[48]; /* hex GNU build id of the executable, "" if none */
	/* Where a thread's gate state lives: pp__tls is at the thread pointer
	 * (x86-64: the fs base) plus this, in every thread (static TLS). The
	 * off-CPU recorder reads a blocked thread's open frames there. 0 when
	 * unknown (another architecture). */
	int64_t tls_offset;
	/* The kernel thread id of the naming thread (pathprof's own, never
	 * gated), for tools that watch threads; 0 until it runs. (The off-CPU
	 * recorder knows the runtime's threads by name from their first
	 * block, runtime/own_thread.h.) */
	uint32_t namer_tid;
	/* Where in the thread state (from tls_offset) the word lies that is
	 * non-zero while the runtime does its own work (pp__tls_t.own_work):
	 * the off-CPU recorder counts a block then outside any gate. 0 from a
	 * runtime that has no such word. */
	uint32_t own_work_at;
	/* The runtime's first reading of the clock (CLOCK_MONOTONIC_RAW) and
	 * the tick counter at one instant, and the boot they belong to
	 * (/proc/sys/kernel/random/boot_id): where no naming pass published
	 * ticks_per_ns (a program of one thread, PATHPROF_NAMER=auto), a
	 * reader of the same boot measures the rate from here to its own
	 * reading (format/tick_clock.h). */
	uint64_t clock0_ns, tick0;
	char boot_id[40];
	/* Arena offset of the newest module record (pp__shm_module_t), 0 =
	 * none: the files loaded when exporting began, where a reader names
	 * the keys the process never did (reader/shm_offline.c). */
	uint64_t modules;
} pp__shm_hdr_t;

/* gate_cost's packing: 0 for a figure that does not fit (or none). */
#define PP__SHM_COST_UNIT 16.0
static inline uint32_t pp__shm_cost_pack(double in, double out)
{
	double lim = 65535 / PP__SHM_COST_UNIT;
	if (!(in >= 0 && in < lim && out >= 0 && out < lim) || (in == 0 && out == 0))
		return 0;
	return (uint32_t)(in * PP__SHM_COST_UNIT + 0.5) | (uint32_t)(out * PP__SHM_COST_UNIT + 0.5) << 16;
}
static inline void pp__shm_cost_unpack(uint32_t v, double *in, double *out)
{
	*in = (double)(v & 0xffffu) / PP__SHM_COST_UNIT;
	*out = (double)(v >> 16) / PP__SHM_COST_UNIT;
}

/* The name of one key, appended by the writer's namer and never changed. */
typedef struct pp__shm_name {
	uint64_t next; /* arena offset of the previous record, 0 at the end */
	uint64_t key;
	uint32_t line, name_len, file_len, pad;
	char text[]; /* name, NUL, file, NUL */
} pp__shm_name_t;

/* One file mapped in the writer when it began exporting, appended once
 * and never changed: a cyg key (a code address) or a raii key (a site's
 * address) inside [lo, hi) lies in this file at key - bias, where the
 * file's own build id must still be build_id for a reader to trust it. */
typedef struct pp__shm_module {
	uint64_t next; /* arena offset of the previous record, 0 at the end */
	uint64_t bias; /* where the file's address 0 lies (dl_phdr_info's dlpi_addr) */
	uint64_t lo, hi; /* the span of its loaded segments */
	char build_id[48]; /* hex, "" if none */
	uint32_t path_len, pad;
	char path[]; /* absolute, NUL-terminated */
} pp__shm_module_t;

/* Raise h->used to at least end (arena allocations call it before handing
 * memory out, so a reader never rejects a published reference). */
static inline void pp__shm_note_used(pp__shm_hdr_t *h, uint64_t end)
{
	uint64_t cur = __atomic_load_n(&h->used, __ATOMIC_RELAXED);
	while (cur < end &&
	       !__atomic_compare_exchange_n(&h->used, &cur, end, 1, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
}

#endif
