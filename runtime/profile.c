/* Profile files: the writer, the validating reader and the stable path id.
 * The file is the only thing the CLI trusts a run by, and it may come from
 * another machine, another version or a crashed run, so the reader treats every
 * byte as hostile. Field-by-field layout: docs/file-format.md. */
#include "profile.h"

#include <pathprof/gate.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SEC_META = 1, SEC_NAMES = 2, SEC_PATHS = 3, SEC_END = 4 };
#define SEC_REQUIRED 1u /* flag: a reader that does not know the type must refuse */
#define HEADER_LEN 16u  /* magic, version, header length */
#define SECHDR_LEN 16u  /* type, flags, payload length */
#define MAX_DEPTH 4096u
/* Smallest encodings, used to bound counts by the bytes left before allocating. */
#define NAME_MIN 12u /* two empty strings and a line */
#define PATH_MIN 21u /* id, count, depth, timed flag */
#define SEG_MIN 36u  /* count, sum, min, max, nbins */
#define BIN_LEN 12u  /* bucket, count */

/* ---- stable path id ---- */

/* FNV-1a 64 over each name followed by a 0 byte (no C string contains one, so
 * the byte stream names the sequence unambiguously), then the murmur3 64-bit
 * finaliser: FNV alone leaves the high bits weak for short inputs, and ids are
 * also used as hash-table keys and printed truncated. */
uint64_t pp__path_id(const char *const *names, uint32_t depth)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (uint32_t i = 0; i < depth; i++) {
		const unsigned char *s = (const unsigned char *)(names[i] ? names[i] : "");
		for (; *s; s++)
			h = (h ^ *s) * 0x100000001b3ull;
		h *= 0x100000001b3ull; /* the separator byte 0 */
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* ids of the stored names; scratch holds MAX_DEPTH pointers */
static uint64_t stored_id(const pp_profile_t *p, const pp_ppath_t *pp, const char **scratch)
{
	for (uint32_t k = 0; k < pp->depth; k++)
		scratch[k] = p->names[pp->names[k]].name;
	return pp__path_id(scratch, pp->depth);
}

double pp__ticks_ns(const pp_profile_t *p, uint64_t ticks)
{
	if (p && isfinite(p->ticks_per_ns) && p->ticks_per_ns > 0)
		return (double)ticks / p->ticks_per_ns;
	return (double)ticks;
}

void pp__profile_free(pp_profile_t *p)
{
	if (!p)
		return;
	free(p->frontend);
	free(p->command);
	for (uint32_t i = 0; p->names && i < p->nnames; i++) {
		free(p->names[i].name);
		free(p->names[i].file);
	}
	free(p->names);
	for (uint32_t i = 0; p->paths && i < p->npaths; i++) {
		pp_ppath_t *pp = &p->paths[i];
		free(pp->names);
		for (uint32_t k = 0; pp->segs && k < pp->depth; k++)
			pp__seg_free(&pp->segs[k]);
		free(pp->segs);
	}
	free(p->paths);
	memset(p, 0, sizeof *p);
}

/* ---- checks shared by writer and reader ----
 * The writer refuses what the reader would reject, so a profile that was
 * written can always be read back. */

static int check_seg(const pp_seg_t *s, char *msg, size_t len)
{
	if (s->nbins > PP_HIST_BUCKETS) {
		snprintf(msg, len, "%u histogram bins, at most %u", s->nbins, PP_HIST_BUCKETS);
		return -1;
	}
	uint64_t total = 0;
	for (uint32_t j = 0; j < s->nbins; j++) {
		const pp_hbin_t *b = &s->bins[j];
		if (b->bucket >= PP_HIST_BUCKETS) {
			snprintf(msg, len, "bucket %u out of range (%u buckets)", b->bucket, PP_HIST_BUCKETS);
			return -1;
		}
		if (j && b->bucket <= s->bins[j - 1].bucket) {
			snprintf(msg, len, "buckets not strictly increasing (%u after %u)", b->bucket,
				 s->bins[j - 1].bucket);
			return -1;
		}
		if (b->count == 0 || b->count > UINT64_MAX - total) {
			snprintf(msg, len, "bucket %u has count %llu", b->bucket,
				 (unsigned long long)b->count);
			return -1;
		}
		total += b->count;
	}
	if (total != s->count) {
		snprintf(msg, len, "bin counts sum to %llu but the count is %llu",
			 (unsigned long long)total, (unsigned long long)s->count);
		return -1;
	}
	if (s->count && s->min > s->max) {
		snprintf(msg, len, "min %llu above max %llu", (unsigned long long)s->min,
			 (unsigned long long)s->max);
		return -1;
	}
	return 0;
}

/* Semantic checks of a whole profile; check_ids is off for the writer, which
 * writes the ids it derives itself. */
static int check_profile(const pp_profile_t *p, int check_ids, const char **scratch, char *msg,
			 size_t len)
{
	if (p->timing > PP_TIMING_SAMPLE) {
		snprintf(msg, len, "unknown timing mode %u", p->timing);
		return -1;
	}
	if (!isfinite(p->ticks_per_ns) || p->ticks_per_ns < 0) {
		snprintf(msg, len, "tick rate %g is not a finite non-negative number", p->ticks_per_ns);
		return -1;
	}
	if ((p->nnames && !p->names) || (p->npaths && !p->paths)) {
		snprintf(msg, len, "%s array missing", p->npaths && !p->paths ? "path" : "name");
		return -1;
	}
	for (uint32_t i = 0; i < p->npaths; i++) {
		const pp_ppath_t *pp = &p->paths[i];
		if (pp->depth == 0 || pp->depth > MAX_DEPTH || !pp->names) {
			snprintf(msg, len, "path %u: depth %u outside 1..%u", i, pp->depth, MAX_DEPTH);
			return -1;
		}
		for (uint32_t k = 0; k < pp->depth; k++) {
			if (pp->names[k] >= p->nnames) {
				snprintf(msg, len, "path %u: name index %u out of range (%u names)", i,
					 pp->names[k], p->nnames);
				return -1;
			}
		}
		if (check_ids) {
			uint64_t id = stored_id(p, pp, scratch);
			if (id != pp->id) {
				snprintf(msg, len, "path %u: id %016llx does not match its names (%016llx)", i,
					 (unsigned long long)pp->id, (unsigned long long)id);
				return -1;
			}
		}
		for (uint32_t k = 0; pp->segs && k < pp->depth; k++) {
			char why[160];
			if (check_seg(&pp->segs[k], why, sizeof why)) {
				snprintf(msg, len, "path %u segment %u: %s", i, k, why);
				return -1;
			}
		}
	}
	return 0;
}

/* ---- writer ---- */

/* Each section body is emitted twice: once into a counter (f == NULL) to learn
 * its length, then for real. That keeps the length prefix in front without
 * buffering the body or seeking, so a pipe works as a target too. */
struct out {
	FILE *f;
	uint64_t n;
	int err;
};

static void put(struct out *o, const void *b, size_t n)
{
	o->n += n;
	if (o->f && !o->err && n && fwrite(b, 1, n, o->f) != n)
		o->err = errno ? errno : EIO;
}

static void put_u8(struct out *o, uint8_t v)
{
	put(o, &v, 1);
}

static void put_u32(struct out *o, uint32_t v)
{
	uint8_t b[4];
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(o, b, 4);
}

static void put_u64(struct out *o, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(o, b, 8);
}

static void put_str(struct out *o, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n > UINT32_MAX) {
		o->err = EOVERFLOW;
		return;
	}
	put_u32(o, (uint32_t)n);
	put(o, s, n);
}

struct wctx {
	const pp_profile_t *p;
	const char **scratch;
};

static void body_meta(struct out *o, const struct wctx *w)
{
	const pp_profile_t *p = w->p;
	uint64_t bits;
	memcpy(&bits, &p->ticks_per_ns, sizeof bits);
	put_str(o, p->frontend);
	put_str(o, p->command);
	put_u64(o, p->pid);
	put_u64(o, p->start_ns);
	put_u64(o, p->end_ns);
	put_u64(o, bits);
	put_u32(o, p->timing);
	put_u32(o, p->sample_n);
	put_u64(o, p->events);
	put_u64(o, p->records);
	put_u64(o, p->drops_table);
	put_u64(o, p->drops_depth);
	put_u64(o, p->unmatched);
	put_u64(o, p->threads);
}

static void body_names(struct out *o, const struct wctx *w)
{
	const pp_profile_t *p = w->p;
	put_u32(o, p->nnames);
	for (uint32_t i = 0; i < p->nnames; i++) {
		put_str(o, p->names[i].name);
		put_str(o, p->names[i].file);
		put_u32(o, p->names[i].line);
	}
}

static void body_paths(struct out *o, const struct wctx *w)
{
	const pp_profile_t *p = w->p;
	put_u32(o, p->npaths);
	for (uint32_t i = 0; i < p->npaths && !o->err; i++) {
		const pp_ppath_t *pp = &p->paths[i];
		put_u64(o, stored_id(p, pp, w->scratch));
		put_u64(o, pp->count);
		put_u32(o, pp->depth);
		for (uint32_t k = 0; k < pp->depth; k++)
			put_u32(o, pp->names[k]);
		put_u8(o, pp->segs != NULL);
		for (uint32_t k = 0; pp->segs && k < pp->depth; k++) {
			const pp_seg_t *s = &pp->segs[k];
			put_u64(o, s->count);
			put_u64(o, s->sum);
			put_u64(o, s->min);
			put_u64(o, s->max);
			put_u32(o, s->nbins);
			for (uint32_t j = 0; j < s->nbins; j++) {
				put_u32(o, s->bins[j].bucket);
				put_u64(o, s->bins[j].count);
			}
		}
	}
}

static void section(struct out *o, uint32_t type, uint32_t flags,
		    void (*body)(struct out *, const struct wctx *), const struct wctx *w)
{
	struct out size = { 0 };
	if (body)
		body(&size, w);
	if (size.err) {
		o->err = size.err;
		return;
	}
	put_u32(o, type);
	put_u32(o, flags);
	put_u64(o, size.n);
	if (body)
		body(o, w);
}

static void write_all(struct out *o, const struct wctx *w)
{
	put(o, PP_PROFILE_MAGIC, 8);
	put_u32(o, PP_PROFILE_VERSION);
	put_u32(o, HEADER_LEN);
	section(o, SEC_META, SEC_REQUIRED, body_meta, w);
	section(o, SEC_NAMES, SEC_REQUIRED, body_names, w);
	section(o, SEC_PATHS, SEC_REQUIRED, body_paths, w);
	section(o, SEC_END, SEC_REQUIRED, NULL, w);
}

static int fail_io(char *err, size_t errlen, const char *path, const char *what, int e)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s: %s", path, what, strerror(e));
	return -1;
}

int pp__profile_write(const pp_profile_t *p, const char *path, char *err, size_t errlen)
{
	char msg[256];
	const char **scratch = malloc(MAX_DEPTH * sizeof *scratch);
	if (!scratch)
		return fail_io(err, errlen, path, "cannot write", ENOMEM);
	if (check_profile(p, 0, scratch, msg, sizeof msg)) {
		free(scratch);
		if (err && errlen)
			snprintf(err, errlen, "%s: refusing to write an invalid profile: %s", path, msg);
		return -1;
	}

	/* A regular file is replaced atomically (temporary + rename) so a crash
	 * never leaves half a profile under the final name; anything else (a
	 * pipe, /dev/stdout) must be written in place, never renamed over. */
	struct stat st;
	int direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
	size_t tlen = strlen(path) + 48;
	char *tmp = malloc(tlen);
	FILE *f = NULL;
	int e = 0;
	if (!tmp) {
		e = ENOMEM;
	} else if (direct) {
		f = fopen(path, "wb");
		e = errno;
	} else {
		for (unsigned n = 0; n < 100; n++) {
			snprintf(tmp, tlen, "%s.tmp%ld.%u", path, (long)getpid(), n);
			int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
			if (fd < 0) {
				e = errno;
				if (e == EEXIST)
					continue;
				break;
			}
			f = fdopen(fd, "wb");
			if (!f) {
				e = errno;
				close(fd);
				unlink(tmp);
			}
			break;
		}
	}
	if (!f) {
		free(tmp);
		free(scratch);
		return fail_io(err, errlen, path, direct ? "cannot open" : "cannot create temporary file", e);
	}

	struct wctx w = { p, scratch };
	struct out o = { .f = f };
	write_all(&o, &w);
	if (!o.err && fflush(f))
		o.err = errno;
	/* fsync so the rename cannot reach the disk before the data does */
	if (!o.err && !direct && fsync(fileno(f)) && errno != EINVAL)
		o.err = errno;
	if (fclose(f) && !o.err)
		o.err = errno ? errno : EIO;
	if (!o.err && !direct && rename(tmp, path))
		o.err = errno;
	if (o.err && !direct)
		unlink(tmp);
	free(tmp);
	free(scratch);
	if (o.err)
		return fail_io(err, errlen, path, "cannot write", o.err);
	return 0;
}

/* ---- reader ---- */

struct rd {
	const char *path;
	char *err;
	size_t errlen;
	int failed;
	const uint8_t *buf;
	size_t size;     /* file size */
	size_t pos, end; /* cursor and end of the current section */
	const char *sec; /* current section name, for messages */
	size_t sec_at;   /* offset of the current section header */
};

__attribute__((format(printf, 2, 3))) static int fail(struct rd *r, const char *fmt, ...)
{
	if (r->failed)
		return -1;
	r->failed = 1;
	if (!r->err || !r->errlen)
		return -1;
	int n = snprintf(r->err, r->errlen, "%s: ", r->path);
	if (n < 0 || (size_t)n >= r->errlen)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Section lengths were checked against the file size when the section was
 * entered, so running past the end here is corruption inside the section,
 * not truncation. */
static const uint8_t *take(struct rd *r, size_t n)
{
	if (r->failed)
		return NULL;
	if (r->end - r->pos < n) {
		fail(r, "corrupt section %s at byte %zu: a %zu-byte field runs past the section end at byte %zu",
		     r->sec, r->pos, n, r->end);
		return NULL;
	}
	const uint8_t *b = r->buf + r->pos;
	r->pos += n;
	return b;
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t le64(const uint8_t *b)
{
	return (uint64_t)le32(b) | (uint64_t)le32(b + 4) << 32;
}

static uint8_t get_u8(struct rd *r)
{
	const uint8_t *b = take(r, 1);
	return b ? b[0] : 0;
}

static uint32_t get_u32(struct rd *r)
{
	const uint8_t *b = take(r, 4);
	return b ? le32(b) : 0;
}

static uint64_t get_u64(struct rd *r)
{
	const uint8_t *b = take(r, 8);
	return b ? le64(b) : 0;
}

static size_t left(const struct rd *r)
{
	return r->end - r->pos;
}

/* An allocation sized from the file is only made after the bytes it stands
 * for were shown to exist, so memory stays proportional to the file size. */
static int fits(struct rd *r, uint64_t n, uint64_t unit, const char *what)
{
	if (r->failed)
		return 0;
	if (n > left(r) / unit) {
		fail(r, "corrupt section %s at byte %zu: %llu %s cannot fit in the %zu bytes left", r->sec,
		     r->pos, (unsigned long long)n, what, left(r));
		return 0;
	}
	return 1;
}

static void *alloc(struct rd *r, size_t n, size_t size)
{
	if (r->failed || n == 0)
		return NULL;
	void *q = calloc(n, size);
	if (!q)
		fail(r, "out of memory");
	return q;
}

static char *get_str(struct rd *r)
{
	size_t at = r->pos;
	uint32_t n = get_u32(r);
	if (r->failed)
		return NULL;
	if (n > left(r)) {
		fail(r, "corrupt section %s at byte %zu: string length %u runs past the section end at byte %zu",
		     r->sec, at, n, r->end);
		return NULL;
	}
	const uint8_t *b = r->buf + r->pos;
	if (memchr(b, 0, n)) {
		fail(r, "corrupt section %s at byte %zu: string contains a NUL byte", r->sec, at);
		return NULL;
	}
	char *s = malloc((size_t)n + 1);
	if (!s) {
		fail(r, "out of memory");
		return NULL;
	}
	memcpy(s, b, n);
	s[n] = 0;
	r->pos += n;
	return s;
}

static void read_meta(struct rd *r, pp_profile_t *p)
{
	p->frontend = get_str(r);
	p->command = get_str(r);
	p->pid = get_u64(r);
	p->start_ns = get_u64(r);
	p->end_ns = get_u64(r);
	uint64_t bits = get_u64(r);
	memcpy(&p->ticks_per_ns, &bits, sizeof bits);
	p->timing = get_u32(r);
	p->sample_n = get_u32(r);
	p->events = get_u64(r);
	p->records = get_u64(r);
	p->drops_table = get_u64(r);
	p->drops_depth = get_u64(r);
	p->unmatched = get_u64(r);
	p->threads = get_u64(r);
}

static void read_names(struct rd *r, pp_profile_t *p)
{
	uint32_t n = get_u32(r);
	if (!fits(r, n, NAME_MIN, "names"))
		return;
	p->names = alloc(r, n, sizeof *p->names);
	if (r->failed)
		return;
	p->nnames = n;
	for (uint32_t i = 0; i < n && !r->failed; i++) {
		p->names[i].name = get_str(r);
		p->names[i].file = get_str(r);
		p->names[i].line = get_u32(r);
	}
}

static void read_seg(struct rd *r, pp_seg_t *s)
{
	s->count = get_u64(r);
	s->sum = get_u64(r);
	s->min = get_u64(r);
	s->max = get_u64(r);
	uint32_t n = get_u32(r);
	if (!fits(r, n, BIN_LEN, "histogram bins"))
		return;
	s->bins = alloc(r, n, sizeof *s->bins);
	if (r->failed)
		return;
	s->nbins = n;
	for (uint32_t j = 0; j < n && !r->failed; j++) {
		s->bins[j].bucket = get_u32(r);
		s->bins[j].count = get_u64(r);
	}
}

static void read_paths(struct rd *r, pp_profile_t *p)
{
	uint32_t n = get_u32(r);
	if (!fits(r, n, PATH_MIN, "paths"))
		return;
	p->paths = alloc(r, n, sizeof *p->paths);
	if (r->failed)
		return;
	p->npaths = n;
	for (uint32_t i = 0; i < n && !r->failed; i++) {
		pp_ppath_t *pp = &p->paths[i];
		pp->id = get_u64(r);
		pp->count = get_u64(r);
		uint32_t depth = get_u32(r);
		if (!fits(r, depth, 4, "name indices"))
			return;
		pp->names = alloc(r, depth, sizeof *pp->names);
		if (r->failed)
			return;
		pp->depth = depth;
		for (uint32_t k = 0; k < depth; k++)
			pp->names[k] = get_u32(r);
		size_t at = r->pos;
		uint8_t timed = get_u8(r);
		if (r->failed)
			return;
		if (timed > 1) {
			fail(r, "corrupt section %s at byte %zu: path %u has timed flag %u (0 or 1)", r->sec, at, i,
			     timed);
			return;
		}
		if (!timed || !fits(r, depth, SEG_MIN, "segments"))
			continue;
		pp->segs = alloc(r, depth, sizeof *pp->segs);
		for (uint32_t k = 0; k < depth && !r->failed; k++)
			read_seg(r, &pp->segs[k]);
	}
}

static int read_whole(const char *path, uint8_t **out, size_t *size, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail_io(err, errlen, path, "cannot open", errno);
	struct stat st;
	size_t cap = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
	size_t n = 0;
	uint8_t *buf = malloc(cap);
	int e = buf ? 0 : ENOMEM;
	while (!e) {
		if (n == cap) {
			uint8_t *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
			if (!nb) {
				e = ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			if (ferror(f))
				e = errno ? errno : EIO;
			break;
		}
	}
	fclose(f);
	if (e) {
		free(buf);
		return fail_io(err, errlen, path, "cannot read", e);
	}
	*out = buf;
	*size = n;
	return 0;
}

static const char *sec_name(uint32_t type, char *tmp, size_t len)
{
	switch (type) {
	case SEC_META: return "META";
	case SEC_NAMES: return "NAMES";
	case SEC_PATHS: return "PATHS";
	case SEC_END: return "END";
	}
	snprintf(tmp, len, "type %u", type);
	return tmp;
}

static int parse(struct rd *r, pp_profile_t *p)
{
	const uint8_t *b = r->buf;
	size_t size = r->size;
	if (size == 0)
		return fail(r, "empty file");
	if (memcmp(b, PP_PROFILE_MAGIC, size < 8 ? size : 8))
		return fail(r, "not a pathprof profile (bad magic)");
	if (size < HEADER_LEN)
		return fail(r, "truncated in the header at byte %zu", size);
	uint32_t version = le32(b + 8), hlen = le32(b + 12);
	if (version > PP_PROFILE_VERSION)
		return fail(r, "written by a newer pathprof (version %u); this one reads up to version %u",
			    version, PP_PROFILE_VERSION);
	if (version == 0)
		return fail(r, "unsupported format version 0");
	if (hlen < HEADER_LEN)
		return fail(r, "corrupt header: header length %u is below %u", hlen, HEADER_LEN);
	if (hlen > size)
		return fail(r, "truncated in the header at byte %zu (header length %u)", size, hlen);
	p->version = version;

	int seen_meta = 0, seen_names = 0, seen_paths = 0;
	size_t pos = hlen;
	char tmp[24];
	for (;;) {
		if (pos == size)
			return fail(r, "truncated at byte %zu: the END section is missing", size);
		if (size - pos < SECHDR_LEN)
			return fail(r, "truncated in a section header at byte %zu", size);
		uint32_t type = le32(b + pos), flags = le32(b + pos + 4);
		uint64_t len = le64(b + pos + 8);
		const char *name = sec_name(type, tmp, sizeof tmp);
		size_t start = pos + SECHDR_LEN;
		if (len > size - start)
			return fail(r, "truncated in section %s at byte %zu (the section at byte %zu declares %llu payload bytes)",
				    name, size, pos, (unsigned long long)len);
		r->sec = name;
		r->sec_at = pos;
		r->pos = start;
		r->end = start + (size_t)len;
		int *seen = type == SEC_META ? &seen_meta : type == SEC_NAMES ? &seen_names
			  : type == SEC_PATHS ? &seen_paths : NULL;
		if (seen && *seen)
			return fail(r, "corrupt file: second %s section at byte %zu", name, pos);
		if (seen)
			*seen = 1;
		switch (type) {
		case SEC_META:
			read_meta(r, p);
			break;
		case SEC_NAMES:
			read_names(r, p);
			break;
		case SEC_PATHS:
			if (!seen_names)
				return fail(r, "corrupt file: section PATHS at byte %zu comes before NAMES", pos);
			read_paths(r, p);
			break;
		case SEC_END:
			if (len)
				return fail(r, "corrupt section END at byte %zu: it has %llu payload bytes", pos,
					    (unsigned long long)len);
			if (r->end != size)
				return fail(r, "corrupt file: %zu bytes after the END section", size - r->end);
			if (!seen_meta || !seen_names || !seen_paths)
				return fail(r, "corrupt file: section %s is missing",
					    !seen_meta ? "META" : !seen_names ? "NAMES" : "PATHS");
			return 0;
		default:
			if (flags & SEC_REQUIRED)
				return fail(r, "section %s at byte %zu is required but unknown to this reader", name,
					    pos);
			r->pos = r->end; /* optional and unknown: skip */
		}
		if (r->failed)
			return -1;
		if (r->pos != r->end)
			return fail(r, "corrupt section %s at byte %zu: %zu bytes left after its last field", name, pos,
				    r->end - r->pos);
		pos = r->end;
	}
}

int pp__profile_read(pp_profile_t *p, const char *path, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	uint8_t *buf;
	size_t size;
	if (read_whole(path, &buf, &size, err, errlen))
		return -1;
	struct rd r = { .path = path, .err = err, .errlen = errlen, .buf = buf, .size = size };
	parse(&r, p);
	free(buf);
	if (!r.failed) {
		char msg[256];
		const char **scratch = malloc(MAX_DEPTH * sizeof *scratch);
		if (!scratch)
			fail(&r, "out of memory");
		else if (check_profile(p, 1, scratch, msg, sizeof msg))
			fail(&r, "corrupt profile: %s", msg);
		free(scratch);
	}
	if (r.failed) {
		pp__profile_free(p);
		return -1;
	}
	return 0;
}
