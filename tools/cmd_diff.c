/* `pathprof diff A B`: the command, its inputs (two profiles, or two
 * directories of repeated runs, matched path by path by stable id) and its
 * text, JSON and HTML outputs. Every change is B - A; whether a change is
 * real (interval, noise floor, verdict) is decided in diff_stats.c. */
#define _GNU_SOURCE
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "diff_stats.h"
#include "profile.h"
#include "profile_merge.h"
#include "report.h"
#include "report_html.h"

#define DEFAULT_MIN_CHANGE 2.0 /* % */

static const char help_text[] =
	"usage: pathprof diff [options] A B\n"
	"\n"
	"Compare profile A (the baseline) with profile B. A and B are profile files,\n"
	"or directories whose *.pathprof files are repeated runs of each side.\n"
	"A row is a calling-context node (the path prefix that ends at a gate) or\n"
	"a path; rows are matched by stable id. Every change is B - A: positive\n"
	"means B counts more or takes longer.\n"
	"\n"
	"Per row: leaf returns A and B (mean per run) and their change, mean\n"
	"inclusive time per call and its change in ns and %, a 95% interval for\n"
	"that change, a verdict (slower, faster or no clear change), the impact on\n"
	"the gated time and the row's share of it; per node along its prefix p50\n"
	"and p99 of A and B and their change. Rows only in A or only in B are\n"
	"listed apart. Rows are sorted by impact (|B - A| of the node's inclusive\n"
	"time per run).\n"
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
	"line. See docs/guides/trace.md for the statistics, docs/reference/reports.md for the page.\n";

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_dir(diff_side_t *s)
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

static int load_side(diff_side_t *s)
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
		if (s->nruns > 1)
			cli_progress("diff: reading %u of %u: %s", i + 1, s->nruns, s->files[i]);
		if (cli_read_merge(&s->merged, &s->runs[i], s->files[i]) != CLI_OK) {
			cli_progress_end();
			return -1;
		}
		s->total_ns += pp__ticks_ns(&s->runs[i], pp__profile_gated_ticks(&s->runs[i]));
	}
	cli_progress_end();
	s->total_ns /= s->nruns;
	return 0;
}

static void side_free(diff_side_t *s)
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
	fprintf(f, "  %s  %s (%u run%s, %s)\n", tag, s->arg, s->nruns, s->nruns == 1 ? "" : "s",
		s->merged.frontend ? s->merged.frontend : "?");
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
			uint32_t top, double min_change)
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
		fprintf(f, "  verdicts: 95%% bootstrap interval over runs (%d resamples); noise floor "
			   "= spread of A's runs, at least %.1f%%\n",
			DIFF_RESAMPLES, min_change);
	else
		fprintf(f, "  verdicts: 95%% interval from the histograms (one run on a side: no "
			   "spread between runs); noise floor %.1f%%\n",
			min_change);
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

static void json_side(FILE *f, const diff_side_t *s)
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

static void render_json(FILE *f, const diff_side_t *sd, diff_row_t *rows, uint32_t n,
			uint32_t top, double min_change)
{
	fputs("{\n  \"schema\": 2,\n  \"change\": \"B - A\",\n  \"a\": ", f);
	json_side(f, &sd[0]);
	fputs(",\n  \"b\": ", f);
	json_side(f, &sd[1]);
	fputs(",\n  \"min_change_pct\": ", f);
	json_num(f, min_change, 1);
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
static int render_html(FILE *f, const diff_side_t *sd, diff_row_t *rows, uint32_t n,
		       uint32_t top, double min_change)
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
	render_json(mem, sd, rows, n, shown, min_change);
	int rc = fclose(mem) == 0 ? pp__report_html_diff(f, &sd[0].merged, &sd[1].merged, json, len,
							 ids, shown, n)
				  : -1;
	free(ids);
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
	diff_side_t sd[2] = {{.arg = argv[optind]}, {.arg = argv[optind + 1]}};
	int status = CLI_FAIL;
	uint32_t n = 0;
	diff_row_t *rows = NULL;
	if (load_side(&sd[0]) != 0 || load_side(&sd[1]) != 0)
		goto done;
	rows = diff_build_rows(sd, &n, min_change);
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
	diff_rows_free(rows, n);
	side_free(&sd[0]);
	side_free(&sd[1]);
	return status;
}
