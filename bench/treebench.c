/* treebench: the tree workload (tree.c) timed in-process, plain and gated
 * batches alternating (A B A B ...) so both see the same machine, in the
 * timing mode of PATHPROF_TIMING; prints the median ns per gate over plain
 * and the ns per document. Gates per document are counted exactly by the
 * profile's own node calls in timed mode, and here from the generated text.
 * usage: treebench [PAIRS] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tree.h"

static volatile uint64_t sink;
static char doc[1 << 20];
static size_t len;
static uint64_t gates; /* grammar calls a parse makes */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* expr -> term ('+' term)*; term -> atom ('*' atom)*; atom -> number | '(' expr ')'.
 * Each grammar function is one gate: count them as the parser will call them. */
static void gen_expr(int depth);
static void gen_atom(int depth)
{
	gates++; /* atom */
	if (depth > 0 && rnd() % 3) {
		doc[len++] = '(';
		gen_expr(depth - 1);
		doc[len++] = ')';
		return;
	}
	gates++; /* number */
	len += (size_t)snprintf(doc + len, 8, "%u", (unsigned)(rnd() % 1000));
}
static void gen_term(int depth)
{
	gates++;
	gen_atom(depth);
	for (int n = (int)(rnd() % 3); n > 0; n--) {
		doc[len++] = '*';
		gen_atom(depth);
	}
}
static void gen_expr(int depth)
{
	gates++;
	gen_term(depth);
	for (int n = (int)(rnd() % 3); n > 0; n--) {
		doc[len++] = '+';
		gen_term(depth);
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int pairs = argc > 1 ? atoi(argv[1]) : 41;
	if (pairs < 1 || pairs > 100000)
		return 2;
	/* Nesting up to 9 levels of expr: 6 to 12 gates deep at the leaves. */
	uint64_t chunks = 0;
	while (len < sizeof doc / 2) {
		if (len)
			doc[len++] = '+';
		gen_expr(3);
		chunks++;
	}
	doc[len] = 0;
	/* the parser reads the chunks as the terms of one expr */
	uint64_t per_doc = gates - (chunks - 1);
	gates = 0;
	double *d = malloc((size_t)pairs * sizeof *d), *doc_ns = malloc((size_t)pairs * sizeof *doc_ns);
	if (!d || !doc_ns)
		return 1;
	sink = plain_parse(doc) + gated_parse(doc); /* warm: first sight, pages */
	for (int i = 0; i < pairs; i++) {
		uint64_t t0 = now_ns();
		sink = plain_parse(doc);
		uint64_t t1 = now_ns();
		sink = gated_parse(doc);
		uint64_t t2 = now_ns();
		d[i] = ((double)(t2 - t1) - (double)(t1 - t0)) / (double)per_doc;
		doc_ns[i] = (double)(t1 - t0);
	}
	qsort(d, (size_t)pairs, sizeof *d, cmp);
	qsort(doc_ns, (size_t)pairs, sizeof *doc_ns, cmp);
	printf("treebench: timing=%s gates_per_doc=%llu bytes=%zu plain_ns_per_doc=%.0f ns_per_gate=%.2f iqr=%.2f\n",
	       getenv("PATHPROF_TIMING") ? getenv("PATHPROF_TIMING") : "off",
	       (unsigned long long)per_doc, len, doc_ns[pairs / 2], d[pairs / 2],
	       d[pairs * 3 / 4] - d[pairs / 4]);
	free(d);
	free(doc_ns);
	return 0;
}
