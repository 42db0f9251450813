/* `pathprof report`: read a profile file and render it with pp__report().
 * Text shows the hottest paths
 * by default; every other format gives every path unless filtered. */
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "cli.h"
#include "profile.h"
#include "report.h"

/* A text report is read by a person: beyond the first screens the hottest
 * paths are lost in the tail. JSON and the listing are for programs. */
#define TEXT_DEFAULT_TOP 20

static const char help_head[] =
	"usage: pathprof report [options] FILE\n"
	"\n"
	"Print the profile FILE: its totals and gated time, then the paths with\n"
	"their counts and, when timed, the calling-context node of each prefix:\n"
	"calls, inclusive time per call (mean, p50, p99) and self time (mean, total).\n"
	"Self times add up to the gated time; no figure exceeds the run. The\n"
	"timed gate's own cost, measured by the process at exit, is taken out of\n"
	"every time shown (the header says how much; docs/reference/semantics.md).\n"
	"\n"
	"options:\n"
	"  --top N           show the first N paths after sorting; 0 shows all\n"
	"                    (default: 20 for text, all for json; paths ignores it)\n"
	"  --sort KEY        order paths by 'count' (leaf returns, the default) or\n"
	"                    'time' (the path's leaf node's self time); text with\n"
	"                    'time' first lists functions by self time (as flat)\n"
	"  --min-count N     hide paths with fewer than N leaf returns\n"
	"  --min-time TIME   hide paths whose leaf self time is below TIME: a number\n"
	"                    with ns, us, ms or s (1ms, 250us); no unit: ns\n"
	"                    (untimed paths count as 0)\n"
	"  --format FMT      the format, one of:\n";

/* ... the formats (report.c's table), then: */
static const char help_tail[] =
	"  --value V         folded only: 'count' (a line per path: leaf returns, the\n"
	"                    default), 'time' (a line per node: self time, ns, so\n"
	"                    widths add up to inclusive times) or 'leaf' (a line per\n"
	"                    path: its leaf node's self time, ns)\n"
	"  --min-share PCT   dot only: leave out nodes below PCT percent of the total\n"
	"                    (time, or count when untimed), summed in '...' boxes;\n"
	"                    0 keeps all (default: what keeps about 100 nodes)\n"
	"  --names FORM      'full' (default) or 'short': C++ names without return\n"
	"                    type, template arguments and parameters, in every\n"
	"                    format (bool ns::f<int>(int) const -> ns::f)\n"
	"  --raw             the times as measured, the gates' own cost left in\n"
	"  -o, --output FILE write to FILE instead of standard output\n"
	"  --formats         list the format names, one a line, and exit\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 success, 1 unreadable or invalid FILE or failed write,\n"
	"2 bad command line. See docs/reference/cli.md for the JSON schema and\n"
	"docs/reference/reports.md for folded, dot, html and pprof.\n";

enum { OPT_TOP = 256, OPT_SORT, OPT_MIN_COUNT, OPT_MIN_TIME, OPT_FORMAT, OPT_VALUE, OPT_NAMES,
       OPT_MIN_SHARE, OPT_FORMATS, OPT_RAW };

static const struct option longopts[] = {
	{ "top", required_argument, NULL, OPT_TOP },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "min-count", required_argument, NULL, OPT_MIN_COUNT },
	{ "min-time", required_argument, NULL, OPT_MIN_TIME },
	{ "names", required_argument, NULL, OPT_NAMES },
	{ "min-share", required_argument, NULL, OPT_MIN_SHARE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "formats", no_argument, NULL, OPT_FORMATS },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "value", required_argument, NULL, OPT_VALUE },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int help(void)
{
	fputs(help_head, stdout);
	pp__report_format_help(stdout, 20);
	fputs(help_tail, stdout);
	return cli_output_close(stdout, NULL);
}

/* --formats: the format names, one a line (shell completion reads them). */
static int list_formats(void)
{
	for (int i = 0; i < PP_REPORT_NFORMATS; i++)
		puts(pp__report_formats[i].name);
	return cli_output_close(stdout, NULL);
}

int cmd_report(int argc, char **argv)
{
	pp_report_opts_t o = { .format = PP_FORMAT_TEXT, .sort = PP_SORT_COUNT };
	const char *outpath = NULL;
	int top_given = 0, value_given = 0, short_names = 0, raw = 0, c;
	uint64_t v;

	optind = 0; /* glibc: full re-initialisation; options may follow FILE */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_TOP:
			if (cli_parse_u64("report: --top", optarg, UINT32_MAX, &v) < 0)
				return CLI_USAGE;
			o.top = (uint32_t)v;
			top_given = 1;
			break;
		case OPT_SORT:
			if (pp__report_sort_parse(optarg, &o.sort) < 0) {
				cli_error("report: --sort: '%s' is not 'count' or 'time'", optarg);
				return CLI_USAGE;
			}
			break;
		case OPT_MIN_COUNT:
			if (cli_parse_u64("report: --min-count", optarg, UINT64_MAX, &o.min_count) < 0)
				return CLI_USAGE;
			break;
		case OPT_MIN_TIME:
			if (cli_parse_duration("report: --min-time", optarg, &o.min_time_ns) < 0)
				return CLI_USAGE;
			break;
		case OPT_FORMAT: {
			int f;
			if (cli_report_format("report", optarg, &f) != 0)
				return CLI_USAGE;
			o.format = (pp_report_format_t)f;
			break;
		}
		case OPT_FORMATS:
			return list_formats();
		case OPT_VALUE:
			if (pp__report_value_parse(optarg, &o.value) < 0) {
				cli_error("report: --value: '%s' is not 'count', 'time' or 'leaf'", optarg);
				return CLI_USAGE;
			}
			value_given = 1;
			break;
		case 'o':
			outpath = optarg;
			break;
		case OPT_MIN_SHARE: {
			char *end;
			o.min_share = strtod(optarg, &end);
			if (!*optarg || *end || !(o.min_share >= 0 && o.min_share <= 100)) {
				cli_error("report: --min-share: '%s' is not a percentage from 0 to 100", optarg);
				return CLI_USAGE;
			}
			o.min_share_set = 1;
			break;
		}
		case OPT_NAMES:
			if (strcmp(optarg, "full") && strcmp(optarg, "short")) {
				cli_error("report: --names: '%s' is not 'full' or 'short'", optarg);
				return CLI_USAGE;
			}
			short_names = !strcmp(optarg, "short");
			break;
		case OPT_RAW:
			raw = 1;
			break;
		case 'h':
			return help();
		default:
			return cli_bad_option("report", c, argv);
		}
	}
	if (optind >= argc) {
		cli_error("report: no profile file given (see 'pathprof report --help')");
		return CLI_USAGE;
	}
	if (argc - optind > 1) {
		cli_error("report: one profile file expected, got %d (see 'pathprof report --help')",
			  argc - optind);
		return CLI_USAGE;
	}
	if (!top_given && o.format == PP_FORMAT_TEXT)
		o.top = TEXT_DEFAULT_TOP;
	if (value_given && o.format != PP_FORMAT_FOLDED) {
		cli_error("report: --value applies to --format folded only");
		return CLI_USAGE;
	}

	/* gzip bytes on a terminal help no one and can upset it */
	if (o.format == PP_FORMAT_PPROF && (!outpath || !strcmp(outpath, "-")) && isatty(1)) {
		cli_error("report: --format pprof is binary: write it with -o FILE or redirect "
			  "standard output");
		return CLI_USAGE;
	}
	const char *path = argv[optind];
	pp_profile_t p;
	if (cli_read_profile(&p, path) != CLI_OK)
		return CLI_FAIL;
	if ((!raw && pp__profile_compensate(&p) != 0) ||
	    (short_names && pp__report_names_short(&p) != 0)) {
		cli_error("report: %s: out of memory", path);
		pp__profile_free(&p);
		return CLI_FAIL;
	}

	/* Opened only now, so that a bad FILE does not truncate the output. */
	int rc = CLI_FAIL;
	FILE *out = cli_output_open(outpath);
	if (out) {
		/* a profile this big takes seconds in some formats */
		if (p.npaths >= 100000)
			cli_progress("report: %s: %u paths; writing the report", path, p.npaths);
		int r = pp__report(out, &p, &o);
		cli_progress_end();
		rc = cli_output_close(out, outpath);
		if (r < 0 && rc == CLI_OK) {
			cli_error("report: %s: rendering failed: out of memory", path);
			rc = CLI_FAIL;
		}
	}
	pp__profile_free(&p);
	return rc;
}
