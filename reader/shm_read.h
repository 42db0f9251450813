/* The live segment's reader side, in the `pathprof` tool: open a segment
 * (by name, pid or copied file), validate its header against the mapping,
 * and snapshot its slabs into a profile without ever writing to it. */
#ifndef PP_SHM_READ_H
#define PP_SHM_READ_H

#include <stddef.h>
#include <stdint.h>
#include "map.h"
#include "profile.h"
#include "proc_start.h"
#include "segment.h"

typedef struct pp__shm_view {
	int fd;
	const char *map;
	size_t size;   /* of the object */
	size_t mapped; /* bytes of it mapped at map: what the writer has used,
			* with room to grow, never the whole (64 GiB) reservation */
	const pp__shm_hdr_t *h;
	char object[300];
	int is_file;  /* opened as a file path, not a /dev/shm object */
	uint32_t owner; /* uid owning the object */
	int raw_keys; /* set by the caller: a key with no published name becomes
		       * "FRONTEND:0xKEY" instead of leaving its paths out */
	/* Names from the writer's files for keys it has not named
	 * (reader/shm_offline.h), kept from snapshot to snapshot; NULL in a
	 * view made by hand, whose snapshots each open their own. */
	struct pp__offline *files;
} pp__shm_view_t;

/* What a snapshot knows beyond the profile. */
typedef struct pp__shm_stats {
	uint64_t pid;
	uint32_t uid;            /* owner of the segment (checked to own pid when alive) */
	int alive;               /* the writer process still exists */
	int exited;              /* it exited normally (segment kept) */
	uint32_t crash_signal;   /* it met a fatal signal (it may still be writing its profile) */
	int namer;               /* its naming thread has run (PATHPROF_NAMER=auto starts
				  * none while the program runs one thread) */
	uint64_t generation;
	uint64_t threads_live;   /* slabs owned by a running thread */
	uint64_t unnamed_records; /* counts of paths whose names are not yet published */
	uint64_t raw_keys;       /* keys named FRONTEND:0xKEY (raw_keys set) */
	uint64_t file_named;     /* keys the writer never named, named from its files
				  * (raw_keys set: reader/shm_offline.h) */
	uint64_t taken_ns;       /* the snapshot, on the run's clock (tick_clock.h) */
	uint64_t update_ns;      /* writer's last naming pass */
	uint64_t exit_ns;
	char program[64];
} pp__shm_stats_t;

/* Open target: a segment name, a pid (all digits) whose segment is found in
 * /dev/shm, or a file path (any '/' past the first byte: a copied segment).
 * 0, or -1 with one line in err. */
int pp__shm_open(pp__shm_view_t *v, const char *target, char *err, size_t errlen);

/* Validate the header against the mapping (what pp__shm_open runs). */
int pp__shm_check(const pp__shm_view_t *v, char *err, size_t errlen);

/* Merge every slab of the segment into p (zeroed first, canonical order).
 * Never writes to the segment. 0, or -1 with one line in err. */
int pp__shm_snapshot(pp__shm_view_t *v, pp_profile_t *p, pp__shm_stats_t *st, char *err,
		     size_t errlen);

void pp__shm_close(pp__shm_view_t *v);

/* Between shm_open.c and shm_read.c: one error line into err, -1; and the
 * mapping of what the writer has used, grown when it has gone past it. */
__attribute__((format(printf, 3, 4))) int pp__shm_fail(char *err, size_t errlen, const char *fmt,
							...);
int pp__shm_map_used(pp__shm_view_t *v, char *err, size_t errlen);

/* The object of pid's segment ("/name") into object: 0; -1 none; -2 none
 * readable, but the default name pathprof.PID exists (another user's). */
int pp__shm_find_by_pid(uint64_t pid, char *object, size_t n);

/* pp__shm_writer_alive: format/proc_start.h (the writer asks it too) */

/* A profiled process of this user, as its segment in /dev/shm shows it. */
typedef struct pp__shm_live {
	uint64_t pid;
	char object[300];
	char program[64];
	uint64_t start_ns; /* CLOCK_REALTIME */
} pp__shm_live_t;

/* Which segments pp__shm_list gives: those whose writer still runs, or
 * those a writer left when it died without writing its profile (killed,
 * _exit): still marked running (or detached) with the writer gone, what
 * `pathprof recover` reads. */
enum { PP__SHM_LIST_LIVE, PP__SHM_LIST_LEFT };

/* Every segment of this layout this user may read of that kind, by pid.
 * The number found (*out malloc'ed, NULL when none), or -1 when /dev/shm
 * cannot be listed. */
long pp__shm_list(pp__shm_live_t **out, int which);

/* The key names the segment publishes, into names's name table, by_key
 * mapping each key to its index there (the off-CPU recorder names keys
 * read from threads' stacks). 0, or -1 with one line in err. */
int pp__shm_names(const pp__shm_view_t *v, pp_profile_t *names, pp__map_t *by_key, char *err,
		  size_t errlen);

#endif
