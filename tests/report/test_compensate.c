/* Overhead compensation (report/compensate.c) on a profile whose every
 * figure is known: main (10 calls) > work (20) > leaf (40), plus main > io
 * (5), with a measured gate cost of in = 10, out = 20 ticks. Each node must
 * lose exactly n*in + c*out of self time (c: its children's calls) and
 * in + D/n*(in + out) per call of inclusive time (D: all calls below it);
 * the compensated self times must still add up to main's compensated
 * inclusive time; a second call changes nothing; a profile without a
 * measure is left alone; a self time smaller than its cost stops at 0.
 * Each node keeps what it lost (gate), and the flat view marks a function
 * whose gates were 80 % of its measured self time or more, and no other. */
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

static const char *const names[] = { "main", "work", "leaf", "io" };

/* A timed profile of one thread, ticks as nanoseconds, whose gates cost
 * in and out. */
static void start(pp_profile_t *p, const char *cmd, double in, double out)
{
	tp_init(p, "cyg", cmd);
	p->ticks_per_ns = 1.0;
	p->timing = PP_TIMING_ON;
	p->start_ns = 1;
	p->end_ns = 1000000001;
	p->threads = 1;
	p->gate_in = in;
	p->gate_out = out;
	tp_names(p, 4, names, NULL, NULL);
}

/* Every call of a node is `each` ticks long; self is given. */
static void build(pp_profile_t *p, double in, double out)
{
	start(p, "./known", in, out);
	pp_seg_t leaf = TP_SEG({ 1000, 40 });   /* 40 000 */
	pp_seg_t work = TP_SEG({ 5000, 20 });   /* 100 000: self 60 000 */
	pp_seg_t io = TP_SEG({ 3000, 5 });      /* 15 000 */
	pp_seg_t main_ = TP_SEG({ 20000, 10 }); /* 200 000: self 85 000 */
	tp_node(p, TP_IDX(0, 1, 2), 40000, &leaf);
	tp_node(p, TP_IDX(0, 1), 60000, &work);
	tp_node(p, TP_IDX(0, 3), 15000, &io);
	tp_node(p, TP_IDX(0), 85000, &main_);
	pp_seg_t *all[] = { &leaf, &work, &io, &main_ };
	for (size_t i = 0; i < 4; i++)
		pp__seg_free(all[i]);
	tp_path(p, 40, TP_IDX(0, 1, 2), NULL);
	tp_path(p, 5, TP_IDX(0, 3), NULL);
}

/* main > work > leaf, one call of main: the segments (freed here) and
 * self times of each, and the leaf paths' counts (leaf, then work alone). */
static void chain3(pp_profile_t *p, pp_seg_t leaf, uint64_t leaf_self, pp_seg_t work, uint64_t work_self,
		   pp_seg_t main_, uint64_t main_self, uint64_t leaf_paths, uint64_t work_paths)
{
	tp_node(p, TP_IDX(0, 1, 2), leaf_self, &leaf);
	tp_node(p, TP_IDX(0, 1), work_self, &work);
	tp_node(p, TP_IDX(0), main_self, &main_);
	pp__seg_free(&leaf);
	pp__seg_free(&work);
	pp__seg_free(&main_);
	tp_path(p, leaf_paths, TP_IDX(0, 1, 2), NULL);
	if (work_paths)
		tp_path(p, work_paths, TP_IDX(0, 1), NULL);
}

/* One main call of 100 000 ticks, in which work is called nine times:
 * once for 90 000 and eight times for 1 000, and below work 400 leaf calls
 * of 100 (all in the long call, as SQLite's one long sqlite3_step holds
 * nearly every gate). leaf 40 000; work 98 000, self 58 000; main self
 * 2 000. */
static void build_uneven(pp_profile_t *p, double in, double out)
{
	start(p, "./uneven", in, out);
	chain3(p, TP_SEG({ 100, 400 }), 40000, TP_SEG({ 90000, 1 }, { 1000, 8 }), 58000,
	       TP_SEG({ 100000, 1 }), 2000, 400, 8);
}

/* work called 1 001 times: 1 000 calls of 20 ticks, each around one leaf
 * call of 15, and one of 10 000 that waited (not dense with gates) around
 * one leaf call of 9 000. leaf 24 000; work 30 000, self 6 000; main
 * 31 000, self 1 000. */
static void build_waited(pp_profile_t *p, double in, double out)
{
	start(p, "./waited", in, out);
	chain3(p, TP_SEG({ 15, 1000 }, { 9000, 1 }), 24000, TP_SEG({ 20, 1000 }, { 10000, 1 }), 6000,
	       TP_SEG({ 31000, 1 }), 1000, 1001, 0);
}

static const pp_pnode_t *node(const pp_profile_t *p, uint32_t depth, const uint32_t *idx)
{
	const char *v[3];
	for (uint32_t i = 0; i < depth; i++)
		v[i] = names[idx[i]];
	return pp__profile_node(p, pp__path_id(v, depth));
}

int main(void)
{
	pp_profile_t p;
	build(&p, 10, 20);
	if (pp__profile_compensate(&p) != 0) {
		fprintf(stderr, "FAIL: compensate failed\n");
		return 1;
	}
	static const uint32_t im[] = { 0 }, iw[] = { 0, 1 }, il[] = { 0, 1, 2 }, ii[] = { 0, 3 };
	const pp_pnode_t *m = node(&p, 1, im), *w = node(&p, 2, iw), *l = node(&p, 3, il),
			 *o = node(&p, 2, ii);
	if (!m || !w || !l || !o) {
		fprintf(stderr, "FAIL: a node is missing\n");
		return 1;
	}
	/* self: n*in + c*out */
	expect("leaf self", (double)l->self, 40000 - 40 * 10);
	expect("work self", (double)w->self, 60000 - (20 * 10 + 40 * 20));
	expect("io self", (double)o->self, 15000 - 5 * 10);
	expect("main self", (double)m->self, 85000 - (10 * 10 + 25 * 20));
	/* what each lost, kept beside it */
	expect("leaf gate", (double)l->gate, 40 * 10);
	expect("work gate", (double)w->gate, 20 * 10 + 40 * 20);
	expect("io gate", (double)o->gate, 5 * 10);
	expect("main gate", (double)m->gate, 10 * 10 + 25 * 20);
	/* inclusive: each call loses in + D/n * (in + out) */
	expect("leaf incl", (double)l->incl.sum, 40000 - 40 * 10);
	expect("work incl", (double)w->incl.sum, 100000 - 20 * (10 + 2.0 * 30));
	expect("main incl", (double)m->incl.sum, 200000 - 10 * (10 + 6.5 * 30));
	expect("main max", (double)m->incl.max, 20000 - 205);
	expect("leaf min", (double)l->incl.min, 1000 - 10);
	expect("calls kept", (double)w->incl.count, 20);
	/* the identity reports rest on */
	expect("self times add up to main's inclusive time",
	       (double)(l->self + w->self + o->self + m->self), (double)m->incl.sum);
	expect("removed", p.gate_removed, 400 + 1000 + 50 + 600);
	expect("gated time", (double)pp__profile_gated_ticks(&p), 200000 - 2050);
	/* applied once */
	uint64_t before = m->self;
	pp__profile_compensate(&p);
	expect("second call", (double)m->self, (double)before);
	pp__profile_free(&p);

	/* each node's removal rounds to a tick: at in = out = 0.3, main's
	 * subtree loses 12 + 18 + 2 + 11 = 43 ticks where its unrounded cost
	 * is 42, 4 a call; its ten calls, all 20 000 long, have a mean of
	 * 19 995.7, and min and max stay on either side of it (min had read
	 * 19 996, above the mean) */
	build(&p, 0.3, 0.3);
	pp__profile_compensate(&p);
	m = node(&p, 1, im);
	expect("rounded main incl", (double)m->incl.sum, 200000 - 43);
	expect("rounded main min", (double)m->incl.min, 19995);
	expect("rounded main max", (double)m->incl.max, 19996);
	pp__profile_free(&p);

	/* calls of uneven length: each work call loses its own in (10) and
	 * a share of the 12 000 below in proportion to the rest of its time,
	 * keep = (97 910 - 12 000) / 97 910; taking the mean (1 343) off
	 * every call had left the long one at 88 657, above main's one call
	 * of 87 720, and the short ones at 0 */
	build_uneven(&p, 10, 20);
	pp__profile_compensate(&p);
	m = node(&p, 1, im);
	w = node(&p, 2, iw);
	expect("uneven work incl", (double)w->incl.sum, 98000 - 12090);
	expect("uneven work max", (double)w->incl.max, 78961);
	expect("uneven work min", (double)w->incl.min, 869);
	expect("uneven main, one call", (double)m->incl.max, 100000 - 12280);
	expect("uneven leaf max", (double)node(&p, 3, il)->incl.max, 90);
	pp__profile_free(&p);

	/* work's long call waited: its time in proportion left it 7 689
	 * (keep = 19 996 / 25 996 of 9 996), below its own leaf call's 8 996;
	 * a parent's longest call is at least its children's */
	build_waited(&p, 4, 4);
	pp__profile_compensate(&p);
	expect("waited leaf max", (double)node(&p, 3, il)->incl.max, 8996);
	expect("waited work max", (double)node(&p, 2, iw)->incl.max, 8996);
	expect("waited work incl", (double)node(&p, 2, iw)->incl.sum, 30000 - 10004);
	pp__profile_free(&p);

	/* no measure: untouched */
	build(&p, 0, 0);
	pp__profile_compensate(&p);
	expect("unmeasured self", (double)node(&p, 3, il)->self, 40000);
	expect("unmeasured flag", p.compensated, 0);
	pp__profile_free(&p);

	/* a cost above the time stops at 0, never wraps; what was lost is
	 * the self time there was */
	build(&p, 5000, 5000);
	pp__profile_compensate(&p);
	expect("clamped self", (double)node(&p, 3, il)->self, 0);
	expect("clamped gate", (double)node(&p, 3, il)->gate, 40000);
	expect("clamped incl", (double)node(&p, 1, im)->incl.sum, 0);
	pp__profile_free(&p);

	/* the flat view's mark: in = 800 is 32 000 of leaf's 40 000 (80 %:
	 * marked), work's 16 000 of 60 000, io's 4 000 of 15 000 and main's
	 * 8 000 of 85 000 (not); at in = 799, 79.9 %: nothing marked */
	for (int in = 800; in >= 799; in--) {
		build(&p, in, 0);
		pp__profile_compensate(&p);
		size_t n;
		pp__fn_row_t *rows = pp__report_functions(&p, &n);
		expect("flat rows", rows ? (double)n : -1, 4);
		for (size_t i = 0; rows && i < n; i++) {
			const char *fn = p.names[rows[i].name].name;
			double want = in == 800 && !strcmp(fn, "leaf") ? 0.8 : 0;
			char what[64];
			snprintf(what, sizeof what, "%s marked at in = %d", fn, in);
			expect(what, pp__report_gate_bound(&p, &rows[i]), want);
		}
		free(rows);
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		if (!f || pp__report_flat_table(f, &p, 0) != 0) {
			fprintf(stderr, "FAIL: flat table\n");
			failures++;
		}
		if (f)
			fclose(f);
		int marked = text && strstr(text, "  leaf  (80% gate)\n") != NULL;
		int legend = text && strstr(text, "(N% gate: ") != NULL;
		expect(in == 800 ? "leaf's mark in the table" : "no mark in the table", marked, in == 800);
		expect(in == 800 ? "the legend" : "no legend", legend, in == 800);
		if (in == 800 && text && strstr(text, "work  (") != NULL) {
			fprintf(stderr, "FAIL: work marked:\n%s", text);
			failures++;
		}
		free(text);
		pp__profile_free(&p);
	}
	if (!failures)
		puts("ok: compensation removes exactly n*in + c*out of self time");
	return failures != 0;
}
