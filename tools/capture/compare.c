/* `pathprof capture compare TRACE --lib A.so --lib B.so`: the same
 * recorded workload replayed against two builds of a library, interleaved
 * (A, B, A, B, ...) so that a drift of the machine hits both alike, each
 * pass checked as `replay` checks it and run in a fresh empty working
 * directory (a relative file the program created, a database, starts
 * anew). Per entry point the verdict is a rank test on the passes' total
 * times: 'slower' or 'faster' only when Mann-Whitney's exact two-sided
 * p-value is below 5 % and the medians differ by more than 2 %; otherwise
 * no verdict. Complete separation was the rule before, and one pass slowed
 * by a neighbour on a loaded machine took a 1.8x slowdown's verdict away;
 * the exact test tolerates as many crossed pairs as its 5 % allows (none
 * with 4 passes a side, 2 of 25 with 5, 6 of 49 with 7).
 * docs/guides/capture.md. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture_cli.h"
#include "glob.h"
#include "rank_test.h"
#include "replay.h"
#include "report.h"

#define MIN_PASSES 4
#define MIN_CHANGE 0.02
#define ALPHA 0.05

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

/* One pass of x in a fresh directory; the per-function time it took into
 * totals[i * passes + pass]. */
static int one_pass(pp__cap_replay_t *x, uint64_t *totals, uint64_t pass, uint64_t passes, const char *home)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof dir, "%s/pathprof-compare.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir) || chdir(dir) != 0) {
		cli_error("capture compare: cannot make a working directory in %s: %s", dir, strerror(errno));
		return CLI_FAIL;
	}
	size_t *before = calloc(x->r.nf ? x->r.nf : 1, sizeof *before);
	if (!before) {
		cli_error("capture compare: out of memory");
		return CLI_FAIL;
	}
	for (size_t i = 0; i < x->r.nf; i++)
		before[i] = x->r.fns[i]->nns;
	int st = pp__cap_replay_pass(x);
	for (size_t i = 0; i < x->r.nf; i++) {
		uint64_t t = 0;
		for (size_t k = before[i]; k < x->r.fns[i]->nns; k++)
			t += x->r.fns[i]->ns[k];
		totals[i * passes + pass] = t;
	}
	free(before);
	if (chdir(home) != 0)
		st = CLI_FAIL;
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return st;
}

/* --paths: pass `pass` of build k again in a process of its own, the
 * gated library's gates timed (replay --profile), its profile written to
 * DIR/a or DIR/b: a process each, so the two builds' gates never share a
 * runtime. CLI_OK, or CLI_FAIL said. */
static int gated_pass(const char *trace, const char *lib, const char *dir, int k, uint64_t pass,
		      const char *home)
{
	char self[PATH_MAX], prof[2 * PATH_MAX + 64], wd[PATH_MAX], tr[2 * PATH_MAX + 8];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return CLI_FAIL;
	self[n] = 0;
	if (dir[0] == '/')
		snprintf(prof, sizeof prof, "%s/%c/pass-%03llu.pathprof", dir, 'a' + k, (unsigned long long)pass + 1);
	else
		snprintf(prof, sizeof prof, "%s/%s/%c/pass-%03llu.pathprof", home, dir, 'a' + k,
			 (unsigned long long)pass + 1);
	snprintf(tr, sizeof tr, "%s%s%s", trace[0] == '/' ? "" : home, trace[0] == '/' ? "" : "/", trace);
	snprintf(wd, sizeof wd, "%s/pathprof-compare.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(wd) || chdir(wd) != 0)
		return CLI_FAIL;
	char libabs[2 * PATH_MAX + 8];
	snprintf(libabs, sizeof libabs, "%s%s%s", lib[0] == '/' || !strchr(lib, '/') ? "" : home,
		 lib[0] == '/' || !strchr(lib, '/') ? "" : "/", lib);
	char *argv[] = { self, "capture", "replay", tr, "--lib", libabs, "--profile", prof, "-o", "/dev/null", NULL };
	pid_t pid;
	extern char **environ;
	int st = -1, rc = posix_spawn(&pid, self, NULL, NULL, argv, environ);
	if (rc == 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	if (chdir(home) != 0)
		st = -1;
	nftw(wd, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (rc != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		cli_error("capture compare: --paths: the gated replay of %s (pass %llu) failed", lib,
			  (unsigned long long)pass + 1);
		return CLI_FAIL;
	}
	return CLI_OK;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double median(uint64_t *v, uint64_t n)
{
	qsort(v, n, sizeof *v, by_u64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

/* The verdict on a function's passes (sorted by median()). Ties count
 * against a verdict. */
static const char *verdict(const uint64_t *a, const uint64_t *b, uint64_t n, double ma, double mb)
{
	if (n < MIN_PASSES)
		return "not enough passes";
	if (ma <= 0 || mb <= 0)
		return "no verdict";
	if (mb > ma * (1 + MIN_CHANGE) && 2 * pp__rank_upper_tail(n, pp__rank_pairs_above(a, b, n)) < ALPHA)
		return "slower";
	if (ma > mb * (1 + MIN_CHANGE) && 2 * pp__rank_upper_tail(n, pp__rank_pairs_above(b, a, n)) < ALPHA)
		return "faster";
	return "no verdict";
}

static const char help_text[] =
	"usage: pathprof capture compare TRACE --lib A.so --lib B.so [options]\n"
	"\n"
	"Replay TRACE against two builds of a library, interleaved (A, B, A, B, ...),\n"
	"each pass checked as 'capture replay' checks it and run in a fresh empty\n"
	"working directory. Per timed entry point: its calls, the median over the\n"
	"passes of its total time with A and with B, their ratio (B / A) and a\n"
	"verdict: 'slower' or 'faster' only when a rank test on the passes (exact\n"
	"Mann-Whitney, two-sided) gives p < 0.05 and the medians differ by more\n"
	"than 2 % (needs --repeat 4 or more; with 4 every pass of one build must\n"
	"take longer than every pass of the other); otherwise 'no verdict'.\n"
	"\n"
	"options:\n"
	"  --lib FILE       a build (twice: A, then B)\n"
	"  --repeat N       passes per build (default 5)\n"
	"  --time GLOBS     the functions to compare (default: all)\n"
	"  --serial         replay in the recorded global order, one thread\n"
	"  --paths DIR      the builds were made through a pathprof injector: also\n"
	"                   replay each pass with its gates timed, one process a\n"
	"                   pass, keep the profiles in DIR/a and DIR/b and compare\n"
	"                   their paths as 'pathprof diff DIR/a DIR/b' does (run\n"
	"                   with the runtime preloaded, as 'replay --profile')\n"
	"  --format FMT     'text' (default) or 'json'\n"
	"  -o, --output F   write the table to F\n"
	"  -h, --help       show this help\n"
	"\n"
	"Exit status: 0 both builds replayed the trace exactly; 3 one did not (the\n"
	"difference is named); 1 an unreadable trace or library; 2 bad command line.\n";

int cmd_capture_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lib", required_argument, NULL, 'l' },    { "time", required_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'r' }, { "serial", no_argument, NULL, 's' },
		{ "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },         { "paths", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *libs[2] = { NULL, NULL }, *times = "*", *outpath = NULL, *paths = NULL;
	uint64_t passes = 5;
	int nlibs = 0, json = 0, serial = 0, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (nlibs == 2) {
				cli_error("capture compare: --lib given more than twice");
				return CLI_USAGE;
			}
			libs[nlibs++] = optarg;
			break;
		case 't': times = optarg; break;
		case 'r':
			if (cli_parse_u64("capture compare: --repeat", optarg, 100000, &passes) < 0 || !passes)
				return CLI_USAGE;
			break;
		case 's': serial = 1; break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				cli_error("capture compare: --format: '%s' is not 'text' or 'json'", optarg);
				return CLI_USAGE;
			}
			json = optarg[0] == 'j';
			break;
		case 'o': outpath = optarg; break;
		case 'p': paths = optarg; break;
		case 'h': return cli_help(help_text);
		default: return cli_bad_option("capture compare", c, argv);
		}
	}
	if (argc - optind != 1 || nlibs != 2) {
		cli_error("capture compare: needs one TRACE and --lib twice (see 'pathprof capture compare --help')");
		return CLI_USAGE;
	}
	char err[512], home[PATH_MAX];
	if (pp__select_check(times, ',', err, sizeof err) != 0) {
		cli_error("capture compare: --time: %s", err);
		return CLI_USAGE;
	}
	if (!getcwd(home, sizeof home)) {
		cli_error("capture compare: cannot read the working directory: %s", strerror(errno));
		return CLI_FAIL;
	}
	if (paths) {
		void (*no_exit)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "pp_disable_exit_dump");
		if (!no_exit) {
			cli_error("capture compare: --paths: libpathprof is not loaded; run with it preloaded: "
				  "LD_PRELOAD=$(pkg-config --variable=libdir pathprof)/libpathprof.so.0 pathprof "
				  "capture compare ...");
			return CLI_USAGE;
		}
		no_exit(); /* this process's own gates (in-process passes) are not the profile */
		char sub[PATH_MAX + 8];
		for (int k = 0; k < 2; k++) {
			snprintf(sub, sizeof sub, "%s/%c", paths, 'a' + k);
			if ((mkdir(paths, 0755) != 0 && errno != EEXIST) || (mkdir(sub, 0755) != 0 && errno != EEXIST)) {
				cli_error("capture compare: --paths: cannot make %s: %s", sub, strerror(errno));
				return CLI_FAIL;
			}
		}
	}
	pp__cap_replay_t x[2];
	uint64_t *totals[2] = { NULL, NULL };
	int status = pp__cap_replay_load(&x[0], argv[optind], libs[0], times, 0, serial, 0);
	int loaded = status == CLI_OK ? 2 : 1;
	if (status == CLI_OK)
		status = pp__cap_replay_load(&x[1], argv[optind], libs[1], times, 0, serial, 0);
	if (status == CLI_OK && (x[0].end_msg[0] || x[0].r.nf != x[1].r.nf)) {
		cli_error("capture compare: %s", x[0].end_msg[0] ? x[0].end_msg : "the builds read the trace apart");
		status = CLI_FAIL;
	}
	size_t nf = status == CLI_OK ? x[0].r.nf : 0;
	for (int k = 0; k < 2 && status == CLI_OK; k++)
		if (!(totals[k] = calloc((nf ? nf : 1) * passes, sizeof *totals[k]))) {
			cli_error("capture compare: out of memory");
			status = CLI_FAIL;
		}
	for (uint64_t p = 0; p < passes && status == CLI_OK; p++)
		for (int k = 0; k < 2 && status == CLI_OK; k++) {
			status = one_pass(&x[k], totals[k], p, passes, home);
			if (status == 3)
				cli_error("capture compare: %s (build %c) did not replay the trace as recorded", libs[k],
					  'A' + k);
			if (status == CLI_OK && paths)
				status = gated_pass(argv[optind], libs[k], paths, k, p, home);
		}
	FILE *o = status == CLI_OK ? cli_output_open(outpath) : NULL;
	if (o) {
		if (json)
			fprintf(o, "{\n  \"a\": \"%s\",\n  \"b\": \"%s\",\n  \"passes\": %llu,\n  \"functions\": [",
				libs[0], libs[1], (unsigned long long)passes);
		else
			fprintf(o, "pathprof capture compare: %s, %llu passes a build, interleaved\n  A  %s\n  B  %s\n\n"
				   "%-32s %8s %14s %14s %8s  verdict\n", argv[optind], (unsigned long long)passes,
				libs[0], libs[1], "function", "calls", "A median(ns)", "B median(ns)", "B/A");
		int first = 1;
		for (size_t i = 0; i < nf; i++) {
			const rfn_t *f = x[0].r.fns[i];
			if (!f->timed || !f->calls)
				continue;
			uint64_t *a = totals[0] + i * passes, *b = totals[1] + i * passes;
			double ma = median(a, passes), mb = median(b, passes), ratio = ma > 0 ? mb / ma : 0;
			const char *v = verdict(a, b, passes, ma, mb);
			if (json) {
				fprintf(o, "%s\n    {\"function\": \"%s\", \"calls\": %llu, \"a_ns\": ", first ? "" : ",",
					f->f->name, (unsigned long long)(f->calls / passes));
				pp__report_json_num(o, ma, 1);
				fputs(", \"b_ns\": ", o);
				pp__report_json_num(o, mb, 1);
				fputs(", \"ratio\": ", o);
				pp__report_json_num(o, ratio, 4);
				fprintf(o, ", \"verdict\": \"%s\"}", v);
			} else {
				fprintf(o, "%-32s %8llu %14.0f %14.0f %8.3f  %s\n", f->f->name,
					(unsigned long long)(f->calls / passes), ma, mb, ratio, v);
			}
			first = 0;
		}
		if (json)
			fputs(first ? "]" : "\n  ]", o);
		/* the paths inside: the two directories of per-pass profiles,
		 * compared by pathprof diff (several runs a side), after the
		 * table on standard output, else into DIR/diff.txt */
		if (paths && !json)
			fprintf(o, "\npaths inside: pathprof diff %s/a %s/b%s\n", paths, paths,
				outpath ? " (in DIR/diff.txt)" : "");
		if (json)
			fprintf(o, ",\n  \"paths\": %s%s%s\n}\n", paths ? "\"" : "", paths ? paths : "null",
				paths ? "\"" : "");
		status = cli_output_close(o, outpath);
		if (status == CLI_OK && paths && !json) {
			char da[PATH_MAX + 8], db[PATH_MAX + 8];
			snprintf(da, sizeof da, "%s/a", paths);
			snprintf(db, sizeof db, "%s/b", paths);
			char dout[PATH_MAX + 16];
			snprintf(dout, sizeof dout, "%s/diff.txt", paths);
			char *dargv[6] = { "diff", da, db, NULL, NULL, NULL };
			int dn = 3;
			if (outpath) {
				dargv[dn++] = "-o";
				dargv[dn++] = dout;
			}
			fflush(stdout);
			status = cmd_diff(dn, dargv);
		}
	} else if (status == CLI_OK) {
		status = CLI_FAIL;
	}
	for (int k = 0; k < loaded; k++)
		pp__cap_replay_free(&x[k]);
	free(totals[0]);
	free(totals[1]);
	return status;
}
