/* Writes the known profiles the diff tests compare: a baseline A and a B
 * whose "parse" stage takes twice as long, as single files and as
 * directories of three runs each (runs differ by 1 % from each other), plus
 * paths only in A and only in B, and a run of A whose slowest tenth of parse
 * calls took three times as long (a change in the tail only), and a run of A
 * 6 % slower throughout (a process that drifted, nothing changed), and a
 * wide pair: main over 40 stages whose per-call times scatter by up to
 * +-20 % between the two processes, and one stage three times as slow, and
 * two pairs whose median call moved where that decides nothing. Times are in
 * ticks at 1 tick per ns, so the expected outputs are exact.
 * usage: diff_profiles DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile.h"
#include "testprof.h"

static const char *const names[] = {"leaf", "log", "main", "new", "old", "parse", "validate"};
enum { LEAF, LOG, MAIN, NEW, OLD, PARSE, VALIDATE, NNAMES };

typedef struct spec {
	uint32_t depth;
	uint32_t names[3];
	uint64_t count;
	int timed;
	double base[3]; /* per segment ns of the fastest event */
} spec_t;

/* The factor on the slowest of the ten values of parse's segment. */
static double tail_scale = 1.0;

/* One segment: n events whose times step through 10 values from base to
 * 1.45 * base, scaled (the last also by tail). */
static pp_seg_t make_seg(uint64_t n, double base, double scale, double tail)
{
	uint64_t pairs[10][2];
	for (uint64_t r = 0; r < 10; r++) {
		pairs[r][0] = (uint64_t)(base * scale * (1.0 + (double)r / 20.0) * (r == 9 ? tail : 1.0));
		pairs[r][1] = n / 10 + (r < n % 10);
	}
	return tp_seg(pairs, 10);
}

/* Paths sorted by id, as every writer keeps them, then written and freed. */
static void sort_and_write(pp_profile_t *p, const char *path)
{
	char err[256];
	for (uint32_t i = 1; i < p->npaths; i++)
		for (uint32_t j = i; j > 0 && p->paths[j - 1].id > p->paths[j].id; j--) {
			pp_ppath_t x = p->paths[j];
			p->paths[j] = p->paths[j - 1];
			p->paths[j - 1] = x;
		}
	if (pp__profile_write(p, path, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		exit(1);
	}
	pp__profile_free(p);
}

/* A timed profile at 1 tick per ns, one thread, with room for the gated
 * time (the reader checks it), and these names. */
static void start_profile(pp_profile_t *p, const char *command, uint64_t pid, uint32_t nnames,
			  const char *const *nm)
{
	tp_init(p, "raii", command);
	p->pid = pid;
	p->start_ns = 1000;
	p->end_ns = 1000 + 10000000000ull;
	p->ticks_per_ns = 1.0;
	p->timing = 1;
	p->sample_n = 64;
	p->threads = 1;
	tp_names(p, nnames, nm, NULL, NULL);
}

static void write_profile(const char *path, const spec_t *sp, uint32_t n, double scale,
			  double parse_scale)
{
	pp_profile_t p;
	start_profile(&p, "./workload", 42, NNAMES, names);
	for (uint32_t i = 0; i < n; i++) {
		pp_seg_t segs[3];
		for (uint32_t j = 0; sp[i].timed && j < sp[i].depth; j++)
			segs[j] = make_seg(sp[i].count, sp[i].base[j],
					   scale * (sp[i].names[j] == PARSE ? parse_scale : 1.0),
					   sp[i].names[j] == PARSE ? tail_scale : 1.0);
		tp_path(&p, sp[i].count, sp[i].names, sp[i].depth, sp[i].timed ? segs : NULL);
		p.events += sp[i].count;
		p.records += sp[i].count;
	}
	sort_and_write(&p, path);
}

/* The wide pair: stages w00..w39 under main, 100 calls each of 1000 ns
 * (scaled per stage in B: a fixed scatter within +-20 %, and w07 x3); or,
 * with r >= 0, run r of a set (all stages scaled by run_scale, each
 * within +-5 % by r, w07 by w07). */
#define WIDE 40
static void write_wide(const char *path, int b, double w07, double run_scale, int r)
{
	static char label[WIDE + 1][8];
	const char *wnames[WIDE + 1];
	for (uint32_t k = 0; k < WIDE; k++) {
		snprintf(label[k], sizeof label[k], "w%02u", k);
		wnames[k] = label[k];
	}
	wnames[WIDE] = "main";
	pp_profile_t p;
	start_profile(&p, "./wide", 43, WIDE + 1, wnames);
	for (uint32_t k = 0; k < WIDE; k++) {
		/* a fixed scatter: (k * 37) % 41 spreads over 0..40, -20 % to +20 % */
		double f = b ? (k == 7 ? 3.0 : 1.0 + (((double)((k * 37) % 41) - 20) / 100)) : 1.0;
		/* a run of a set: the whole run by run_scale, each stage
		 * within +-5 %, w07 by w07 */
		if (r >= 0)
			f = run_scale * (1.0 + ((double)((k * 7 + (uint32_t)r * 13) % 11) - 5) / 100) *
			    (k == 7 ? w07 : 1.0);
		pp_seg_t segs[2] = {make_seg(100, 1000.0 * f + 50, 1.0, 1.0), make_seg(100, 1000.0 * f, 1.0, 1.0)};
		uint32_t names2[2] = {WIDE, k};
		tp_path(&p, 100, names2, 2, segs);
		p.events += 100;
		p.records += 100;
	}
	sort_and_write(&p, path);
}

/* Two pairs of main > validate, 40 and 50 calls a side, whose median call
 * moved and whose mean decides nothing (a few long calls), as a walk's tiny
 * leaves did between two processes of one binary (bench/diffnoise.sh);
 * neither gets a verdict. shape: A 38 calls of 100 ns and 2 of 20 000, B
 * 40 of 180: the median 80 % slower, the mean 84 % faster, so the calls
 * changed shape, not one way. tiny: A 50 calls of 20 ns, B 49 of 100 and
 * one of 60 000, under a main of 100 000 ns a call: the median 5x slower,
 * but over the calls that is under 0.1 % of the run (the mean's one long
 * call put B's share over it). */
static void write_pair(const char *path, int tiny, int b)
{
	pp_profile_t p;
	start_profile(&p, "./pair", 44, NNAMES, names);
	uint64_t n = tiny ? 50 : 40;
	pp_seg_t segs[2];
	if (!tiny) {
		segs[0] = TP_SEG({50, 40});
		segs[1] = b ? TP_SEG({180, 40}) : TP_SEG({100, 38}, {20000, 2});
	} else {
		segs[0] = TP_SEG({100000, 50});
		segs[1] = b ? TP_SEG({100, 49}, {60000, 1}) : TP_SEG({20, 50});
	}
	uint32_t names2[2] = {MAIN, VALIDATE};
	tp_path(&p, n, names2, 2, segs);
	p.events += n;
	p.records += n;
	sort_and_write(&p, path);
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
	snprintf(path, sizeof path, "%s/wide-a.pathprof", d);
	write_wide(path, 0, 1.0, 1.0, -1);
	snprintf(path, sizeof path, "%s/wide-b.pathprof", d);
	write_wide(path, 1, 1.0, 1.0, -1);
	/* Three sets of five runs of the 40 stages, each run slower or faster
	 * as a whole by up to 30 % (a busy machine): A, B with w07 1.4x as
	 * slow, and A again. */
	static const double speeds[3][5] = {{0.8, 1.0, 1.3, 0.9, 1.15},
					    {1.2, 0.85, 1.0, 1.25, 0.95},
					    {1.1, 0.75, 1.05, 1.3, 0.9}};
	for (int set = 0; set < 3; set++) {
		static const char *const dirs[3] = {"wruns-a", "wruns-b", "wruns-a2"};
		snprintf(path, sizeof path, "%s/%s", d, dirs[set]);
		mkdir(path, 0755);
		for (int r = 0; r < 5; r++) {
			snprintf(path, sizeof path, "%s/%s/run%d.pathprof", d, dirs[set], r);
			write_wide(path, 0, set == 1 ? 1.4 : 1.0, speeds[set][r], r + 5 * set);
		}
	}
	for (int k = 0; k < 4; k++) {
		snprintf(path, sizeof path, "%s/%s-%c.pathprof", d, k / 2 ? "tiny" : "shape", 'a' + k % 2);
		write_pair(path, k / 2, k % 2);
	}
	snprintf(path, sizeof path, "%s/a-drift.pathprof", d);
	write_profile(path, a, 4, 1.06, 1.0);
	tail_scale = 3.0;
	snprintf(path, sizeof path, "%s/a-tail.pathprof", d);
	write_profile(path, a, 4, 1.0, 1.0);
	return 0;
}
