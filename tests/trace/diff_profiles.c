/* Writes the known profiles the diff tests compare: a baseline A and a B
 * whose "parse" stage takes twice as long, as single files and as
 * directories of three runs each (runs differ by 1 % from each other), plus
 * paths only in A and only in B. Times are in ticks at 1 tick per ns, so the
 * expected outputs are exact. usage: diff_profiles DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile.h"

static const char *const names[] = {"leaf", "log", "main", "new", "old", "parse", "validate"};
enum { LEAF, LOG, MAIN, NEW, OLD, PARSE, VALIDATE, NNAMES };

typedef struct spec {
	uint32_t depth;
	uint32_t names[3];
	uint64_t count;
	int timed;
	double base[3]; /* per segment ns of the fastest event */
} spec_t;

/* One segment: n events whose times step through 10 values from base to
 * 1.45 * base, scaled. */
static void make_seg(pp_seg_t *g, uint64_t n, double base, double scale)
{
	static uint64_t dense[PP_HIST_BUCKETS];
	uint64_t sum = 0, min = UINT64_MAX, max = 0;
	memset(dense, 0, sizeof dense);
	for (uint64_t e = 0; e < n; e++) {
		uint64_t v = (uint64_t)(base * scale * (1.0 + (double)(e % 10) / 20.0));
		dense[pp__hist_bucket(v)]++;
		sum += v;
		min = v < min ? v : min;
		max = v > max ? v : max;
	}
	if (pp__seg_from_dense(g, n, sum, min, max, dense) != 0)
		exit(1);
}

static void write_profile(const char *path, const spec_t *sp, uint32_t n, double scale,
			  double parse_scale)
{
	pp_profile_t p = {0};
	char err[256];
	p.version = PP_PROFILE_VERSION;
	p.frontend = strdup("raii");
	p.command = strdup("./workload");
	p.pid = 42;
	p.start_ns = 1000;
	p.end_ns = 2000;
	p.ticks_per_ns = 1.0;
	p.timing = 1;
	p.sample_n = 64;
	p.threads = 1;
	p.nnames = NNAMES;
	p.names = calloc(NNAMES, sizeof *p.names);
	for (uint32_t i = 0; i < NNAMES; i++)
		p.names[i] = (pp_name_t){strdup(names[i]), strdup(""), 0};
	p.paths = calloc(n, sizeof *p.paths);
	for (uint32_t i = 0; i < n; i++) {
		const char *strs[3];
		pp_ppath_t *q = &p.paths[p.npaths++];
		q->depth = sp[i].depth;
		q->count = sp[i].count;
		q->names = calloc(q->depth, sizeof *q->names);
		for (uint32_t j = 0; j < q->depth; j++) {
			q->names[j] = sp[i].names[j];
			strs[j] = names[sp[i].names[j]];
		}
		q->id = pp__path_id(strs, q->depth);
		if (sp[i].timed) {
			q->segs = calloc(q->depth, sizeof *q->segs);
			for (uint32_t j = 0; j < q->depth; j++)
				make_seg(&q->segs[j], q->count, sp[i].base[j],
					 scale * (sp[i].names[j] == PARSE ? parse_scale : 1.0));
		}
		p.events += q->count;
		p.records += q->count;
	}
	/* paths sorted by id, as every writer keeps them */
	for (uint32_t i = 1; i < p.npaths; i++)
		for (uint32_t j = i; j > 0 && p.paths[j - 1].id > p.paths[j].id; j--) {
			pp_ppath_t x = p.paths[j];
			p.paths[j] = p.paths[j - 1];
			p.paths[j - 1] = x;
		}
	if (pp__profile_write(&p, path, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	pp__profile_free(&p);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	const spec_t a[] = {
		{3, {MAIN, PARSE, LEAF}, 1000, 1, {100, 400, 200}},
		{2, {MAIN, VALIDATE}, 500, 1, {50, 300}},
		{2, {MAIN, LOG}, 20, 0, {0}},
		{2, {MAIN, OLD}, 7, 1, {10, 20}},
	};
	const spec_t b[] = {
		{3, {MAIN, PARSE, LEAF}, 1000, 1, {100, 400, 200}},
		{2, {MAIN, VALIDATE}, 510, 1, {50, 300}},
		{2, {MAIN, LOG}, 20, 0, {0}},
		{2, {MAIN, NEW}, 3, 1, {10, 20}},
	};
	char path[4096];
	const char *d = argv[1];
	snprintf(path, sizeof path, "%s/a.pathprof", d);
	write_profile(path, a, 4, 1.0, 1.0);
	snprintf(path, sizeof path, "%s/b.pathprof", d);
	write_profile(path, b, 4, 1.0, 2.0);
	snprintf(path, sizeof path, "%s/runs-a", d);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/runs-b", d);
	mkdir(path, 0755);
	for (int r = 0; r < 3; r++) {
		double scale = 1.0 + 0.01 * (r - 1);
		snprintf(path, sizeof path, "%s/runs-a/run%d.pathprof", d, r);
		write_profile(path, a, 4, scale, 1.0);
		snprintf(path, sizeof path, "%s/runs-b/run%d.pathprof", d, r);
		write_profile(path, b, 4, 1.0 + 0.01 * (1 - r), 2.0);
	}
	/* A second set of A runs: same workload, the noise only. */
	snprintf(path, sizeof path, "%s/runs-a2", d);
	mkdir(path, 0755);
	for (int r = 0; r < 3; r++) {
		snprintf(path, sizeof path, "%s/runs-a2/run%d.pathprof", d, r);
		write_profile(path, a, 4, 1.0 + 0.01 * (1 - r), 1.0);
	}
	return 0;
}
