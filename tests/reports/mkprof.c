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
