/* The flat view's rows (report/report_flat.c) on a profile whose every
 * figure is known: two gated functions named f (static, one called from
 * a, the other from b) are one row that sums their self time and calls,
 * counts the inner one's inclusive time once where one f calls the other,
 * and says "(2 functions)"; f called t, which a budget throttled, so f's
 * row says it holds throttled time and no other row does; t, throttled
 * under two name entries (a static copy in each file), is elided below
 * f's node once, not twice, and after u, which held more time there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/pathprof.h>

#include "profile.h"
#include "report.h"
#include "report_impl.h"
#include "testprof.h"

static int failures;

static void expect(const char *what, double got, double want)
{
	if (got != want) {
		fprintf(stderr, "FAIL: %s: %.1f, expected %.1f\n", what, got, want);
		failures++;
	}
}

/* indices:                    0       1    2    3    4    5    6    7 */
static const char *const names[] = { "main", "a", "b", "f", "f", "t", "t", "u" };

static void build(pp_profile_t *p)
{
	tp_init(p, "cyg", "./flat");
	p->ticks_per_ns = 1.0;
	p->timing = PP_TIMING_ON;
	p->start_ns = 1;
	p->end_ns = 1000001;
	p->threads = 1;
	tp_names(p, 8, names, NULL, NULL);
	pp_seg_t main_ = TP_SEG({ 20000, 1 });
	pp_seg_t a = TP_SEG({ 4000, 2 });     /* 8 000 */
	pp_seg_t fa = TP_SEG({ 100, 30 });    /* 3 000 */
	pp_seg_t fin = TP_SEG({ 100, 4 });    /* 400: f#4 inside f#3 */
	pp_seg_t b = TP_SEG({ 9000, 1 });     /* 9 000 */
	pp_seg_t fb = TP_SEG({ 300, 10 });    /* 3 000 */
	pp_seg_t t = TP_SEG({ 100, 10 });     /* 1 000 */
	pp_seg_t u = TP_SEG({ 500, 10 });     /* 5 000 */
	tp_node(p, TP_IDX(0), 3000, &main_);
	tp_node(p, TP_IDX(0, 1), 5000, &a);
	tp_node(p, TP_IDX(0, 1, 3), 2600, &fa);
	tp_node(p, TP_IDX(0, 1, 3, 4), 400, &fin);
	tp_node(p, TP_IDX(0, 2), 6000, &b);
	tp_node(p, TP_IDX(0, 2, 4), 2000, &fb);
	tp_node(p, TP_IDX(0, 2, 4, 5), 1000, &t);
	tp_node(p, TP_IDX(0, 2, 4, 7), 5000, &u);
	pp_seg_t *segs[] = { &main_, &a, &fa, &fin, &b, &fb, &t, &u }; /* tp_node copied them */
	for (size_t i = 0; i < sizeof segs / sizeof *segs; i++)
		pp__seg_free(segs[i]);
	p->nthrottled = 3;
	p->throttled = tp_calloc(3, sizeof *p->throttled);
	p->throttled[0] = (pp_throttled_t){ .name = 5, .calls = 10, .incl = 1000, .at_ns = 500 };
	p->throttled[1] = (pp_throttled_t){ .name = 6, .calls = 3, .incl = 300, .at_ns = 600 };
	p->throttled[2] = (pp_throttled_t){ .name = 7, .calls = 10, .incl = 5000, .at_ns = 700 };
	p->budget = 5;
}

static const pp__fn_row_t *row(const pp_profile_t *p, const pp__fn_row_t *rows, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(pp__report_name(p, rows[i].name), s))
			return &rows[i];
	fprintf(stderr, "FAIL: no row %s\n", s);
	failures++;
	return NULL;
}

int main(void)
{
	pp_profile_t p;
	build(&p);
	size_t n = 0;
	pp__fn_row_t *rows = pp__report_functions(&p, &n);
	expect("rows", rows ? (double)n : -1, 6); /* main, a, b, f, t, u */
	const pp__fn_row_t *f = rows ? row(&p, rows, n, "f") : NULL;
	if (f) {
		expect("f self", (double)f->self, 2600 + 400 + 2000);
		expect("f calls", (double)f->calls, 30 + 4 + 10);
		/* the f inside f is counted once, in its outer f's 3 000 */
		expect("f incl", (double)f->incl, 3000 + 3000);
		expect("f copies", f->copies, 2);
		expect("f holds throttled", f->holds_throttled, 1);
		expect("f's first name entry", f->name, 3);
	}
	const char *other[] = { "main", "a", "b", "t" };
	for (size_t i = 0; rows && i < 4; i++) {
		const pp__fn_row_t *r = row(&p, rows, n, other[i]);
		char what[64];
		snprintf(what, sizeof what, "%s holds throttled", other[i]);
		if (r) {
			expect(what, r->holds_throttled, 0);
			snprintf(what, sizeof what, "%s copies", other[i]);
			expect(what, r->copies, 1);
		}
	}
	free(rows);

	/* t below f is one elided name, though two entries were throttled;
	 * u, which held more time there, comes first, and a list cut at one
	 * keeps it */
	uint32_t el[4];
	size_t nel = pp__report_elided_below(&p, TP_IDX(0, 2, 4), el, 4);
	expect("elided below f", (double)nel, 2);
	expect("elided first", nel == 2 ? el[0] : 0, 7);
	expect("elided second", nel == 2 ? el[1] : 0, 5);
	nel = pp__report_elided_below(&p, TP_IDX(0, 2, 4), el, 1);
	expect("elided, one kept", nel == 1 ? el[0] : 0, 7);
	expect("elided below b", (double)pp__report_elided_below(&p, TP_IDX(0, 2), el, 4), 0);
	expect("t throttled by either entry",
	       pp__report_throttled(&p, 5) != NULL && pp__report_throttled(&p, 6) != NULL, 1);

	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out || pp__report_flat_table(out, &p, 0) != 0) {
		fprintf(stderr, "FAIL: flat table\n");
		failures++;
	}
	if (out)
		fclose(out);
	const char *want[] = {
		"  f  (2 functions)  (holds throttled)\n",
		"  t  (throttled)\n",
		"\n(N functions: ",
		"\n(holds throttled: ",
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		if (!text || !strstr(text, want[i])) {
			fprintf(stderr, "FAIL: no '%s' in:\n%s", want[i], text ? text : "");
			failures++;
		}
	free(text);
	pp__profile_free(&p);
	if (!failures)
		puts("ok: the flat view sums a name's functions and marks throttled time");
	return failures != 0;
}
