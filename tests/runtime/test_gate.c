/* Runtime tests through the raii front-end, checked in-process on the merged
 * profile: exact path counts and name sequences, threads (exited ones too),
 * depth overflow, a full path table, a node moved to its home slot, what
 * an idle thread takes of the arena,
 * sampling, reset, and segment timing
 * against busy-waits of known length. One mode per process, because the
 * runtime is process-wide state. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <pathprof/raii.h>
#include "check.h"
#include "gate_impl.h"
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

/* The entry of list (paths or nodes) named names ("a>b"), or NULL. */
static const pp_ppath_t *find_in(const pp_profile_t *p, const pp_ppath_t *list, uint32_t n,
				 const char *names)
{
	for (uint32_t i = 0; i < n; i++) {
		char buf[512] = "";
		for (uint32_t j = 0; j < list[i].depth; j++) {
			if (j)
				strcat(buf, ">");
			strcat(buf, p->names[list[i].names[j]].name);
		}
		if (!strcmp(buf, names))
			return &list[i];
	}
	return NULL;
}

static const pp_pnode_t *find_node(const pp_profile_t *p, const char *names)
{
	return find_in(p, p->nodes, p->nnodes, names);
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
	CHECK_EQ_U64(PP__DS_DEPTH(pp__tls.dstate), 0);
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

/* --- idle: a thread that ran one gate takes at most 64 KiB of the arena
 * (its slab's header and frames, its first table, its first chunk), every
 * byte of which an exported arena backs at once (runtime/slab.c); run with
 * PATHPROF_SHM=off, so no naming thread allocates meanwhile --- */
static void *one_gate(void *arg)
{
	(void)arg;
	PP_ROOT();
	work_a();
	return NULL;
}

static void mode_idle(void)
{
	pthread_t th;
	size_t before = __atomic_load_n(&pp__arena.used, __ATOMIC_ACQUIRE);
	CHECK(pthread_create(&th, NULL, one_gate, NULL) == 0);
	pthread_join(th, NULL);
	size_t took = __atomic_load_n(&pp__arena.used, __ATOMIC_ACQUIRE) - before;
	if (took == 0 || took > 64 * 1024)
		fprintf(stderr, "a thread of one gate took %zu bytes of the arena\n", took);
	CHECK(took > 0 && took <= 64 * 1024);
	char *got = listing(NULL);
	CHECK_EQ_STR(got, "1|work_a\n");
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
	CHECK_EQ_U64(PP__DS_DEPTH(pp__tls.dstate), 0);
	CHECK_EQ_U64(pp__tls.limit, 32 * PP__FRAME_BYTES);
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

/* --- a node past its home slot moves home (runtime/gate_node.c) --- */
/* Two nodes of one home slot, the second past it: tables laid out by hand
 * (the thread's own set aside), since which real paths collide depends on
 * where the linker put the gates (a multiplicative hash spreads evenly
 * spaced sites without a single collision). In a table of 8 192 slots or
 * more the node trades places with the one at home; in a smaller one the
 * table grows instead, which parts two homes that differ in the next bit. */
static void mode_home(void)
{
	/* Keys one apart (XRay's sibling ids, 4 and 5) make running hashes
	 * the mix's multiplier apart: their homes differ at every table size
	 * (from bits 32 and up they were the same nearly always) */
	for (uint64_t bits = 4; bits <= 24; bits++) {
		uint64_t m = (1ull << bits) - 1;
		for (uint64_t i = 0; i < 4096; i++) {
			uint64_t h = i * 0x9e3779b97f4a7c15ull, k = 2 * (i % 64);
			CHECK(pp__slot_index(pp__mix(h, k), m) != pp__slot_index(pp__mix(h, k + 1), m));
		}
	}
	PP_ROOT();
	gs[0](); /* the thread is registered */
	pp__tls_t *t = &pp__tls;
	pp__slab_t *s = pp__slab_of(t);
	pp__slot_t *table = t->table, *stable = s->table;
	uint64_t smask = t->smask, mask = s->mask, saved_hash = t->hash;
	/* A signal handler's gate that lands while the owner trades two slots
	 * (their hashes 0 for a moment, pp__gate_in_slow up) still finds its
	 * node, through the list: g0's, its slot hidden as a trade hides it.
	 * It was dropped and counted as drops_signal (CI, XRay, whose sibling
	 * ids shared a home at every table size until the home moved to bit 28). */
	pp__path_t *g0 = s->head;
	CHECK(g0 && g0->depth == 1);
	pp__slot_t *g0_slot = pp__slot_at(t->table, t->smask, g0->hash);
	CHECK(g0_slot->hash == g0->hash);
	g0_slot->hash = 0;
	pp__gate_in_slow = 1;
	t->hash = g0->hash;
	CHECK(pp__node_get(t, 1, NULL) == g0);
	t->hash = g0->hash ^ 1; /* a node not inserted yet: dropped (NULL) */
	CHECK(pp__node_get(t, 1, NULL) == NULL);
	pp__gate_in_slow = 0;
	g0_slot->hash = g0->hash;
	t->hash = saved_hash;
	static pp__slot_t big[8192], small[16];
	static pp__path_t a, b, c;
	uint64_t ha = (5ull << 28) | 1, hb = (5ull << 28) | 2, hc = (6ull << 28) | 3; /* homes: bits 28 and up */
	big[5] = (pp__slot_t){ hb, &b }; /* b at home */
	big[6] = (pp__slot_t){ ha, &a }; /* a past it */
	big[7] = (pp__slot_t){ hc, &c }; /* c, home 6, past it too */
	t->table = big;
	t->smask = 8191 * sizeof(pp__slot_t);
	t->hash = ha;
	/* 15 lookups past home leave it there; the 16th moves it home */
	for (int r = 1; r < 16; r++)
		CHECK(pp__node_get(t, 0, NULL) == &a);
	CHECK(big[6].path == &a && big[6].hash == ha);
	CHECK(pp__node_get(t, 0, NULL) == &a);
	CHECK(big[5].path == &a && big[5].hash == ha);
	CHECK(big[6].path == &b && big[6].hash == hb);
	CHECK_EQ_U64(a.misses, 0);
	/* every node is still found where linear probing looks for it */
	t->hash = hb;
	CHECK(pp__node_get(t, 0, NULL) == &b);
	t->hash = hc;
	CHECK(pp__node_get(t, 0, NULL) == &c);

	/* 16 slots: a's home is 5 there and 21 in a table of 32, b's 5 in both */
	uint64_t ha2 = (21ull << 28) | 1;
	small[5] = (pp__slot_t){ hb, &b };
	small[6] = (pp__slot_t){ ha2, &a };
	s->table = t->table = small;
	s->mask = 15;
	t->smask = 15 * sizeof(pp__slot_t);
	t->hash = ha2;
	for (int r = 1; r < 16; r++)
		CHECK(pp__node_get(t, 0, NULL) == &a);
	CHECK(t->table == small);
	CHECK(pp__node_get(t, 0, NULL) == &a);
	CHECK(t->table != small && t->table == s->table);
	CHECK_EQ_U64(s->mask, 31);
	CHECK_EQ_U64(t->smask, 31 * sizeof(pp__slot_t));
	CHECK(t->table[21].path == &a && t->table[21].hash == ha2);
	CHECK(t->table[5].path == &b && t->table[5].hash == hb);
	CHECK_EQ_U64(a.misses, 0);
	CHECK(small[5].path == &b && small[6].path == &a); /* the old one untouched */

	s->table = stable;
	s->mask = mask;
	t->table = table;
	t->smask = smask;
	t->hash = saved_hash;
	pp_profile_t p;
	free(listing(&p));
	CHECK_EQ_U64(p.records, 1);
	pp__profile_free(&p);
}

/* --- timing: nodes against busy-waits of known length --- */
/* A busy-wait of at least ns; returns how long it really took (a clock read
 * or a preemption can overshoot), which is the truth the profile must match. */
static uint64_t spin_ns(uint64_t ns)
{
	struct timespec a, b;
	uint64_t took;
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	do {
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		took = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)(b.tv_nsec - a.tv_nsec);
	} while (took < ns);
	return took;
}

/* What the spins of each stage really took, summed over calls. */
static uint64_t spun_a, spun_b, spun_c;

NOINL static void stage_c(void)
{
	PP_GATE("stage_c");
	spun_c += spin_ns(40000);
}
NOINL static void stage_b(void)
{
	PP_GATE("stage_b");
	spun_b += spin_ns(120000);
	stage_c();
	spun_b += spin_ns(30000); /* after the child: stage_b's own time too */
}
NOINL static void stage_a(void)
{
	PP_GATE("stage_a");
	spun_a += spin_ns(80000);
	stage_b();
}

/* Set while the round that warms up runs: its misses are not said. */
static int warming;

/* 1 when got is within 2% of want, or one tick quantum when that is wider. */
static int near(const pp_profile_t *p, const char *what, double got_ns, double want_ns)
{
	double tick = 1.0 / p->ticks_per_ns;
	double tol = want_ns * 0.02 > tick ? want_ns * 0.02 : tick;
	if (got_ns >= want_ns - tol && got_ns <= want_ns + tol)
		return 1;
	if (!warming)
		fprintf(stderr, "%s: %.0f ns, expected %.0f +- %.0f\n", what, got_ns, want_ns, tol);
	return 0;
}

/* Inclusive and self time of a node (sums over its calls) against the
 * spins' own measurement. */
static int node_near(const pp_profile_t *p, const char *names, uint64_t calls, uint64_t incl_ns,
		     uint64_t self_ns)
{
	const pp_pnode_t *n = find_node(p, names);
	CHECK(n != NULL);
	CHECK_EQ_U64(n->incl.count, calls);
	return near(p, names, pp__ticks_ns(p, n->incl.sum), (double)incl_ns) &
	       near(p, names, pp__ticks_ns(p, n->self), (double)self_ns);
}

/* Nested gates around busy-waits of known length: every node's inclusive and
 * self time within 2% of what the spins measured themselves; the self times
 * of all nodes add up, to the tick, to the root's inclusive time; no time
 * exceeds the run. A preemption between two spins shows in the profile but
 * not in the spins: the measurement is repeated (at most four times, after
 * a first round not judged), never the exact checks, which hold in every
 * round. */
static int timing_round(void)
{
	CHECK(pp_set_timing(PP_TIMING_ON, 0) == 0);
	pp_reset();
	struct timespec t0, t1;
	spun_a = spun_b = spun_c = 0;
	/* on the tick rate's clock: NTP slews CLOCK_MONOTONIC by up to 500 ppm,
	 * 8 us of these 16 ms, more than the root's margin (a CI failure) */
	clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
	for (int i = 0; i < 60; i++) {
		PP_ROOT();
		stage_a();
	}
	clock_gettime(CLOCK_MONOTONIC_RAW, &t1);
	double run_ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
	pp_profile_t p;
	char *got = listing(&p);
	CHECK_EQ_STR(got, "60|stage_a>stage_b>stage_c\n");
	CHECK_EQ_U64(p.nnodes, 3);
	const pp_pnode_t *root = find_node(&p, "stage_a");
	CHECK(root != NULL);
	uint64_t selfs = 0;
	for (uint32_t i = 0; i < p.nnodes; i++) {
		selfs += p.nodes[i].self;
		double incl_ns = pp__ticks_ns(&p, p.nodes[i].incl.sum);
		if (incl_ns > run_ns)
			fprintf(stderr, "node %u: %.0f ns, more than the run's %.0f\n", i, incl_ns, run_ns);
		CHECK(incl_ns <= run_ns);
		CHECK(p.nodes[i].self <= p.nodes[i].incl.sum);
	}
	CHECK_EQ_U64(selfs, root->incl.sum);
	CHECK_EQ_U64(pp__profile_gated_ticks(&p), root->incl.sum);
	int ok = node_near(&p, "stage_a", 60, spun_a + spun_b + spun_c, spun_a) &
		 node_near(&p, "stage_a>stage_b", 60, spun_b + spun_c, spun_b) &
		 node_near(&p, "stage_a>stage_b>stage_c", 60, spun_c, spun_c);
	pp__profile_free(&p);
	free(got);
	return ok;
}

/* A first round is not judged: its first calls meet memory nothing has
 * touched yet (the runtime's records, ASan's fake frames, the pages of the
 * spins' clock), which a host whose page faults cost 10 us puts in the
 * nodes' times, outside every spin (stage_a 2-3 % over its spins, ASan,
 * round after round when two tests shared the two cores). */
static void mode_timing(void)
{
	warming = 1;
	(void)timing_round();
	warming = 0;
	for (int k = 0; k < 4; k++)
		if (timing_round())
			return;
	fprintf(stderr, "known delays not recovered in four rounds\n");
	exit(1);
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
	CHECK_EQ_U64(p.nnodes, 0);
#else
	CHECK_EQ_U64(find_node(&p, "work_b>work_a")->incl.count, 25);
	CHECK_EQ_U64(find_node(&p, "work_b")->incl.count, 25);
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
	const pp_pnode_t *q = find_node(&p, "work_b");
	const pp_pnode_t *q2 = find_node(&p, "work_b>work_a");
	const pp_pnode_t *r = find_node(&p, "work_a");
	CHECK(q && q2 && r);
	/* each iteration is two root frames (work_b, work_a): 200 events, one
	 * in three timed, alternating between the two paths; a timed event is
	 * timed whole */
	CHECK_EQ_U64(q->incl.count + r->incl.count, 66);
	CHECK_EQ_U64(q->incl.count, q2->incl.count);
	CHECK_EQ_U64(p.events, 200);
	pp__profile_free(&p);
	free(got);
}

/* --- timing every event goes on from one event to the next (no decision
 * at an event's start, no end at its root's exit); a switch of the mode
 * applies at once to the calling thread between events, and to another
 * thread after the one event it starts next --- */
static pthread_barrier_t switch_bar;

static void *switch_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++)
		work_a();
	pthread_barrier_wait(&switch_bar); /* main switches timing off */
	pthread_barrier_wait(&switch_bar);
	for (int i = 0; i < 10; i++)
		work_a();
	return NULL;
}

static void mode_switch(void)
{
	CHECK(pp_set_timing(PP_TIMING_ON, 0) == 0);
	for (int i = 0; i < 10; i++) {
		PP_ROOT();
		work_b();
	}
	CHECK(pp__tls.wend == PP__ENDLESS && pp__tls.timing_now); /* between events */
	CHECK(pp_set_timing(PP_TIMING_OFF, 0) == 0);
	CHECK(pp__tls.wend == PP__NO_WINDOW && !pp__tls.timing_now);
	for (int i = 0; i < 10; i++) {
		PP_ROOT();
		work_b();
	}
	CHECK(pp_set_timing(PP_TIMING_ON, 0) == 0);
	for (int i = 0; i < 10; i++)
		work_b();
	pthread_t th;
	CHECK(pthread_barrier_init(&switch_bar, NULL, 2) == 0);
	CHECK(pthread_create(&th, NULL, switch_thread, NULL) == 0);
	pthread_barrier_wait(&switch_bar);
	CHECK(pp_set_timing(PP_TIMING_OFF, 0) == 0);
	pthread_barrier_wait(&switch_bar);
	CHECK(pthread_join(th, NULL) == 0);
	pp_profile_t p;
	char *got = listing(&p);
	CHECK_EQ_STR(got, "20|work_a\n30|work_b>work_a\n");
	CHECK_EQ_U64(p.events, 50);
	/* the timed ones: the first and third ten of main's; ten of the
	 * thread's before the switch and one after it */
	CHECK_EQ_U64(find_node(&p, "work_b")->incl.count, 20);
	CHECK_EQ_U64(find_node(&p, "work_b>work_a")->incl.count, 20);
	CHECK_EQ_U64(find_node(&p, "work_a")->incl.count, 11);
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
	for (uint32_t i = 0; i < a.npaths; i++)
		CHECK_EQ_U64(a.paths[i].id, b.paths[i].id);
	CHECK(b.nnodes > 0);
	CHECK_EQ_U64(b.nnodes, a.nnodes);
	for (uint32_t i = 0; i < a.nnodes && i < b.nnodes; i++) {
		CHECK_EQ_U64(a.nodes[i].id, b.nodes[i].id);
		CHECK_EQ_U64(a.nodes[i].self, b.nodes[i].self);
		CHECK_EQ_U64(a.nodes[i].incl.sum, b.nodes[i].incl.sum);
	}
	unlink(path);
	pp__profile_free(&a);
	pp__profile_free(&b);
	free(buf);
	free(want);
}

/* --- pp_summary: the totals and the n hottest paths, exactly --- */
static void mode_summary(void)
{
	for (int i = 0; i < 120; i++) {
		PP_ROOT();
		top(i);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	pp_summary(f, 3);
	fclose(f);
	/* 330 leaf returns on the 5 paths of mode_tree; ties by path id */
	CHECK_EQ_STR(buf, "pathprof summary: 330 leaf returns on 5 paths; threads 1, dropped 0\n"
			  "         150  top > looper > body > leaf\n"
			  "          80  top > jumper > inner > leaf\n"
			  "          40  top > jumper > inner\n");
	free(buf);
}

/* --- the run's CPU time holds all of the program's (runtime/env.c) --- */
/* Run with a selection in the environment, which the runtime's start
 * reads with its symbol tables: that work lies before the run's CPU time
 * starts, and was also taken out as the runtime's own, so that a program
 * read less CPU time than it used (0 ns for a short one). Whatever else
 * runs, the program's CPU time holds this busy loop of its own. */
static void mode_cpustart(void)
{
	CHECK(getenv("PATHPROF_FUNCTIONS") != NULL);
	uint64_t from = pp__thread_cpu_ns();
	volatile uint64_t turns = 0;
	while (pp__thread_cpu_ns() - from < 20000000u)
		turns++;
	uint64_t used = pp__thread_cpu_ns() - from, cpu = pp__program_cpu_ns();
	if (cpu < used)
		fprintf(stderr, "the program's CPU time %llu ns, its loop alone %llu\n", (unsigned long long)cpu,
			(unsigned long long)used);
	CHECK(cpu >= used);
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
		{"summary", mode_summary}, {"home", mode_home},         {"idle", mode_idle},
		{"cpustart", mode_cpustart}, {"switch", mode_switch},
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
