/* The statistics of `pathprof diff` (tools/cmd_diff.c): per-path numbers of both
 * sides, the 95% interval of the change (bootstrap over runs, or a normal
 * bound from the histograms), the noise floor and the verdict. Kept apart from
 * the command so the method reads on its own (docs/guides/trace.md). */
#ifndef PP_DIFF_STATS_H
#define PP_DIFF_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/* Bootstrap resamples per path; the text output names the number. */
/* With one run on a side, a verdict needs at least this many timed calls on
 * each (the per-call spread then stands in for the runs'). */
#define DIFF_MIN_CALLS 30
/* A row holding less than this share (%) of the gated time on both sides
 * gets no verdict: where the time goes is not decided there, and the
 * per-call times of tiny functions scatter by a factor between two
 * processes (a recursive walk's 50-call leaves: 20 ns in one run, 76 in
 * the next, median calls included). */
#define DIFF_MIN_SHARE 0.1
#define DIFF_RESAMPLES 2000
/* The noise floor (%) when a side has one run and --min-change was not
 * given. Per-call distributions hold a run's own noise, not how far two
 * processes of one binary drift apart: under a loaded ThreadSanitizer run
 * an unchanged function came out 3.4 % faster and 8.4 % slower (#29,
 * trace-diff-real); on a quiet machine 1-3 %. Several runs a side measure
 * that drift, and their spread sets the floor instead. */
#define DIFF_ONE_RUN_FLOOR 10.0

/* With one run a side and at least this many nodes timed DIFF_MIN_CALLS
 * times on both sides, the nodes themselves show how far the two processes
 * differ (diff_scatter). */
#define DIFF_SCATTER_NODES 20

/* With several runs a side, the expected share of false verdicts among the
 * verdicts (Benjamini-Hochberg over the rows tested): each row's bootstrap
 * interval is right 95 % of the time alone, which over a thousand rows of
 * one binary still gave 6-8 verdicts (bench/diffnoise.sh). */
#define DIFF_FDR 0.05

/* How the nodes' per-call times moved between the two sides as a whole:
 * the median and the robust spread (1.4826 x the median absolute
 * deviation) of ln(B / A) over the nodes timed enough on both sides, as
 * percentages, and the floor they set: a node must move further than the
 * shift plus z spreads, z for a 5 % chance of one false verdict over all n
 * nodes (Bonferroni). A change in the code moves the nodes it touches, not
 * the median or the spread of thousands. */
typedef struct diff_scatter {
	uint32_t n;
	double shift_pct, spread_pct, floor_pct;
} diff_scatter_t;

/* The noise floor the verdicts used, and where it came from: --min-change
 * or several runs a side (SET), the one-run floor above (ONE_RUN), or the
 * nodes' scatter between the two runs when that is higher (SCATTER). */
enum { DIFF_FLOOR_SET, DIFF_FLOOR_ONE_RUN, DIFF_FLOOR_SCATTER };
typedef struct diff_floor {
	double pct;
	int why;
	diff_scatter_t scatter;
	/* several runs a side: over how many nodes the runs were brought to a
	 * common speed (0: not), and the slowest and fastest run's factor, as
	 * a % from the runs' mean (diff_build_rows fills them) */
	uint32_t speed_nodes;
	double speed_lo_pct, speed_hi_pct;
} diff_floor_t;

/* One side of the comparison: a profile or a directory of repeated runs. */
typedef struct diff_side {
	const char *arg;
	uint32_t nruns;
	pp_profile_t *runs;
	char **files;
	pp_profile_t merged;
	double total_ns; /* per run */
	/* times have the gate's cost taken out: 1 every run, 0 as measured
	 * (--raw), -1 some run had no measure and kept it */
	int compensated;
} diff_side_t;

/* One row's numbers on one side: a row is a calling-context node (the
 * prefix that ends at a gate), and a path when it ended leaves: per run its
 * inclusive time (ns) and timed calls, and its leaf returns. */
typedef struct diff_per_side {
	const pp_profile_t *prof; /* merged */
	const pp_ppath_t *entry;  /* the path, else the node, in merged; NULL when absent */
	double *time, *timed;     /* per run */
	double count;             /* leaf returns, mean per run */
	double mean;              /* inclusive ns per timed call, pooled over runs; NAN if untimed */
	double self;              /* self ns per timed call, pooled over runs */
	double var;               /* per-event variance bound (ns^2) */
	double ntimed;
} diff_per_side_t;

/* One node or path of either side: both sides' numbers, the change B - A (ns per
 * event, %), its interval [lo, hi], the noise floor (%), impact and shares. */
typedef struct diff_row {
	uint64_t id;
	diff_per_side_t s[2];
	double change, change_pct, lo, hi, noise, impact, share[2];
	const char *verdict;
	double p; /* several runs a side: Welch's two-sided p on the runs' log per-call times; NAN untested */
	int by_median; /* one run a side, medians apart: change and interval are the median call's */
	int tail_only; /* one run a side, the means apart but not the median calls: no verdict */
} diff_row_t;

/* Inclusive time in ns of node id of p, summed over its timed calls (0
 * when it was not timed). */
double diff_time_ns(const pp_profile_t *p, uint64_t id);

/* One row per id of either side with its per-run numbers, interval and
 * verdict (with several runs a side, only where it holds under the false
 * discovery rate DIFF_FDR), sorted by impact (|B - A| of total time per run), then by count,
 * then by id. *nrows gets the number; NULL when out of memory (or no paths).
 * Free with diff_rows_free(). */
diff_row_t *diff_build_rows(diff_side_t *sd, uint32_t *nrows, diff_floor_t *fl);

void diff_rows_free(diff_row_t *rows, uint32_t n);

/* The scatter of the nodes between the two sides (diff_scatter_t); n = 0
 * when fewer than DIFF_SCATTER_NODES are timed enough on both. Used when a
 * side has one run: several runs a side test each row against its own
 * runs' spread instead. */
diff_scatter_t diff_scatter(const diff_side_t *sd);

/* report_diff.c: the rows as text, JSON or the HTML page (top: the first
 * top of each list, 0 all). 0, or -1 when out of memory. */
enum { PP__DIFF_TEXT, PP__DIFF_JSON, PP__DIFF_HTML };
int pp__report_diff(FILE *f, int format, const diff_side_t *sd, diff_row_t *rows, uint32_t n,
		    uint32_t top, const diff_floor_t *fl);

#endif
