/* pp__profile_merge on profiles built by hand: exact summed counts, merged
 * histograms whose percentiles are those of the concatenated data, a profile
 * merged with itself doubling every count with percentiles unchanged,
 * associativity byte for byte on three inputs, and the refusals (tick rates,
 * an id with two depths). Compiled under ASan/UBSan with the sources it uses. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "../runtime/check.h"
#include "hist.h"
#include "profile.h"
#include "profile_merge.h"
#include "testprof.h"

/* A profile whose names are given in the order given, so name indices
 * differ between inputs and the merge has to remap them. */
static void mk(pp_profile_t *p, const char *cmd, double tpn, uint32_t nn, const char **names)
{
	tp_init(p, "raii", cmd);
	p->pid = 100;
	p->start_ns = 1000;
	p->end_ns = 2000;
	p->ticks_per_ns = tpn;
	p->timing = 1;
	p->sample_n = 1;
	tp_names(p, nn, names, NULL, NULL);
}

/* Add path a>b (name indices ia, ib) with count and, when v, both segments
 * timed with the same n (ticks, times) pairs. */
static void add(pp_profile_t *p, uint32_t ia, uint32_t ib, uint64_t count,
		const uint64_t (*v)[2], size_t n)
{
	pp_seg_t segs[2];
	if (v) {
		segs[0] = tp_seg(v, n);
		segs[1] = tp_seg(v, n);
	}
	tp_path(p, count, TP_IDX(ia, ib), v ? segs : NULL);
}

static const pp_ppath_t *find(const pp_profile_t *p, const char *a, const char *b)
{
	for (uint32_t i = 0; i < p->npaths; i++) {
		const pp_ppath_t *q = &p->paths[i];
		if (!strcmp(p->names[q->names[0]].name, a) && !strcmp(p->names[q->names[1]].name, b))
			return q;
	}
	fprintf(stderr, "no path %s>%s\n", a, b);
	exit(1);
}

static const uint64_t va[][2] = {{10, 3}, {100, 4}, {1000, 2}, {5000, 1}};
static const uint64_t vb[][2] = {{90, 5}, {100, 6}, {20000, 7}};
static const uint64_t vab[][2] = {{10, 3}, {90, 5}, {100, 10}, {1000, 2}, {5000, 1}, {20000, 7}};

static void build_a(pp_profile_t *p)
{
	const char *n[] = {"main", "x", "y"};
	mk(p, "prog a", 3.0, 3, n);
	add(p, 0, 1, 10, va, 4);
	add(p, 0, 2, 5, NULL, 0);
	p->events = 15;
	p->records = 16;
	p->drops_table = 1;
	p->threads = 2;
}

static void build_b(pp_profile_t *p)
{
	const char *n[] = {"z", "x", "main"};
	mk(p, "prog b", 3.001, 3, n);
	add(p, 2, 1, 18, vb, 3);
	add(p, 2, 0, 3, NULL, 0);
	p->events = 21;
	p->records = 21;
	p->unmatched = 2;
	p->threads = 3;
}

static void build_c(pp_profile_t *p, double tpn)
{
	const char *n[] = {"main", "y"};
	mk(p, "prog a", tpn, 2, n);
	add(p, 0, 1, 7, va, 4);
	p->events = 7;
	p->records = 7;
	p->threads = 1;
}

static void merge_ok(pp_profile_t *dst, const pp_profile_t *src)
{
	char err[256];
	if (pp__profile_merge(dst, src, err, sizeof err) != 0) {
		fprintf(stderr, "merge failed: %s\n", err);
		exit(1);
	}
}

static char *file_bytes(const pp_profile_t *p, size_t *len)
{
	char path[64], err[256];
	snprintf(path, sizeof path, "/tmp/pp-merge-test.%d", (int)getpid());
	CHECK(pp__profile_write(p, path, err, sizeof err) == 0);
	FILE *f = fopen(path, "rb");
	CHECK(f);
	char *buf = malloc(1 << 20);
	CHECK(buf);
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	unlink(path);
	return buf;
}

static void same_seg(const pp_seg_t *x, const pp_seg_t *y)
{
	CHECK_EQ_U64(x->count, y->count);
	CHECK_EQ_U64(x->sum, y->sum);
	CHECK_EQ_U64(x->min, y->min);
	CHECK_EQ_U64(x->max, y->max);
	CHECK_EQ_U64(x->nbins, y->nbins);
	for (uint32_t i = 0; i < x->nbins; i++) {
		CHECK_EQ_U64(x->bins[i].bucket, y->bins[i].bucket);
		CHECK_EQ_U64(x->bins[i].count, y->bins[i].count);
	}
	for (double pct = 1; pct <= 100; pct += 1)
		CHECK_EQ_U64(pp__seg_percentile(x, pct), pp__seg_percentile(y, pct));
}

int main(void)
{
	pp_profile_t a, b, c, m;
	build_a(&a);
	build_b(&b);

	/* A + B: exact sums, names unified, histograms of the concatenation. */
	memset(&m, 0, sizeof m);
	merge_ok(&m, &a);
	merge_ok(&m, &b);
	CHECK_EQ_U64(m.npaths, 3);
	CHECK_EQ_U64(m.nnames, 4);
	CHECK_EQ_U64(find(&m, "main", "x")->count, 28);
	CHECK_EQ_U64(find(&m, "main", "y")->count, 5);
	CHECK_EQ_U64(find(&m, "main", "z")->count, 3);
	CHECK(pp__profile_node(&m, find(&m, "main", "z")->id) == NULL);
	CHECK_EQ_U64(m.events, 36);
	CHECK_EQ_U64(m.records, 37);
	CHECK_EQ_U64(m.drops_table, 1);
	CHECK_EQ_U64(m.unmatched, 2);
	CHECK_EQ_U64(m.threads, 5);
	CHECK_EQ_STR(m.command, "(merged)");
	CHECK_EQ_STR(m.frontend, "raii");
	CHECK_EQ_U64(m.pid, 100);
	pp_seg_t cat = tp_seg(vab, 6);
	same_seg(&pp__profile_node(&m, find(&m, "main", "x")->id)->incl, &cat);
	for (uint32_t i = 1; i < m.nnames; i++)
		CHECK(strcmp(m.names[i - 1].name, m.names[i].name) < 0);
	for (uint32_t i = 1; i < m.npaths; i++)
		CHECK(m.paths[i - 1].id < m.paths[i].id);

	/* A + A: every count doubles, every percentile stays. */
	pp_profile_t a2, aa;
	build_a(&a2);
	memset(&aa, 0, sizeof aa);
	merge_ok(&aa, &a);
	merge_ok(&aa, &a2);
	CHECK_EQ_U64(find(&aa, "main", "x")->count, 20);
	CHECK_EQ_U64(find(&aa, "main", "y")->count, 10);
	CHECK_EQ_U64(aa.events, 30);
	CHECK_EQ_U64(aa.threads, 4);
	const pp_seg_t *s1 = &pp__profile_node(&a, find(&a, "main", "x")->id)->incl;
	const pp_seg_t *s2 = &pp__profile_node(&aa, find(&aa, "main", "x")->id)->incl;
	CHECK_EQ_U64(s2->count, 2 * s1->count);
	for (double pct = 1; pct <= 100; pct += 1)
		CHECK_EQ_U64(pp__seg_percentile(s1, pct), pp__seg_percentile(s2, pct));

	/* (A + B) + C == A + (B + C), byte for byte in the file. */
	build_c(&c, 3.0);
	pp_profile_t left, right, bc;
	memset(&left, 0, sizeof left);
	merge_ok(&left, &a);
	merge_ok(&left, &b);
	merge_ok(&left, &c);
	memset(&bc, 0, sizeof bc);
	merge_ok(&bc, &b);
	merge_ok(&bc, &c);
	memset(&right, 0, sizeof right);
	merge_ok(&right, &a);
	merge_ok(&right, &bc);
	size_t ll, rl;
	char *lb = file_bytes(&left, &ll), *rb = file_bytes(&right, &rl);
	CHECK_EQ_U64(ll, rl);
	CHECK(!memcmp(lb, rb, ll));
	CHECK_EQ_U64(find(&left, "main", "y")->count, 12);
	free(lb);
	free(rb);

	/* Refusals. */
	char err[256];
	pp_profile_t c2;
	build_c(&c2, 2.0);
	CHECK(pp__profile_merge(&m, &c2, err, sizeof err) == -1);
	CHECK(strstr(err, "tick rates differ"));
	pp_profile_t d;
	const char *dn[] = {"main", "x"};
	mk(&d, "prog a", 3.0, 2, dn);
	add(&d, 0, 1, 1, NULL, 0);
	d.paths[0].depth = 1; /* same id as main>x, another depth */
	CHECK(pp__profile_merge(&aa, &d, err, sizeof err) == -1);
	CHECK(strstr(err, "share a stable id"));
	d.paths[0].depth = 2;

	pp_profile_t *all[] = {&a, &b, &c, &m, &a2, &aa, &left, &right, &bc, &c2, &d};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		pp__profile_free(all[i]);
	pp__seg_free(&cat);
	puts("ok");
	return 0;
}
