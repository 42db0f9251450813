/* What the report renderers (report.c and report_<format>.c) share: the
 * selection of rows every format reads, and the name and UTF-8 helpers, so
 * that no two formats can disagree on which paths a report covers or on how
 * a hostile name is cleaned. Private to the renderers. */
#ifndef PP_REPORT_IMPL_H
#define PP_REPORT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* One selected path and its total time in ticks. */
typedef struct pp__row {
	const pp_profile_t *prof;
	const pp_ppath_t *path;
	uint64_t time;
} pp__row_t;

/* Name of index idx, or "?" when the index does not resolve. */
const char *pp__report_name(const pp_profile_t *p, uint32_t idx);

/* 1 when the profile's tick rate is known (times print in ns). */
int pp__report_rate_known(const pp_profile_t *p);

/* Time of a path in ticks: its leaf node's self time (0 untimed). */
uint64_t pp__report_path_time(const pp_profile_t *p, const pp_ppath_t *pa);

/* nodes[k] = the node of pa's prefix of length k+1, NULL where none was
 * timed. 0, or -1 out of memory. */
int pp__report_path_nodes(const pp_profile_t *p, const pp_ppath_t *pa, const pp_pnode_t **nodes);

/* ticks in whole ns (ticks when the rate is unknown), rounded as the text
 * report's "%.0f" rounds, saturating. */
uint64_t pp__report_ns(const pp_profile_t *p, uint64_t ticks);

uint64_t pp__report_sat_add(uint64_t a, uint64_t b);

/* A node's inclusive time in ticks: its whole calls' and, under burst
 * timing, the parts of calls its windows cut (pp_ppath_t.open). */
static inline uint64_t pp__report_node_time(const pp_pnode_t *n)
{
	return pp__report_sat_add(n->incl.sum, n->open);
}

/* Length of the well-formed UTF-8 sequence at s, 0 when s starts an
 * ill-formed one. */
/* Text of a name: valid UTF-8 as it is, control and ill-formed bytes as '?'
 * (report_model.c). */
void pp__report_put_text(FILE *out, const char *str);

/* A DOT quoted string, escaped (report_dot.c). */
void pp__report_dot_str(FILE *out, const char *str);

/* The wait-for graph of off-CPU data in DOT (report_waitfor.c). */
int pp__report_waitfor(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o);

/* Throttling under a budget (report_throttled.c): the entry of a
 * throttled function, NULL for any other; the throttled functions pa's last
 * frame called (up to max, into out; their frames are elided from paths
 * after they stopped); the header's budget line and the closing list. */
const pp_throttled_t *pp__report_throttled(const pp_profile_t *p, uint32_t name);
size_t pp__report_elided(const pp_profile_t *p, const pp_ppath_t *pa, uint32_t *out, size_t max);
/* The same for the node (or path) of names[0..depth). Both name each
 * throttled name once, the one whose node there held most time first. */
size_t pp__report_elided_below(const pp_profile_t *p, const uint32_t *names, uint32_t depth, uint32_t *out,
			       size_t max);
void pp__report_budget_line(FILE *out, const pp_profile_t *p);
void pp__report_throttled_text(FILE *out, const pp_profile_t *p);

/* Burst timing's error on a share of self time (report_flat.c): one
 * standard error, counting each window as one sample of the run, sqrt(share
 * x (1 - share) / windows); -1 for a profile not timed in windows. */
double pp__report_share_se(const pp_profile_t *p, double share);

/* A function's totals over its calling contexts (report_flat.c): self
 * time, inclusive time (recursion once), timed calls, and in a compensated
 * profile the self time taken out as the gates' cost; name is the index of
 * its name's first entry in the table. A function is its name: `copies`
 * counts the gated functions of that name the row sums (static functions
 * of one name in several files, a static inline function's copy in each
 * file that calls it), as every name-keyed format (folded, pprof, the
 * selections) already does. `holds_throttled`: the function called one a
 * budget throttled, whose time after the stop is in this self time. */
typedef struct pp__fn_row {
	uint32_t name, copies;
	uint64_t self, incl, calls, gate;
	int holds_throttled;
} pp__fn_row_t;
/* Of a function's measured self time, the share that was the gates' own
 * cost, when it is so large that what compensation leaves is mostly the
 * calibration's error (report_flat.c says why the line is there); 0
 * otherwise, and in a profile not compensated. */
double pp__report_gate_bound(const pp_profile_t *p, const pp__fn_row_t *r);
/* One row per function that ends a timed node, by self time; *n gets the
 * number; NULL when out of memory. */
pp__fn_row_t *pp__report_functions(const pp_profile_t *p, size_t *n);

/* The flat view (report_flat.c): the text header and one line per function
 * by self time; the table alone (top functions, 0: all) the text report
 * prints first under --sort time. */
int pp__report_flat(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o);
int pp__report_flat_table(FILE *out, const pp_profile_t *p, uint32_t top);
/* The text report's header: totals, times, the gate's cost. */
void pp__report_text_header(FILE *out, const pp_profile_t *p);

/* The text report's off-CPU part (report_offcpu.c). 0, or -1 out of memory. */
int pp__report_offcpu_text(FILE *out, const pp_profile_t *p);

size_t pp__report_utf8_seq(const unsigned char *s);

/* "off", "on", "sample" ("unknown" past the enum), as text and JSON print it. */
const char *pp__report_timing_word(uint32_t t);

/* Paths passing the filters, sorted and cut to o->top; *rows is freed by the
 * caller. The number of rows, or -1 when out of memory. */
long pp__report_select(const pp_profile_t *p, const pp_report_opts_t *o, pp__row_t **rows);

/* The path tree: one node per distinct name prefix of the selected paths
 * (a function placed in its path context). Node ids are the stable path ids
 * of the prefixes, so DOT and HTML name a node the same across runs. */
typedef struct pp__tnode {
	uint64_t id;     /* pp__path_id() of the prefix */
	uint64_t parent; /* id of the prefix one shorter; unused at depth 1 */
	uint32_t depth;  /* prefix length, >= 1 */
	uint32_t name;   /* name index of the prefix's last frame */
	uint64_t count;  /* leaf returns of the paths through this node */
	uint64_t leaves; /* ... of those that end here */
	uint64_t calls;  /* timed calls of the node */
	uint64_t time;   /* inclusive ticks of the node, summed over its calls */
	uint64_t self;   /* self ticks of the node */
	int timed;       /* the node was timed */
} pp__tnode_t;

/* Nodes of the tree of rows, by depth, then count (highest first), then id;
 * *nodes is freed by the caller. Returns the number, or -1 out of memory. */
long pp__report_tree(const pp_profile_t *p, const pp__row_t *rows, size_t n, pp__tnode_t **nodes);

/* ids[k] = id of the path's prefix of length k+1 (depth entries). Returns 0,
 * or -1 out of memory. */
int pp__report_prefix_ids(const pp_profile_t *p, const pp_ppath_t *pa, uint64_t *ids);

/* The formats, one file each. Each returns 0, or -1 when out of memory (errno
 * set); write errors are checked by pp__report(). The listing reads the whole
 * profile, not the selection: it sorts by names and ignores top. */
int pp__report_text(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
		    const pp__row_t *rows, size_t n);
int pp__report_json(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
		    const pp__row_t *rows, size_t n);
int pp__report_paths(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o);
int pp__report_folded(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
		      const pp__row_t *rows, size_t n);
int pp__report_dot(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
		   const pp__row_t *rows, size_t n);
int pp__report_html(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
		    const pp__row_t *rows, size_t n);
int pp__report_pprof(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
		     const pp__row_t *rows, size_t n);

/* The HTML page's size budget (html_budget.c): q gets p's metadata, the
 * first keep of the n rows' paths and one "(other)" path per parent of the
 * rest, and the nodes of the kept paths. 0, or -1 out of memory. Free with
 * pp__html_budget_free(q, min(keep, n)). */
int pp__html_budget(const pp_profile_t *p, const pp__row_t *rows, size_t n, size_t keep,
		    pp_profile_t *q);
void pp__html_budget_free(pp_profile_t *q, uint32_t shared_paths);

#endif
