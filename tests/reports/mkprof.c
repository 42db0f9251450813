/* Writes the profiles the report-format tests read: `demo`, a timed tree
 * with two roots, recursion, an untimed path and a path that ends where
 * others go on; `hostile`, names that would break every output format if
 * passed through raw (markup, script end tags, separators, quotes, control
 * and ill-formed bytes). Values are in ticks at 2 ticks per ns.
 * usage: mkprof demo|hostile FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/gate.h>

#include "profile.h"

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		perror("calloc");
		exit(1);
	}
	return p;
}

/* A segment from (ticks, times) pairs; bins from the runtime's own bucket
 * function, so the reports see what a real run records. */
static pp_seg_t seg(const uint64_t (*v)[2], size_t n)
{
	pp_seg_t s = { .min = UINT64_MAX };
	s.bins = xcalloc(n, sizeof *s.bins);
	for (size_t i = 0; i < n; i++) {
		uint32_t b = pp__hist_bucket(v[i][0]);
		if (s.nbins && s.bins[s.nbins - 1].bucket == b)
			s.bins[s.nbins - 1].count += v[i][1];
		else
			s.bins[s.nbins++] = (pp_hbin_t){ .bucket = b, .count = v[i][1] };
		s.count += v[i][1];
		s.sum += v[i][0] * v[i][1];
		s.min = v[i][0] < s.min ? v[i][0] : s.min;
		s.max = v[i][0] > s.max ? v[i][0] : s.max;
	}
	return s;
}

#define SEG(...) seg((const uint64_t[][2]){ __VA_ARGS__ }, \
		     sizeof((const uint64_t[][2]){ __VA_ARGS__ }) / sizeof(uint64_t[2]))

/* names: indices into p->names, root first; segs NULL for an untimed path. */
static void add(pp_profile_t *p, uint64_t count, const uint32_t *names, uint32_t depth,
		const pp_seg_t *segs)
{
	pp_ppath_t *pa = &p->paths[p->npaths++];
	const char *strs[16];
	for (uint32_t d = 0; d < depth; d++)
		strs[d] = p->names[names[d]].name;
	pa->id = pp__path_id(strs, depth);
	pa->count = count;
	pa->depth = depth;
	pa->names = xcalloc(depth, sizeof *pa->names);
	memcpy(pa->names, names, depth * sizeof *names);
	if (segs) {
		pa->segs = xcalloc(depth, sizeof *pa->segs);
		memcpy(pa->segs, segs, depth * sizeof *segs);
	}
	p->records += count;
}

#define N(...) (const uint32_t[]){ __VA_ARGS__ }, \
	(uint32_t)(sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

static void base(pp_profile_t *p, const char *const *names, uint32_t n, uint32_t npaths)
{
	memset(p, 0, sizeof *p);
	p->version = PP_PROFILE_VERSION;
	p->frontend = strdup("raii");
	p->command = strdup("./demo --items 3");
	p->pid = 77;
	p->start_ns = 1700000000000000000ull;
	p->end_ns = 1700000002000000000ull;
	p->ticks_per_ns = 2.0;
	p->timing = PP_TIMING_ON;
	p->threads = 2;
	p->nnames = n;
	p->names = xcalloc(n, sizeof *p->names);
	for (uint32_t i = 0; i < n; i++) {
		p->names[i].name = strdup(names[i]);
		p->names[i].file = strdup(i == 0 ? "demo.c" : "");
		p->names[i].line = i == 0 ? 10 : 0;
	}
	p->paths = xcalloc(npaths, sizeof *p->paths);
}

static void demo(pp_profile_t *p)
{
	static const char *const names[] = {
		"main", "parse", "lex", "getc", "work", "compute", "io", "idle",
		"thread_main", "poll",
	};
	enum { MAIN, PARSE, LEX, GETC, WORK, COMPUTE, IO, IDLE, THREAD, POLL };
	base(p, names, 10, 8);
	add(p, 3000, N(MAIN, PARSE, LEX),
	    (pp_seg_t[]){ SEG({ 20, 3000 }), SEG({ 10, 2990 }, { 14, 10 }),
			  SEG({ 200, 2000 }, { 240, 1000 }) });
	add(p, 500, N(MAIN, PARSE, LEX, GETC),
	    (pp_seg_t[]){ SEG({ 20, 500 }), SEG({ 12, 500 }), SEG({ 30, 500 }),
			  SEG({ 100, 450 }, { 4000, 50 }) });
	add(p, 1200, N(MAIN, WORK, COMPUTE),
	    (pp_seg_t[]){ SEG({ 40, 1200 }), SEG({ 8, 1200 }), SEG({ 1000, 1100 }, { 1500, 100 }) });
	add(p, 50, N(MAIN, WORK, IO),
	    (pp_seg_t[]){ SEG({ 40, 50 }), SEG({ 8, 50 }), SEG({ 200000, 49 }, { 900000, 1 }) });
	add(p, 7, N(MAIN, WORK), (pp_seg_t[]){ SEG({ 40, 7 }), SEG({ 6, 7 }) });
	add(p, 40, N(MAIN, WORK, COMPUTE, COMPUTE),
	    (pp_seg_t[]){ SEG({ 40, 40 }), SEG({ 8, 40 }), SEG({ 60, 40 }), SEG({ 900, 40 }) });
	add(p, 2, N(MAIN, IDLE), NULL);
	add(p, 100, N(THREAD, POLL), (pp_seg_t[]){ SEG({ 16, 100 }), SEG({ 3000, 100 }) });
	p->events = 4799;
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
	base(p, names, 8, 4);
	free(p->command);
	p->command = strdup("<b>cmd</b> \"</script>\"");
	add(p, 10, N(0, 1, 2), (pp_seg_t[]){ SEG({ 10, 10 }), SEG({ 20, 10 }), SEG({ 300, 10 }) });
	add(p, 5, N(0, 3, 4), (pp_seg_t[]){ SEG({ 10, 5 }), SEG({ 20, 5 }), SEG({ 40, 5 }) });
	add(p, 3, N(0, 5, 6), (pp_seg_t[]){ SEG({ 10, 3 }), SEG({ 20, 3 }), SEG({ 50, 3 }) });
	add(p, 1, N(0, 7), (pp_seg_t[]){ SEG({ 10, 1 }), SEG({ 20, 1 }) });
	p->events = 19;
}

int main(int argc, char **argv)
{
	pp_profile_t p;
	char err[512];
	if (argc != 3 || (strcmp(argv[1], "demo") && strcmp(argv[1], "hostile"))) {
		fprintf(stderr, "usage: mkprof demo|hostile FILE\n");
		return 2;
	}
	if (!strcmp(argv[1], "demo"))
		demo(&p);
	else
		hostile(&p);
	if (pp__profile_write(&p, argv[2], err, sizeof err) < 0) {
		fprintf(stderr, "mkprof: %s\n", err);
		return 1;
	}
	pp__profile_free(&p);
	return 0;
}
