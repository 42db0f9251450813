/* feedbench: the feed example timed from inside the process, so that start-up,
 * the profiler's set-up and the profile written at exit stay out of the figure.
 * examples/feed/main.c is compiled with -Dmain=feed_main; this main runs it once
 * to warm up (first sight of every path, page faults), then PASSES times timed
 * on the same seed (the same messages and paths each time), and prints
 * "feedbench: ns=... messages=..." per pass on stderr: the caller keeps the
 * fastest pass, the one least disturbed by the rest of the machine.
 * `feedbench --expect MESSAGES SEED` prints feed's own oracle (feed --expect). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pathprof/compiler.h>

int feed_main(int argc, char **argv);

#ifdef BENCH_XRAY_FDR
/* XRay's own log interface (C++ enums in xray_log_interface.h; plain ints
 * here). FDR mode is started by the program (XRAY_OPTIONS only selects it),
 * keeps its records in memory and writes them when told to. */
int __xray_log_init_mode(const char *mode, const char *config);
int __xray_log_finalize(void);
int __xray_log_flushLog(void);
#endif

#ifdef BENCH_COUNT
/* gatecount.c: exact gate, leaf-return and event counts of the timed run */
extern uint64_t bench_gates, bench_leaves, bench_events;
#endif

static PP_NOINSTR uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static PP_NOINSTR int run(const char *messages, const char *seed, const char *how)
{
	char *argv[] = {"feed", "--messages", (char *)messages, "--seed", (char *)seed, (char *)how, NULL};
	return feed_main(6, argv);
}

/* The timed pass, out of line so that callgrind can collect it alone
 * (--toggle-collect=timed_run). */
static PP_NOINLINE int timed_run(const char *messages, const char *seed, uint64_t *ns)
{
	uint64_t t0 = now_ns();
	int rc = run(messages, seed, "--quiet");
	*ns = now_ns() - t0;
	return rc;
}

PP_NOINSTR int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: feedbench WARMUP_MESSAGES MESSAGES SEED [PASSES]\n"
				"       feedbench --expect MESSAGES SEED\n");
		return 2;
	}
	if (!strcmp(argv[1], "--expect"))
		return run(argv[2], argv[3], "--expect");
#ifdef BENCH_XRAY_FDR
	int init = __xray_log_init_mode("xray-fdr", ""); /* 2 = XRAY_LOG_INITIALIZED */
	if (init != 2) {
		fprintf(stderr, "feedbench: XRay FDR mode did not start (status %d)\n", init);
		return 1;
	}
#endif
	if (strtoull(argv[1], NULL, 10) > 0 && run(argv[1], argv[3], "--quiet") != 0)
		return 1;
#ifdef BENCH_COUNT
	bench_gates = bench_leaves = bench_events = 0;
#endif
	unsigned long passes = argc == 5 ? strtoul(argv[4], NULL, 10) : 1;
	for (unsigned long i = 0; i < passes; i++) {
		uint64_t ns;
		if (timed_run(argv[2], argv[3], &ns) != 0)
			return 1;
		fprintf(stderr, "feedbench: ns=%" PRIu64 " messages=%s\n", ns, argv[2]);
	}
#ifdef BENCH_XRAY_FDR
	/* 4 = XRAY_LOG_FINALIZED, 2 = XRAY_LOG_FLUSHED: proof the run was logged */
	int fin = __xray_log_finalize(), flush = __xray_log_flushLog();
	if (fin != 4 || flush != 2) {
		fprintf(stderr, "feedbench: XRay FDR log not written (finalize %d, flush %d)\n", fin, flush);
		return 1;
	}
#endif
#ifdef BENCH_COUNT
	fprintf(stderr, "feedbench: gates=%" PRIu64 " leaves=%" PRIu64 " events=%" PRIu64 "\n",
		bench_gates, bench_leaves, bench_events);
#endif
	return 0;
}
