/* The outputs of `pathprof diff` (tools/cmd_diff.c reads the two sides):
 * text with its headline, JSON, and the HTML page that reads the JSON and
 * colours B's path tree by the verdicts of diff_stats.c. Every change is
 * B - A. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/pathprof.h>
#include "diff_stats.h"
#include "profile.h"
#include "report.h"
#include "report_html.h"

static const pp_profile_t *owner(const diff_row_t *r)
{
	return r->s[0].entry ? r->s[0].prof : r->s[1].prof;
}

static const pp_ppath_t *any_path(const diff_row_t *r)
{
	return r->s[0].entry ? r->s[0].entry : r->s[1].entry;
}

static void put_names(FILE *f, const diff_row_t *r, const char *sep)
{
	const pp_profile_t *p = owner(r);
	const pp_ppath_t *q = any_path(r);
	for (uint32_t j = 0; j < q->depth; j++)
		fprintf(f, "%s%s", j ? sep : "", p->names[q->names[j]].name);
}

/* Counts are whole numbers for single runs, means with one decimal else. */
static void put_count(FILE *f, double c, int width)
{
	if (c == floor(c))
		fprintf(f, "%*.0f", width, c);
	else
		fprintf(f, "%*.1f", width, c);
}

static void put_num(FILE *f, const char *fmt, double v, int width)
{
	if (isnan(v))
		fprintf(f, "%*s", width, "-");
	else
		fprintf(f, fmt, width, v);
}

static double pct(double a, double b)
{
	return a > 0 ? (b - a) / a * 100 : NAN;
}

/* Percentile p of the inclusive time of stage i (the node of the path's
 * prefix of length i+1) on one side, NAN where it was not timed. */
static void seg_ns(const diff_per_side_t *x, uint32_t i, double p, double *out)
{
	const pp_pnode_t *n = x->entry ? pp__profile_stage(x->prof, x->entry, i) : NULL;
	*out = n && n->incl.count ? pp__ticks_ns(x->prof, pp__seg_percentile(&n->incl, p)) : NAN;
}

static void text_segments(FILE *f, const diff_row_t *r)
{
	const pp_ppath_t *q = any_path(r);
	const pp_profile_t *p = owner(r);
	int timed = r->s[0].prof->nnodes || r->s[1].prof->nnodes;
	if (!timed)
		return;
	fprintf(f, "   %-20s %10s %10s %10s %8s %10s %10s %10s %8s\n", "node (incl.)", "p50 A", "p50 B",
		"change", "%", "p99 A", "p99 B", "change", "%");
	/* stage = the node of each prefix, inclusive time per call */
	for (uint32_t i = 0; i < q->depth; i++) {
		double v[4];
		seg_ns(&r->s[0], i, 50, &v[0]);
		seg_ns(&r->s[1], i, 50, &v[1]);
		seg_ns(&r->s[0], i, 99, &v[2]);
		seg_ns(&r->s[1], i, 99, &v[3]);
		fprintf(f, "   %-20.20s", p->names[q->names[i]].name);
		for (int k = 0; k < 4; k += 2) {
			put_num(f, " %*.0f", v[k], 10);
			put_num(f, " %*.0f", v[k + 1], 10);
			put_num(f, " %+*.0f", v[k + 1] - v[k], 10);
			put_num(f, " %+*.1f", pct(v[k], v[k + 1]), 8);
		}
		fputc('\n', f);
	}
}

static void text_side(FILE *f, const char *tag, const diff_side_t *s)
{
	fprintf(f, "  %s  %s (%u run%s, %s%s)\n", tag, s->arg, s->nruns, s->nruns == 1 ? "" : "s",
		s->merged.frontend ? s->merged.frontend : "?",
		s->merged.timing == PP_TIMING_OFF ? ""
		: s->compensated > 0		  ? "; the gates' cost taken out"
		: s->compensated < 0 ? "; gate cost not measured, in the times"
				     : "; times as measured (--raw)");
}

/* The first line: what a reader wants first, as the HTML page's headline
 * says it (the row of largest impact; rows are sorted by impact). */
static void headline(FILE *f, const diff_row_t *rows, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const diff_row_t *r = &rows[i];
		if (!r->impact || isnan(r->impact))
			continue;
		fputs("Largest change: ", f);
		put_names(f, r, " > ");
		fprintf(f, ": %+.0f ns per run, %s\n", r->impact,
			r->s[0].entry && r->s[1].entry ? r->verdict
			: r->s[0].entry		       ? "only in A"
						       : "only in B");
		return;
	}
	fputs("Largest change: none (no path's time per run changed)\n", f);
}

static void render_text(FILE *f, const diff_side_t *sd, diff_row_t *rows, uint32_t n,
			uint32_t top, const diff_floor_t *fl)
{
	headline(f, rows, n);
	fputs("pathprof diff: change = B - A (positive: B counts more or is slower)\n", f);
	text_side(f, "A", &sd[0]);
	text_side(f, "B", &sd[1]);
	fprintf(f, "  total time per run  A %.0f ns  B %.0f ns  change %+.0f ns", sd[0].total_ns,
		sd[1].total_ns, sd[1].total_ns - sd[0].total_ns);
	put_num(f, " (%+*.1f%%)", pct(sd[0].total_ns, sd[1].total_ns), 0);
	fputc('\n', f);
	if (sd[0].nruns >= 2 && sd[1].nruns >= 2)
		fprintf(f, "  verdicts: 95%% bootstrap interval over runs (%d resamples) and Welch's "
			   "test of the runs at a %.0f%% false-discovery rate over the rows; noise floor "
			   "= spread of A's runs, at least %.1f%%\n",
			DIFF_RESAMPLES, DIFF_FDR * 100, fl->pct);
	else
		fprintf(f, "  verdicts: 95%% interval from the histograms (one run on a side: no "
			   "spread between runs; '(median)': of the median call); noise floor %.1f%%\n",
			fl->pct);
	if (fl->speed_nodes)
		fprintf(f, "  (runs brought to a common speed over %u nodes before the floor and the test: "
			   "the slowest %+.1f%%, the fastest %+.1f%% from their mean)\n",
			fl->speed_nodes, fl->speed_hi_pct, fl->speed_lo_pct);
	if (fl->why == DIFF_FLOOR_ONE_RUN)
		fputs("  (two processes of one binary drift apart by several percent: give several runs a "
		      "side, or --min-change, to judge smaller changes)\n", f);
	else if (fl->why == DIFF_FLOOR_SCATTER)
		fprintf(f, "  (from A to B the %u nodes with verdicts moved by %+.1f%% in the median, "
			   "scattered by %.1f%%: a node is judged beyond that, for all %u at once; give "
			   "more runs a side, or --min-change, to judge smaller changes)\n",
			fl->scatter.n, fl->scatter.shift_pct, fl->scatter.spread_pct, fl->scatter.n);
	for (int only = 0; only < 3; only++) {
		static const char *const title[3] = {"nodes and paths in both", "only in A", "only in B"};
		uint32_t shown = 0;
		for (uint32_t i = 0; i < n; i++) {
			const diff_row_t *r = &rows[i];
			int kind = r->s[0].entry && r->s[1].entry ? 0 : r->s[0].entry ? 1 : 2;
			if (kind != only || (top && shown >= top))
				continue;
			if (!shown++) {
				fprintf(f, "\n%s\n", title[only]);
				fprintf(f, "%-3s %-16s %12s %7s %7s %10s %10s %10s %11s %11s %8s %23s %7s  %s\n",
					"#", "verdict", "impact(ns)", "shareA", "shareB", "count A",
					"count B", "change", "mean A(ns)", "mean B(ns)", "%",
					"95% interval (ns)", "noise%", "id  path");
			}
			fprintf(f, "%-3u %-16s", shown, r->verdict);
			put_num(f, " %+*.0f", r->impact, 12);
			fprintf(f, " %6.2f%% %6.2f%%", r->share[0], r->share[1]);
			put_count(f, r->s[0].count, 11);
			put_count(f, r->s[1].count, 11);
			fprintf(f, " %+10.*f", r->s[1].count - r->s[0].count ==
						  floor(r->s[1].count - r->s[0].count) ? 0 : 1,
				r->s[1].count - r->s[0].count);
			put_num(f, " %*.1f", r->s[0].mean, 11);
			put_num(f, " %*.1f", r->s[1].mean, 11);
			put_num(f, " %+*.1f", r->change_pct, 8);
			if (isnan(r->lo))
				fprintf(f, " %23s", "-");
			else
				fprintf(f, " [%+10.1f,%+10.1f]", r->lo, r->hi);
			put_num(f, " %*.1f", r->noise, 7);
			fprintf(f, "  %016llx  ", (unsigned long long)r->id);
			put_names(f, r, " > ");
			fputc('\n', f);
			text_segments(f, r);
		}
	}
}

/* sep, then "key": v */
static void json_field(FILE *f, const char *sep, const char *key, double v, int decimals)
{
	fprintf(f, "%s\"%s\": ", sep, key);
	pp__report_json_num(f, v, decimals);
}

static void json_side(FILE *f, const diff_side_t *s)
{
	fputs("{\"runs\": [", f);
	for (uint32_t i = 0; i < s->nruns; i++) {
		fputs(i ? ", " : "", f);
		pp__report_json_str(f, s->files[i]);
	}
	fputs("], \"total_ns_per_run\": ", f);
	pp__report_json_num(f, s->total_ns, 1);
	fprintf(f, ", \"compensated\": %s}",
		s->compensated > 0 && s->merged.timing != PP_TIMING_OFF ? "true" : "false");
}

static void render_json(FILE *f, const diff_side_t *sd, diff_row_t *rows, uint32_t n,
			uint32_t top, const diff_floor_t *fl)
{
	fputs("{\n  \"schema\": 2,\n  \"change\": \"B - A\",\n  \"a\": ", f);
	json_side(f, &sd[0]);
	fputs(",\n  \"b\": ", f);
	json_side(f, &sd[1]);
	fputs(",\n  \"min_change_pct\": ", f);
	pp__report_json_num(f, fl->pct, 1);
	if (fl->speed_nodes) {
		fprintf(f, ",\n  \"speed\": {\"nodes\": %u, \"slowest_pct\": ", fl->speed_nodes);
		pp__report_json_num(f, fl->speed_hi_pct, 1);
		fputs(", \"fastest_pct\": ", f);
		pp__report_json_num(f, fl->speed_lo_pct, 1);
		fputc('}', f);
	}
	fprintf(f, ",\n  \"interval\": \"%s\",\n  \"paths\": [",
		sd[0].nruns >= 2 && sd[1].nruns >= 2 ? "bootstrap over runs" : "histogram normal");
	uint32_t shown = 0;
	for (uint32_t i = 0; i < n && (!top || shown < top); i++, shown++) {
		const diff_row_t *r = &rows[i];
		const pp_ppath_t *q = any_path(r);
		const pp_profile_t *p = owner(r);
		fprintf(f, "%s\n    {\"id\": \"%016llx\", \"in\": \"%s\", \"names\": [", i ? "," : "",
			(unsigned long long)r->id,
			r->s[0].entry && r->s[1].entry ? "both" : r->s[0].entry ? "a" : "b");
		for (uint32_t j = 0; j < q->depth; j++) {
			fputs(j ? ", " : "", f);
			pp__report_json_str(f, p->names[q->names[j]].name);
		}
		fprintf(f, "], \"verdict\": \"%s\"", r->verdict);
		json_field(f, ",\n     ", "count_a", r->s[0].count, 1);
		json_field(f, ", ", "count_b", r->s[1].count, 1);
		json_field(f, ", ", "count_change", r->s[1].count - r->s[0].count, 1);
		json_field(f, ", ", "calls_a", r->s[0].ntimed / sd[0].nruns, 1);
		json_field(f, ", ", "calls_b", r->s[1].ntimed / sd[1].nruns, 1);
		json_field(f, ", ", "mean_ns_a", r->s[0].mean, 1);
		json_field(f, ", ", "mean_ns_b", r->s[1].mean, 1);
		json_field(f, ", ", "change_ns", r->change, 1);
		json_field(f, ", ", "change_pct", r->change_pct, 2);
		fprintf(f, ", \"change_of\": \"%s\"", r->by_median ? "median" : "mean");
		fputs(",\n     \"interval_ns\": [", f);
		pp__report_json_num(f, r->lo, 1);
		fputs(", ", f);
		pp__report_json_num(f, r->hi, 1);
		fputc(']', f);
		json_field(f, ", ", "noise_pct", r->noise, 2);
		if (isnan(r->p))
			fputs(", \"p\": null", f);
		else
			fprintf(f, ", \"p\": %.3g", r->p);
		json_field(f, ", ", "impact_ns", r->impact, 1);
		json_field(f, ", ", "share_a_pct", r->share[0], 2);
		json_field(f, ", ", "share_b_pct", r->share[1], 2);
		fputs(",\n     \"segments\": [", f);
		for (uint32_t j = 0; j < q->depth; j++) {
			double v[4];
			seg_ns(&r->s[0], j, 50, &v[0]);
			seg_ns(&r->s[1], j, 50, &v[1]);
			seg_ns(&r->s[0], j, 99, &v[2]);
			seg_ns(&r->s[1], j, 99, &v[3]);
			fputs(j ? ", " : "", f);
			fputs("{\"name\": ", f);
			pp__report_json_str(f, p->names[q->names[j]].name);
			static const char *const key[2] = {"p50", "p99"};
			for (int k = 0; k < 2; k++) {
				fprintf(f, ", \"%s_ns_a\": ", key[k]);
				pp__report_json_num(f, v[2 * k], 0);
				fprintf(f, ", \"%s_ns_b\": ", key[k]);
				pp__report_json_num(f, v[2 * k + 1], 0);
				fprintf(f, ", \"%s_change_ns\": ", key[k]);
				pp__report_json_num(f, v[2 * k + 1] - v[2 * k], 0);
				fprintf(f, ", \"%s_change_pct\": ", key[k]);
				pp__report_json_num(f, pct(v[2 * k], v[2 * k + 1]), 2);
			}
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("\n  ]\n}\n", f);
}

/* The page reads diff's JSON, so its colours are the verdicts above. */
static int render_html(FILE *f, const diff_side_t *sd, diff_row_t *rows, uint32_t n,
		       uint32_t top, const diff_floor_t *fl)
{
	char *json = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&json, &len);
	if (!mem)
		return -1;
	/* Above the page's budget the page lists the paths of largest impact
	 * (rows are sorted by it), and each side carries those first. */
	uint32_t shown = top && top < n ? top : n;
	if (n > PP__HTML_MAX_PATHS && shown > PP__HTML_MAX_PATHS)
		shown = PP__HTML_MAX_PATHS;
	uint64_t *ids = malloc((shown ? shown : 1) * sizeof *ids);
	if (!ids) {
		fclose(mem);
		free(json);
		return -1;
	}
	for (uint32_t i = 0; i < shown; i++)
		ids[i] = rows[i].id;
	render_json(mem, sd, rows, n, shown, fl);
	int rc = fclose(mem) == 0 ? pp__report_html_diff(f, &sd[0].merged, &sd[1].merged, json, len,
							 ids, shown, n)
				  : -1;
	free(ids);
	free(json);
	return rc;
}

int pp__report_diff(FILE *f, int format, const diff_side_t *sd, diff_row_t *rows, uint32_t n,
		    uint32_t top, const diff_floor_t *fl)
{
	if (format == PP__DIFF_HTML)
		return render_html(f, sd, rows, n, top, fl);
	if (format == PP__DIFF_JSON)
		render_json(f, sd, rows, n, top, fl);
	else
		render_text(f, sd, rows, n, top, fl);
	return 0;
}
