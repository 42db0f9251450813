/* `pathprof recover`: the profile of a process that died without writing one.
 * SIGKILL, an OOM kill, _exit or exec run nothing in the process, but every
 * profiled process exports a live segment (pathprof.PID by default) and
 * leaves its slabs and the names its namer published in shared memory. This reads them once, as `pathprof top` does, and writes an
 * ordinary profile that says it was recovered. */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"
#include "shm_read.h"

static const char help_text[] =
	"usage: pathprof recover [options] NAME|PID|FILE\n"
	"       pathprof recover --list\n"
	"\n"
	"Write the profile of a process that died without writing one (SIGKILL, OOM\n"
	"kill, _exit, exec) from the live segment it left in shared memory: every\n"
	"profiled process exports one (pathprof.PID by default, PATHPROF_SHM=NAME,\n"
	"pp_shm_export(), or pathprof-run.PID under 'pathprof run'). NAME is the\n"
	"segment's name, PID finds it in /dev/shm, FILE is a copy of one (a path\n"
	"with a '/').\n"
	"\n"
	"Counts are exact up to the kill: an event still in flight in a thread is\n"
	"not counted. A key the process had not named (first seen after its last\n"
	"naming pass, or any key of a program that ran one thread) is named from\n"
	"the program's files when it is a cyg, raii or plugin key and the file is\n"
	"the one the process had mapped (same build id); otherwise it shows as\n"
	"FRONTEND:0xKEY, and the report says how many. Times, when the process\n"
	"timed its gates, have the gate's own cost it measured while it ran\n"
	"taken out by the reports, as a profile written at exit has (a program\n"
	"that ran one thread published no such measure: its times hold that\n"
	"cost). The segment is removed once the profile is written, unless\n"
	"--keep.\n"
	"\n"
	"A segment stays in /dev/shm (memory) until it is recovered or removed;\n"
	"--list prints those your processes left, one 'PID PROGRAM SEGMENT' line\n"
	"each: still marked running, their process gone. Recover each by its\n"
	"segment's name (a pid may since name another process).\n"
	"\n"
	"options:\n"
	"  -o, --out FILE  profile to write (default: PROGRAM.PID.pathprof here)\n"
	"  --keep          leave the segment in /dev/shm\n"
	"  --force         read a segment whose process still runs (a snapshot;\n"
	"                  'pathprof top' is the live view)\n"
	"  --list          print the segments dead processes of yours left\n"
	"  -h, --help      show this help\n"
	"\n"
	"Exit status: 0 written (or listed), 1 no such segment, a damaged one, a\n"
	"running process without --force, or a failed write; 2 bad command line.\n";

enum { OPT_KEEP = 256, OPT_FORCE, OPT_LIST };

static const struct option longopts[] = {
	{ "out", required_argument, NULL, 'o' },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cli_recover(const char *target, const char *out, int signal, int flags)
{
	pp__shm_view_t v;
	char err[512];
	if (pp__shm_open(&v, target, err, sizeof err) != 0) {
		cli_error("recover: %s", err);
		return CLI_FAIL;
	}
	v.raw_keys = 1;
	pp_profile_t p;
	pp__shm_stats_t st;
	if (pp__shm_snapshot(&v, &p, &st, err, sizeof err) != 0) {
		cli_error("recover: %s", err);
		pp__shm_close(&v);
		return CLI_FAIL;
	}
	int rc = CLI_OK;
	char *dflt = NULL;
	if (st.alive && !(flags & CLI_RECOVER_FORCE)) {
		cli_error("recover: %s: process %llu is still running ('pathprof top %s' shows it "
			  "live; --force takes a snapshot)", v.object, (unsigned long long)st.pid, target);
		rc = CLI_FAIL;
		goto out;
	}
	p.recovered = !st.alive; /* a forced snapshot is not a recovery */
	p.recovered_signal = signal > 0 && signal <= 64 ? (uint32_t)signal
			     : st.crash_signal <= 64 ? st.crash_signal : 0;
	p.recovered_raw_keys = st.raw_keys > UINT32_MAX ? UINT32_MAX : (uint32_t)st.raw_keys;
	if (!out) {
		const char *prog = st.program[0] ? st.program : "pathprof";
		if (asprintf(&dflt, "%s.%llu.pathprof", prog, (unsigned long long)st.pid) < 0) {
			dflt = NULL;
			cli_error("recover: out of memory");
			rc = CLI_FAIL;
			goto out;
		}
		out = dflt;
	}
	if (pp__profile_write(&p, out, err, sizeof err) != 0) {
		cli_error("recover: %s", err);
		rc = CLI_FAIL;
		goto out;
	}
	/* Only what nobody writes any more is removed: a forced snapshot of a
	 * running process leaves its segment alone. */
	if (!(flags & CLI_RECOVER_KEEP) && !st.alive && !v.is_file)
		shm_unlink(v.object);
	if (!(flags & CLI_RECOVER_QUIET)) {
		char from_files[96] = "";
		/* the keys it never named, named here from its files
		 * (reader/shm_offline.h) */
		if (st.file_named)
			snprintf(from_files, sizeof from_files, " (%llu keys named from the program's files)",
				 (unsigned long long)st.file_named);
		fprintf(stderr, "pathprof: recovered %llu path records of process %llu into %s%s%s\n",
			(unsigned long long)(p.records - p.drops_table), (unsigned long long)st.pid, out,
			from_files, st.raw_keys ? " (some keys unnamed: see the report)" : "");
	}
out:
	free(dflt);
	pp__profile_free(&p);
	pp__shm_close(&v);
	return rc;
}

int cmd_recover(int argc, char **argv)
{
	const char *out = NULL;
	int flags = 0, list = 0, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_KEEP:
			flags |= CLI_RECOVER_KEEP;
			break;
		case OPT_FORCE:
			flags |= CLI_RECOVER_FORCE;
			break;
		case OPT_LIST:
			list = 1;
			break;
		case 'h':
			return cli_help(help_text);
		default:
			return cli_bad_option("recover", c, argv);
		}
	}
	if (list) {
		if (argc > optind || out || flags) {
			cli_error("recover: --list takes no segment and no other option");
			return CLI_USAGE;
		}
		return cli_list_segments(stdout, PP__SHM_LIST_LEFT, "recover");
	}
	if (argc - optind != 1) {
		cli_error("recover: expected one segment name, pid or file (see 'pathprof recover --help')");
		return CLI_USAGE;
	}
	return cli_recover(argv[optind], out, 0, flags);
}
