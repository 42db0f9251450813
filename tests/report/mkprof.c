/* Writes the profiles the report-format tests read: `demo`, a timed tree
 * with two roots, recursion, an untimed path and a path that ends where
 * others go on; `hostile`, names that would break every output format if
 * passed through raw (markup, script end tags, separators, quotes, control
 * and ill-formed bytes); `diff-a` and `diff-b`, a pair for the diff page
 * whose every segment has one value, so diff's numbers are known exactly;
 * `nested`, for select's second rule (`nested-xray`: the same through XRay).
 * Values are in ticks at 2 ticks per ns.
 * usage: mkprof demo|labelled|offcpu|hostile|nested|nested-xray|wide|wide10k|wide100k|wide100k-b|diff-a|diff-b FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/gate.h>

#include "profile.h"
#include "testprof.h"

/* The fields both profiles share; only main has a source location. */
static void base(pp_profile_t *p, const char *const *names, uint32_t n)
{
	const char *files[16] = { "demo.c" };
	const uint32_t lines[16] = { 10 };
	tp_init(p, "raii", "./demo --items 3");
	p->pid = 77;
	p->start_ns = 1700000000000000000ull;
	p->end_ns = 1700000002000000000ull;
	p->ticks_per_ns = 2.0;
	p->timing = PP_TIMING_ON;
	p->threads = 2;
	tp_names(p, n, names, files, lines);
}

static void demo(pp_profile_t *p)
{
	static const char *const names[] = {
		"main", "parse", "lex", "getc", "work", "compute", "io", "idle",
		"thread_main", "poll",
	};
	enum { MAIN, PARSE, LEX, GETC, WORK, COMPUTE, IO, IDLE, THREAD, POLL };
	base(p, names, 10);
	tp_path(p, 3000, TP_IDX(MAIN, PARSE, LEX),
		(pp_seg_t[]){ TP_SEG({ 20, 3000 }), TP_SEG({ 10, 2990 }, { 14, 10 }),
			      TP_SEG({ 200, 2000 }, { 240, 1000 }) });
	tp_path(p, 500, TP_IDX(MAIN, PARSE, LEX, GETC),
		(pp_seg_t[]){ TP_SEG({ 20, 500 }), TP_SEG({ 12, 500 }), TP_SEG({ 30, 500 }),
			      TP_SEG({ 100, 450 }, { 4000, 50 }) });
	tp_path(p, 1200, TP_IDX(MAIN, WORK, COMPUTE),
		(pp_seg_t[]){ TP_SEG({ 40, 1200 }), TP_SEG({ 8, 1200 }),
			      TP_SEG({ 1000, 1100 }, { 1500, 100 }) });
	tp_path(p, 50, TP_IDX(MAIN, WORK, IO),
		(pp_seg_t[]){ TP_SEG({ 40, 50 }), TP_SEG({ 8, 50 }),
			      TP_SEG({ 200000, 49 }, { 900000, 1 }) });
	tp_path(p, 7, TP_IDX(MAIN, WORK), (pp_seg_t[]){ TP_SEG({ 40, 7 }), TP_SEG({ 6, 7 }) });
	tp_path(p, 40, TP_IDX(MAIN, WORK, COMPUTE, COMPUTE),
		(pp_seg_t[]){ TP_SEG({ 40, 40 }), TP_SEG({ 8, 40 }), TP_SEG({ 60, 40 }),
			      TP_SEG({ 900, 40 }) });
	tp_path(p, 2, TP_IDX(MAIN, IDLE), NULL);
	tp_path(p, 100, TP_IDX(THREAD, POLL),
		(pp_seg_t[]){ TP_SEG({ 16, 100 }), TP_SEG({ 3000, 100 }) });
	p->events = 4799;
	p->records = 4899;
}

/* A thread whose root never returned: thread_main has no node (no timed
 * exit) while poll below it took 96 % of the gated time; main > work took
 * the rest. */
static void noexit(pp_profile_t *p)
{
	static const char *const names[] = { "main", "work", "thread_main", "poll" };
	base(p, names, 4);
	tp_path(p, 10, TP_IDX(0, 1), (pp_seg_t[]){ TP_SEG({ 20, 10 }), TP_SEG({ 20, 10 }) });
	tp_path(p, 100, TP_IDX(2, 3), (pp_seg_t[]){ TP_SEG({ 0, 1 }), TP_SEG({ 100, 100 }) });
	const char *root[1] = { "thread_main" };
	uint64_t id = pp__path_id(root, 1);
	for (uint32_t i = 0; i < p->nnodes; i++) {
		if (p->nodes[i].id != id)
			continue;
		free(p->nodes[i].names);
		pp__seg_free(&p->nodes[i].incl);
		memmove(&p->nodes[i], &p->nodes[i + 1], (p->nnodes - i - 1) * sizeof *p->nodes);
		p->nnodes--;
		break;
	}
	p->events = 2;
	p->records = 110;
}

static void hostile(pp_profile_t *p)
{
	static const char *const names[] = {
		"main",
		"<script>alert(1)</script>",
		"</script><img src=x onerror=alert(2)>",
		"a;b c",
		"quote\"back\\slash",
		"nl\nx\ty",
		"bad\xff\xc0utf8",
		"&amp;<!--",
	};
	base(p, names, 8);
	free(p->command);
	p->command = tp_strdup("<b>cmd</b> \"</script>\"");
	tp_path(p, 10, TP_IDX(0, 1, 2),
		(pp_seg_t[]){ TP_SEG({ 10, 10 }), TP_SEG({ 20, 10 }), TP_SEG({ 300, 10 }) });
	tp_path(p, 5, TP_IDX(0, 3, 4),
		(pp_seg_t[]){ TP_SEG({ 10, 5 }), TP_SEG({ 20, 5 }), TP_SEG({ 40, 5 }) });
	tp_path(p, 3, TP_IDX(0, 5, 6),
		(pp_seg_t[]){ TP_SEG({ 10, 3 }), TP_SEG({ 20, 3 }), TP_SEG({ 50, 3 }) });
	tp_path(p, 1, TP_IDX(0, 7), (pp_seg_t[]){ TP_SEG({ 10, 1 }), TP_SEG({ 20, 1 }) });
	p->events = 19;
	p->records = 19;
}

/* Paths sorted by id, as every writer keeps them (diff looks them up), and
 * the totals they make. */
static int by_id(const void *a, const void *b)
{
	uint64_t x = ((const pp_ppath_t *)a)->id, y = ((const pp_ppath_t *)b)->id;
	return x < y ? -1 : x > y;
}

static void finish(pp_profile_t *p)
{
	qsort(p->paths, p->npaths, sizeof *p->paths, by_id);
	for (uint32_t i = 0; i < p->npaths; i++) {
		p->events += p->paths[i].count;
		p->records += p->paths[i].count;
	}
}

/* B against A: compute takes twice as long (1000 -> 2000 ns), io half
 * (4000 -> 2000 ns), parse > lex is unchanged, old_cache is only in A, a
 * hostile-named leaf under new_cache only in B, and poll is never timed. */
static void diff_pair(pp_profile_t *p, int b)
{
	static const char *const names[] = {
		"main", "parse", "lex", "work", "compute", "io", "old_cache", "new_cache",
		"<b>x</b>", "thread_main", "poll",
	};
	enum { MAIN, PARSE, LEX, WORK, COMPUTE, IO, OLD, NEW, HOSTILE, THREAD, POLL };
	base(p, names, 11);
	tp_path(p, 1000, TP_IDX(MAIN, PARSE, LEX),
		(pp_seg_t[]){ TP_SEG({ 20, 1000 }), TP_SEG({ 40, 1000 }), TP_SEG({ 400, 1000 }) });
	tp_path(p, 500, TP_IDX(MAIN, WORK, COMPUTE),
		(pp_seg_t[]){ TP_SEG({ 20, 500 }), TP_SEG({ 10, 500 }),
			      TP_SEG({ b ? 4000 : 2000, 500 }) });
	tp_path(p, 100, TP_IDX(MAIN, WORK, IO),
		(pp_seg_t[]){ TP_SEG({ 20, 100 }), TP_SEG({ 10, 100 }),
			      TP_SEG({ b ? 4000 : 8000, 100 }) });
	if (b)
		tp_path(p, 30, TP_IDX(MAIN, NEW, HOSTILE),
			(pp_seg_t[]){ TP_SEG({ 20, 30 }), TP_SEG({ 6, 30 }), TP_SEG({ 600, 30 }) });
	else
		tp_path(p, 50, TP_IDX(MAIN, OLD), (pp_seg_t[]){ TP_SEG({ 20, 50 }), TP_SEG({ 300, 50 }) });
	tp_path(p, b ? 12 : 10, TP_IDX(THREAD, POLL), NULL);
	finish(p);
}

/* nf x ng untimed paths main > fNN > gNN, counts 1..97: `wide` (40 x 25,
 * 1000 paths) has more nodes than a DOT graph shows by default, `wide10k`
 * (100 x 100) more frames than a flame graph can draw, `wide100k` (1000 x
 * 100) more paths than an HTML page carries; `wide100k-b` the same paths
 * with other counts (mul), the other side of a diff too big for one page. */
static void wide(pp_profile_t *p, uint32_t nf, uint32_t ng, uint32_t mul)
{
	static char bufs[1101][8];
	const char *names[1101];
	names[0] = "main";
	for (uint32_t i = 0; i < nf; i++)
		snprintf(bufs[1 + i], sizeof bufs[0], "f%02u", i % 1000);
	for (uint32_t j = 0; j < ng; j++)
		snprintf(bufs[1 + nf + j], sizeof bufs[0], "g%02u", j);
	for (uint32_t k = 1; k < 1 + nf + ng; k++)
		names[k] = bufs[k];
	tp_init(p, "raii", "./wide"); /* not base(): its file table has 16 names */
	p->pid = 78;
	p->start_ns = 1700000000000000000ull;
	p->end_ns = 1700000001000000000ull;
	p->threads = 1;
	tp_names(p, 1 + nf + ng, names, NULL, NULL);
	for (uint32_t i = 0; i < nf; i++)
		for (uint32_t j = 0; j < ng; j++)
			tp_path(p, (i * ng + j) * mul % 97 + 1, TP_IDX(0, 1 + i, 1 + nf + j), NULL);
	finish(p);
}

static void side_of(pp_profile_t *p, pp_ppath_t *s, const uint32_t *names, uint32_t depth)
{
	const char *strs[8];
	s->depth = depth;
	s->names = depth ? malloc(depth * sizeof *s->names) : NULL;
	if (depth)
		memcpy(s->names, names, depth * sizeof *names);
	for (uint32_t k = 0; k < depth; k++)
		strs[k] = p->names[names[k]].name;
	s->id = pp__path_id(strs, depth);
}

static void offcpu_entries(pp_profile_t *p)
{
	enum { MAIN, PARSE, LEX, GETC, WORK, COMPUTE }; /* demo's first names */
	static const uint32_t lex[] = {MAIN, PARSE, LEX}, compute[] = {MAIN, WORK, COMPUTE};
	p->noffcpu = 2;
	p->offcpu = calloc(2, sizeof *p->offcpu);
	pp_offcpu_t *e = &p->offcpu[0];
	side_of(p, &e->blocked, lex, 3);
	side_of(p, &e->waker, compute, 3);
	e->reason = PP_OFF_FUTEX;
	e->waker_kind = PP_WAKER_GATED;
	e->time = tp_seg((const uint64_t[][2]){{1000000, 1}, {2000000, 1}, {3000000, 1}}, 3);
	e->kstack = strdup("__schedule;schedule;futex_wait_queue;futex_wait;do_futex");
	e = &p->offcpu[1];
	side_of(p, &e->blocked, lex, 3);
	side_of(p, &e->waker, NULL, 0);
	e->reason = PP_OFF_SLEEP;
	e->waker_kind = PP_WAKER_KERNEL;
	e->time = tp_seg((const uint64_t[][2]){{5000000, 2}}, 1);
	e->kstack = strdup("__schedule;schedule;do_nanosleep;hrtimer_nanosleep");
	pp__profile_canonical(p);
}

/* For select's second rule (tests/report/select_nested.sh): main (1 call)
 * > a > b > c > d (2 000 calls each), a gate cost of in 10 + out 20 ticks,
 * and raw times such that, compensated, d holds 1 000 ticks a call and a,
 * b, c each 100 of their own: every function's gates (60 000 ticks) are
 * within 5 % of what it holds (2.0, 2.2, 2.4, 2.6 M), but together
 * (240 030) over 5 % of all the work (the self times, 2 601 000). */
static void nested(pp_profile_t *p)
{
	static const char *const names[] = { "main", "a", "b", "c", "d" };
	tp_init(p, "cyg", "./nested");
	p->pid = 78;
	p->start_ns = 1700000000000000000ull;
	p->end_ns = 1700000001000000000ull;
	p->ticks_per_ns = 2.0;
	p->timing = PP_TIMING_ON;
	p->threads = 1;
	p->gate_in = 10;
	p->gate_out = 20;
	tp_names(p, 5, names, NULL, NULL);
	/* raw per call: compensated + in + (calls below per call) x (in + out) */
	pp_seg_t d = TP_SEG({ 1010, 2000 }), c = TP_SEG({ 1140, 2000 }), b = TP_SEG({ 1270, 2000 }),
		 a = TP_SEG({ 1400, 2000 }), m = TP_SEG({ 2841010, 1 });
	/* raw self: compensated + calls x in + children's calls x out */
	tp_node(p, TP_IDX(0, 1, 2, 3, 4), 2020000, &d);
	tp_node(p, TP_IDX(0, 1, 2, 3), 260000, &c);
	tp_node(p, TP_IDX(0, 1, 2), 260000, &b);
	tp_node(p, TP_IDX(0, 1), 260000, &a);
	tp_node(p, TP_IDX(0), 41010, &m);
	pp_seg_t *all[] = { &d, &c, &b, &a, &m };
	for (size_t i = 0; i < 5; i++)
		pp__seg_free(all[i]);
	tp_path(p, 2000, TP_IDX(0, 1, 2, 3, 4), NULL);
	p->records = 2000;
	p->events = 1;
}

int main(int argc, char **argv)
{
	pp_profile_t p;
	char err[512];
	if (argc != 3) {
		fprintf(stderr, "usage: mkprof demo|labelled|offcpu|hostile|nested|nested-xray|wide|wide10k|wide100k|wide100k-b|diff-a|diff-b FILE\n");
		return 2;
	}
	if (!strcmp(argv[1], "demo")) {
		demo(&p);
	} else if (!strcmp(argv[1], "offcpu")) {
		/* demo with off-CPU data: lex blocks on a futex woken by
		 * compute (3 blocks, 1+2+3 ms) and sleeps woken by the kernel
		 * (2 blocks, 5 ms each) */
		demo(&p);
		offcpu_entries(&p);
	} else if (!strcmp(argv[1], "labelled")) {
		/* demo with the section PROCESS a real run writes */
		demo(&p);
		p.service = strdup("checkout");
		p.host = strdup("db-7");
		p.build_id = strdup("0123456789abcdef0123456789abcdef01234567");
	} else if (!strcmp(argv[1], "hostile")) {
		hostile(&p);
	} else if (!strcmp(argv[1], "nested")) {
		nested(&p);
	} else if (!strcmp(argv[1], "nested-xray")) {
		/* the same through XRay: select --binary refuses it */
		nested(&p);
		free(p.frontend);
		p.frontend = strdup("xray");
	} else if (!strcmp(argv[1], "noexit")) {
		noexit(&p);
	} else if (!strcmp(argv[1], "wide"))
		wide(&p, 40, 25, 31);
	else if (!strcmp(argv[1], "wide10k"))
		wide(&p, 100, 100, 31);
	else if (!strcmp(argv[1], "wide100k"))
		wide(&p, 1000, 100, 31);
	else if (!strcmp(argv[1], "wide100k-b"))
		wide(&p, 1000, 100, 37);
	else if (!strncmp(argv[1], "diff-", 5) && (argv[1][5] == 'a' || argv[1][5] == 'b') &&
		 !argv[1][6])
		diff_pair(&p, argv[1][5] == 'b');
	else {
		fprintf(stderr, "usage: mkprof demo|labelled|offcpu|hostile|nested|nested-xray|wide|wide10k|wide100k|wide100k-b|diff-a|diff-b FILE\n");
		return 2;
	}
	if (pp__profile_write(&p, argv[2], err, sizeof err) < 0) {
		fprintf(stderr, "mkprof: %s\n", err);
		return 1;
	}
	pp__profile_free(&p);
	return 0;
}
