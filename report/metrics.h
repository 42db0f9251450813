/* The Prometheus exposition of live profiles (`pathprof serve`): per path a
 * counter of leaf returns, per node a latency histogram, per process its
 * totals, and the exporter's own health, in the text format 0.0.4 or in
 * OpenMetrics 1.0 (docs/guides/fleet.md). */
#ifndef PP_METRICS_H
#define PP_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "map.h"
#include "profile.h"
#include "shm_read.h"

/* One process as served: its snapshot, and the paths chosen for their own
 * series (the rest are summed in path="other"). The choice is kept from
 * scrape to scrape so that every counter, "other" included, only grows. */
typedef struct metrics_proc {
	pp_profile_t prof;
	pp__shm_stats_t st;
	pp__map_t *chosen; /* path id -> 1; owned by the caller, kept across scrapes */
	uint32_t top;      /* how many paths may have series of their own */
	int with_command;  /* the command line in pathprof_process_info (serve
			    * --command-line: arguments may hold secrets) */
	uint64_t cut;      /* set by metrics_write: paths summed in "other" */
} metrics_proc_t;

typedef struct metrics_health {
	uint64_t scrapes;          /* scrapes served, this one included */
	uint64_t skipped;          /* segments skipped as damaged or foreign */
	uint64_t dead;             /* segments of processes that died unrecovered */
	double last_duration_s;    /* how long the previous scrape took */
	uint64_t cut;              /* connections cut at the request deadline */
} metrics_health_t;

/* Write the exposition of n processes. Returns 0, or -1 out of memory. */
int metrics_write(FILE *out, int openmetrics, metrics_proc_t *procs, size_t n,
		  const metrics_health_t *h);

/* The content type of the format. */
const char *metrics_content_type(int openmetrics);

#endif
