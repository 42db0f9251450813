/* Helpers of the fuzz targets (fuzz.h): the scratch directory that confines
 * every file a target writes, the sample profile and the profile comparison.
 * Kept out of the targets so each target file holds only its oracle. */
#define _GNU_SOURCE
#include "fuzz.h"
#include "testprof.h"

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

static pp_seg_t sample_seg(uint64_t seed)
{
	uint64_t pairs[5][2];
	for (uint64_t i = 0; i < 5; i++) {
		pairs[i][0] = (seed * 37 + i * 1000) << (i * 3);
		pairs[i][1] = 1;
	}
	return tp_seg(pairs, 5);
}

void fz_sample(pp_profile_t *p, int timed)
{
	static const char *const names[] = { "main", "parse", "ns::leaf<int>(char const*)" };
	static const char *const files[] = { "", "x.c", "x.c" };
	static const uint32_t lines[] = { 0, 10, 20 };
	static const uint32_t shape[][3] = { { 0, 1, 2 }, { 0, 2 }, { 0 } };
	static const uint32_t depth[] = { 3, 2, 1 };
	tp_init(p, "raii", "./prog --fuzz");
	p->pid = 77;
	p->start_ns = 1700000000000000000ull;
	p->end_ns = p->start_ns + 123456789;
	p->ticks_per_ns = timed ? 2.5 : 0;
	p->timing = timed ? 1 : 0;
	p->sample_n = 1;
	p->events = 9;
	p->records = 9;
	p->threads = 1;
	tp_names(p, 3, names, files, lines);
	for (uint32_t i = 0; i < 3; i++) {
		pp_seg_t segs[3];
		for (uint32_t k = 0; timed && k < depth[i]; k++)
			segs[k] = sample_seg(i * 3 + k + 1);
		tp_path(p, 1 + 2 * i, shape[i], depth[i], timed ? segs : NULL);
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
	}
	SAME("nodes", a->nnodes, b->nnodes);
	for (uint32_t i = 0; i < a->nnodes; i++) {
		const pp_pnode_t *x = &a->nodes[i], *y = &b->nodes[i];
		SAME("node id", x->id, y->id);
		SAME("node self", x->self, y->self);
		SAME("node depth", x->depth, y->depth);
		for (uint32_t k = 0; k < x->depth; k++)
			SAME("node name index", x->names[k], y->names[k]);
		same_seg(&x->incl, &y->incl);
	}
}
