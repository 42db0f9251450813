/* `pathprof diff A B`: the command and its inputs (two profiles, or two
 * directories of repeated runs, matched path by path by stable id). Every
 * change is B - A; whether a change is real (interval, noise floor,
 * verdict) is decided in report/diff_stats.c, and the text, JSON and HTML
 * outputs are report/report_diff.c. */
#define _GNU_SOURCE
#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pathprof/pathprof.h>
#include "cli.h"
#include "diff_stats.h"
#include "profile.h"
#include "profile_merge.h"
#include "report.h"

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
	"that change, a verdict (slower, faster or no clear change; '(callees)' when\n"
	"the node's own self time moved less than half of it: the change is in\n"
	"code it calls), the impact on the gated time and the row's share of it;\n"
	"per node along its prefix p50 and p99 of A and B and their change. Rows\n"
	"only in A or only in B are listed apart. Rows are sorted by impact\n"
	"(|B - A| of the node's inclusive time per run).\n"
	"\n"
	"options:\n"
	"  --format FMT        'text' (default), 'json', or 'html': one self-contained\n"
	"                      page, B's path tree coloured by these verdicts\n"
	"  --min-change PCT    smallest change called slower/faster (default 2 with\n"
	"                      several runs a side, whose spread raises it per\n"
	"                      path; 10 when a side has one run: two processes of\n"
	"                      one binary drift apart by several percent, raised\n"
	"                      when 20 or more rows scatter more from A to B; see\n"
	"                      docs/guides/trace.md). With several runs a side a\n"
	"                      verdict also needs its row's Welch test on the\n"
	"                      runs to hold at a 5% false-discovery rate over\n"
	"                      all rows\n"
	"  --top N             show the first N paths of each list; 0 = all (default)\n"
	"  --raw               times as measured, the gates' own cost left in (by\n"
	"                      default each run's measure of it is taken out, as\n"
	"                      'pathprof report' does: a build that gates less is\n"
	"                      then not called faster for its gates alone)\n"
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

/* Each run with the gate's cost it measured taken out (unless raw), as
 * `report` shows it, then into the side's sum: a run is compensated with
 * its own measure, before runs of other measures are added up. */
static int load_side(diff_side_t *s, int raw)
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
	s->compensated = !raw;
	s->runs = calloc(s->nruns, sizeof *s->runs);
	if (!s->runs) {
		cli_error("diff: out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < s->nruns; i++) {
		if (s->nruns > 1)
			cli_progress("diff: reading %u of %u: %s", i + 1, s->nruns, s->files[i]);
		const pp_profile_t *r = &s->runs[i];
		if (cli_read_merge(&s->merged, &s->runs[i], s->files[i], !raw) != CLI_OK) {
			cli_progress_end();
			return -1;
		}
		if (!raw && !r->compensated && r->timing != PP_TIMING_OFF)
			s->compensated = -1;
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

enum { OPT_FORMAT = 256, OPT_MIN_CHANGE, OPT_TOP, OPT_RAW };

static const struct option longopts[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "min-change", required_argument, NULL, OPT_MIN_CHANGE },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_diff(int argc, char **argv)
{
	int format = PP__DIFF_TEXT, c;
	uint64_t top = 0, v;
	double min_change = DEFAULT_MIN_CHANGE;
	int min_change_given = 0, raw = 0;
	const char *outpath = NULL;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (!strcmp(optarg, "text") || !strcmp(optarg, "json") || !strcmp(optarg, "html")) {
				format = optarg[0] == 't' ? PP__DIFF_TEXT : optarg[0] == 'j' ? PP__DIFF_JSON : PP__DIFF_HTML;
				break;
			}
			cli_error("diff: --format: '%s' is not 'text', 'json' or 'html'", optarg);
			return CLI_USAGE;
		case OPT_MIN_CHANGE:
			if (cli_parse_u64("diff: --min-change", optarg, 1000, &v) < 0)
				return CLI_USAGE;
			min_change = (double)v;
			min_change_given = 1;
			break;
		case OPT_TOP:
			if (cli_parse_u64("diff: --top", optarg, UINT32_MAX, &top) < 0)
				return CLI_USAGE;
			break;
		case OPT_RAW:
			raw = 1;
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
	if (load_side(&sd[0], raw) != 0 || load_side(&sd[1], raw) != 0)
		goto done;
	diff_floor_t fl = {min_change, DIFF_FLOOR_SET, {0, 0, 0, 0}, 0, 0, 0};
	/* One run a side: the rows' own scatter stands in for the runs'
	 * spread. Several: each row is tested against its runs, under a
	 * false-discovery rate (diff_stats.c). */
	if (!min_change_given && (sd[0].nruns < 2 || sd[1].nruns < 2)) {
		fl.scatter = diff_scatter(sd);
		fl.pct = DIFF_ONE_RUN_FLOOR;
		fl.why = DIFF_FLOOR_ONE_RUN;
		if (fl.scatter.floor_pct > fl.pct) {
			fl.pct = fl.scatter.floor_pct;
			fl.why = DIFF_FLOOR_SCATTER;
		}
	}
	rows = diff_build_rows(sd, &n, &fl);
	if (!rows && (sd[0].merged.npaths || sd[1].merged.npaths)) {
		cli_error("diff: out of memory");
		goto done;
	}
	FILE *f = cli_output_open(outpath);
	if (!f)
		goto done;
	if (pp__report_diff(f, format, sd, rows, n, (uint32_t)top, &fl) < 0) {
		cli_error("diff: out of memory");
		cli_output_close(f, outpath);
		goto done;
	}
	status = cli_output_close(f, outpath);
done:
	diff_rows_free(rows, n);
	side_free(&sd[0]);
	side_free(&sd[1]);
	return status;
}
