/* `pathprof diff A B`: compare two profiles, or two directories of repeated
 * runs, path by path (matched by stable id). Every change is B - A. With
 * repeated runs it also says whether a change is real: a bootstrap interval
 * over the runs, and a verdict that needs the change to clear the noise
 * floor measured as the spread of A's runs against each other. */
#define _GNU_SOURCE
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "map.h"
#include "profile.h"
#include "profile_merge.h"
#include "report.h"
#include "report_html.h"

#define RESAMPLES 2000
#define DEFAULT_MIN_CHANGE 2.0 /* % */

static const char help_text[] =
	"usage: pathprof diff [options] A B\n"
	"\n"
	"Compare profile A (the baseline) with profile B. A and B are profile files,\n"
	"or directories whose *.pathprof files are repeated runs of each side.\n"
	"Paths are matched by stable id. Every change is B - A: positive means B\n"
	"counts more or takes longer.\n"
	"\n"
	"Per path: count A and B (mean per run) and their change, mean time per\n"
	"event and its change in ns and %, a 95% interval for that change, a\n"
	"verdict (slower, faster or no clear change), the impact on total time and\n"
	"the path's share of it; per segment p50 and p99 of A and B and their\n"
	"change. Paths only in A or only in B are listed apart. Rows are sorted by\n"
	"impact (|B - A| of the path's total time per run).\n"
	"\n"
	"options:\n"
	"  --format FMT        'text' (default), 'json', or 'html': one self-contained\n"
	"                      page, B's path tree coloured by these verdicts\n"
	"  --min-change PCT    smallest change called slower/faster (default 2);\n"
	"                      the spread of A's runs raises it per path\n"
	"  --top N             show the first N paths of each list; 0 = all (default)\n"
	"  -o, --output FILE   write to FILE instead of standard output\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 success, 1 unreadable input or failed write, 2 bad command\n"
	"line. See docs/trace.md for the statistics, docs/reports.md for the page.\n";

typedef struct side {
	const char *arg;
	uint32_t nruns;
	pp_profile_t *runs;
	char **files;
	pp_profile_t merged;
	double total_ns; /* per run */
} side_t;

/* One path's numbers on one side: per run time (ns) and timed events. */
typedef struct per_side {
	const pp_profile_t *prof; /* merged */
	const pp_ppath_t *path;   /* in merged, NULL when absent */
	double *time, *timed;     /* per run */
	double count;             /* mean per run */
	double mean;              /* ns per timed event, pooled over runs; NAN if untimed */
	double var;               /* per-event variance bound (ns^2) */
	double ntimed;
} per_side_t;

typedef struct row {
	uint64_t id;
	per_side_t s[2];
	double change, change_pct, lo, hi, noise, impact, share[2];
	const char *verdict;
} row_t;

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_dir(side_t *s)
{
	DIR *d = opendir(s->arg);
	if (!d) {
		cli_error("%s: %m", s->arg);
		return -1;
	}
	struct dirent *e;
	uint32_t cap = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !ends_with(e->d_name, ".pathprof"))
			continue;
		if (s->nruns == cap) {
			cap = cap ? cap * 2 : 16;
			char **m = realloc(s->files, cap * sizeof *m);
			if (!m)
				goto oom;
			s->files = m;
		}
		if (asprintf(&s->files[s->nruns], "%s/%s", s->arg, e->d_name) < 0)
			goto oom;
		s->nruns++;
	}
	closedir(d);
	if (!s->nruns) {
		cli_error("%s: no *.pathprof files in this directory", s->arg);
		return -1;
	}
	qsort(s->files, s->nruns, sizeof *s->files, by_str);
	return 0;
oom:
	closedir(d);
	cli_error("diff: out of memory");
	return -1;
}

static double path_time_ns(const pp_profile_t *p, const pp_ppath_t *q)
{
	double t = 0;
	for (uint32_t i = 0; q->segs && i < q->depth; i++)
		t += pp__ticks_ns(p, q->segs[i].sum);
	return t;
}

static double path_timed(const pp_ppath_t *q)
{
	return q->segs && q->depth ? (double)q->segs[0].count : 0;
}

static int load_side(side_t *s)
{
	struct stat st;
	if (stat(s->arg, &st) != 0) {
		cli_error("%s: %m", s->arg);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		if (list_dir(s) != 0)
			return -1;
	} else {
		s->files = malloc(sizeof *s->files);
		if (!s->files || !(s->files[0] = strdup(s->arg))) {
			cli_error("diff: out of memory");
			return -1;
		}
		s->nruns = 1;
	}
	s->runs = calloc(s->nruns, sizeof *s->runs);
	if (!s->runs) {
		cli_error("diff: out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < s->nruns; i++) {
		if (cli_read_merge(&s->merged, &s->runs[i], s->files[i]) != CLI_OK)
			return -1;
		for (uint32_t j = 0; j < s->runs[i].npaths; j++)
			s->total_ns += path_time_ns(&s->runs[i], &s->runs[i].paths[j]);
	}
	s->total_ns /= s->nruns;
	return 0;
}

static void side_free(side_t *s)
{
	for (uint32_t i = 0; i < s->nruns; i++) {
		pp__profile_free(&s->runs[i]);
		if (s->files)
			free(s->files[i]);
	}
	free(s->runs);
	free(s->files);
	pp__profile_free(&s->merged);
}

/* Deterministic generator for the bootstrap: the same inputs always give the
 * same interval, so outputs can be compared exactly. */
static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Variance of one segment's per-event times from its histogram (bucket
 * midpoints); segment times of one event are not independent, so the path's
 * variance is bounded by (sum of the segments' standard deviations)^2. */
static double path_var(const pp_profile_t *p, const pp_ppath_t *q)
{
	double sd = 0;
	for (uint32_t i = 0; q->segs && i < q->depth; i++) {
		const pp_seg_t *g = &q->segs[i];
		if (!g->count)
			continue;
		double mean = (double)g->sum / (double)g->count, v = 0;
		for (uint32_t b = 0; b < g->nbins; b++) {
			double d = (double)pp__hist_mid(g->bins[b].bucket) - mean;
			v += (double)g->bins[b].count * d * d;
		}
		sd += sqrt(v / (double)g->count);
	}
	double ns = pp__ticks_ns(p, 1000000) / 1e6; /* ns per tick */
	return sd * sd * ns * ns;
}

static void stats(row_t *r, const side_t *sd, double min_change)
{
	per_side_t *a = &r->s[0], *b = &r->s[1];
	for (int k = 0; k < 2; k++) {
		per_side_t *x = &r->s[k];
		double t = 0, n = 0;
		for (uint32_t i = 0; i < sd[k].nruns; i++) {
			t += x->time[i];
			n += x->timed[i];
		}
		x->ntimed = n;
		x->mean = n > 0 ? t / n : NAN;
		x->var = x->path ? path_var(x->prof, x->path) : 0;
		r->share[k] = sd[k].total_ns > 0 ? t / sd[k].nruns / sd[k].total_ns * 100 : 0;
		r->impact += (k ? 1 : -1) * t / sd[k].nruns;
	}
	r->change = b->mean - a->mean;
	r->change_pct = a->mean > 0 ? r->change / a->mean * 100 : NAN;
	r->lo = r->hi = r->noise = NAN;
	r->verdict = !a->path || !b->path ? "-" : "untimed";
	if (isnan(r->change))
		return;
	if (sd[0].nruns >= 2 && sd[1].nruns >= 2) {
		/* Bootstrap over runs: resample each side's runs, pool, difference. */
		double *d = malloc(RESAMPLES * sizeof *d);
		uint64_t x = 0x9e3779b97f4a7c15ull ^ r->id;
		uint32_t got = 0;
		for (uint32_t i = 0; d && i < RESAMPLES; i++) {
			double m[2];
			for (int k = 0; k < 2; k++) {
				double t = 0, n = 0;
				for (uint32_t j = 0; j < sd[k].nruns; j++) {
					uint32_t pick = (uint32_t)(rng_next(&x) % sd[k].nruns);
					t += r->s[k].time[pick];
					n += r->s[k].timed[pick];
				}
				m[k] = n > 0 ? t / n : NAN;
			}
			if (!isnan(m[0]) && !isnan(m[1]))
				d[got++] = m[1] - m[0];
		}
		if (got) {
			qsort(d, got, sizeof *d, by_double);
			r->lo = d[(uint32_t)(0.025 * (got - 1))];
			r->hi = d[(uint32_t)ceil(0.975 * (got - 1))];
		}
		free(d);
	} else {
		double se = sqrt(a->var / a->ntimed + b->var / b->ntimed);
		r->lo = r->change - 1.96 * se;
		r->hi = r->change + 1.96 * se;
	}
	/* Noise floor: how far A's own runs are from each other. */
	double lo = INFINITY, hi = -INFINITY;
	for (uint32_t i = 0; i < sd[0].nruns; i++) {
		if (a->timed[i] <= 0)
			continue;
		double m = a->time[i] / a->timed[i];
		lo = m < lo ? m : lo;
		hi = m > hi ? m : hi;
	}
	double spread = sd[0].nruns >= 2 && hi >= lo && a->mean > 0 ? (hi - lo) / a->mean * 100 : 0;
	r->noise = spread > min_change ? spread : min_change;
	if (r->lo > 0 && r->change_pct > r->noise)
		r->verdict = "slower";
	else if (r->hi < 0 && -r->change_pct > r->noise)
		r->verdict = "faster";
	else
		r->verdict = "no clear change";
}

static int by_impact(const void *x, const void *y)
{
	const row_t *a = x, *b = y;
	double p = fabs(a->impact), q = fabs(b->impact);
	if (p != q)
		return p > q ? -1 : 1;
	double c = a->s[0].count + a->s[1].count, d = b->s[0].count + b->s[1].count;
	if (c != d)
		return c > d ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static const pp_ppath_t *find(const pp_profile_t *p, uint64_t id)
{
	uint32_t lo = 0, hi = p->npaths;
	while (lo < hi) {
		uint32_t m = lo + (hi - lo) / 2;
		if (p->paths[m].id < id)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < p->npaths && p->paths[lo].id == id ? &p->paths[lo] : NULL;
}

/* Every id of either side, with its per-run numbers. */
static row_t *build_rows(side_t *sd, uint32_t *nrows, double min_change)
{
	pp__map_t ids = {0};
	uint32_t n = 0, cap = 0;
	row_t *rows = NULL;
	for (int k = 0; k < 2; k++)
		for (uint32_t i = 0; i < sd[k].merged.npaths; i++) {
			uint64_t id = sd[k].merged.paths[i].id;
			uint32_t at;
			if (pp__map_get(&ids, id, &at))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				row_t *m = realloc(rows, cap * sizeof *m);
				if (!m)
					goto oom;
				rows = m;
			}
			memset(&rows[n], 0, sizeof rows[n]);
			rows[n].id = id;
			if (pp__map_put(&ids, id, n) != 0)
				goto oom;
			n++;
		}
	for (uint32_t r = 0; r < n; r++) {
		for (int k = 0; k < 2; k++) {
			per_side_t *x = &rows[r].s[k];
			x->prof = &sd[k].merged;
			x->path = find(&sd[k].merged, rows[r].id);
			x->time = calloc(sd[k].nruns, sizeof *x->time);
			x->timed = calloc(sd[k].nruns, sizeof *x->timed);
			if (!x->time || !x->timed)
				goto oom;
			for (uint32_t i = 0; i < sd[k].nruns; i++) {
				const pp_ppath_t *q = find(&sd[k].runs[i], rows[r].id);
				if (!q)
					continue;
				x->time[i] = path_time_ns(&sd[k].runs[i], q);
				x->timed[i] = path_timed(q);
				x->count += (double)q->count;
			}
			x->count /= sd[k].nruns;
		}
		stats(&rows[r], sd, min_change);
	}
	pp__map_free(&ids);
	if (n)
		qsort(rows, n, sizeof *rows, by_impact);
	*nrows = n;
	return rows;
oom:
	pp__map_free(&ids);
	for (uint32_t r = 0; r < n; r++)
		for (int k = 0; k < 2; k++) {
			free(rows[r].s[k].time);
			free(rows[r].s[k].timed);
		}
	free(rows);
	*nrows = 0;
	return NULL;
}

static void rows_free(row_t *rows, uint32_t n)
{
	for (uint32_t r = 0; r < n; r++)
		for (int k = 0; k < 2; k++) {
			free(rows[r].s[k].time);
			free(rows[r].s[k].timed);
		}
	free(rows);
}

static const pp_profile_t *owner(const row_t *r)
{
	return r->s[0].path ? r->s[0].prof : r->s[1].prof;
}

static const pp_ppath_t *any_path(const row_t *r)
{
	return r->s[0].path ? r->s[0].path : r->s[1].path;
}

static void put_names(FILE *f, const row_t *r, const char *sep)
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

static void seg_ns(const per_side_t *x, uint32_t i, double p, double *out)
{
	if (!x->path || !x->path->segs || !x->path->segs[i].count) {
		*out = NAN;
		return;
	}
	*out = pp__ticks_ns(x->prof, pp__seg_percentile(&x->path->segs[i], p));
}

static void text_segments(FILE *f, const row_t *r)
{
	const pp_ppath_t *q = any_path(r);
	const pp_profile_t *p = owner(r);
	int timed = (r->s[0].path && r->s[0].path->segs) || (r->s[1].path && r->s[1].path->segs);
	if (!timed)
		return;
	fprintf(f, "   %-20s %10s %10s %10s %8s %10s %10s %10s %8s\n", "segment", "p50 A", "p50 B",
		"change", "%", "p99 A", "p99 B", "change", "%");
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

static void text_side(FILE *f, const char *tag, const side_t *s)
{
	fprintf(f, "  %s  %s (%u run%s, %s)\n", tag, s->arg, s->nruns, s->nruns == 1 ? "" : "s",
		s->merged.frontend ? s->merged.frontend : "?");
}

static void render_text(FILE *f, const side_t *sd, row_t *rows, uint32_t n, uint32_t top,
			double min_change)
{
	fputs("pathprof diff: change = B - A (positive: B counts more or is slower)\n", f);
	text_side(f, "A", &sd[0]);
	text_side(f, "B", &sd[1]);
	fprintf(f, "  total time per run  A %.0f ns  B %.0f ns  change %+.0f ns", sd[0].total_ns,
		sd[1].total_ns, sd[1].total_ns - sd[0].total_ns);
	put_num(f, " (%+*.1f%%)", pct(sd[0].total_ns, sd[1].total_ns), 0);
	fputc('\n', f);
	if (sd[0].nruns >= 2 && sd[1].nruns >= 2)
		fprintf(f, "  verdicts: 95%% bootstrap interval over runs (%d resamples); noise floor "
			   "= spread of A's runs, at least %.1f%%\n",
			RESAMPLES, min_change);
	else
		fprintf(f, "  verdicts: 95%% interval from the histograms (one run on a side: no "
			   "spread between runs); noise floor %.1f%%\n",
			min_change);
	for (int only = 0; only < 3; only++) {
		static const char *const title[3] = {"paths in both", "only in A", "only in B"};
		uint32_t shown = 0;
		for (uint32_t i = 0; i < n; i++) {
			const row_t *r = &rows[i];
			int kind = r->s[0].path && r->s[1].path ? 0 : r->s[0].path ? 1 : 2;
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

static void json_num(FILE *f, double v, int decimals)
{
	if (!isfinite(v))
		fputs("null", f);
	else
		fprintf(f, "%.*f", decimals, v);
}

/* sep, then "key": v */
static void json_field(FILE *f, const char *sep, const char *key, double v, int decimals)
{
	fprintf(f, "%s\"%s\": ", sep, key);
	json_num(f, v, decimals);
}

static void json_side(FILE *f, const side_t *s)
{
	fputs("{\"runs\": [", f);
	for (uint32_t i = 0; i < s->nruns; i++) {
		fputs(i ? ", " : "", f);
		pp__report_json_str(f, s->files[i]);
	}
	fputs("], \"total_ns_per_run\": ", f);
	json_num(f, s->total_ns, 1);
	fputc('}', f);
}

static void render_json(FILE *f, const side_t *sd, row_t *rows, uint32_t n, uint32_t top,
			double min_change)
{
	fputs("{\n  \"schema\": 1,\n  \"change\": \"B - A\",\n  \"a\": ", f);
	json_side(f, &sd[0]);
	fputs(",\n  \"b\": ", f);
	json_side(f, &sd[1]);
	fputs(",\n  \"min_change_pct\": ", f);
	json_num(f, min_change, 1);
	fprintf(f, ",\n  \"interval\": \"%s\",\n  \"paths\": [",
		sd[0].nruns >= 2 && sd[1].nruns >= 2 ? "bootstrap over runs" : "histogram normal");
	uint32_t shown = 0;
	for (uint32_t i = 0; i < n && (!top || shown < top); i++, shown++) {
		const row_t *r = &rows[i];
		const pp_ppath_t *q = any_path(r);
		const pp_profile_t *p = owner(r);
		fprintf(f, "%s\n    {\"id\": \"%016llx\", \"in\": \"%s\", \"names\": [", i ? "," : "",
			(unsigned long long)r->id,
			r->s[0].path && r->s[1].path ? "both" : r->s[0].path ? "a" : "b");
		for (uint32_t j = 0; j < q->depth; j++) {
			fputs(j ? ", " : "", f);
			pp__report_json_str(f, p->names[q->names[j]].name);
		}
		fprintf(f, "], \"verdict\": \"%s\"", r->verdict);
		json_field(f, ",\n     ", "count_a", r->s[0].count, 1);
		json_field(f, ", ", "count_b", r->s[1].count, 1);
		json_field(f, ", ", "count_change", r->s[1].count - r->s[0].count, 1);
		json_field(f, ", ", "mean_ns_a", r->s[0].mean, 1);
		json_field(f, ", ", "mean_ns_b", r->s[1].mean, 1);
		json_field(f, ", ", "change_ns", r->change, 1);
		json_field(f, ", ", "change_pct", r->change_pct, 2);
		fputs(",\n     \"interval_ns\": [", f);
		json_num(f, r->lo, 1);
		fputs(", ", f);
		json_num(f, r->hi, 1);
		fputc(']', f);
		json_field(f, ", ", "noise_pct", r->noise, 2);
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
				json_num(f, v[2 * k], 0);
				fprintf(f, ", \"%s_ns_b\": ", key[k]);
				json_num(f, v[2 * k + 1], 0);
				fprintf(f, ", \"%s_change_ns\": ", key[k]);
				json_num(f, v[2 * k + 1] - v[2 * k], 0);
				fprintf(f, ", \"%s_change_pct\": ", key[k]);
				json_num(f, pct(v[2 * k], v[2 * k + 1]), 2);
			}
			fputc('}', f);
		}
		fputs("]}", f);
	}
	fputs("\n  ]\n}\n", f);
}

/* The page reads diff's JSON, so its colours are the verdicts above. */
static int render_html(FILE *f, const side_t *sd, row_t *rows, uint32_t n, uint32_t top,
		       double min_change)
{
	char *json = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&json, &len);
	if (!mem)
		return -1;
	render_json(mem, sd, rows, n, top, min_change);
	int rc = fclose(mem) == 0 ? pp__report_html_diff(f, &sd[0].merged, &sd[1].merged, json, len) : -1;
	free(json);
	return rc;
}

enum { OPT_FORMAT = 256, OPT_MIN_CHANGE, OPT_TOP };
enum { FMT_TEXT, FMT_JSON, FMT_HTML };

static const struct option longopts[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "min-change", required_argument, NULL, OPT_MIN_CHANGE },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_diff(int argc, char **argv)
{
	int format = FMT_TEXT, c;
	uint64_t top = 0, v;
	double min_change = DEFAULT_MIN_CHANGE;
	const char *outpath = NULL;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (!strcmp(optarg, "text") || !strcmp(optarg, "json") || !strcmp(optarg, "html")) {
				format = optarg[0] == 't' ? FMT_TEXT : optarg[0] == 'j' ? FMT_JSON : FMT_HTML;
				break;
			}
			cli_error("diff: --format: '%s' is not 'text', 'json' or 'html'", optarg);
			return CLI_USAGE;
		case OPT_MIN_CHANGE:
			if (cli_parse_u64("diff: --min-change", optarg, 1000, &v) < 0)
				return CLI_USAGE;
			min_change = (double)v;
			break;
		case OPT_TOP:
			if (cli_parse_u64("diff: --top", optarg, UINT32_MAX, &top) < 0)
				return CLI_USAGE;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'h':
			return cli_help(help_text);
		default:
			return cli_bad_option("diff", c, argv);
		}
	}
	if (argc - optind != 2) {
		cli_error("diff: needs two profiles or directories, A and B (see 'pathprof diff "
			  "--help')");
		return CLI_USAGE;
	}
	side_t sd[2] = {{.arg = argv[optind]}, {.arg = argv[optind + 1]}};
	int status = CLI_FAIL;
	uint32_t n = 0;
	row_t *rows = NULL;
	if (load_side(&sd[0]) != 0 || load_side(&sd[1]) != 0)
		goto done;
	rows = build_rows(sd, &n, min_change);
	if (!rows && (sd[0].merged.npaths || sd[1].merged.npaths)) {
		cli_error("diff: out of memory");
		goto done;
	}
	FILE *f = cli_output_open(outpath);
	if (!f)
		goto done;
	if (format == FMT_HTML) {
		if (render_html(f, sd, rows, n, (uint32_t)top, min_change) < 0) {
			cli_error("diff: out of memory");
			cli_output_close(f, outpath);
			goto done;
		}
	} else if (format == FMT_JSON) {
		render_json(f, sd, rows, n, (uint32_t)top, min_change);
	} else {
		render_text(f, sd, rows, n, (uint32_t)top, min_change);
	}
	status = cli_output_close(f, outpath);
done:
	rows_free(rows, n);
	side_free(&sd[0]);
	side_free(&sd[1]);
	return status;
}
