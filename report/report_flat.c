/* The flat view's table: one line per function, the answer to "where does the time
 * go?" in one screen (gprof's flat profile, `pprof -top`). A function's
 * self time is the sum of its nodes' self times over every calling context;
 * its inclusive time sums the contexts where it is not already open further
 * up (recursion is counted once; under burst timing, with the parts of
 * calls a window cut); calls are its nodes' whole timed calls. Times
 * are whatever the profile holds: compensated unless --raw. Sorted by self
 * time, then inclusive time, then name. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/state.h>

#include "report_impl.h"

/* Why this error: a window of about 100 us is a sample of the run's time
 * the way a profiler's tick is an instant of it, and the windows, at random
 * phases, number `windows`; a share estimated from n independent instants
 * has the binomial error. A window averages over its length, and one
 * window a period is a stratified draw, both of which only lower the true
 * error: this is the estimate's error at most, of the windows' shares
 * against the whole run's, not the gate's cost (compensation's part). */
double pp__report_share_se(const pp_profile_t *p, double share)
{
	if (p->timing != PP_TIMING_BURST || !p->windows)
		return -1;
	if (share < 0)
		share = 0;
	if (share > 1)
		share = 1;
	return sqrt(share * (1 - share) / (double)p->windows);
}

/* Why 80 %: compensation takes out one calibrated cost per call, and a
 * gate's cost in place differs from its calibration by up to about a
 * tenth (bench/compensate.c's helper, process by process, fifteen each:
 * raii 30.7-34.0 ns in place against 32.7-35.2 calibrated, but for one
 * calibration at 43.3; cyg 31.6-35.3 against 32.9-36.2). Where the gates were 80 % of
 * a function's measured self time, that tenth of their cost is 40 % of
 * what is left, or more: the time shown is no longer a measure of the
 * function; a build without the gates `pathprof select` lists is. */
#define PP__GATE_BOUND 0.8

double pp__report_gate_bound(const pp_profile_t *p, const pp__fn_row_t *r)
{
	if (!p->compensated || !r->gate)
		return 0;
	double share = (double)r->gate / ((double)r->gate + (double)r->self);
	return share >= PP__GATE_BOUND ? share : 0;
}

static const pp_profile_t *sort_p;

static int by_self(const void *a, const void *b)
{
	const pp__fn_row_t *x = a, *y = b;
	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->incl != y->incl)
		return x->incl < y->incl ? 1 : -1;
	return strcmp(pp__report_name(sort_p, x->name), pp__report_name(sort_p, y->name));
}

static int by_name(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(pp__report_name(sort_p, x), pp__report_name(sort_p, y));
	return c ? c : (x > y) - (x < y);
}

/* canon[i]: the first index in the table whose name is name i's. The
 * table holds a name per gated function, so two functions of one name
 * (static, in different files) have two entries. */
static uint32_t *canonical_names(const pp_profile_t *p)
{
	uint32_t n = p->nnames, *order = malloc((n ? n : 1) * sizeof *order);
	uint32_t *canon = malloc((n ? n : 1) * sizeof *canon);
	if (!order || !canon) {
		free(order);
		free(canon);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	sort_p = p;
	qsort(order, n, sizeof *order, by_name);
	for (uint32_t i = 0, first = 0; i < n; i++) {
		if (i && strcmp(pp__report_name(p, order[i]), pp__report_name(p, order[first])))
			first = i;
		canon[order[i]] = order[first]; /* the lowest index: sorted by index within a name */
	}
	free(order);
	return canon;
}

pp__fn_row_t *pp__report_functions(const pp_profile_t *p, size_t *n)
{
	pp__fn_row_t *all = calloc(p->nnames ? p->nnames : 1, sizeof *all);
	uint32_t *canon = canonical_names(p);
	/* which name entries ended a node: a function's copies */
	uint8_t *seen = calloc(p->nnames ? p->nnames : 1, 1);
	if (!all || !canon || !seen) {
		free(all);
		free(canon);
		free(seen);
		return NULL;
	}
	for (uint32_t i = 0; i < p->nnodes; i++) {
		const pp_pnode_t *q = &p->nodes[i];
		/* a node seen only in cut calls (burst timing) has time, no call */
		if (!q->depth || (!q->incl.count && !q->open) || q->names[q->depth - 1] >= p->nnames)
			continue;
		uint32_t own = q->names[q->depth - 1], f = canon[own];
		int nested = 0;
		for (uint32_t k = 0; k + 1 < q->depth && !nested; k++)
			nested = q->names[k] < p->nnames && canon[q->names[k]] == f;
		if (!seen[own]) {
			seen[own] = 1;
			all[f].copies++;
		}
		all[f].self += q->self;
		all[f].calls += q->incl.count;
		if (p->compensated)
			all[f].gate += q->gate;
		if (!nested)
			all[f].incl += pp__report_node_time(q);
		uint32_t el;
		if (!all[f].holds_throttled && pp__report_elided_below(p, q->names, q->depth, &el, 1))
			all[f].holds_throttled = 1;
	}
	free(canon);
	free(seen);
	size_t k = 0;
	for (uint32_t f = 0; f < p->nnames; f++)
		if (all[f].calls || all[f].incl || all[f].self) {
			all[k] = all[f];
			all[k++].name = f;
		}
	sort_p = p;
	qsort(all, k, sizeof *all, by_self);
	*n = k;
	return all;
}

int pp__report_flat_table(FILE *out, const pp_profile_t *p, uint32_t top)
{
	size_t n;
	pp__fn_row_t *rows = pp__report_functions(p, &n);
	if (!rows)
		return -1;
	int ns = pp__report_rate_known(p);
	double gated = (double)pp__profile_gated_ticks(p), cum = 0;
	size_t shown = top && top < n ? top : n;
	int se = pp__report_share_se(p, 0) >= 0;
	fprintf(out, "\n%zu of %zu functions by self time%s\n", shown, n,
		p->compensated ? " (the gates' own cost taken out)" : "");
	if (se)
		fprintf(out, "(burst timing: self%% is an estimate from %llu windows; +- is its standard "
			"error, counting each window as one sample)\n", (unsigned long long)p->windows);
	fputc('\n', out);
	fprintf(out, "%14s %7s%s %7s %14s %7s %12s  function\n", ns ? "self(ns)" : "self(ticks)", "self%",
		se ? "     +-" : "", "cum%", ns ? "incl(ns)" : "incl(ticks)", "incl%", "calls");
	int bound = 0, holds = 0, copies = 0;
	for (size_t i = 0; i < shown; i++) {
		const pp__fn_row_t *r = &rows[i];
		cum += (double)r->self;
		double share = gated ? (double)r->self / gated : 0;
		fprintf(out, "%14.0f %6.2f%%", pp__ticks_ns(p, r->self), 100 * share);
		if (se)
			fprintf(out, " %6.2f", 100 * pp__report_share_se(p, share));
		fprintf(out, " %6.2f%% %14.0f %6.2f%% %12llu  ", gated ? 100.0 * cum / gated : 0,
			pp__ticks_ns(p, r->incl), gated ? 100.0 * (double)r->incl / gated : 0,
			(unsigned long long)r->calls);
		pp__report_put_text(out, pp__report_name(p, r->name));
		if (r->copies > 1) {
			fprintf(out, "  (%u functions)", r->copies);
			copies = 1;
		}
		if (pp__report_throttled(p, r->name))
			fputs("  (throttled)", out);
		if (r->holds_throttled) {
			fputs("  (holds throttled)", out);
			holds = 1;
		}
		double g = pp__report_gate_bound(p, r);
		if (g > 0) {
			fprintf(out, "  (%.0f%% gate)", 100 * g);
			bound = 1;
		}
		fputc('\n', out);
	}
	if (bound)
		fprintf(out, "\n(N%% gate: of the function's measured self time, N%% was the cost of gates,\n"
			" its own and those of the functions it calls; what is left is within the\n"
			" calibration's error: `pathprof select` lists the gates to rebuild without)\n");
	if (copies)
		fprintf(out, "\n(N functions: as many gated functions have this name, static ones in\n"
			" different files or a static inline function's copies: the row sums them)\n");
	if (holds)
		fprintf(out, "\n(holds throttled: the function called functions a budget throttled; from\n"
			" their stop on, their time is in its self time: 'throttled' below lists them)\n");
	free(rows);
	return 0;
}
