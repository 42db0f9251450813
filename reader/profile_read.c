/* The validating profile reader. It treats every byte as hostile: each size
 * and offset is checked against the bytes that exist before it is used, and
 * every failure becomes one line naming the section and byte. */
#include "input.h"
#include "profile_impl.h"
#include "crc32.h"
#include "file_kind.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Smallest encodings, used to bound counts by the bytes left before allocating. */
#define NAME_MIN 12u /* two empty strings and a line */
#define PATH_MIN 20u /* id, depth, count */
#define NODE_MIN 56u /* id, depth, self, count, sum, min, max, nbins */
#define BIN_LEN 12u  /* bucket, count */
#define SEG_MIN 36u  /* count, sum, min, max, nbins */

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
	p->drops_time = get_u64(r);
	p->drops_signal = get_u64(r);
	p->unprofiled_frames = get_u64(r);
	p->unprofiled_threads = get_u64(r);
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

static void read_throttle(struct rd *r, pp_profile_t *p)
{
	uint64_t b = get_u64(r);
	memcpy(&p->budget, &b, sizeof b);
	uint32_t n = get_u32(r);
	if (!fits(r, n, 28, "throttled functions"))
		return;
	p->throttled = alloc(r, n, sizeof *p->throttled);
	if (r->failed)
		return;
	p->nthrottled = n;
	for (uint32_t i = 0; i < n && !r->failed; i++) {
		pp_throttled_t *e = &p->throttled[i];
		e->name = get_u32(r);
		e->calls = get_u64(r);
		e->incl = get_u64(r);
		e->at_ns = get_u64(r);
	}
	/* the patched sites came later: a file may end the section before */
	if (!r->failed && left(r) >= 8) {
		p->patched_sites = get_u32(r);
		p->refused_sites = get_u32(r);
	}
}

/* Section OPEN: (node index, ticks), indices strictly increasing. */
static void read_open(struct rd *r, pp_profile_t *p, size_t pos)
{
	uint32_t n = get_u32(r);
	if (!fits(r, n, 12, "cut-call times"))
		return;
	int64_t last = -1;
	for (uint32_t i = 0; i < n && !r->failed; i++) {
		uint32_t at = get_u32(r);
		uint64_t v = get_u64(r);
		if (r->failed)
			return;
		if (at >= p->nnodes || (int64_t)at <= last || !v) {
			fail(r, "corrupt section OPEN at byte %zu: entry %u names node %u of %u", pos, i, at,
			     p->nnodes);
			return;
		}
		last = at;
		p->nodes[at].open = v;
	}
	/* the window count came later: a file may end the section before */
	if (!r->failed && left(r) >= 8)
		p->windows = get_u64(r);
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

/* id, depth and name indices: what paths and nodes begin with, and the
 * sides of off-CPU entries, which may be empty (empty_ok: depth 0). */
static void read_names_of(struct rd *r, pp_ppath_t *pp, int empty_ok)
{
	pp->id = get_u64(r);
	uint32_t depth = get_u32(r);
	if ((empty_ok && !depth) || !fits(r, depth, 4, "name indices"))
		return;
	pp->names = alloc(r, depth, sizeof *pp->names);
	if (r->failed)
		return;
	pp->depth = depth;
	for (uint32_t k = 0; k < depth; k++)
		pp->names[k] = get_u32(r);
}

static void read_offcpu(struct rd *r, pp_profile_t *p)
{
	uint32_t n = get_u32(r);
	/* each entry: two sides (12 bytes), reason and kind, a segment, a string */
	if (!fits(r, n, 24 + 8 + SEG_MIN + 4, "off-CPU entries"))
		return;
	p->offcpu = alloc(r, n, sizeof *p->offcpu);
	if (r->failed)
		return;
	p->noffcpu = n;
	for (uint32_t i = 0; i < n && !r->failed; i++) {
		pp_offcpu_t *e = &p->offcpu[i];
		read_names_of(r, &e->blocked, 1);
		read_names_of(r, &e->waker, 1);
		e->reason = get_u32(r);
		e->waker_kind = get_u32(r);
		read_seg(r, &e->time);
		e->kstack = get_str(r);
	}
}

/* Paths (nodes = 0) or nodes into *list, *n. */
static void read_list(struct rd *r, pp_ppath_t **list, uint32_t *count, int nodes)
{
	uint32_t n = get_u32(r);
	if (!fits(r, n, nodes ? NODE_MIN : PATH_MIN, nodes ? "nodes" : "paths"))
		return;
	*list = alloc(r, n, sizeof **list);
	if (r->failed)
		return;
	*count = n;
	for (uint32_t i = 0; i < n && !r->failed; i++) {
		pp_ppath_t *pp = &(*list)[i];
		read_names_of(r, pp, 0);
		if (!nodes) {
			pp->count = get_u64(r);
			continue;
		}
		pp->self = get_u64(r);
		read_seg(r, &pp->incl);
	}
}

static const char *sec_name(uint32_t type, char *tmp, size_t len)
{
	switch (type) {
	case SEC_META: return "META";
	case SEC_NAMES: return "NAMES";
	case SEC_PATHS: return "PATHS";
	case SEC_END: return "END";
	case SEC_NODES: return "NODES";
	case SEC_CRASH: return "CRASH";
	case SEC_RECOVERED: return "RECOVERED";
	case SEC_PROCESS: return "PROCESS";
	case SEC_OFFCPU: return "OFFCPU";
	case SEC_GATECOST: return "GATECOST";
	case SEC_CPU: return "CPU";
	case SEC_SELECT: return "SELECT";
	case SEC_THROTTLE: return "THROTTLE";
	case SEC_OPEN: return "OPEN";
	case SEC_OWNWORK: return "OWNWORK";
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
	if (memcmp(b, PP_PROFILE_MAGIC, size < 8 ? size : 8)) {
		const char *hint = pp__file_kind_hint(pp__head_kind(b, size), PP__FILE_PROFILE);
		return fail(r, "%s", hint ? hint : "not a pathprof profile (bad magic)");
	}
	if (size < HEADER_LEN)
		return fail(r, "truncated in the header at byte %zu", size);
	uint32_t version = le32(b + 8), hlen = le32(b + 12);
	if (version < PP_PROFILE_VERSION_OLDEST || version > PP_PROFILE_VERSION)
		return fail(r, "written by format %u; this pathprof reads formats %u to %u", version,
			    PP_PROFILE_VERSION_OLDEST, PP_PROFILE_VERSION);
	size_t crc_len = version >= 3 ? 4 : 0; /* after each section */
	if (hlen < HEADER_LEN)
		return fail(r, "corrupt header: header length %u is below %u", hlen, HEADER_LEN);
	if (hlen > size)
		return fail(r, "truncated in the header at byte %zu (header length %u)", size, hlen);
	p->version = version;

	int seen_meta = 0, seen_names = 0, seen_paths = 0, seen_nodes = 0, seen_crash = 0,
	    seen_recovered = 0, seen_process = 0, seen_offcpu = 0, seen_gatecost = 0, seen_cpu = 0, seen_select = 0,
	    seen_throttle = 0, seen_open = 0, seen_ownwork = 0;
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
		if (crc_len) {
			if (size - r->end < crc_len)
				return fail(r, "truncated in the checksum of section %s at byte %zu", name,
					    r->end);
			uint32_t want = le32(b + r->end), got = pp__crc32(b + pos, r->end - pos, 0);
			if (want != got)
				return fail(r, "corrupt section %s at byte %zu: checksum %08x, its bytes give "
					    "%08x", name, pos, want, got);
		}
		int *seen = type == SEC_META ? &seen_meta : type == SEC_NAMES ? &seen_names
			  : type == SEC_PATHS ? &seen_paths : type == SEC_NODES ? &seen_nodes
			  : type == SEC_CRASH ? &seen_crash
			  : type == SEC_RECOVERED ? &seen_recovered
			  : type == SEC_PROCESS ? &seen_process
			  : type == SEC_OFFCPU ? &seen_offcpu
			  : type == SEC_GATECOST ? &seen_gatecost
			  : type == SEC_CPU ? &seen_cpu
			  : type == SEC_SELECT ? &seen_select
			  : type == SEC_THROTTLE ? &seen_throttle : type == SEC_OPEN ? &seen_open
			  : type == SEC_OWNWORK ? &seen_ownwork : NULL;
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
			read_list(r, &p->paths, &p->npaths, 0);
			break;
		case SEC_NODES:
			if (!seen_names)
				return fail(r, "corrupt file: section NODES at byte %zu comes before NAMES", pos);
			read_list(r, &p->nodes, &p->nnodes, 1);
			break;
		case SEC_CRASH:
			p->crash_signal = get_u32(r);
			p->crash_tid = get_u64(r);
			if (!r->failed && (p->crash_signal == 0 || p->crash_signal > 64))
				return fail(r, "corrupt section CRASH at byte %zu: signal %u", pos,
					    p->crash_signal);
			break;
		case SEC_RECOVERED:
			p->recovered = 1;
			p->recovered_signal = get_u32(r);
			p->recovered_raw_keys = get_u32(r);
			if (!r->failed && p->recovered_signal > 64)
				return fail(r, "corrupt section RECOVERED at byte %zu: signal %u", pos,
					    p->recovered_signal);
			break;
		case SEC_OFFCPU:
			if (!seen_names)
				return fail(r, "corrupt file: section OFFCPU at byte %zu comes before NAMES", pos);
			read_offcpu(r, p);
			break;
		case SEC_OPEN:
			if (!seen_nodes)
				return fail(r, "corrupt file: section OPEN at byte %zu comes before NODES", pos);
			read_open(r, p, pos);
			break;
		case SEC_THROTTLE:
			if (!seen_names)
				return fail(r, "corrupt file: section THROTTLE at byte %zu comes before NAMES", pos);
			read_throttle(r, p);
			break;
		case SEC_GATECOST: {
			uint64_t in = get_u64(r), out = get_u64(r);
			memcpy(&p->gate_in, &in, sizeof in);
			memcpy(&p->gate_out, &out, sizeof out);
			if (!r->failed && !(isfinite(p->gate_in) && p->gate_in >= 0 && p->gate_in < 1e9 &&
					    isfinite(p->gate_out) && p->gate_out >= 0 && p->gate_out < 1e9))
				return fail(r, "corrupt section GATECOST at byte %zu: gate cost %g/%g ticks",
					    pos, p->gate_in, p->gate_out);
			break;
		}
		case SEC_OWNWORK:
			p->own_ticks = get_u64(r);
			p->own_n = get_u64(r);
			if (!r->failed && !p->own_n)
				return fail(r, "corrupt section OWNWORK at byte %zu: no work counted", pos);
			break;
		case SEC_SELECT:
			p->selection = get_str(r);
			p->roots = get_str(r);
			p->outside_roots = get_u64(r);
			if (p->roots && !*p->roots) {
				free(p->roots);
				p->roots = NULL;
			}
			break;
		case SEC_CPU:
			p->has_cpu = 1;
			p->cpu_ns = get_u64(r);
			p->nvcsw = get_u64(r);
			p->nivcsw = get_u64(r);
			break;
		case SEC_PROCESS:
			p->service = get_str(r);
			p->host = get_str(r);
			p->build_id = get_str(r);
			break;
		case SEC_END:
			if (len)
				return fail(r, "corrupt section END at byte %zu: it has %llu payload bytes", pos,
					    (unsigned long long)len);
			if (r->end + crc_len != size)
				return fail(r, "corrupt file: %zu bytes after the END section",
					    size - r->end - crc_len);
			if (!seen_meta || !seen_names || !seen_paths || !seen_nodes)
				return fail(r, "corrupt file: section %s is missing",
					    !seen_meta ? "META" : !seen_names ? "NAMES" : !seen_paths ? "PATHS" : "NODES");
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
		pos = r->end + crc_len;
	}
}

int pp__profile_read(pp_profile_t *p, const char *path, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	pp__input_t in;
	if (pp__input_open(&in, path, PP_PROFILE_MAGIC, 8, err, errlen))
		return -1;
	struct rd r = { .path = path, .err = err, .errlen = errlen, .buf = in.data, .size = in.size };
	parse(&r, p);
	pp__input_close(&in);
	if (!r.failed) {
		char msg[256];
		const char **scratch = malloc(MAX_DEPTH * sizeof *scratch);
		if (!scratch)
			fail(&r, "out of memory");
		else if (pp__profile_check(p, 1, scratch, msg, sizeof msg))
			fail(&r, "corrupt profile: %s", msg);
		free(scratch);
	}
	if (r.failed) {
		pp__profile_free(p);
		return -1;
	}
	return 0;
}
