/* scale: what a raii gate costs as distinct paths (1, 100, 10 000) and depth
 * (2, 8, 32) grow, per timing mode, against the same chains without gates;
 * and what the runtime keeps resident per idle thread and per path. One JSON
 * object per line on stdout, for bench/overhead.py; progress on stderr.
 * Batches alternate plain, gated, plain, gated... (A B A B) on the pinned CPU
 * the caller chose, and each result is a median over the pairs. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pathprof/pathprof.h>
#include "chain.h"

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct cell {
	uint32_t depth;
	uint64_t paths;
} cell_t;

/* `iters` events cycling through the first `paths` codes. */
static __attribute__((noinline)) void run_chain(const cell_t *c, int gated, uint64_t iters)
{
	uint64_t acc = 0, code = 0;
	for (uint64_t i = 0; i < iters; i++) {
		acc += gated ? gated_event(code, c->depth) : plain_event(code, c->depth);
		code = code + 1 == c->paths ? 0 : code + 1;
	}
	sink = acc;
}

/* Two back-to-back timestamp reads (a timed leaf's enter and exit) against an
 * empty loop of the same shape: the reference of the timed target. */
static __attribute__((noinline)) void run_rdtsc(const cell_t *c, int pair, uint64_t iters)
{
	(void)c;
	uint64_t acc = 0;
	for (uint64_t i = 0; i < iters; i++) {
		if (pair) {
			uint64_t a = pp_ticks();
			acc += pp_ticks() - a;
		} else {
			acc += i;
		}
		__asm__ volatile("" : "+r"(acc));
	}
	sink = acc;
}

typedef void (*body_fn)(const cell_t *c, int which, uint64_t iters);

static double batch_ns(body_fn fn, const cell_t *c, int which, uint64_t iters)
{
	uint64_t t0 = now_ns();
	fn(c, which, iters);
	return (double)(now_ns() - t0) / (double)iters;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Quantile q of n sorted values, nearest rank. */
static double quantile(const double *v, int n, double q)
{
	return v[(int)(q * (n - 1) + 0.5)];
}

typedef struct result {
	double base_ns, gated_ns; /* per event, medians */
	double gate_ns, gate_q1, gate_q3; /* per gate over baseline, over the pairs */
} result_t;

/* reps pairs of batches of about `target` ns each: short enough that most
 * pairs escape preemption on a busy machine (the median discards the rest). */
static result_t measure(body_fn fn, const cell_t *c, double target, int per, int reps)
{
	double *v = calloc((size_t)reps * 3, sizeof(double));
	if (!v) {
		fprintf(stderr, "scale: out of memory\n");
		exit(1);
	}
	double *base = v, *gated = v + reps, *diff = v + 2 * reps;
	uint64_t warm = c && c->paths > 1000 ? 2 * c->paths : 1000;
	fn(c, 1, warm); /* first sight of every path, page faults */
	double probe = batch_ns(fn, c, 1, 1000);
	uint64_t iters = probe > 0 ? (uint64_t)(target / probe) : 1000;
	if (iters < 1000)
		iters = 1000;
	for (int r = 0; r < reps; r++) {
		base[r] = batch_ns(fn, c, 0, iters);
		gated[r] = batch_ns(fn, c, 1, iters);
		diff[r] = (gated[r] - base[r]) / per;
	}
	for (int i = 0; i < 3; i++)
		qsort(v + i * reps, (size_t)reps, sizeof(double), cmp_double);
	result_t res = {quantile(base, reps, 0.5), quantile(gated, reps, 0.5), quantile(diff, reps, 0.5),
			quantile(diff, reps, 0.25), quantile(diff, reps, 0.75)};
	free(v);
	return res;
}

/* Resident bytes of this process (statm), page granular. */
static long resident(void)
{
	long size, res;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f)
		return -1;
	int ok = fscanf(f, "%ld %ld", &size, &res) == 2;
	fclose(f);
	return ok ? res * sysconf(_SC_PAGESIZE) : -1;
}

static pthread_barrier_t ready, done;

static void *idle_thread(void *gate)
{
	if (gate)
		sink += gated_event(0, 1); /* registers the thread: its slab is what is measured */
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&done);
	return NULL;
}

/* Resident growth from n threads that each wait at a barrier, with or
 * without having run one gate; all stay alive until the caller lets them go. */
static long threads_rss(pthread_t *tid, int n, int gate)
{
	pthread_barrier_init(&ready, NULL, (unsigned)n + 1);
	long before = resident();
	for (int i = 0; i < n; i++)
		if (pthread_create(&tid[i], NULL, idle_thread, gate ? (void *)1 : NULL) != 0) {
			fprintf(stderr, "scale: pthread_create: %s\n", strerror(errno));
			exit(1);
		}
	pthread_barrier_wait(&ready);
	long after = resident();
	pthread_barrier_destroy(&ready);
	return after - before;
}

/* Bytes per idle thread: threads that ran a gate against threads that did
 * not, both alive at once, so stacks and kernel bookkeeping cancel. Bytes per
 * path: n new depth-8 paths on this thread, count-only then timed (new codes,
 * each seen timed once so every segment has a histogram). */
static int memory(void)
{
	enum { NT = 64, NP = 10000 };
	pthread_t tid[2 * NT];
	pthread_barrier_init(&done, NULL, 2 * NT + 1);
	long plain = threads_rss(tid, NT, 0);
	long gated = threads_rss(tid + NT, NT, 1);
	pthread_barrier_wait(&done);
	for (int i = 0; i < 2 * NT; i++)
		pthread_join(tid[i], NULL);
	printf("{\"kind\": \"memory\", \"what\": \"idle thread\", \"threads\": %d, \"bytes\": %.0f}\n", NT,
	       (double)(gated - plain) / NT);

	pp_set_timing(PP_TIMING_OFF, 0);
	sink += gated_event(CHAIN_MAX_CODES - 1, 8); /* this thread's slab, outside the figure */
	long r0 = resident();
	for (uint64_t c = 0; c < NP; c++)
		sink += gated_event(c, 8);
	long r1 = resident();
	pp_set_timing(PP_TIMING_ON, 0);
	for (uint64_t c = NP; c < 2 * NP; c++)
		sink += gated_event(c, 8);
	long r2 = resident();
	printf("{\"kind\": \"memory\", \"what\": \"path, depth 8, count-only\", \"paths\": %d, \"bytes\": %.1f}\n",
	       NP, (double)(r1 - r0) / NP);
	printf("{\"kind\": \"memory\", \"what\": \"path, depth 8, timed\", \"paths\": %d, \"bytes\": %.1f}\n", NP,
	       (double)(r2 - r1) / NP);
	return 0;
}

static const struct mode {
	const char *name;
	enum pp_timing timing;
	unsigned n;
} modes[] = {
	{"count-only", PP_TIMING_OFF, 0},
	{"timed", PP_TIMING_ON, 0},
	{"sampled 1/64", PP_TIMING_SAMPLE, 64},
};

static int usage(FILE *out, int rc)
{
	fprintf(out, "usage: scale [--quick] [--reps N]   (time per gate, JSON lines)\n"
		     "       scale --memory                (resident bytes, JSON lines)\n");
	return rc;
}

int main(int argc, char **argv)
{
	int reps = 101, quick = 0;
	pp_disable_exit_dump();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--memory"))
			return memory();
		else if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--help"))
			return usage(stdout, 0);
		else
			return usage(stderr, 2);
	}
	if (quick)
		reps = 15;
	if (reps < 3)
		reps = 3;
	double target = quick ? 200e3 : 400e3;

	result_t t = measure(run_rdtsc, NULL, target, 1, reps);
	printf("{\"kind\": \"rdtsc pair\", \"ns\": %.3f, \"q1\": %.3f, \"q3\": %.3f}\n", t.gate_ns, t.gate_q1,
	       t.gate_q3);
	static const uint32_t depths[] = {2, 8, 32};
	static const uint64_t npaths[] = {1, 100, 10000};
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		pp_set_timing(modes[m].timing, modes[m].n);
		for (size_t d = 0; d < 3; d++)
			for (size_t p = 0; p < 3; p++) {
				cell_t c = {depths[d], npaths[p]};
				fprintf(stderr, "scale: %s, depth %u, %llu paths\n", modes[m].name, c.depth,
					(unsigned long long)c.paths);
				result_t r = measure(run_chain, &c, target, (int)c.depth, reps);
				printf("{\"kind\": \"scale\", \"mode\": \"%s\", \"depth\": %u, \"paths\": %llu, "
				       "\"base_ns_per_event\": %.3f, \"gated_ns_per_event\": %.3f, "
				       "\"ns_per_gate\": %.3f, \"q1\": %.3f, \"q3\": %.3f, \"reps\": %d}\n",
				       modes[m].name, c.depth, (unsigned long long)c.paths, r.base_ns, r.gated_ns,
				       r.gate_ns, r.gate_q1, r.gate_q3, reps);
				fflush(stdout);
			}
	}
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
