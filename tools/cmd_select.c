/* `pathprof select PROFILE --budget PCT`: which functions are not worth
 * their gates. From a timed profile whose process measured its gate's cost
 * (docs/reference/semantics.md), a function's gates cost its timed calls
 * times that cost; the work they hold is its inclusive time with the cost
 * taken out. A function whose gates cost more than PCT percent of the work
 * they hold is dropped: the list is written in the form the injector takes,
 * so the next build or run gates only what is worth it (TAU's throttling of
 * small, frequent functions, decided from the measure rather than a fixed
 * rule); then more, in that order, until the gates kept cost at most PCT
 * percent of all the work. A function with fewer than SELECT_MIN_CALLS timed calls is never
 * dropped, as the budget never judges one (runtime/throttle.c): its gates
 * cost next to nothing, and where the measured cost overshoots the real one
 * (it is a mean, docs/reference/semantics.md) its compensated work can come
 * out 0 (a loop calling a 5 ns helper 200 000 times, under ASan). The rule
 * is what it says: docs/guides/selection.md.
 *
 * A cyg or plugin build's gate inlined into a dropped function keeps its
 * hooks there (inlined_hooks.c): --binary reads them from the program (and
 * from each shared library given with it: a libtool project's code sits in
 * its library) and drops such a function too, until no kept function's
 * hooks sit in a dropped one. --previous takes the list a first pass wrote,
 * for a second pass over the rebuilt program's profile (select_previous.c). */
#define SELECT_MIN_CALLS 1000u
#define SELECT_MAX_BINARIES 64
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "glob.h"
#include "inlined_hooks.h"
#include "select_previous.h"
#include "settings.h"
#include "report_impl.h"

static const char help_text[] =
	"usage: pathprof select PROFILE [--budget PCT] [--binary EXE] [--format FMT]\n"
	"                        [--previous LIST] [-o FILE]\n"
	"\n"
	"List the functions of a timed PROFILE whose gates cost more than PCT\n"
	"percent (default 5) of the work they hold: a function's gate cost is its\n"
	"timed calls times the gate's cost the process measured; its work is its\n"
	"inclusive time without that cost. A function with fewer than 1000 timed\n"
	"calls is kept whatever its figures. Then, while the gates kept would cost\n"
	"more than PCT percent of all the work (the compensated self times), the\n"
	"kept function whose gates cost most for its work goes too. With --binary,\n"
	"a kept function the compiler inlined into a dropped one goes as well.\n"
	"Writes the list for the next build or run, and on standard error what\n"
	"dropping them saves.\n"
	"\n"
	"options:\n"
	"  --budget PCT   the share of a function's work its gates may cost (0-100)\n"
	"  --binary EXE   the profile's program (cyg, plugin): its machine code\n"
	"                 says which gated functions were inlined into others;\n"
	"                 one inlined into a dropped function keeps its gate there,\n"
	"                 which costs that function's every call, so it is\n"
	"                 dropped too (needs objdump, readelf and c++filt:\n"
	"                 binutils). Again for each shared library of the\n"
	"                 program's that holds gated code (libtool: .libs/*.so);\n"
	"                 the program's build id is checked, a library's cannot\n"
	"                 be (the profile records none)\n"
	"  --format FMT   'names' (default): the dropped functions, one a line,\n"
	"                 for pathprof-cc --exclude-functions=@FILE (cyg, raii;\n"
	"                 whole names, C and C++; with gcc, compiled out);\n"
	"                 'exclude': one line '!f,!g,...' for PATHPROF_FUNCTIONS or\n"
	"                 PATHPROF_XRAY (an XRay build arms only the others: the\n"
	"                 dropped cost nothing; '*' when nothing is dropped);\n"
	"                 'keep': the kept functions, one glob a line, for\n"
	"                 pathprof-cc --via=plugin --plugin-list=FILE;\n"
	"                 'gcc': one line 'f,g,...' for gcc's\n"
	"                 -finstrument-functions-exclude-function-list, which\n"
	"                 matches substrings: standard error names the kept\n"
	"                 functions a dropped name also drops; a name with a\n"
	"                 comma, or a C++ name (gcc matches its own spelling,\n"
	"                 not the demangler's), is left out (it stays gated):\n"
	"                 for C++, 'names' with pathprof-cc; pathprof-cc leaves\n"
	"                 out the flag given empty (nothing dropped)\n"
	"  --previous LIST\n"
	"                 the list (same --format) a first select wrote, when\n"
	"                 PROFILE is of the program rebuilt (XRay: re-armed) with\n"
	"                 it: the new list holds LIST's entries and what this\n"
	"                 profile adds. The first profile's own gates distort\n"
	"                 what it measures, this one's far less: a second pass\n"
	"                 drops what the first kept beyond the budget\n"
	"  -o, --output F write the list to F\n"
	"  -h, --help     show this help\n"
	"\n"
	"Exit status: 0 success, 1 a profile without times or without the gate's\n"
	"measured cost, a --binary that cannot be read or is neither the profile's\n"
	"program nor a shared library, a --previous LIST that cannot be read or is not a list of that\n"
	"--format, or a failed write; 2 bad command line.\n";

/* A name as a glob that matches it alone (and, in a list, stays one entry). */
static void put_glob(FILE *o, const char *s)
{
	if (*s == '!')
		fputc('\\', o);
	for (; *s; s++) {
		if (strchr("*?[]\\,", *s))
			fputc('\\', o);
		fputc(*s, o);
	}
}

/* gcc's exclude list matches a name anywhere in a function's name, and its
 * entries are separated by commas. A dropped name that a kept function's
 * name holds drops that one too: said, with the functions it takes (left
 * out instead, such names stayed gated and cost SQLite 1.38x of plain
 * where the list meets the budget at 1.13x; dropping a kept function loses
 * its detail, its time goes to its caller). A name with a comma cannot be
 * written: left out (it stays gated). 1: write it. */
static int gcc_name_ok(const pp_profile_t *p, const pp__fn_row_t *rows, size_t n, const char *drop,
		       const char *name)
{
	if (strchr(name, ',')) {
		cli_error("select: --format gcc: '%s' left out (it stays gated): gcc's list cannot hold "
			  "a comma", name);
		return 0;
	}
	/* gcc matches its own spelling of a C++ function: no parameters, no
	 * return type, "{anonymous}" for "(anonymous namespace)", its own
	 * names of types; a name from the demangler, parameters and all,
	 * is never in it, and would be dropped from nothing */
	if (strchr(name, '(')) {
		cli_error("select: --format gcc: '%s' left out (it stays gated): gcc's list cannot name "
			  "a C++ function; 'pathprof-cc --exclude-functions=@FILE' with --format names can",
			  name);
		return 0;
	}
	size_t hits = 0;
	for (size_t i = 0; i < n; i++)
		hits += !drop[i] && strstr(pp__report_name(p, rows[i].name), name) != NULL;
	if (!hits)
		return 1;
	fprintf(stderr, "pathprof: select: --format gcc: '%s' also drops the kept", name);
	for (size_t i = 0, k = 0; i < n; i++) {
		const char *kept = pp__report_name(p, rows[i].name);
		if (!drop[i] && strstr(kept, name))
			fprintf(stderr, "%s '%s'", k++ ? "," : "", kept);
	}
	fputs(" (gcc matches substrings; pathprof-cc --exclude-functions=@FILE with --format names "
	      "matches whole names)\n", stderr);
	return 1;
}

/* One name of the list, in the format's form. */
static void put_name(FILE *o, const char *format, int *first, const pp_profile_t *p,
		     const pp__fn_row_t *rows, size_t n, const char *drop, const char *name)
{
	if (!strcmp(format, "gcc")) {
		if (!gcc_name_ok(p, rows, n, drop, name))
			return;
		if (!*first)
			fputc(',', o);
		fputs(name, o);
	} else if (!strcmp(format, "exclude")) {
		fputs(*first ? "!" : ",!", o);
		put_glob(o, name);
	} else {
		put_glob(o, name);
		fputc('\n', o);
	}
	*first = 0;
}

/* One entry of --previous's list, as it was written. */
static void put_entry(FILE *o, const pp__prev_list_t *l, int *first, size_t at, size_t len)
{
	if (!*first && l->sep == ',')
		fputc(',', o);
	fwrite(l->text + at, 1, len, o);
	if (l->sep == '\n')
		fputc('\n', o);
	*first = 0;
}

/* Does any row's function match the one glob of --previous's keep list at
 * (at, len)? */
static int entry_names_a_row(const pp__prev_list_t *l, size_t at, size_t len, const pp_profile_t *p,
			     const pp__fn_row_t *rows, size_t n)
{
	char *g = strndup(l->text + at, len);
	int hit = 0;
	for (size_t i = 0; g && i < n && !hit; i++)
		hit = pp__select_name(g, '\n', pp__report_name(p, rows[i].name));
	free(g);
	return hit;
}

/* Rows are functions by name: the row named s, or n. */
static size_t row_named(const pp_profile_t *p, const pp__fn_row_t *rows, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(pp__report_name(p, rows[i].name), s))
			return i;
	return n;
}

/* The row whose plugin key is hash (its name taken as mangled: exact for
 * C), or n. */
static size_t row_keyed(const pp_profile_t *p, const pp__fn_row_t *rows, size_t n, uint64_t hash)
{
	for (size_t i = 0; i < n; i++)
		if (pp__plugin_key(pp__report_name(p, rows[i].name)) == hash)
			return i;
	return n;
}

/* Is s one of the n names in v? */
static int named_in(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

/* --binary: drop each kept function whose hooks the compiler inlined into
 * a dropped one, until none is left (a function dropped so may host
 * others). A function the run never gated but whose hooks sit in a dropped
 * one (its calls there took another branch) goes into *extra: the next
 * build would gate it. How many went in all, or -1 after one line. */
static long drop_inlined(const pp_profile_t *p, const char *path, const char *const *binaries,
			 int nbinaries, const pp__fn_row_t *rows, size_t n, char *drop, double cost,
			 double *dropped_cost, char ***extra, size_t *nextra)
{
	int plugin = !strcmp(p->frontend, "plugin");
	if (strcmp(p->frontend, "cyg") && !plugin) {
		cli_error("select: --binary: %s was gated through %s: only cyg's hooks and the plugin's "
			  "gates are inlined with their functions", path, p->frontend);
		return -1;
	}
	/* the pairs of every file given, the program's and its libraries' */
	pp__inlined_t *v = NULL;
	size_t nv = 0;
	for (int b = 0; b < nbinaries; b++) {
		pp__inlined_t *one, *all;
		size_t none;
		if (pp__inlined_hooks(binaries[b], p->build_id, plugin, &one, &none) != 0) {
			pp__inlined_free(v, nv);
			return -1;
		}
		if (!(all = realloc(v, (nv + none + 1) * sizeof *v))) {
			pp__inlined_free(one, none);
			pp__inlined_free(v, nv);
			cli_error("select: out of memory");
			return -1;
		}
		v = all;
		if (none) /* one may be NULL then */
			memcpy(v + nv, one, none * sizeof *v);
		nv += none;
		free(one);
	}
	char **x = calloc(nv ? nv : 1, sizeof *x);
	/* each pair's rows (n: not in the profile), found once, not at every
	 * round of the loop below */
	size_t *at = malloc((nv ? nv : 1) * 2 * sizeof *at);
	for (size_t i = 0; at && i < nv; i++) {
		at[2 * i] = row_named(p, rows, n, v[i].host);
		at[2 * i + 1] = v[i].key ? row_named(p, rows, n, v[i].key) : row_keyed(p, rows, n, v[i].hash);
	}
	size_t nx = 0;
	long more = 0;
	int oom = !x || !at;
	for (int changed = !oom; changed && !oom;) {
		changed = 0;
		for (size_t i = 0; i < nv && !oom; i++) {
			size_t host = at[2 * i], key = at[2 * i + 1];
			if (!(host < n ? drop[host] : named_in(x, nx, v[i].host)))
				continue;
			if (key < n && !drop[key]) {
				drop[key] = 1;
				*dropped_cost += (double)rows[key].calls * cost;
			} else if (key == n && v[i].key && !named_in(x, nx, v[i].key)) {
				oom = !(x[nx] = strdup(v[i].key));
				nx += !oom;
			} else {
				continue;
			}
			more++;
			changed = 1;
		}
	}
	pp__inlined_free(v, nv);
	free(at);
	if (oom) {
		for (size_t i = 0; x && i < nx; i++)
			free(x[i]);
		free(x);
		cli_error("select: out of memory");
		return -1;
	}
	*extra = x;
	*nextra = nx;
	return more;
}

int cmd_select(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "budget", required_argument, NULL, 'b' }, { "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' }, { "binary", required_argument, NULL, 'x' },
		{ "previous", required_argument, NULL, 'p' }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double budget = 5;
	const char *format = "names", *outpath = NULL, *prevpath = NULL;
	/* --binary, once for the program and once for each of its libraries */
	const char *binaries[SELECT_MAX_BINARIES];
	int nbinaries = 0;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (pp__parse_percent(optarg, &budget) != 0) {
				cli_error("select: --budget: '%s' is not a percentage from 0 to 100", optarg);
				return CLI_USAGE;
			}
			break;
		case 'f':
			if (strcmp(optarg, "names") && strcmp(optarg, "exclude") && strcmp(optarg, "keep") &&
			    strcmp(optarg, "gcc")) {
				cli_error("select: --format: '%s' is not 'names', 'exclude', 'keep' or 'gcc'", optarg);
				return CLI_USAGE;
			}
			format = optarg;
			break;
		case 'o': outpath = optarg; break;
		case 'x':
			if (nbinaries == SELECT_MAX_BINARIES) {
				cli_error("select: --binary: at most %d files", SELECT_MAX_BINARIES);
				return CLI_USAGE;
			}
			binaries[nbinaries++] = optarg;
			break;
		case 'p': prevpath = optarg; break;
		case 'h': return cli_help(help_text);
		default: return cli_bad_option("select", c, argv);
		}
	}
	if (argc - optind != 1) {
		cli_error("select: one profile file expected (see 'pathprof select --help')");
		return CLI_USAGE;
	}
	const char *path = argv[optind];
	pp_profile_t p;
	if (cli_read_profile(&p, path) != CLI_OK)
		return CLI_FAIL;
	int rc = CLI_FAIL;
	size_t n = 0;
	pp__fn_row_t *rows = NULL;
	pp__prev_list_t prev = { 0 };
	if (prevpath && pp__prev_load(&prev, prevpath, format) != 0)
		goto done;
	if (!p.nnodes) {
		cli_error("select: %s: no times (run it with timing on: 'pathprof run', PATHPROF_TIMING=on)",
			  path);
		goto done;
	}
	if (!(p.gate_in > 0 || p.gate_out > 0)) {
		cli_error("select: %s: its process did not measure its gate's cost (a selection, a crash, "
			  "an older pathprof): nothing to weigh the functions against", path);
		goto done;
	}
	double cost = p.gate_in + p.gate_out, total = 0, dropped_cost = 0;
	if (pp__profile_compensate(&p) != 0 || !(rows = pp__report_functions(&p, &n))) {
		cli_error("select: out of memory");
		goto done;
	}
	size_t ndrop = 0;
	char *drop = calloc(n ? n : 1, 1);
	if (!drop) {
		cli_error("select: out of memory");
		goto done;
	}
	double work = 0;
	size_t nprev = 0;
	for (size_t i = 0; i < n; i++) {
		double gates = (double)rows[i].calls * cost;
		total += gates;
		work += (double)rows[i].self;
		/* 2: dropped by --previous's list, which the output holds */
		if (prevpath && pp__prev_drops(&prev, pp__report_name(&p, rows[i].name))) {
			drop[i] = 2;
			nprev++;
			dropped_cost += gates;
		} else if (rows[i].calls >= SELECT_MIN_CALLS && gates > budget / 100 * (double)rows[i].incl) {
			drop[i] = 1;
			ndrop++;
			dropped_cost += gates;
		}
	}
	/* Each kept function within its share of what it holds does not bound
	 * the program's slowdown: nested ones add up (SQLite, 30 deep: 1.4x of
	 * plain at 5 %). While the kept gates cost more than the budget's share
	 * of all the work (the compensated self times), the kept function whose
	 * gates cost most for what it holds goes too: short leaves first, the
	 * functions holding the program's work stay. */
	size_t nwhole = ndrop;
	while (total - dropped_cost > budget / 100 * work) {
		size_t worst = n;
		for (size_t i = 0; i < n; i++)
			if (!drop[i] && rows[i].calls >= SELECT_MIN_CALLS &&
			    (worst == n || (double)rows[i].calls * (double)rows[worst].incl >
						   (double)rows[worst].calls * (double)rows[i].incl))
				worst = i;
		if (worst == n)
			break;
		drop[worst] = 1;
		ndrop++;
		dropped_cost += (double)rows[worst].calls * cost;
	}
	long ninlined = 0;
	char **extra = NULL;
	size_t nextra = 0;
	if (nbinaries && (ninlined = drop_inlined(&p, path, binaries, nbinaries, rows, n, drop, cost,
						   &dropped_cost, &extra, &nextra)) < 0) {
		free(drop);
		goto done;
	}
	FILE *o = cli_output_open(outpath);
	if (o) {
		int first = 1, keep = !strcmp(format, "keep");
		size_t end = prev.text ? strlen(prev.text) : 0;
		/* --previous: its entries as they were, first (keep: those that
		 * name no function of this profile, whose kept ones are listed
		 * by name) */
		for (size_t at = 0, len; at < end;) {
			size_t next = pp__prev_entry(&prev, at, &len);
			if (!keep || !entry_names_a_row(&prev, at, len, &p, rows, n))
				put_entry(o, &prev, &first, at, len);
			at = next;
		}
		for (size_t i = 0; i < n; i++)
			if (keep ? !drop[i] : drop[i] == 1)
				put_name(o, format, &first, &p, rows, n, drop, pp__report_name(&p, rows[i].name));
		for (size_t i = 0; i < nextra && !keep; i++)
			if (!prevpath || !pp__prev_drops(&prev, extra[i]))
				put_name(o, format, &first, &p, rows, n, drop, extra[i]);
		if ((!strcmp(format, "exclude") || !strcmp(format, "gcc")) && !first)
			fputc('\n', o);
		/* nothing dropped: every function, where an empty PATHPROF_XRAY
		 * would arm none */
		if (!strcmp(format, "exclude") && first)
			fputs("*\n", o);
		rc = cli_output_close(o, outpath);
	}
	/* the summary is of a list written: after an output error, that
	 * error is the one line */
	if (rc != CLI_OK)
		goto written;
	double k = p.ticks_per_ns > 0 ? 1 / p.ticks_per_ns : 1;
	fprintf(stderr, "pathprof: select: %zu of %zu functions cost more than %g%% of the work they hold",
		nwhole, n, budget);
	if (ndrop > nwhole)
		fprintf(stderr, ", and %zu more until the gates kept cost %g%% of all the work", ndrop - nwhole,
			budget);
	if (ninlined)
		fprintf(stderr, ", and %ld more inlined into dropped ones, whose code holds their hooks",
			ninlined);
	if (prevpath)
		fprintf(stderr, ", with the list of %s (%zu of this profile's functions on it)", prevpath, nprev);
	fprintf(stderr, "; their gates took %.0f of the %.0f ns all gates took (%.0f%%)\n", dropped_cost * k,
		total * k, total > 0 ? 100 * dropped_cost / total : 0);
written:
	free(drop);
	for (size_t i = 0; i < nextra; i++)
		free(extra[i]);
	free(extra);
done:
	pp__prev_free(&prev);
	free(rows);
	pp__profile_free(&p);
	return rc;
}
