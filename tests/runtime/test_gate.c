/* Runtime tests through the raii front-end, checked in-process on the merged
 * profile: exact path counts and name sequences, threads (exited ones too),
 * depth overflow, a full path table, sampling, reset, and segment timing
 * against busy-waits of known length. One mode per process, because the
 * runtime is process-wide state. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <pathprof/raii.h>
#include "check.h"
#include "profile.h"
#include "report.h"
#include "runtime.h"
#include "slab.h"

#define NOINL __attribute__((noinline))

/* The canonical listing of the current profile, as a string. */
static char *listing(pp_profile_t *keep)
{
	pp_profile_t p;
	char err[256], *buf = NULL;
	size_t len = 0;
	CHECK(pp__profile_collect(&p, err, sizeof err) == 0);
	FILE *f = open_memstream(&buf, &len);
	pp_report_opts_t o = {.format = PP_FORMAT_PATHS};
	CHECK(pp__report(f, &p, &o) == 0);
	fclose(f);
	if (keep)
		*keep = p;
	else
		pp__profile_free(&p);
	return buf;
}

static const pp_ppath_t *find_path(const pp_profile_t *p, const char *names)
{
	for (uint32_t i = 0; i < p->npaths; i++) {
		char buf[512] = "";
		for (uint32_t j = 0; j < p->paths[i].depth; j++) {
			if (j)
				strcat(buf, ">");
			strcat(buf, p->names[p->paths[i].names[j]].name);
		}
		if (!strcmp(buf, names))
			return &p->paths[i];
	}
	fprintf(stderr, "path %s not found\n", names);
	exit(1);
}

/* --- a known call tree, with every way of leaving a scope --- */
static volatile int sink;

NOINL static int leaf(int i)
{
	PP_GATE("leaf");
	if (i % 2)
		return 1; /* early return */
	return 0;
}

NOINL static void looper(int n)
{
	PP_GATE("looper");
	for (int i = 0; i < n; i++) {
		PP_GATE("body");
		if (i == 2)
			break; /* break out of a gated loop body */
		sink += leaf(i);
	}
}

NOINL static void jumper(int i)
{
	PP_GATE("jumper");
	{
		PP_GATE("inner");
		if (i % 3 == 0)
			goto out; /* goto out of a gated block */
		sink += leaf(i);
	}
out:
	sink++;
}

NOINL static void top(int i)
{
	PP_GATE("top");
	looper(i % 4);
	jumper(i);
}

static void mode_tree(void)
{
	for (int i = 0; i < 120; i++) {
		PP_ROOT();
		top(i);
	}
	/* i%4: 0 -> looper has no body (leaf "top>looper");
	 * n=1: body(0) -> leaf; n=2: body0, body1 -> leaf each; n=3: body0, body1, body2(break, leaf body)
	 * i in 0..119: 30 each of n=0,1,2,3.
	 * top>looper: 30; top>looper>body>leaf: n>=1 gives i=0 (30) + n>=2 gives i=1 (60) -> 30+30+30 + 30+30 = 150;
	 * top>looper>body (leaf body at i==2): 30.
	 * jumper: i%3==0 (40): inner is a leaf; else (80) inner>leaf. */
	char *got = listing(NULL);
	CHECK_EQ_STR(got, "40|top>jumper>inner\n"
			  "80|top>jumper>inner>leaf\n"
			  "30|top>looper\n"
			  "30|top>looper>body\n"
			  "150|top>looper>body>leaf\n");
	free(got);
	CHECK_EQ_U64(pp__tls.depth, 0);
}

/* --- threads: merged counts exact, exited threads counted --- */
NOINL static void work_a(void)
{
	PP_GATE("work_a");
}
NOINL static void work_b(void)
{
	PP_GATE("work_b");
	work_a();
}

static void *thread_main(void *arg)
{
	int n = (int)(intptr_t)arg;
	for (int i = 0; i < n; i++) {
		PP_ROOT();
		if (i % 2)
			work_a();
		else
			work_b();
	}
	return NULL;
}

static void mode_threads(void)
{
	pthread_t th[6];
	/* Three threads finish (and exit) before three more start: their slabs are
	 * reused, and nothing recorded is lost. */
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 3; i++)
			pthread_create(&th[round * 3 + i], NULL, thread_main, (void *)(intptr_t)(1000 * (i + 1)));
		for (int i = 0; i < 3; i++)
			pthread_join(th[round * 3 + i], NULL);
	}
	thread_main((void *)(intptr_t)10);
	pp_profile_t p;
	char *got = listing(&p);
	/* per round 6000 events: 3000 odd (work_a), 3000 even (work_b>work_a); main 10 */
	CHECK_EQ_STR(got, "6005|work_a\n6005|work_b>work_a\n");
	CHECK_EQ_U64(p.threads, 7);
	CHECK_EQ_U64(p.events, 12010);
	CHECK_EQ_U64(p.records, 12010);
	pp__profile_free(&p);
	free(got);
}

/* --- recursion deeper than the stack bound --- */
NOINL static void rec(int n)
{
	PP_GATE("rec");
	if (n > 1)
		rec(n - 1);
}

static void mode_depth(void)
{
	pp__config.depth = 32; /* before the first gate registers this thread */
	for (int i = 0; i < 10; i++) {
		PP_ROOT();
		rec(50);  /* 18 frames past the bound: its leaf is lost, counted */
		rec(5);
		work_b();
	}
	pp_profile_t p;
	char *got = listing(&p);
	CHECK_EQ_STR(got, "10|rec>rec>rec>rec>rec\n10|work_b>work_a\n");
	CHECK_EQ_U64(p.drops_depth, 10 * 18);
	CHECK_EQ_U64(pp__tls.depth, 0);
	CHECK_EQ_U64(pp__tls.limit, 32);
	pp__profile_free(&p);
	free(got);
}

/* --- a full path table --- */
#define GATE_N(n)                        \
	NOINL static void g##n(void)     \
	{                                \
		PP_GATE("g" #n);         \
	}
GATE_N(0) GATE_N(1) GATE_N(2) GATE_N(3) GATE_N(4) GATE_N(5) GATE_N(6) GATE_N(7)
GATE_N(8) GATE_N(9) GATE_N(10) GATE_N(11) GATE_N(12) GATE_N(13) GATE_N(14) GATE_N(15)
GATE_N(16) GATE_N(17) GATE_N(18) GATE_N(19)
static void (*const gs[20])(void) = {g0, g1, g2, g3, g4, g5, g6, g7, g8, g9,
				     g10, g11, g12, g13, g14, g15, g16, g17, g18, g19};

static void mode_full(void)
{
	pp__config.paths = 16;
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 20; i++) {
			PP_ROOT();
			gs[i]();
		}
	pp_profile_t p;
	free(listing(&p));
	CHECK_EQ_U64(p.npaths, 16);
	CHECK_EQ_U64(p.drops_table, 3 * 4);
	CHECK_EQ_U64(p.records, 60);
	for (uint32_t i = 0; i < p.npaths; i++)
		CHECK_EQ_U64(p.paths[i].count, 3);
	pp__profile_free(&p);
}

/* --- timing: segments against busy-waits of known length --- */
static void spin_ns(uint64_t ns)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	do
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	while ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)(b.tv_nsec - a.tv_nsec) < ns);
}

NOINL static void stage_c(void)
{
	PP_GATE("stage_c");
	spin_ns(40000);
}
NOINL static void stage_b(void)
{
	PP_GATE("stage_b");
	spin_ns(120000);
	stage_c();
	spin_ns(30000); /* after the leaf: belongs to no segment of this path */
}
NOINL static void stage_a(void)
{
	PP_GATE("stage_a");
	spin_ns(80000);
	stage_b();
}

static void check_near(const pp_profile_t *p, const pp_seg_t *s, double want_ns)
{
	double med = pp__ticks_ns(p, pp__seg_percentile(s, 50));
	double tick = 1.0 / p->ticks_per_ns;
	double tol = want_ns * 0.05 > tick ? want_ns * 0.05 : tick;
	if (med < want_ns - tol || med > want_ns + tol) {
		fprintf(stderr, "median %.0f ns, expected %.0f +- %.0f\n", med, want_ns, tol);
		exit(1);
	}
}

static void mode_timing(void)
{
	CHECK(pp_set_timing(PP_TIMING_ON, 0) == 0);
	for (int i = 0; i < 60; i++) {
		PP_ROOT();
		stage_a();
	}
	pp_profile_t p;
	char *got = listing(&p);
	CHECK_EQ_STR(got, "60|stage_a>stage_b>stage_c\n");
	const pp_ppath_t *q = find_path(&p, "stage_a>stage_b>stage_c");
	CHECK(q->segs != NULL);
	for (int i = 0; i < 3; i++)
		CHECK_EQ_U64(q->segs[i].count, 60);
	check_near(&p, &q->segs[0], 80000);
	check_near(&p, &q->segs[1], 120000);
	check_near(&p, &q->segs[2], 40000);
	pp__profile_free(&p);
	free(got);
}

/* --- -DPP_NO_TIMING strips timing from the inline gate: with timing asked
 * for at run time, counts are exact and no segment is ever timed --- */
static void mode_notiming(void)
{
	CHECK(pp_set_timing(PP_TIMING_ON, 0) == 0);
	for (int i = 0; i < 25; i++) {
		PP_ROOT();
		work_b();
	}
	pp_profile_t p;
	char *got = listing(&p);
	CHECK_EQ_STR(got, "25|work_b>work_a\n");
#ifdef PP_NO_TIMING
	CHECK(find_path(&p, "work_b>work_a")->segs == NULL);
#else
	CHECK_EQ_U64(find_path(&p, "work_b>work_a")->segs[1].count, 25);
#endif
	pp__profile_free(&p);
	free(got);
}

/* --- sampling keeps counts exact and times one event in N --- */
static void mode_sample(void)
{
	CHECK(pp_set_timing(PP_TIMING_SAMPLE, 3) == 0);
	for (int i = 0; i < 100; i++) {
		PP_ROOT();
		work_b();
		work_a();
	}
	pp_profile_t p;
	char *got = listing(&p);
	CHECK_EQ_STR(got, "100|work_a\n100|work_b>work_a\n");
	const pp_ppath_t *q = find_path(&p, "work_b>work_a");
	const pp_ppath_t *r = find_path(&p, "work_a");
	CHECK(q->segs && r->segs);
	/* each iteration is two root frames (work_b, work_a): 200 events, one
	 * in three timed, alternating between the two paths */
	CHECK_EQ_U64(q->segs[0].count + r->segs[0].count, 66);
	CHECK_EQ_U64(q->segs[0].count, q->segs[1].count);
	CHECK_EQ_U64(p.events, 200);
	pp__profile_free(&p);
	free(got);
}

/* --- reset zeroes everything recorded so far --- */
static void mode_reset(void)
{
	for (int i = 0; i < 10; i++)
		work_b();
	pp_reset();
	for (int i = 0; i < 3; i++)
		work_a();
	char *got = listing(NULL);
	CHECK_EQ_STR(got, "3|work_a\n");
	free(got);
}

/* --- pp_dump writes what collect sees; the file reads back equal --- */
static void mode_dump(void)
{
	CHECK(pp_set_timing(PP_TIMING_ON, 0) == 0);
	for (int i = 0; i < 7; i++)
		top(i);
	char path[] = "/tmp/pp-test-dump-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK(pp_dump(path) == 0);
	pp_profile_t a, b;
	char err[256];
	char *want = listing(&a);
	CHECK(pp__profile_read(&b, path, err, sizeof err) == 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	pp_report_opts_t o = {.format = PP_FORMAT_PATHS};
	pp__report(f, &b, &o);
	fclose(f);
	CHECK_EQ_STR(buf, want);
	CHECK_EQ_U64(b.npaths, a.npaths);
	CHECK(!strcmp(b.frontend, "raii"));
	for (uint32_t i = 0; i < a.npaths; i++) {
		CHECK_EQ_U64(a.paths[i].id, b.paths[i].id);
		CHECK(b.paths[i].segs != NULL);
		for (uint32_t j = 0; j < a.paths[i].depth; j++)
			CHECK_EQ_U64(a.paths[i].segs[j].sum, b.paths[i].segs[j].sum);
	}
	unlink(path);
	pp__profile_free(&a);
	pp__profile_free(&b);
	free(buf);
	free(want);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} modes[] = {
		{"tree", mode_tree},     {"threads", mode_threads}, {"depth", mode_depth},
		{"full", mode_full},     {"timing", mode_timing},   {"sample", mode_sample},
		{"reset", mode_reset},   {"dump", mode_dump},       {"notiming", mode_notiming},
	};
	pp_disable_exit_dump();
	for (size_t i = 0; argc == 2 && i < sizeof modes / sizeof *modes; i++)
		if (!strcmp(argv[1], modes[i].name)) {
			modes[i].fn();
			return 0;
		}
	fprintf(stderr, "usage: test_gate MODE\n");
	return 2;
}
