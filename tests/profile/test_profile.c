/* Unit tests of the profile file: write/read round trip of every field, the
 * reader's refusal of damaged files (every truncation,
 * corrupted lengths, indices and counts), each with one line naming the file.
 * Built under ASan/UBSan, so "fails cleanly" also means "no bad access". */
#include "crc32.h"
#include "fd_high.h"
#include "profile.h"
#include "testprof.h"
#include "../hist/check.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];
static char msg[512];

static char *path_in_dir(const char *name)
{
	static char buf[4][512];
	static int k;
	char *b = buf[k++ % 4];
	snprintf(b, sizeof buf[0], "%s/%s", dir, name);
	return b;
}

static void put_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(b, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
}

static uint8_t *get_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc((size_t)len + 1);
	*n = fread(b, 1, (size_t)len, f);
	fclose(f);
	return b;
}

static void set32(uint8_t *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static void set64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Offset of the section header of the given type, walking the file the way
 * the format describes; 0 when absent. */
static size_t find_section(const uint8_t *b, size_t n, uint32_t type)
{
	size_t pos = get32(b + 12);
	while (pos + 16 <= n) {
		uint64_t len = get32(b + pos + 8) | (uint64_t)get32(b + pos + 12) << 32;
		if (get32(b + pos) == type)
			return pos;
		pos += 16 + (size_t)len + 4; /* header, payload, checksum */
	}
	return 0;
}

/* Recompute every section's checksum after an edit, as far as the sections
 * can be walked, so that a test reaches the check it is about. */
static void reseal(uint8_t *b, size_t n)
{
	if (n < 16)
		return;
	size_t pos = get32(b + 12);
	while (pos <= n && n - pos >= 16) {
		uint64_t len = get32(b + pos + 8) | (uint64_t)get32(b + pos + 12) << 32;
		if (len > n - pos - 16 || n - pos - 16 - len < 4)
			return;
		size_t end = pos + 16 + (size_t)len;
		uint32_t crc = pp__crc32(b + pos, end - pos, 0);
		for (int i = 0; i < 4; i++)
			b[end + i] = (uint8_t)(crc >> (8 * i));
		pos = end + 4;
	}
}

/* ---- the reference profile ---- */

static const char *const fn[] = { "main", "parse", "ns::f<int>(char const*)", "leaf", "deep" };
static const char *const file[] = { "main.c", "", "src/\xc3\xbc.cc", "x.c", "d.c" };
static const uint32_t line[] = { 10, 0, 42, UINT32_MAX, 7 };

/* depth segments of 5 + k values each (k the segment), the first value
 * beyond the nominal range so the last bucket is used. */
static pp_seg_t *timed_segs(uint32_t depth, uint64_t seed)
{
	pp_seg_t *segs = tp_calloc(depth, sizeof *segs);
	uint64_t (*pairs)[2] = tp_calloc(depth + 5, sizeof *pairs);
	for (uint32_t k = 0; k < depth; k++) {
		for (uint64_t i = 0; i < 5 + k; i++) {
			pairs[i][0] = i ? (seed * 2654435761u + i * 977 + k * 13) % 100000 : UINT64_MAX - k;
			pairs[i][1] = i + 1;
		}
		segs[k] = tp_seg(pairs, 5 + k);
	}
	free(pairs);
	return segs;
}

/* Four paths (one untimed), plus one of the given depth when deep is set. */
static void make_profile(pp_profile_t *p, uint32_t deep)
{
	static const uint32_t shapes[][4] = { { 0, 1, 3 }, { 0, 3 }, { 0 }, { 2, 2, 2, 1 } };
	static const uint32_t depths[] = { 3, 2, 1, 4 };
	tp_init(p, "raii", "./prog --flag 'x y'");
	p->pid = 4242;
	p->start_ns = 1700000000123456789ull;
	p->end_ns = 1700500001987654321ull; /* long enough for the deep path's times */
	p->ticks_per_ns = 2.994512345;
	p->timing = 2;
	p->sample_n = 7;
	p->events = 1001;
	p->records = 1002;
	p->drops_table = 3;
	p->drops_depth = 4;
	p->unmatched = 5;
	p->threads = 6;
	p->drops_time = 7;
	p->own_ticks = 123456;
	p->own_n = 17;
	p->drops_signal = 8;
	p->unprofiled_frames = 9;
	p->unprofiled_threads = 10;
	tp_names(p, 5, fn, file, line);
	uint32_t *deep_names = tp_calloc(deep, sizeof *deep_names);
	for (uint32_t k = 0; k < deep; k++)
		deep_names[k] = k % 5;
	for (uint32_t i = 0; i < (deep ? 5u : 4u); i++) {
		uint32_t depth = i < 4 ? depths[i] : deep;
		pp_seg_t *segs = i != 1 ? timed_segs(depth, i + 1) : NULL;
		tp_path(p, 1000000007ull * (i + 1), i < 4 ? shapes[i] : deep_names, depth, segs);
		free(segs);
	}
	free(deep_names);
	/* what the reader checks: seen = recorded + dropped */
	p->records = p->drops_table;
	for (uint32_t i = 0; i < p->npaths; i++)
		p->records += p->paths[i].count;
}

static void same_seg(const pp_seg_t *a, const pp_seg_t *b)
{
	CHECK_EQ_U64(a->count, b->count);
	CHECK_EQ_U64(a->sum, b->sum);
	CHECK_EQ_U64(a->min, b->min);
	CHECK_EQ_U64(a->max, b->max);
	CHECK_EQ_U64(a->nbins, b->nbins);
	for (uint32_t j = 0; j < a->nbins && j < b->nbins; j++) {
		CHECK_EQ_U64(a->bins[j].bucket, b->bins[j].bucket);
		CHECK_EQ_U64(a->bins[j].count, b->bins[j].count);
	}
}

static void same_profile(const pp_profile_t *a, const pp_profile_t *b)
{
	CHECK_EQ_U64(a->version, b->version);
	CHECK(!strcmp(a->frontend, b->frontend), "frontend %s / %s", a->frontend, b->frontend);
	CHECK(!strcmp(a->command, b->command), "command %s / %s", a->command, b->command);
	CHECK_EQ_U64(a->pid, b->pid);
	CHECK_EQ_U64(a->start_ns, b->start_ns);
	CHECK_EQ_U64(a->end_ns, b->end_ns);
	CHECK(!memcmp(&a->ticks_per_ns, &b->ticks_per_ns, sizeof(double)), "tick rate %.17g / %.17g",
	      a->ticks_per_ns, b->ticks_per_ns);
	CHECK_EQ_U64(a->timing, b->timing);
	CHECK_EQ_U64(a->sample_n, b->sample_n);
	CHECK_EQ_U64(a->events, b->events);
	CHECK_EQ_U64(a->records, b->records);
	CHECK_EQ_U64(a->drops_table, b->drops_table);
	CHECK_EQ_U64(a->drops_depth, b->drops_depth);
	CHECK_EQ_U64(a->unmatched, b->unmatched);
	CHECK_EQ_U64(a->threads, b->threads);
	CHECK_EQ_U64(a->drops_time, b->drops_time);
	CHECK_EQ_U64(a->own_ticks, b->own_ticks);
	CHECK_EQ_U64(a->own_n, b->own_n);
	CHECK_EQ_U64(a->drops_signal, b->drops_signal);
	CHECK_EQ_U64(a->unprofiled_frames, b->unprofiled_frames);
	CHECK_EQ_U64(a->unprofiled_threads, b->unprofiled_threads);
	CHECK_EQ_U64(a->nnames, b->nnames);
	for (uint32_t i = 0; i < a->nnames && i < b->nnames; i++) {
		CHECK(!strcmp(a->names[i].name, b->names[i].name), "name %u", i);
		CHECK(!strcmp(a->names[i].file, b->names[i].file), "file %u", i);
		CHECK_EQ_U64(a->names[i].line, b->names[i].line);
	}
	CHECK_EQ_U64(a->npaths, b->npaths);
	for (uint32_t i = 0; i < a->npaths && i < b->npaths; i++) {
		const pp_ppath_t *x = &a->paths[i], *y = &b->paths[i];
		CHECK_EQ_U64(x->id, y->id);
		CHECK_EQ_U64(x->count, y->count);
		CHECK_EQ_U64(x->depth, y->depth);
		for (uint32_t k = 0; k < x->depth && k < y->depth; k++)
			CHECK_EQ_U64(x->names[k], y->names[k]);
	}
	CHECK_EQ_U64(a->nnodes, b->nnodes);
	for (uint32_t i = 0; i < a->nnodes && i < b->nnodes; i++) {
		const pp_pnode_t *x = &a->nodes[i], *y = &b->nodes[i];
		CHECK_EQ_U64(x->id, y->id);
		CHECK_EQ_U64(x->depth, y->depth);
		CHECK_EQ_U64(x->self, y->self);
		for (uint32_t k = 0; k < x->depth && k < y->depth; k++)
			CHECK_EQ_U64(x->names[k], y->names[k]);
		same_seg(&x->incl, &y->incl);
	}
}

static int zeroed(const pp_profile_t *p)
{
	static const pp_profile_t z;
	return !memcmp(p, &z, sizeof z);
}

/* ---- tests ---- */

static void test_ticks_ns(void)
{
	pp_profile_t p = { 0 };
	p.ticks_per_ns = 2.0;
	CHECK(pp__ticks_ns(&p, 1000) == 500.0, "2 ticks per ns");
	p.ticks_per_ns = 0;
	CHECK(pp__ticks_ns(&p, 1000) == 1000.0, "unknown rate keeps ticks");
	p.ticks_per_ns = -1;
	CHECK(pp__ticks_ns(&p, 1000) == 1000.0, "bad rate keeps ticks");
}

static int count_dir_entries(void)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_round_trip(void)
{
	pp_profile_t p, q;
	char *f = path_in_dir("prof.pathprof");
	make_profile(&p, 0);
	CHECK(pp__profile_write(&p, f, msg, sizeof msg) == 0, "write: %s", msg);
	CHECK(count_dir_entries() == 1, "temporary file left behind");
	CHECK(pp__profile_read(&q, f, msg, sizeof msg) == 0, "read: %s", msg);
	same_profile(&p, &q);
	pp__profile_free(&q);
	CHECK(zeroed(&q), "profile_free zeroes");

	/* the header, byte for byte */
	size_t n;
	uint8_t *b = get_file(f, &n);
	static const uint8_t head[] = { 'P', 'A', 'T', 'H', 'P', 'R', 'O', 'F', 3, 0, 0, 0, 16, 0, 0, 0,
					1, 0, 0, 0, 1, 0, 0, 0 };
	CHECK(n > sizeof head && !memcmp(b, head, sizeof head), "header bytes");
	CHECK(find_section(b, n, 4) == n - 20, "END and its checksum are the last 20 bytes");
	free(b);

	/* rewriting replaces the file; a wrong in-memory id is written correctly */
	uint64_t right = p.paths[0].id;
	p.paths[0].id ^= 1;
	CHECK(pp__profile_write(&p, f, msg, sizeof msg) == 0, "rewrite: %s", msg);
	CHECK(pp__profile_read(&q, f, msg, sizeof msg) == 0, "read: %s", msg);
	CHECK_EQ_U64(q.paths[0].id, right);
	pp__profile_free(&q);
	pp__profile_free(&p);

	/* an empty profile, and the depth limit itself, round-trip too */
	memset(&p, 0, sizeof p);
	CHECK(pp__profile_write(&p, f, msg, sizeof msg) == 0, "write empty: %s", msg);
	CHECK(pp__profile_read(&q, f, msg, sizeof msg) == 0, "read empty: %s", msg);
	CHECK(q.version == 3 && q.npaths == 0 && q.nnodes == 0 && q.nnames == 0 && !strcmp(q.frontend, ""), "empty");
	pp__profile_free(&q);
	make_profile(&p, 4096);
	CHECK(pp__profile_write(&p, f, msg, sizeof msg) == 0, "write deep: %s", msg);
	CHECK(pp__profile_read(&q, f, msg, sizeof msg) == 0, "read deep: %s", msg);
	same_profile(&p, &q);
	pp__profile_free(&q);
	pp__profile_free(&p);
	unlink(f);
}

static void test_write_errors(void)
{
	pp_profile_t p;
	make_profile(&p, 0);
	char *f = path_in_dir("no/such/dir/prof.pathprof");
	CHECK(pp__profile_write(&p, f, msg, sizeof msg) == -1, "write into a missing directory");
	CHECK(strstr(msg, f) == msg && strstr(msg, "No such file"), "message: %s", msg);

	/* a full disk is reported, not taken for success */
	CHECK(pp__profile_write(&p, "/dev/full", msg, sizeof msg) == -1, "write to /dev/full");
	CHECK(!strncmp(msg, "/dev/full: ", 11) && strstr(msg, "No space"), "message: %s", msg);
	/* a non-regular target is written in place, never renamed over */
	CHECK(pp__profile_write(&p, "/dev/null", msg, sizeof msg) == 0, "write to /dev/null: %s", msg);
	struct stat st;
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode), "/dev/null is still a device");

	/* the writer refuses what the reader would reject, and leaves no file */
	f = path_in_dir("bad.pathprof");
	p.paths[2].names[0] = 99;
	CHECK(pp__profile_write(&p, f, msg, sizeof msg) == -1, "invalid index written");
	CHECK(strstr(msg, "name index 99 out of range"), "message: %s", msg);
	p.paths[2].names[0] = 0;
	p.nodes[1].incl.bins[0].count++;
	CHECK(pp__profile_write(&p, f, msg, sizeof msg) == -1, "inconsistent histogram written");
	CHECK(strstr(msg, "node 1: bin counts sum"), "message: %s", msg);
	pp__profile_free(&p);
	make_profile(&p, 4097);
	CHECK(pp__profile_write(&p, f, msg, sizeof msg) == -1, "depth 4097 written");
	CHECK(strstr(msg, "depth 4097 outside 1..4096"), "message: %s", msg);
	pp__profile_free(&p);
	CHECK(count_dir_entries() == 0, "nothing left in the directory");
}

/* Read f expecting failure; the message must be one line naming the file and
 * containing want; the profile must come back empty. */
static void expect_fail_at(int at, const char *f, const char *want)
{
	pp_profile_t q;
	memset(&q, 0x5a, sizeof q);
	msg[0] = 0;
	int rc = pp__profile_read(&q, f, msg, sizeof msg);
	size_t fl = strlen(f);
	CHECK(rc == -1, "line %d: %s was accepted", at, f);
	CHECK(!strncmp(msg, f, fl) && !strncmp(msg + fl, ": ", 2), "line %d: message does not name the file: %s",
	      at, msg);
	CHECK(!strchr(msg, '\n'), "line %d: message spans lines: %s", at, msg);
	CHECK(strstr(msg, want), "line %d: message lacks \"%s\": %s", at, want, msg);
	CHECK(zeroed(&q), "line %d: profile not empty after a failed read", at);
	if (rc == 0)
		pp__profile_free(&q);
}
#define expect_fail(f, want) expect_fail_at(__LINE__, f, want)

/* Write bytes b (with one patch applied by the caller, the checksums made
 * right again unless raw) and expect failure. */
static void expect_bytes_fail_at(int at, const uint8_t *b, size_t n, const char *want, int raw)
{
	char *f = path_in_dir("bad.pathprof");
	uint8_t *c = malloc(n ? n : 1);
	memcpy(c, b, n);
	if (!raw)
		reseal(c, n);
	put_file(f, c, n);
	free(c);
	expect_fail_at(at, f, want);
	unlink(f);
}
#define expect_bytes_fail(b, n, want) expect_bytes_fail_at(__LINE__, b, n, want, 0)
#define expect_raw_fail(b, n, want) expect_bytes_fail_at(__LINE__, b, n, want, 1)

static void test_bad_files(void)
{
	pp_profile_t p;
	make_profile(&p, 0);
	char good[512];
	snprintf(good, sizeof good, "%s", path_in_dir("good.pathprof"));
	CHECK(pp__profile_write(&p, good, msg, sizeof msg) == 0, "write: %s", msg);
	pp__profile_free(&p);
	size_t n;
	uint8_t *b = get_file(good, &n);
	uint8_t *c = malloc(n + 64);

	expect_fail(path_in_dir("missing.pathprof"), "cannot open: No such file");
	expect_fail(dir, "is a directory, not a file");
	expect_bytes_fail(b, 0, "empty file");

	/* every prefix is truncated; the whole file reads */
	char *f = path_in_dir("cut.pathprof");
	for (size_t len = 1; len < n; len++) {
		put_file(f, b, len);
		expect_fail(f, "truncated");
	}
	put_file(f, b, n);
	pp_profile_t q;
	CHECK(pp__profile_read(&q, f, msg, sizeof msg) == 0, "full file: %s", msg);
	pp__profile_free(&q);
	unlink(f);

	/* header */
	memcpy(c, b, n);
	c[0] = 'X';
	expect_bytes_fail(c, n, "not a pathprof profile (bad magic)");
	expect_bytes_fail((const uint8_t *)"PATHPROX", 8, "bad magic");
	expect_bytes_fail((const uint8_t *)"hello world, not a profile\n", 27, "bad magic");
	memcpy(c, b, n);
	set32(c + 8, 4);
	expect_bytes_fail(c, n, "written by format 4; this pathprof reads formats 2 to 3");
	set32(c + 8, 1); /* the per-segment model of format 1 */
	expect_bytes_fail(c, n, "written by format 1; this pathprof reads formats 2 to 3");
	set32(c + 8, 0);
	expect_bytes_fail(c, n, "written by format 0; this pathprof reads formats 2 to 3");

	/* checksums: a changed byte anywhere in a section is named */
	memcpy(c, b, n);
	c[find_section(b, n, 3) + 30] ^= 0x10;
	expect_raw_fail(c, n, "corrupt section PATHS at byte");
	expect_raw_fail(c, n, "checksum");
	memcpy(c, b, n);
	c[n - 1] ^= 1; /* END's own checksum */
	expect_raw_fail(c, n, "corrupt section END");
	/* format 2 (no checksums) still reads: the same file with them cut */
	{
		size_t m = 16, pos = 16;
		while (pos < n) {
			uint64_t len = get32(b + pos + 8) | (uint64_t)get32(b + pos + 12) << 32;
			memcpy(c + m, b + pos, 16 + (size_t)len);
			m += 16 + (size_t)len;
			pos += 16 + (size_t)len + 4;
		}
		memcpy(c, b, 16);
		set32(c + 8, 2);
		char *f2 = path_in_dir("v2.pathprof");
		put_file(f2, c, m);
		pp_profile_t v2;
		CHECK(pp__profile_read(&v2, f2, msg, sizeof msg) == 0, "format 2: %s", msg);
		CHECK(v2.version == 2 && v2.npaths == 4, "format 2: version %u, %u paths", v2.version,
		      v2.npaths);
		pp__profile_free(&v2);
		unlink(f2);
	}
	memcpy(c, b, n);
	set32(c + 12, 8);
	expect_bytes_fail(c, n, "header length 8 is below 16");
	set32(c + 12, UINT32_MAX);
	expect_bytes_fail(c, n, "truncated in the header");

	/* META: section and string lengths */
	size_t meta = find_section(b, n, 1), names = find_section(b, n, 2), paths = find_section(b, n, 3);
	CHECK(meta == 16 && names > meta && paths > names, "section order");
	memcpy(c, b, n);
	set64(c + meta + 8, UINT64_MAX);
	expect_bytes_fail(c, n, "truncated in section META");
	memcpy(c, b, n);
	set64(c + meta + 8, names - meta - 16 - 1);
	expect_bytes_fail(c, n, "corrupt section META");
	memcpy(c, b, n);
	set32(c + meta + 16, 0xfffffff0u);
	expect_bytes_fail(c, n, "string length 4294967280 runs past");
	memcpy(c, b, n);
	c[meta + 16 + 4 + 1] = 0;
	expect_bytes_fail(c, n, "string contains a NUL byte");
	memcpy(c, b, n);
	/* tick rate: NaN bits; timing mode 9 */
	size_t rate = meta + 16 + 4 + 4 + 4 + strlen("./prog --flag 'x y'") + 24;
	set64(c + rate, 0x7ff8000000000001ull);
	expect_bytes_fail(c, n, "tick rate nan");
	memcpy(c, b, n);
	set32(c + rate + 8, 9);
	expect_bytes_fail(c, n, "unknown timing mode 9");

	/* NAMES and PATHS counts */
	memcpy(c, b, n);
	set32(c + names + 16, UINT32_MAX);
	expect_bytes_fail(c, n, "4294967295 names cannot fit");
	memcpy(c, b, n);
	set32(c + paths + 16, UINT32_MAX);
	expect_bytes_fail(c, n, "4294967295 paths cannot fit");
	size_t p0 = paths + 16 + 4; /* path 0: id, depth 3, names, count */
	memcpy(c, b, n);
	set32(c + p0 + 8, 5000);
	expect_bytes_fail(c, n, "5000 name indices cannot fit");
	memcpy(c, b, n);
	set32(c + p0 + 8, 0);
	expect_bytes_fail(c, n, "corrupt section PATHS");
	memcpy(c, b, n);
	set32(c + p0 + 12 + 4, 5);
	expect_bytes_fail(c, n, "path 0: name index 5 out of range (5 names)");
	memcpy(c, b, n);
	c[p0] ^= 1;
	expect_bytes_fail(c, n, "path 0: id");
	memcpy(c, b, n);
	set32(c + p0 + 12 + 4, 3); /* names stay in range, the id no longer matches */
	expect_bytes_fail(c, n, "does not match its names");

	/* NODES: id, depth, names, self, then the inclusive histogram */
	size_t nodes = find_section(b, n, 5);
	CHECK(nodes > paths, "NODES after PATHS");
	memcpy(c, b, n);
	set32(c + nodes + 16, UINT32_MAX);
	expect_bytes_fail(c, n, "4294967295 nodes cannot fit");
	size_t n0 = nodes + 16 + 4, seg0 = n0 + 12 + 4 * (size_t)get32(b + n0 + 8) + 8;
	memcpy(c, b, n);
	c[n0] ^= 1;
	expect_bytes_fail(c, n, "node 0: id");
	memcpy(c, b, n);
	set32(c + seg0 + 32, 100000);
	expect_bytes_fail(c, n, "100000 histogram bins cannot fit");
	memcpy(c, b, n);
	set32(c + seg0 + 36, PP_HIST_BUCKETS);
	expect_bytes_fail(c, n, "node 0: bucket 704 out of range");
	memcpy(c, b, n);
	set32(c + seg0 + 36 + 12, get32(b + seg0 + 36));
	expect_bytes_fail(c, n, "node 0: buckets not strictly increasing");
	memcpy(c, b, n);
	c[seg0 + 40] ^= 4;
	expect_bytes_fail(c, n, "node 0: bin counts sum to");
	memcpy(c, b, n);
	set64(c + seg0, 0);
	expect_bytes_fail(c, n, "but the count is 0");
	memcpy(c, b, n);
	set64(c + n0 + 8 + 4 * 0, 0); /* depth 0 and the first name index 0 */
	expect_bytes_fail(c, n, "corrupt");

	/* section structure */
	memcpy(c, b, n);
	memcpy(c + n, "junk", 4);
	expect_bytes_fail(c, n + 4, "4 bytes after the END section");
	memcpy(c, b, n);
	set32(c + n - 20, 77); /* END turned into an unknown required section */
	expect_bytes_fail(c, n, "section type 77 at byte");
	memcpy(c, b, n);
	set32(c + n - 16, 0); /* unknown and optional: skipped, then END is missing */
	set32(c + n - 20, 77);
	expect_bytes_fail(c, n, "truncated at byte");
	memcpy(c, b, paths);
	memcpy(c + paths, b + meta, names - meta); /* a second META */
	expect_bytes_fail(c, paths + names - meta, "second META section");
	memcpy(c, b, meta);
	memcpy(c + meta, b + paths, n - paths); /* PATHS without NAMES or META */
	expect_bytes_fail(c, meta + n - paths, "section PATHS at byte 16 comes before NAMES");
	memcpy(c, b, names);
	memcpy(c + names, b + n - 20, 20); /* META then END */
	expect_bytes_fail(c, names + 20, "section NAMES is missing");

	/* an unknown optional section is skipped, forward compatibly */
	memcpy(c, b, n - 20);
	set32(c + n - 20, 99);
	set32(c + n - 16, 0);
	set64(c + n - 12, 5);
	memcpy(c + n - 4, "extra", 5);
	memcpy(c + n + 5, b + n - 20, 20);
	reseal(c, n + 25);
	f = path_in_dir("ext.pathprof");
	put_file(f, c, n + 25);
	CHECK(pp__profile_read(&q, f, msg, sizeof msg) == 0, "optional section: %s", msg);
	pp__profile_free(&q);
	unlink(f);

	/* every single-byte corruption fails, with one line naming the file:
	 * the header is checked field by field, every section by its checksum */
	f = path_in_dir("flip.pathprof");
	static const uint8_t flips[] = { 0x01, 0x80, 0xff };
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < sizeof flips; j++) {
			memcpy(c, b, n);
			c[i] ^= flips[j];
			put_file(f, c, n);
			msg[0] = 0;
			int rc = pp__profile_read(&q, f, msg, sizeof msg);
			CHECK(rc == -1, "byte %zu ^ %02x was accepted", i, flips[j]);
			if (rc == 0)
				pp__profile_free(&q);
			else
				CHECK(strstr(msg, f) == msg && !strchr(msg, '\n'), "byte %zu ^ %02x: %s", i, flips[j],
				      msg);
		}
	}
	unlink(f);

	/* a tiny or absent error buffer is respected */
	char tiny[8];
	put_file(f, b, n - 1);
	CHECK(pp__profile_read(&q, f, tiny, sizeof tiny) == -1 && strlen(tiny) == 7, "tiny buffer");
	CHECK(pp__profile_read(&q, f, NULL, 0) == -1, "no buffer");
	unlink(f);
	free(c);
	free(b);
	unlink(good);
}

/* Canonical order: paths and nodes by id, whatever order they came in,
 * each entry whole. Ids that share their high bytes, their low bytes, or
 * differ in one byte only (the sort skips a byte all share), lists of one
 * and two, and a list already in order and one reversed. */
static void test_canonical_order(void)
{
	static const uint32_t sizes[] = { 0, 1, 2, 3, 255, 256, 257, 6700 };
	for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
		for (int kind = 0; kind < 5; kind++) {
			uint32_t n = sizes[s];
			pp_profile_t p = { 0 };
			p.paths = calloc(n ? n : 1, sizeof *p.paths);
			p.nodes = calloc(n ? n : 1, sizeof *p.nodes);
			CHECK(p.paths && p.nodes, "out of memory");
			uint64_t x = 0x9e3779b97f4a7c15ull * (kind + 1);
			for (uint32_t i = 0; i < n; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				uint64_t id = kind == 0 ? x                             /* random */
					    : kind == 1 ? 0xabcdef0000000000ull | (x >> 40) /* high bytes shared */
					    : kind == 2 ? (x & ~0xffull) | 0x5a          /* low byte shared */
					    : kind == 3 ? (uint64_t)i * 3 + 1            /* in order */
							: (uint64_t)(n - i) << 20;      /* reversed */
				/* unique: the index in the low bits where the kind leaves them free */
				if (kind <= 2)
					id = (id & ~(0xffffull << 16)) | ((uint64_t)i << 16);
				p.paths[i] = (pp_ppath_t){ .id = id, .count = id ^ 0x1234 };
				p.nodes[n - 1 - i] = (pp_ppath_t){ .id = id, .self = id + 7, .open = id >> 3 };
			}
			p.npaths = p.nnodes = n;
			CHECK(pp__profile_canonical(&p) == 0, "canonical");
			for (uint32_t i = 0; i < n; i++) {
				CHECK(i == 0 || p.paths[i - 1].id < p.paths[i].id, "paths out of order at %u (%u, kind %d)",
				      i, n, kind);
				CHECK(i == 0 || p.nodes[i - 1].id < p.nodes[i].id, "nodes out of order at %u (%u, kind %d)",
				      i, n, kind);
				CHECK_EQ_U64(p.paths[i].count, p.paths[i].id ^ 0x1234);
				CHECK_EQ_U64(p.nodes[i].self, p.nodes[i].id + 7);
				CHECK_EQ_U64(p.nodes[i].open, p.nodes[i].id >> 3);
				CHECK_EQ_U64(p.nodes[i].id, p.paths[i].id);
			}
			free(p.paths);
			free(p.nodes);
		}
	}
}

/* The writer's file and the exit dump's claim sit where the program's
 * lowest-free opens do not reach (fd_high.c): a number near the top of the
 * table, close-on-exec, the old one free again. */
static void test_fd_high(void)
{
	struct rlimit r;
	CHECK(getrlimit(RLIMIT_NOFILE, &r) == 0, "getrlimit");
	rlim_t top = r.rlim_cur < 1024 ? r.rlim_cur : 1024;
	int fd = open("/dev/null", O_RDONLY);
	CHECK(fd >= 0, "open /dev/null");
	int high = pp__fd_high(fd);
	if (top <= 64) {
		CHECK(high == fd, "a small table: the descriptor stays where it is");
		close(fd);
		return;
	}
	CHECK(high >= (int)top - 32 && high < (int)top, "moved to %d, not in [%d, %d)", high, (int)top - 32,
	      (int)top);
	CHECK(fcntl(fd, F_GETFD) == -1 && errno == EBADF, "the old number %d is closed", fd);
	CHECK(fcntl(high, F_GETFD) == FD_CLOEXEC, "close-on-exec");
	int next = open("/dev/null", O_RDONLY);
	CHECK(next == fd, "the program's next open got %d, not the freed %d", next, fd);
	CHECK(pp__fd_high(high) == high, "a high descriptor stays");
	close(next);
	close(high);
}

int main(void)
{
	/* thousands of small files are written: prefer memory (/dev/shm) to a
	 * disk shared with a parallel build */
	const char *t = getenv("TMPDIR");
	if (!t || !*t)
		t = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof dir, "%s/pp-profile-test-XXXXXX", t);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_ticks_ns();
	test_fd_high();
	test_canonical_order();
	test_round_trip();
	test_write_errors();
	test_bad_files();
	rmdir(dir);
	return check_done("test_profile");
}
