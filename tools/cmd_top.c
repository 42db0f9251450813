/* `pathprof top`: the live view of a program exporting its profile to shared
 * memory (PATHPROF_SHM). Each refresh takes a snapshot of the segment (it is
 * only ever read) and shows what changed since the previous one: rates, the
 * paths that took the time, and each segment's p50/p99. Interactive keys
 * only when both ends are a terminal; --once and --format json for scripts. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "map.h"
#include "profile.h"
#include "report.h"
#include "report_top.h"
#include "shm_read.h"

#define TEXT_DEFAULT_TOP 20

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static const char help_text[] =
	"usage: pathprof top [options] [NAME|PID]\n"
	"\n"
	"Live view of a profiled program through the profile it exports to shared\n"
	"memory (every one does: pathprof.PID by default, PATHPROF_SHM=NAME, or\n"
	"pp_shm_export()). NAME is the segment's name; a PID finds the process's\n"
	"segment in /dev/shm. Every refresh shows\n"
	"events/s, path records/s, drops, threads, then the top paths with their\n"
	"rate, count and change since the last refresh and, when timed, each\n"
	"segment's p50 and p99 with their change. Times have the gate's own cost\n"
	"taken out, as in 'pathprof report', once the process has measured it\n"
	"(about 50 ms into a timed run; --raw: as measured). The first refresh's\n"
	"rates are averages since the program started. Paths show once the\n"
	"process's naming thread has named their keys; a program that runs one\n"
	"thread has none (PATHPROF_NAMER=auto) unless it ran with PATHPROF_NAMER=on:\n"
	"top then names its cyg, raii and plugin keys from the program's files, and the\n"
	"header says when other keys wait for its exit. The segment is only read, never\n"
	"written; the segment of a process that has died (or exited with\n"
	"PATHPROF_SHM_KEEP=1) still reads. The header says whether the writer is\n"
	"running, exited, dead (killed, even before it is reaped), or crashed\n"
	"(a fatal signal; its profile file was written then). A writer that is\n"
	"gone shows its final numbers, rates averaged over its life. Without NAME\n"
	"or PID: the one live profiled process of this user, or a choice among\n"
	"them (on a terminal; --list prints them).\n"
	"\n"
	"options:\n"
	"  -i, --interval SEC  refresh period in seconds, e.g. 0.5 (default 1)\n"
	"  --list              print the live profiled processes of this user, one\n"
	"                      'PID PROGRAM SEGMENT' line each, and exit\n"
	"  --top N             paths shown; 0 shows all (default 20 for text, all\n"
	"                      for json)\n"
	"  --sort KEY          'rate' (leaf returns per second, the default), 'time'\n"
	"                      (time spent in the last interval) or 'count' (total)\n"
	"  --once              print one snapshot and exit (same as -n 1)\n"
	"  -n, --iterations N  exit after N refreshes (default: until 'q' or a signal)\n"
	"  --format FMT        'text' (default) or 'json': one JSON object per refresh,\n"
	"                      one per line (schema in docs/guides/live.md)\n"
	"  --raw               times as measured, the gates' own cost in them\n"
	"  -h, --help          show this help\n"
	"\n"
	"keys (when standard input and output are a terminal):\n"
	"  r / t / c   sort by rate / time / count\n"
	"  + / -       show one path more / fewer\n"
	"  f or space  freeze / resume the display\n"
	"  q           quit\n"
	"\n"
	"Exit status: 0 success, 1 no such segment, a damaged segment or failed\n"
	"write, 2 bad command line.\n";

/* Seconds as a decimal: digits with an optional fraction. */
static int parse_seconds(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 86400 || s[0] == '-' ||
	    s[0] == '+' || strchr(s, 'x') || strchr(s, 'X') || strpbrk(s, "eEnN")) {
		cli_error("top: --interval: '%s' is not a number of seconds from 0 to 86400", s);
		return -1;
	}
	*out = v;
	return 0;
}

/* A new snapshot becomes current; the old one is kept for the deltas unless
 * the writer reset its counts in between (then deltas start over). */
static int refresh(pp__top_view_t *v)
{
	pp_profile_t p;
	pp__shm_stats_t st;
	char err[512];
	if (pp__shm_snapshot(&v->seg, &p, &st, err, sizeof err) != 0) {
		cli_error("%s", err);
		return -1;
	}
	/* as reports show times: the gate's cost the writer measured taken
	 * out, snapshot by snapshot (a change is then the compensated one) */
	if (!v->raw && pp__profile_compensate(&p) != 0) {
		pp__profile_free(&p);
		cli_error("top: out of memory");
		return -1;
	}
	pp__profile_free(&v->prev);
	/* A writer that is gone changes no more: its final numbers are shown
	 * with rates averaged over its life, not over time since it died. Gone
	 * stays gone: a later look at /proc racing with the pid's reuse must
	 * not bring it back. */
	if (v->gone && st.alive && st.pid == v->st.pid) {
		st.alive = 0;
		if (!st.exit_ns && st.update_ns >= p.start_ns && st.update_ns < p.end_ns)
			p.end_ns = st.update_ns;
	}
	int gone = !st.alive;
	v->gone = gone;
	if (v->cur.version && st.generation == v->st.generation && !gone) {
		v->prev = v->cur;
		v->pst = v->st;
		v->have_prev = 1;
	} else {
		pp__profile_free(&v->cur);
		memset(&v->prev, 0, sizeof v->prev);
		v->have_prev = 0;
	}
	v->cur = p;
	v->st = st;
	return 0;
}

static struct termios saved_tio;
static int raw_on;

static void raw_mode(int on)
{
	if (on && !raw_on && tcgetattr(STDIN_FILENO, &saved_tio) == 0) {
		struct termios t = saved_tio;
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		t.c_cc[VMIN] = 0;
		t.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
			raw_on = 1;
	} else if (!on && raw_on) {
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
		raw_on = 0;
	}
}

/* Apply one key; 1 when the display should be redrawn, -1 to quit. */
static int key(pp__top_view_t *v, int ch)
{
	switch (ch) {
	case 'q':
	case 'Q':
		return -1;
	case 'r':
		v->sort = PP__TOP_RATE;
		return 1;
	case 't':
		v->sort = PP__TOP_TIME;
		return 1;
	case 'c':
		v->sort = PP__TOP_COUNT;
		return 1;
	case '+':
	case '=':
		v->top++;
		return 1;
	case '-':
		if (v->top > 1)
			v->top--;
		return 1;
	case 'f':
	case ' ':
		v->frozen = !v->frozen;
		return 1;
	default:
		return 0;
	}
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Wait until the next refresh is due, handling keys meanwhile. 0 to go on,
 * 1 to quit. */
static int wait_next(pp__top_view_t *v, FILE *out)
{
	uint64_t due = mono_ms() + (uint64_t)(v->interval * 1000);
	for (;;) {
		if (stop)
			return 1;
		uint64_t now = mono_ms();
		if (now >= due)
			return 0;
		if (!v->tty) {
			struct timespec d = { (time_t)((due - now) / 1000),
					      (long)((due - now) % 1000) * 1000000L };
			nanosleep(&d, NULL);
			continue;
		}
		struct pollfd pf = { STDIN_FILENO, POLLIN, 0 };
		int r = poll(&pf, 1, (int)(due - now));
		if (r <= 0 || !(pf.revents & POLLIN))
			continue;
		char ch;
		if (read(STDIN_FILENO, &ch, 1) != 1)
			continue;
		int k = key(v, ch);
		if (k < 0)
			return 1;
		if (k > 0 && pp__report_top(out, v) != 0) {
			cli_error("top: out of memory, or the output failed");
			return -1;
		}
	}
}

enum { OPT_TOP = 256, OPT_SORT, OPT_ONCE, OPT_FORMAT, OPT_LIST, OPT_RAW };

static const struct option longopts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "iterations", required_argument, NULL, 'n' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* No target given: the one live profiled process of this user, or, with
 * several and a terminal, the one the user picks from the list. */
static int pick_live(char *pid, size_t n)
{
	pp__shm_live_t *l;
	long found = pp__shm_list(&l, PP__SHM_LIST_LIVE);
	int rc = CLI_OK;
	if (found <= 0) {
		/* what dead ones left is not live, but is what the user may be
		 * looking for: say where it is */
		pp__shm_live_t *left;
		long nleft = pp__shm_list(&left, PP__SHM_LIST_LEFT);
		free(left);
		if (nleft > 0)
			cli_error("top: no live profiled process of yours in /dev/shm; %ld segment%s "
				  "left by processes that died ('pathprof recover --list')", nleft,
				  nleft == 1 ? "" : "s");
		else
			cli_error("top: no live profiled process of yours in /dev/shm (give a segment "
				  "name or a pid, or run one first)");
		rc = CLI_FAIL;
	} else if (found == 1) {
		snprintf(pid, n, "%llu", (unsigned long long)l[0].pid);
	} else if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
		cli_error("top: %ld live profiled processes; name one (pathprof top PID):", found);
		cli_list_segments(stderr, PP__SHM_LIST_LIVE, "top");
		rc = CLI_USAGE;
	} else {
		fprintf(stderr, "live profiled processes:\n");
		for (long i = 0; i < found; i++)
			fprintf(stderr, "  %ld) %llu %s\n", i + 1, (unsigned long long)l[i].pid,
				l[i].program);
		fprintf(stderr, "watch which (1-%ld)? ", found);
		char line[64];
		long k = fgets(line, sizeof line, stdin) ? strtol(line, NULL, 10) : 0;
		if (k < 1 || k > found) {
			cli_error("top: no choice made");
			rc = CLI_USAGE;
		} else {
			snprintf(pid, n, "%llu", (unsigned long long)l[k - 1].pid);
		}
	}
	free(l);
	return rc;
}

int cmd_top(int argc, char **argv)
{
	pp__top_view_t v;
	memset(&v, 0, sizeof v);
	v.interval = 1.0;
	uint64_t iterations = 0, n;
	int top_given = 0, list_only = 0, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hi:n:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (parse_seconds(optarg, &v.interval) < 0)
				return CLI_USAGE;
			break;
		case OPT_TOP:
			if (cli_parse_u64("top: --top", optarg, UINT32_MAX, &n) < 0)
				return CLI_USAGE;
			v.top = (uint32_t)n;
			top_given = 1;
			break;
		case OPT_SORT:
			if (!strcmp(optarg, "rate"))
				v.sort = PP__TOP_RATE;
			else if (!strcmp(optarg, "time"))
				v.sort = PP__TOP_TIME;
			else if (!strcmp(optarg, "count"))
				v.sort = PP__TOP_COUNT;
			else {
				cli_error("top: --sort: '%s' is not 'rate', 'time' or 'count'", optarg);
				return CLI_USAGE;
			}
			break;
		case OPT_ONCE:
			iterations = 1;
			break;
		case 'n':
			if (cli_parse_u64("top: --iterations", optarg, UINT64_MAX, &iterations) < 0)
				return CLI_USAGE;
			break;
		case OPT_LIST:
			list_only = 1;
			break;
		case OPT_RAW:
			v.raw = 1;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "json"))
				v.json = 1;
			else if (strcmp(optarg, "text")) {
				cli_error("top: --format: '%s' is not 'text' or 'json'", optarg);
				return CLI_USAGE;
			}
			break;
		case 'h':
			return cli_help(help_text);
		default:
			return cli_bad_option("top", c, argv);
		}
	}
	if (list_only)
		return cli_list_segments(stdout, PP__SHM_LIST_LIVE, "top");
	char picked[32];
	const char *target = argv[optind];
	if (optind >= argc) {
		int rc = pick_live(picked, sizeof picked);
		if (rc != CLI_OK)
			return rc;
		target = picked;
	} else if (argc - optind > 1) {
		cli_error("top: one segment name or pid expected, got %d", argc - optind);
		return CLI_USAGE;
	}
	if (v.interval < 0.01 && iterations != 1) {
		cli_error("top: --interval below 0.01 s only makes sense with --once");
		return CLI_USAGE;
	}
	if (!top_given && !v.json)
		v.top = TEXT_DEFAULT_TOP;

	char err[512];
	if (pp__shm_open(&v.seg, target, err, sizeof err) != 0) {
		cli_error("%s", err);
		return CLI_FAIL;
	}
	v.tty = !v.json && iterations != 1 && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	struct sigaction sa = { .sa_handler = on_signal }, oint, oterm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oint);
	sigaction(SIGTERM, &sa, &oterm);
	if (v.tty)
		raw_mode(1);
	int rc = CLI_OK;
	for (uint64_t i = 0; !iterations || i < iterations; i++) {
		if (!v.frozen && refresh(&v) != 0) {
			rc = CLI_FAIL;
			break;
		}
		if (pp__report_top(stdout, &v) != 0) {
			cli_error("top: out of memory, or the output failed");
			rc = CLI_FAIL;
			break;
		}
		if (iterations && i + 1 >= iterations)
			break;
		int w = wait_next(&v, stdout);
		if (w != 0) {
			rc = w < 0 ? CLI_FAIL : CLI_OK;
			break;
		}
	}
	raw_mode(0);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGTERM, &oterm, NULL);
	pp__profile_free(&v.cur);
	pp__profile_free(&v.prev);
	pp__shm_close(&v.seg);
	int orc = cli_output_close(stdout, NULL);
	return rc != CLI_OK ? rc : orc;
}
