/* Helpers of the fuzz targets (fuzz.h): the scratch directory that confines
 * every file a target writes, the sample profile and the profile comparison.
 * Kept out of the targets so each target file holds only its oracle. */
#define _GNU_SOURCE
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[512];

void fz_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("fuzz: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

static void remove_dir(void)
{
	fz_clean(NULL);
	rmdir(dir);
}

const char *fz_dir(void)
{
	if (dir[0])
		return dir;
	const char *base = getenv("PP_FUZZ_TMP");
	if (!base || !*base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof dir, "%s/pp-fuzz.XXXXXX", base);
	if (!mkdtemp(dir))
		fz_fail("cannot create a scratch directory under %s: %s", base, strerror(errno));
	atexit(remove_dir);
	return dir;
}

const char *fz_put(const char *name, const void *data, size_t n)
{
	static char paths[4][640];
	static unsigned k;
	char *path = paths[k++ % 4];
	snprintf(path, sizeof paths[0], "%s/%s", fz_dir(), name);
	FILE *f = fopen(path, "wb");
	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0)
		fz_fail("cannot write %s", path);
	return path;
}

void fz_clean(const char *const *keep)
{
	DIR *d = opendir(fz_dir());
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		int kept = 0;
		for (const char *const *k = keep; k && *k && !kept; k++)
			kept = !strcmp(*k, e->d_name);
		if (!kept)
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/* ---- the sample profile ---- */

static void sample_seg(pp_seg_t *s, uint64_t seed)
{
	uint64_t *dense = calloc(PP_HIST_BUCKETS, sizeof *dense);
	uint64_t n = 0, sum = 0, min = UINT64_MAX, max = 0;
	for (uint64_t i = 0; i < 5; i++) {
		uint64_t v = (seed * 37 + i * 1000) << (i * 3);
		dense[pp__hist_bucket(v)]++;
		n++;
		sum += v;
		min = v < min ? v : min;
		max = v > max ? v : max;
	}
	if (pp__seg_from_dense(s, n, sum, min, max, dense))
		fz_fail("sample histogram: out of memory");
	free(dense);
}

void fz_sample(pp_profile_t *p, int timed)
{
	static const char *const names[] = { "main", "parse", "ns::leaf<int>(char const*)" };
	static const uint32_t shape[][3] = { { 0, 1, 2 }, { 0, 2 }, { 0 } };
	static const uint32_t depth[] = { 3, 2, 1 };
	memset(p, 0, sizeof *p);
	p->version = PP_PROFILE_VERSION;
	p->frontend = strdup("raii");
	p->command = strdup("./prog --fuzz");
	p->pid = 77;
	p->start_ns = 1700000000000000000ull;
	p->end_ns = p->start_ns + 123456789;
	p->ticks_per_ns = timed ? 2.5 : 0;
	p->timing = timed ? 1 : 0;
	p->sample_n = 1;
	p->events = 9;
	p->records = 9;
	p->threads = 1;
	p->nnames = 3;
	p->names = calloc(3, sizeof *p->names);
	for (uint32_t i = 0; i < 3; i++) {
		p->names[i].name = strdup(names[i]);
		p->names[i].file = strdup(i ? "x.c" : "");
		p->names[i].line = i * 10;
	}
	p->npaths = 3;
	p->paths = calloc(3, sizeof *p->paths);
	for (uint32_t i = 0; i < 3; i++) {
		pp_ppath_t *pp = &p->paths[i];
		const char *seq[3];
		pp->depth = depth[i];
		pp->count = 1 + 2 * i;
		pp->names = calloc(pp->depth, sizeof *pp->names);
		for (uint32_t k = 0; k < pp->depth; k++) {
			pp->names[k] = shape[i][k];
			seq[k] = names[shape[i][k]];
		}
		pp->id = pp__path_id(seq, pp->depth);
		if (timed) {
			pp->segs = calloc(pp->depth, sizeof *pp->segs);
			for (uint32_t k = 0; k < pp->depth; k++)
				sample_seg(&pp->segs[k], i * 3 + k + 1);
		}
	}
}

/* ---- comparison ---- */

#define SAME(what, x, y)                                                                       \
	do {                                                                                   \
		if ((x) != (y))                                                                \
			fz_fail("round trip changed %s: %llu became %llu", what,              \
				(unsigned long long)(x), (unsigned long long)(y));             \
	} while (0)

static void same_str(const char *what, const char *x, const char *y)
{
	if ((!x) != (!y) || (x && strcmp(x, y)))
		fz_fail("round trip changed %s: '%s' became '%s'", what, x ? x : "(null)",
			y ? y : "(null)");
}

static void same_seg(const pp_seg_t *a, const pp_seg_t *b)
{
	SAME("segment count", a->count, b->count);
	SAME("segment sum", a->sum, b->sum);
	SAME("segment min", a->min, b->min);
	SAME("segment max", a->max, b->max);
	SAME("histogram bins", a->nbins, b->nbins);
	for (uint32_t j = 0; j < a->nbins; j++) {
		SAME("bucket", a->bins[j].bucket, b->bins[j].bucket);
		SAME("bucket count", a->bins[j].count, b->bins[j].count);
	}
}

void fz_same_profile(const pp_profile_t *a, const pp_profile_t *b)
{
	SAME("version", a->version, b->version);
	same_str("frontend", a->frontend, b->frontend);
	same_str("command", a->command, b->command);
	SAME("pid", a->pid, b->pid);
	SAME("start", a->start_ns, b->start_ns);
	SAME("end", a->end_ns, b->end_ns);
	if (memcmp(&a->ticks_per_ns, &b->ticks_per_ns, sizeof a->ticks_per_ns))
		fz_fail("round trip changed the tick rate: %a became %a", a->ticks_per_ns, b->ticks_per_ns);
	SAME("timing", a->timing, b->timing);
	SAME("sample_n", a->sample_n, b->sample_n);
	SAME("events", a->events, b->events);
	SAME("records", a->records, b->records);
	SAME("drops_table", a->drops_table, b->drops_table);
	SAME("drops_depth", a->drops_depth, b->drops_depth);
	SAME("unmatched", a->unmatched, b->unmatched);
	SAME("threads", a->threads, b->threads);
	SAME("names", a->nnames, b->nnames);
	for (uint32_t i = 0; i < a->nnames; i++) {
		same_str("name", a->names[i].name, b->names[i].name);
		same_str("file", a->names[i].file, b->names[i].file);
		SAME("line", a->names[i].line, b->names[i].line);
	}
	SAME("paths", a->npaths, b->npaths);
	for (uint32_t i = 0; i < a->npaths; i++) {
		const pp_ppath_t *x = &a->paths[i], *y = &b->paths[i];
		SAME("path id", x->id, y->id);
		SAME("path count", x->count, y->count);
		SAME("path depth", x->depth, y->depth);
		for (uint32_t k = 0; k < x->depth; k++)
			SAME("path name index", x->names[k], y->names[k]);
		SAME("timed flag", !x->segs, !y->segs);
		for (uint32_t k = 0; x->segs && k < x->depth; k++)
			same_seg(&x->segs[k], &y->segs[k]);
	}
}
