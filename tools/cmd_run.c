/* `pathprof run`: the first command a new user tries. It runs a program built
 * with any injector with the PATHPROF_* environment set from its options,
 * waits for it, then prints the profile it wrote with `pathprof report`, and
 * exits with the program's own status so that it can stand in scripts. The
 * program always exports a live segment, so a kill that leaves no profile
 * (SIGKILL, the OOM killer) is recovered from it (`pathprof recover`). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "file_kind.h"
#include "settings.h"
#include "glob.h"
#include "report.h"
#ifdef PP_HAVE_OFFCPU
#include "offcpu.h"
#include "shm_read.h"
#endif

/* What the off-CPU recorder needs while the program runs. */
typedef struct offcpu_run {
	int wanted;
	const char *seg_tmpl; /* the segment's name, %p for the pid */
#ifdef PP_HAVE_OFFCPU
	pp_offcpu_rec_t *rec;
	int tls_set;
#endif
	int ack; /* write end of the pipe the program waits on (-1: none) */
} offcpu_run_t;

static const char help_text[] =
	"usage: pathprof run [options] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM (built with a pathprof injector: see docs/getting-started-*.md),\n"
	"then print the profile it wrote at exit (its child processes write their own,\n"
	"FILE.PID: one line counts them). The exit status is PROGRAM's.\n"
	"\n"
	"options:\n"
	"  --out FILE        where the program writes its profile (PATHPROF_OUT;\n"
	"                    default: $PATHPROF_OUT, else PROGRAM.pathprof here);\n"
	"                    kept after the run for 'pathprof report'\n"
	"  --timing MODE     'on' (default), 'off', 'sample:N' (one event in N) or\n"
	"                    'burst[:N]' (windows of 1/N of the run, any program;\n"
	"                    N = 16 by default) (PATHPROF_TIMING)\n"
	"  --xray LIST       XRay builds: arm 'all' or the functions the glob list\n"
	"                    LIST selects before main (PATHPROF_XRAY; default: all)\n"
	"  --root LIST       entering a function LIST selects starts an event, as\n"
	"                    pp_root() just before it would (PATHPROF_ROOT)\n"
	"  --functions LIST  only the functions LIST selects are gates; the others\n"
	"                    are passed through (PATHPROF_FUNCTIONS)\n"
	"                    LIST: globs separated by commas, '!' before one\n"
	"                    excludes, each matching whole names: 'lex' is not\n"
	"                    'lexer_start' (docs/guides/selection.md)\n"
	"  --top N           paths shown in the text report (default 20; 0: all)\n"
	"  --sort KEY        order of the report's paths, as 'pathprof report --sort'\n"
	"  --format FMT      report format, as 'pathprof report --format'\n"
	"  --names FORM      'full' (default) or 'short' C++ names, as 'pathprof\n"
	"                    report --names'\n"
	"  --raw             times as measured, the gates' own cost left in (as\n"
	"                    'pathprof report --raw')\n"
	"  --budget PCT      stop gating, during the run, each function whose gates\n"
	"                    cost more than PCT percent of the work they hold\n"
	"                    (PATHPROF_BUDGET; timing on; the report lists them;\n"
	"                    docs/guides/selection.md)\n"
	"  --offcpu          also record where the program's threads block, why\n"
	"                    (futex, poll, disk, net, sleep, other) and which path\n"
	"                    wakes them, with BPF (needs root or CAP_BPF and\n"
	"                    CAP_PERFMON, and a kernel with BTF; docs/guides/offcpu.md)\n"
	"  -o, --output FILE write the report to FILE instead of standard output,\n"
	"                    which the program's own output shares ('pprof', being\n"
	"                    binary, needs it); not the profile's file (--out)\n"
	"  -h, --help        show this help\n"
	"\n"
	"The program exports its profile to the live segment pathprof-run.PID\n"
	"(unless PATHPROF_SHM names another), so 'pathprof top PID' watches it\n"
	"(a program that runs one thread names its paths at exit, unless\n"
	"PATHPROF_NAMER=on: pathprof starts no thread beside it; top and recover\n"
	"name its cyg, raii and plugin keys from its files meanwhile).\n"
	"When a signal ends it: a crash writes the profile itself (docs/guides/crash.md);\n"
	"a kill that writes nothing (SIGKILL, the OOM killer) is recovered from\n"
	"the segment, as 'pathprof recover' does, and the report says so.\n"
	"\n"
	"Exit status: PROGRAM's; 128+N when a signal N ended it; 127 when it could\n"
	"not be started; 2 for a bad command line.\n";

enum { OPT_OUT = 256, OPT_TIMING, OPT_XRAY, OPT_TOP, OPT_FORMAT, OPT_NAMES, OPT_OFFCPU, OPT_ROOT,
       OPT_FUNCTIONS, OPT_SORT, OPT_RAW, OPT_BUDGET };

static const struct option longopts[] = {
	{ "out", required_argument, NULL, OPT_OUT },
	{ "timing", required_argument, NULL, OPT_TIMING },
	{ "xray", required_argument, NULL, OPT_XRAY },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "functions", required_argument, NULL, OPT_FUNCTIONS },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "names", required_argument, NULL, OPT_NAMES },
	{ "offcpu", no_argument, NULL, OPT_OFFCPU },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "budget", required_argument, NULL, OPT_BUDGET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* A selection list (format/glob.h), checked here for the same reason. */
static int list_ok(const char *opt, const char *list)
{
	char err[256];
	if (pp__select_check(list, ',', err, sizeof err) == 0)
		return 1;
	cli_error("run: %s '%s': %s", opt, list, err);
	return 0;
}

/* The runtime warns and falls back on a bad value; here the user is at the
 * command line, so a typo stops before the program runs. */

/* The profile's name as the child's runtime spells it: %p is the pid. */
static char *expand_pid(const char *tmpl, pid_t pid)
{
	size_t n = strlen(tmpl) + 1;
	for (const char *c = tmpl; (c = strstr(c, "%p")); c += 2)
		n += 20;
	char *s = malloc(n), *o = s;
	if (!s)
		return NULL;
	for (const char *c = tmpl; *c;) {
		if (c[0] == '%' && c[1] == 'p') {
			o += sprintf(o, "%ld", (long)pid);
			c += 2;
		} else {
			*o++ = *c++;
		}
	}
	*o = 0;
	return s;
}

static char *default_out(const char *program)
{
	const char *base = strrchr(program, '/');
	base = base ? base + 1 : program;
	char *s = malloc(strlen(base) + sizeof ".pathprof");
	if (s)
		sprintf(s, "%s.pathprof", base);
	return s;
}

/* fork + exec + wait, with SIGINT and SIGQUIT left to the child as system()
 * does: Ctrl-C stops the program, and this process stays to report. */
/* The profile is written when the program exits, after all its work: a
 * place it cannot go is refused before the program starts, in one line,
 * rather than reported by the program and again as "wrote no profile". */
static int out_writable(const char *out)
{
	struct stat st;
	int exists = stat(out, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		cli_error("run: the profile %s is a directory: name a file", out);
		return 0;
	}
	/* The runtime never replaces a file that is not a profile (it writes
	 * NAME.1 beside it, runtime/out_claim.c), where this command would then
	 * look for the profile: said before the program starts. */
	enum pp__file_kind kind = exists ? pp__file_kind(out) : PP__FILE_NONE;
	if (kind != PP__FILE_NONE && kind != PP__FILE_PROFILE) {
		cli_error("run: %s is not a pathprof profile, which the profile would replace: name "
			  "another file with --out",
			  out);
		return 0;
	}
	char *dir = cli_dir_of(out);
	if (!dir || strstr(dir, "%p")) {
		free(dir);
		return 1; /* the runtime reports what goes wrong there */
	}
	int ok = access(dir, W_OK | X_OK) == 0;
	if (!ok)
		cli_error("run: cannot write the profile %s: %s: %s", out, dir, strerror(errno));
	free(dir);
	return ok;
}

/* The profiles the program's child processes wrote during the run, beside
 * the one reported: a fork's runtime writes NAME.PID (or, with %p, the
 * name with its own pid). Said in one line, with how to add them up, where
 * a report of the parent alone would leave them unseen. */
static void children_note(const char *out, const char *file, const struct timespec *start)
{
	const char *pct = strstr(out, "%p");
	size_t plen = pct ? (size_t)(pct - out) : strlen(file) + 1;
	char *prefix = pct ? strndup(out, plen) : NULL;
	if (!pct && asprintf(&prefix, "%s.", file) < 0)
		prefix = NULL;
	const char *suffix = pct ? pct + 2 : "";
	if (!prefix || strchr(suffix, '/')) {
		free(prefix);
		return;
	}
	const char *slash = strrchr(prefix, '/');
	char *dir = cli_dir_of(prefix);
	const char *base = slash ? slash + 1 : prefix;
	DIR *d = dir ? opendir(dir) : NULL;
	unsigned n = 0;
	size_t blen = strlen(base), slen = strlen(suffix);
	for (struct dirent *e; d && (e = readdir(d));) {
		const char *name = e->d_name;
		size_t len = strlen(name);
		/* base, then a pid, then suffix */
		if (len <= blen + slen || strncmp(name, base, blen) || strcmp(name + len - slen, suffix) ||
		    strspn(name + blen, "0123456789") != len - blen - slen)
			continue;
		char *path = NULL;
		struct stat st;
		if (asprintf(&path, "%s/%s", dir, name) < 0)
			continue;
		if (!cli_same_file(path, file) && stat(path, &st) == 0 &&
		    (st.st_mtim.tv_sec > start->tv_sec ||
		     (st.st_mtim.tv_sec == start->tv_sec && st.st_mtim.tv_nsec >= start->tv_nsec)) &&
		    pp__file_kind(path) == PP__FILE_PROFILE)
			n++;
		free(path);
	}
	if (d)
		closedir(d);
	/* with %p, the parent's own name matches the glob too */
	if (n)
		fprintf(stderr, "pathprof: its child processes wrote %u more profile%s, %s<pid>%s "
			"('pathprof merge -o all.pathprof %s%s%s*%s' adds them up)\n",
			n, n == 1 ? "" : "s", prefix, suffix, pct ? "" : file, pct ? "" : " ", prefix, suffix);
	free(dir);
	free(prefix);
}

/* Did the program leave its live segment (/name) behind? glibc keeps POSIX
 * shared memory in /dev/shm. */
static int segment_left(const char *name)
{
	char path[320];
	snprintf(path, sizeof path, "/dev/shm%s", name);
	return access(path, F_OK) == 0;
}

#ifdef PP_HAVE_OFFCPU
/* Once the program's segment exists, tell the recorder where its threads
 * keep their gate state. */
static void offcpu_tls(offcpu_run_t *o, pid_t pid)
{
	char *name = expand_pid(o->seg_tmpl, pid), err[256];
	pp__shm_view_t v;
	if (name && pp__shm_open(&v, name, err, sizeof err) == 0) {
		if (v.h->tls_offset) {
			pp_offcpu_set_process(o->rec, v.h->tls_offset, v.h->own_work_at);
			o->tls_set = 1;
			if (o->ack >= 0) { /* the program waits for this to go on */
				close(o->ack);
				o->ack = -1;
			}
		}
		pp__shm_close(&v);
	}
	free(name);
}
#endif

/* Wait for pid; with the recorder on, read its events meanwhile. */
static int wait_child(pid_t pid, int *st, offcpu_run_t *o)
{
#ifdef PP_HAVE_OFFCPU
	while (o->rec) {
		pid_t w = waitpid(pid, st, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -1;
		if (!o->tls_set)
			offcpu_tls(o, pid);
		/* until the gate state is found, blocks have no path: look often */
		pp_offcpu_poll(o->rec, o->tls_set ? 50 : 2);
	}
#else
	(void)o;
#endif
	while (waitpid(pid, st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static int run_child(char **argv, pid_t *pid_out, offcpu_run_t *o)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_quit;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);

	fflush(NULL);
	/* With --offcpu the child waits until the recorder is on: the first
	 * blocks of the program are recorded too. */
	int go[2] = {-1, -1}, ack[2] = {-1, -1};
	if (o->wanted && (pipe2(go, O_CLOEXEC) != 0 || pipe2(ack, O_CLOEXEC) != 0)) {
		cli_error("run: cannot start '%s': %s", argv[0], strerror(errno));
		return 127;
	}
	pid_t pid = fork();
	if (pid < 0) {
		cli_error("run: cannot start '%s': %s", argv[0], strerror(errno));
		return 127;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		if (go[0] >= 0) {
			char c;
			close(go[1]);
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
			/* the runtime waits on it until the recorder knows where
			 * the gate state is (runtime/shm.c, offcpu_wait) */
			char num[16];
			snprintf(num, sizeof num, "%d", ack[0]);
			if (fcntl(ack[0], F_SETFD, 0) == 0)
				setenv("PATHPROF_OFFCPU_ACK", num, 1);
		}
		execvp(argv[0], argv);
		int e = errno;
		cli_error("run: cannot run '%s': %s", argv[0], strerror(e));
		_exit(e == ENOENT ? 127 : 126);
	}
	*pid_out = pid;
	if (go[0] >= 0) {
#ifdef PP_HAVE_OFFCPU
		char err[256];
		o->rec = pp_offcpu_start(pid, err, sizeof err);
		if (!o->rec)
			cli_error("run: --offcpu: %s; the program runs without off-CPU data", err);
#endif
		close(go[0]);
		close(go[1]); /* the child reads end of file: go */
		close(ack[0]);
		o->ack = ack[1];
#ifdef PP_HAVE_OFFCPU
		if (!o->rec) { /* nothing will learn the gate state: do not wait */
			close(o->ack);
			o->ack = -1;
		}
#endif
	}
	int st = 0;
	int wrc = wait_child(pid, &st, o);
	if (o->ack >= 0) {
		close(o->ack);
		o->ack = -1;
	}
	if (wrc != 0) {
		cli_error("run: waiting for '%s': %s", argv[0], strerror(errno));
		st = 127 << 8;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	if (WIFSIGNALED(st)) {
		cli_error("run: '%s' was killed by signal %d (%s)", argv[0], WTERMSIG(st),
			  strsignal(WTERMSIG(st)));
		return 128 + WTERMSIG(st);
	}
	return WEXITSTATUS(st);
}

#ifdef PP_HAVE_OFFCPU
/* Add the recorder's entries to the profile file the program wrote. */
static void offcpu_into(pp_offcpu_rec_t *rec, const char *seg, const char *file)
{
	char err[512];
	pp_profile_t p;
	pp__shm_view_t v;
	if (!file || !seg || pp__profile_read(&p, file, err, sizeof err) != 0) {
		pp_offcpu_finish(rec, NULL, NULL, NULL, 0);
		cli_error("run: --offcpu: no profile to add off-CPU data to");
		return;
	}
	if (pp__shm_open(&v, seg, err, sizeof err) != 0) {
		pp_offcpu_finish(rec, NULL, NULL, NULL, 0);
		cli_error("run: --offcpu: %s", err);
	} else {
		if (pp_offcpu_finish(rec, &v, &p, err, sizeof err) != 0 ||
		    pp__profile_write(&p, file, err, sizeof err) != 0)
			cli_error("run: --offcpu: %s", err);
		pp__shm_close(&v);
	}
	pp__profile_free(&p);
}
#endif

int cmd_run(int argc, char **argv)
{
	const char *out = NULL, *timing = "on", *xray = NULL, *top = NULL, *sort = NULL, *format = NULL;
	const char *report_out = NULL, *names = NULL;
	offcpu_run_t offcpu = {.ack = -1};
	int c, raw = 0;
	uint64_t v;

	optind = 0;
	opterr = 0;
	/* '+': the first non-option is PROGRAM; its own options are its own. */
	while ((c = getopt_long(argc, argv, "+:ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			report_out = optarg;
			break;
		case OPT_OFFCPU:
			offcpu.wanted = 1;
			break;
		case OPT_RAW:
			raw = 1;
			break;
		case OPT_SORT: {
			pp_report_sort_t sk;
			if (pp__report_sort_parse(optarg, &sk) < 0) {
				cli_error("run: --sort: '%s' is not 'count' or 'time'", optarg);
				return CLI_USAGE;
			}
			sort = optarg;
			break;
		}
		case OPT_NAMES:
			if (strcmp(optarg, "full") && strcmp(optarg, "short")) {
				cli_error("run: --names: '%s' is not 'full' or 'short'", optarg);
				return CLI_USAGE;
			}
			names = optarg;
			break;
		case OPT_OUT:
			out = optarg;
			break;
		case OPT_TIMING: {
			uint32_t mode, n;
			if (pp__parse_timing(optarg, &mode, &n) != 0) {
				cli_error("run: --timing: '%s' is not 'on', 'off', 'sample:N' (0 < N < "
					  "2147483648) or 'burst[:N]' (0 < N <= 1000)", optarg);
				return CLI_USAGE;
			}
			timing = optarg;
			break;
		}
		case OPT_XRAY:
			if (!*optarg) {
				cli_error("run: --xray: expected 'all' or a function-name pattern");
				return CLI_USAGE;
			}
			if (strcmp(optarg, "all") && !list_ok("--xray", optarg))
				return CLI_USAGE;
			xray = optarg;
			break;
		case OPT_BUDGET: {
			double pct;
			if (pp__parse_percent(optarg, &pct) != 0 || pct == 0) {
				cli_error("run: --budget: '%s' is not a percentage above 0 and up to 100", optarg);
				return CLI_USAGE;
			}
			if (setenv("PATHPROF_BUDGET", optarg, 1)) {
				cli_error("run: cannot set the environment: %s", strerror(errno));
				return CLI_FAIL;
			}
			break;
		}
		case OPT_ROOT:
		case OPT_FUNCTIONS:
			if (!list_ok(c == OPT_ROOT ? "--root" : "--functions", optarg))
				return CLI_USAGE;
			if (setenv(c == OPT_ROOT ? "PATHPROF_ROOT" : "PATHPROF_FUNCTIONS", optarg, 1)) {
				cli_error("run: cannot set the environment: %s", strerror(errno));
				return CLI_FAIL;
			}
			break;
		case OPT_TOP:
			if (cli_parse_u64("run: --top", optarg, UINT32_MAX, &v) < 0)
				return CLI_USAGE;
			top = optarg;
			break;
		case OPT_FORMAT: {
			int f;
			if (cli_report_format("run", optarg, &f) != 0)
				return CLI_USAGE;
			format = optarg;
			break;
		}
		case 'h':
			return cli_help(help_text);
		default:
			return cli_bad_option("run", c, argv);
		}
	}
	if (optind >= argc) {
		cli_error("run: no program given (see 'pathprof run --help')");
		return CLI_USAGE;
	}
	/* Checked before the program runs: its own output would be mixed in. */
	if (format && !strcmp(format, "pprof") && (!report_out || !strcmp(report_out, "-"))) {
		cli_error("run: --format pprof is binary and the program's output shares standard "
			  "output: write it with -o FILE");
		return CLI_USAGE;
	}
	char **prog = argv + optind;

	char *owned = NULL;
	if (!out)
		out = getenv("PATHPROF_OUT");
	if (!out || !*out)
		out = owned = default_out(prog[0]);
	if (!out) {
		cli_error("run: out of memory");
		return CLI_FAIL;
	}
	if (!out_writable(out)) {
		free(owned);
		return CLI_USAGE;
	}
	/* -o is the report's: pointed at the profile, the report would
	 * overwrite what the program just wrote */
	if (report_out && strcmp(report_out, "-") && cli_same_file(report_out, out)) {
		cli_error("run: -o %s names the profile the program writes; -o is where the report "
			  "goes, --out where the profile does",
			  report_out);
		free(owned);
		return CLI_USAGE;
	}
	/* Unset, PATHPROF_XRAY leaves an XRay build unarmed: nothing would be
	 * counted, which is never what "run and show me" means. Other builds
	 * ignore it. */
	if (!xray)
		xray = getenv("PATHPROF_XRAY") ? getenv("PATHPROF_XRAY") : "all";
	if (getenv("PATHPROF_BUDGET") && strcmp(timing, "on")) {
		cli_error("run: --budget weighs every call's time: not with --timing %s", timing);
		free(owned);
		return CLI_USAGE;
	}
	if (setenv("PATHPROF_OUT", out, 1) || setenv("PATHPROF_TIMING", timing, 1) ||
	    setenv("PATHPROF_XRAY", xray, 1)) {
		cli_error("run: cannot set the environment: %s", strerror(errno));
		free(owned);
		return CLI_FAIL;
	}
	/* A profile left by an earlier run must not pass for this one's. */
	if (!strstr(out, "%p"))
		unlink(out);
	const char *shm = getenv("PATHPROF_SHM");
	/* unset: our own name; empty or "off": the user turned export off */
	int own_shm = !shm;
	int no_shm = shm && (!*shm || !strcmp(shm, "off"));
	if (own_shm && setenv("PATHPROF_SHM", "pathprof-run.%p", 1)) {
		cli_error("run: cannot set the environment: %s", strerror(errno));
		free(owned);
		return CLI_FAIL;
	}

	/* --offcpu names keys through the segment after the exit: it is kept
	 * until then, and removed after unless the user asked to keep it */
	const char *keep_env = getenv("PATHPROF_SHM_KEEP");
	int kept_by_user = keep_env && keep_env[0] == '1';
	if (offcpu.wanted) {
#ifdef PP_HAVE_OFFCPU
		char err[256];
		if (no_shm) {
			cli_error("run: --offcpu: paths are named through the live segment, and "
				  "PATHPROF_SHM is off; the program runs without off-CPU data");
			offcpu.wanted = 0;
		} else if (pp_offcpu_available(err, sizeof err) != 0) {
			cli_error("run: --offcpu: %s; the program runs without off-CPU data", err);
			offcpu.wanted = 0;
		} else if (!kept_by_user && setenv("PATHPROF_SHM_KEEP", "1", 1) != 0) {
			offcpu.wanted = 0;
		}
#else
		cli_error("run: --offcpu: this pathprof was built without BPF (libbpf-dev, bpftool, "
			  "clang and a kernel with BTF are needed at build time); the program runs "
			  "without off-CPU data");
		offcpu.wanted = 0;
#endif
	}
	char *seg_tmpl = NULL;
	if (!no_shm && asprintf(&seg_tmpl, "/%s", own_shm ? "pathprof-run.%p" : shm + (shm[0] == '/')) < 0)
		seg_tmpl = NULL;
	offcpu.seg_tmpl = seg_tmpl;

	pid_t pid = 0;
	/* the clock file times come from (coarse: a precise reading can be
	 * after the mtime of a file written a moment later) */
	struct timespec started;
	clock_gettime(CLOCK_REALTIME_COARSE, &started);
	int status = run_child(prog, &pid, &offcpu);
	char *file = pid ? expand_pid(out, pid) : NULL;
	char *seg = pid && seg_tmpl ? expand_pid(seg_tmpl, pid) : NULL;
	free(seg_tmpl);
	if (file && seg && segment_left(seg)) {
		/* A crash wrote the profile and left the segment; a kill (or
		 * _exit, exec) left only the segment. A segment of ours does not
		 * outlive the run either way. */
		int sig = status > 128 && status < 128 + 65 ? status - 128 : 0;
		if (access(file, R_OK) != 0)
			cli_recover(seg, file, sig, CLI_RECOVER_QUIET | CLI_RECOVER_KEEP);
	}
#ifdef PP_HAVE_OFFCPU
	if (offcpu.rec)
		offcpu_into(offcpu.rec, seg, file);
#endif
	/* ours, or kept only for --offcpu to read: not left behind */
	if ((own_shm || (offcpu.wanted && !kept_by_user)) && seg && segment_left(seg))
		shm_unlink(seg);
	free(seg);
	if (file && access(file, R_OK) == 0) {
		char *rargv[16];
		int n = 0;
		rargv[n++] = (char *)"report";
		if (top) {
			rargv[n++] = (char *)"--top";
			rargv[n++] = (char *)top;
		}
		if (sort) {
			rargv[n++] = (char *)"--sort";
			rargv[n++] = (char *)sort;
		}
		if (format) {
			rargv[n++] = (char *)"--format";
			rargv[n++] = (char *)format;
		}
		if (report_out) {
			rargv[n++] = (char *)"-o";
			rargv[n++] = (char *)report_out;
		}
		if (names) {
			rargv[n++] = (char *)"--names";
			rargv[n++] = (char *)names;
		}
		if (raw)
			rargv[n++] = (char *)"--raw";
		rargv[n++] = (char *)"--";
		rargv[n++] = file;
		rargv[n] = NULL;
		int rc = cmd_report(n, rargv);
		if (rc == CLI_OK && (!format || !strcmp(format, "text")))
			fprintf(stderr, "pathprof: profile kept in %s ('pathprof report %s' shows it again)\n",
				file, file);
		children_note(out, file, &started);
	} else if (pid && status < 126) {
		cli_error("run: '%s' wrote no profile to %s: was it built with a pathprof injector "
			  "(pathprof-cc --via=..., docs/guides/getting-started-cyg.md) and did any gate run?",
			  prog[0], file ? file : out);
	} else if (pid && status > 128) {
		cli_error("run: no profile: '%s' died before it could write one%s", prog[0],
			  no_shm ? " and PATHPROF_SHM is off, so nothing was left to recover"
				 : ", and it left no live segment (did any gate run?)");
	}
	free(file);
	free(owned);
	return status;
}
