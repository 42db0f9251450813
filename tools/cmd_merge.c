/* `pathprof merge`: combine profile files of several processes or runs into
 * one, paths matched by stable id and histograms added exactly, so a fleet
 * of workers (or a program that forks) reads as one profile. The work is
 * pp__profile_merge(); this file is its command line. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "profile.h"
#include "profile_merge.h"

static const char help_text[] =
	"usage: pathprof merge [options] FILE... -o OUT\n"
	"\n"
	"Merge the profile FILEs (from several processes, forked children or runs)\n"
	"into the profile OUT. Paths are matched by their stable id (the names on\n"
	"the path), so any front-end and any build of the same code combine.\n"
	"Counts, events, records, drops, unmatched exits, threads and nodes' self\n"
	"times are summed; nodes' histograms merge bucket by bucket, so the merged\n"
	"percentiles are those of all the data together. The output is in canonical order:\n"
	"merging is associative and merge A B gives the same bytes as merge B A.\n"
	"\n"
	"Refused, with one line saying why: profiles whose tick rates differ by\n"
	"more than 1 % while both hold times (their histograms are in ticks and\n"
	"would not be comparable), counts that overflow 64 bits, and two paths that\n"
	"share an id with different depths. Different front-ends, commands or pids\n"
	"are fine: the output then says 'mixed', '(merged)' and pid 0.\n"
	"\n"
	"options:\n"
	"  -o, --output OUT  the merged profile (required; may be one of the inputs)\n"
	"  -h, --help        show this help\n"
	"\n"
	"Exit status: 0 success, 1 unreadable input, inputs that cannot be merged or\n"
	"failed write, 2 bad command line.\n";

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_merge(int argc, char **argv)
{
	const char *outpath = NULL;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			outpath = optarg;
			break;
		case 'h':
			return cli_help(help_text);
		default:
			return cli_bad_option("merge", c, argv);
		}
	}
	if (optind >= argc) {
		cli_error("merge: no profile files given (see 'pathprof merge --help')");
		return CLI_USAGE;
	}
	if (!outpath) {
		cli_error("merge: no output given: use -o OUT (see 'pathprof merge --help')");
		return CLI_USAGE;
	}

	pp_profile_t sum, one;
	char err[512];
	memset(&sum, 0, sizeof sum);
	int rc = CLI_OK;
	for (int i = optind; i < argc && rc == CLI_OK; i++) {
		if (argc - optind > 1)
			cli_progress("merge: reading %d of %d: %s", i - optind + 1, argc - optind,
				     argv[i]);
		rc = cli_read_merge(&sum, &one, argv[i], 0);
		if (rc == CLI_OK)
			pp__profile_free(&one);
	}
	if (rc == CLI_OK)
		cli_progress("merge: writing %s (%u paths)", outpath, sum.npaths);
	/* Written only once every input merged, so a bad input never leaves
	 * a partial OUT behind (and OUT may be one of the inputs). */
	if (rc == CLI_OK && pp__profile_write(&sum, outpath, err, sizeof err) < 0) {
		cli_error("%s", err);
		rc = CLI_FAIL;
	}
	cli_progress_end();
	pp__profile_free(&sum);
	return rc;
}
