/* `pathprof record --offcpu -p PID -d SECONDS`: off-CPU data of a process
 * that is already running, for a while. The recorder (offcpu/) attaches to
 * the process's threads, reads its live segment for where their gate state
 * lives and for the names of their keys, and at the end writes a profile:
 * the segment's snapshot at that moment (as `pathprof recover --force`
 * takes it) plus the off-CPU entries of the recorded seconds. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#ifdef PP_HAVE_OFFCPU
#include "offcpu.h"
#include "shm_read.h"
#endif

static const char help_text[] =
	"usage: pathprof record --offcpu -p PID [-d SECONDS] [-o FILE]\n"
	"\n"
	"Record where the threads of a running profiled process block, why (futex,\n"
	"poll, disk, net, sleep, other) and which path wakes them, for SECONDS\n"
	"(default 10; SIGINT ends it sooner), then write a profile FILE: the counts\n"
	"and times of its live segment at the end, and the off-CPU data of the\n"
	"recorded time (docs/guides/offcpu.md). The process must export its live segment\n"
	"(the default; PATHPROF_SHM not off). Needs root, or CAP_BPF and\n"
	"CAP_PERFMON, and a kernel with BTF.\n"
	"\n"
	"options:\n"
	"  --offcpu            what to record (the only kind for now)\n"
	"  -p, --pid PID       the process\n"
	"  -d, --duration T    how long: seconds, or with a unit (500ms, 2s)\n"
	"  -o, --out FILE      profile to write (default: PROGRAM.PID.offcpu.pathprof)\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 written; 1 no such process or segment, no rights, or a\n"
	"failed write; 2 bad command line.\n";

enum { OPT_OFFCPU = 256 };

static const struct option longopts[] = {
	{ "offcpu", no_argument, NULL, OPT_OFFCPU },
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, 'd' },
	{ "out", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#ifdef PP_HAVE_OFFCPU
static volatile sig_atomic_t stop;

static void on_int(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int record(const char *pid_s, uint64_t ns, const char *out)
{
	char err[512], *dflt = NULL;
	pp__shm_view_t v;
	if (pp__shm_open(&v, pid_s, err, sizeof err) != 0) {
		cli_error("record: %s", err);
		return CLI_FAIL;
	}
	/* kept open to the end: a process that exits meanwhile removes its
	 * segment's name, not the mapping */
	int64_t tls = v.h->tls_offset;
	if (!tls) {
		cli_error("record: %s: the segment does not say where the threads' gate state is "
			  "(a pathprof older than this one, or not x86-64)", v.object);
		pp__shm_close(&v);
		return CLI_FAIL;
	}
	pp_offcpu_rec_t *rec = pp_offcpu_start(atoi(pid_s), err, sizeof err);
	if (!rec) {
		cli_error("record: --offcpu: %s", err);
		pp__shm_close(&v);
		return CLI_FAIL;
	}
	pp_offcpu_set_process(rec, tls, v.h->own_work_at);
	struct sigaction sa = {.sa_handler = on_int}, old;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	uint64_t end = mono_ns() + ns;
	while (!stop && mono_ns() < end && kill(atoi(pid_s), 0) == 0)
		pp_offcpu_poll(rec, 50);
	sigaction(SIGINT, &old, NULL);

	pp_profile_t p;
	pp__shm_stats_t st;
	int rc = CLI_FAIL;
	v.raw_keys = 1;
	if (pp__shm_snapshot(&v, &p, &st, err, sizeof err) != 0) {
		pp_offcpu_finish(rec, NULL, NULL, NULL, 0);
		cli_error("record: %s", err);
		pp__shm_close(&v);
		return CLI_FAIL;
	}
	if (!out) {
		if (asprintf(&dflt, "%s.%llu.offcpu.pathprof", st.program[0] ? st.program : "pathprof",
			     (unsigned long long)st.pid) < 0) {
			dflt = NULL;
			pp_offcpu_finish(rec, NULL, NULL, NULL, 0);
			cli_error("record: out of memory");
			goto done;
		}
		out = dflt;
	}
	if (pp_offcpu_finish(rec, &v, &p, err, sizeof err) != 0 ||
	    pp__profile_write(&p, out, err, sizeof err) != 0) {
		cli_error("record: %s", err);
		goto done;
	}
	fprintf(stderr, "pathprof: recorded %u off-CPU entries of process %llu into %s\n",
		p.noffcpu, (unsigned long long)st.pid, out);
	rc = CLI_OK;
done:
	free(dflt);
	pp__profile_free(&p);
	pp__shm_close(&v);
	return rc;
}
#endif

int cmd_record(int argc, char **argv)
{
	const char *pid = NULL, *out = NULL;
	uint64_t ns = 10000000000ull;
	int offcpu = 0, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:d:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_OFFCPU:
			offcpu = 1;
			break;
		case 'p':
			pid = optarg;
			break;
		case 'd': {
			/* plain digits are seconds here, as the option says */
			char buf[64];
			int digits = optarg[0] && strspn(optarg, "0123456789") == strlen(optarg);
			snprintf(buf, sizeof buf, "%s%s", optarg, digits ? "s" : "");
			if (cli_parse_duration("record: --duration", buf, &ns) < 0)
				return CLI_USAGE;
			break;
		}
		case 'o':
			out = optarg;
			break;
		case 'h':
			return cli_help(help_text);
		default:
			return cli_bad_option("record", c, argv);
		}
	}
	if (!offcpu || !pid || optind != argc) {
		cli_error("record: expected --offcpu -p PID (see 'pathprof record --help')");
		return CLI_USAGE;
	}
	if (!pid[0] || strspn(pid, "0123456789") != strlen(pid)) {
		cli_error("record: -p: '%s' is not a process id", pid);
		return CLI_USAGE;
	}
#ifdef PP_HAVE_OFFCPU
	return record(pid, ns, out);
#else
	(void)out;
	(void)ns;
	cli_error("record: --offcpu: this pathprof was built without BPF (libbpf-dev, bpftool, "
		  "clang and a kernel with BTF are needed at build time)");
	return CLI_FAIL;
#endif
}
