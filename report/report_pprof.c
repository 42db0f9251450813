/* pprof export: the selected paths as a gzip-compressed profile.proto
 * (github.com/google/pprof, proto/profile.proto), one sample per node of
 * their tree with two values, the leaf returns that ended there and the
 * node's self time, so that pprof's cumulative time of a frame is its
 * inclusive time and the total is the gated time; `go tool pprof`, Pyroscope
 * or Parca can read and aggregate pathprof profiles. Every function gets one
 * location without a mapping: names are all pathprof has, and all it needs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gzip.h"
#include "map.h"
#include "pb.h"
#include "report_impl.h"

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10, PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
	LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
	LOCATION_ID = 1, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4, FUNCTION_START_LINE = 5,
};

/* Fixed entries of the string table; names and files follow them (name i at
 * STR_FIXED + i, its file at STR_FIXED + nnames + i, "?" for an index that
 * does not resolve at STR_FIXED + 2 * nnames). Repeats are allowed. */
enum { STR_EMPTY, STR_RETURNS, STR_COUNT, STR_TIME, STR_NS, STR_TICKS, STR_PATH_ID, STR_SERVICE,
       STR_HOST, STR_BUILD_ID, STR_PID, STR_OFFCPU, STR_REASON, STR_WAKER, STR_FIXED };
static const char *const fixed[STR_FIXED] = {
	"", "leaf_returns", "count", "time", "nanoseconds", "ticks", "path_id", "service", "host",
	"build_id", "pid", "offcpu", "reason", "waker",
};

/* Strings are UTF-8 in proto3, and strict readers reject anything else:
 * ill-formed and control bytes become '?', as in the text report. */
static void put_string(pp__pb_t *b, pp__pb_t *tmp, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	pp__pb_reset(tmp);
	while (*s) {
		size_t n = pp__report_utf8_seq(s);
		if (n > 1 || (n == 1 && *s >= 0x20 && *s != 0x7f))
			pp__pb_raw(tmp, s, n);
		else
			pp__pb_raw(tmp, "?", 1);
		s += n ? n : 1;
	}
	pp__pb_bytes(b, PROFILE_STRING_TABLE, tmp->buf, tmp->len);
}

static void value_type(pp__pb_t *b, pp__pb_t *tmp, uint32_t field, uint64_t type, uint64_t unit)
{
	pp__pb_reset(tmp);
	pp__pb_uint(tmp, VALUE_TYPE_TYPE, type);
	pp__pb_uint(tmp, VALUE_TYPE_UNIT, unit);
	pp__pb_bytes(b, field, tmp->buf, tmp->len);
}

/* Location and function id of name index idx (ids start at 1; 0 is "none"). */
static uint64_t func_id(const pp_profile_t *p, uint32_t idx)
{
	return (idx < p->nnames && p->names && p->names[idx].name ? idx : p->nnames) + 1ull;
}

static long parent_of(const pp__map_t *at, const pp__tnode_t *t, size_t k)
{
	uint32_t v;
	return t[k].depth > 1 && pp__map_get(at, t[k].parent, &v) ? (long)v : -1;
}

/* The off-CPU samples' strings: "(off-CPU: REASON)" per reason, the
 * reasons' names, then each entry's waker (its path, or who it is). */
static void off_strings(pp__pb_t *b, pp__pb_t *tmp, pp__pb_t *scratch, const pp_profile_t *p)
{
	char name[64];
	for (uint32_t r = 0; r < PP_OFF_REASONS; r++) {
		snprintf(name, sizeof name, "(off-CPU: %s)", pp__offcpu_reason_name(r));
		put_string(b, tmp, name);
	}
	for (uint32_t r = 0; r < PP_OFF_REASONS; r++)
		put_string(b, tmp, pp__offcpu_reason_name(r));
	for (uint32_t i = 0; i < p->noffcpu; i++) {
		const pp_offcpu_t *e = &p->offcpu[i];
		pp__pb_reset(scratch);
		if (e->waker_kind == PP_WAKER_GATED) {
			for (uint32_t d = 0; d < e->waker.depth; d++) {
				const char *nm = pp__report_name(p, e->waker.names[d]);
				if (d)
					pp__pb_raw(scratch, ">", 1);
				pp__pb_raw(scratch, nm, strlen(nm));
			}
		} else {
			const char *w = pp__waker_name(e->waker_kind);
			pp__pb_raw(scratch, w, strlen(w));
		}
		pp__pb_raw(scratch, "", 1);
		put_string(b, tmp, scratch->oom ? "" : (const char *)scratch->buf);
	}
}

static void encode(pp__pb_t *b, const pp_profile_t *p, const pp__tnode_t *t, size_t n)
{
	pp__map_t at = { 0 };
	for (size_t i = 0; i < n; i++)
		b->oom |= pp__map_put(&at, t[i].id, (uint32_t)i) != 0;
	pp__pb_t msg = { 0 }, body = { 0 }, tmp = { 0 };
	uint64_t str_names = STR_FIXED, str_files = STR_FIXED + p->nnames;
	uint64_t str_unknown = STR_FIXED + 2ull * p->nnames, str_comment = str_unknown + 1;
	/* the process labels' values follow the path ids */
	uint64_t str_who = str_comment + 1 + n;
	const char *who[3] = {p->service, p->host, p->build_id};
	static const uint64_t who_key[3] = {STR_SERVICE, STR_HOST, STR_BUILD_ID};
	int timed = p->nnodes != 0;
	char hex[17];

	value_type(b, &tmp, PROFILE_SAMPLE_TYPE, STR_RETURNS, STR_COUNT);
	value_type(b, &tmp, PROFILE_SAMPLE_TYPE, STR_TIME,
		   pp__report_rate_known(p) ? STR_NS : STR_TICKS);
	/* Off-CPU time (run --offcpu), a third sample type: a sample per
	 * blocked node, reason and waker, under a frame "(off-CPU: REASON)"
	 * below the node (functions nnames + 2 + reason). */
	int off = p->noffcpu > 0;
	uint64_t str_off = str_who + 3; /* pseudo names, reason names, wakers */
	if (off)
		value_type(b, &tmp, PROFILE_SAMPLE_TYPE, STR_OFFCPU, STR_NS);

	for (size_t i = 0; i < n; i++) {
		pp__pb_reset(&msg);
		/* pprof lists a sample's locations leaf first: walk up the tree. */
		pp__pb_reset(&body);
		for (long k = (long)i; k >= 0; k = parent_of(&at, t, (size_t)k))
			pp__pb_varint(&body, func_id(p, t[k].name));
		pp__pb_bytes(&msg, SAMPLE_LOCATION_ID, body.buf, body.len);
		pp__pb_reset(&body);
		pp__pb_varint(&body, t[i].leaves > INT64_MAX ? INT64_MAX : t[i].leaves);
		uint64_t ns = pp__report_ns(p, t[i].self);
		pp__pb_varint(&body, ns > INT64_MAX ? INT64_MAX : ns);
		if (off)
			pp__pb_varint(&body, 0);
		pp__pb_bytes(&msg, SAMPLE_VALUE, body.buf, body.len);
		/* The stable id ties a sample back to the path in other reports. */
		pp__pb_reset(&body);
		pp__pb_uint(&body, LABEL_KEY, STR_PATH_ID);
		pp__pb_uint(&body, LABEL_STR, str_comment + 1 + i);
		pp__pb_bytes(&msg, SAMPLE_LABEL, body.buf, body.len);
		/* Who wrote it, on every sample: profile stores (Pyroscope,
		 * Parca) and `pprof -tagfocus` select by sample labels. */
		for (int k = 0; k < 3; k++) {
			if (!who[k] || !*who[k])
				continue;
			pp__pb_reset(&body);
			pp__pb_uint(&body, LABEL_KEY, who_key[k]);
			pp__pb_uint(&body, LABEL_STR, str_who + (uint64_t)k);
			pp__pb_bytes(&msg, SAMPLE_LABEL, body.buf, body.len);
		}
		if (p->pid) {
			pp__pb_reset(&body);
			pp__pb_uint(&body, LABEL_KEY, STR_PID);
			pp__pb_uint(&body, LABEL_NUM, p->pid);
			pp__pb_bytes(&msg, SAMPLE_LABEL, body.buf, body.len);
		}
		pp__pb_bytes(b, PROFILE_SAMPLE, msg.buf, msg.len);
	}
	for (uint32_t i = 0; i < p->noffcpu; i++) {
		const pp_offcpu_t *e = &p->offcpu[i];
		uint32_t r = e->reason < PP_OFF_REASONS ? e->reason : PP_OFF_OTHER;
		pp__pb_reset(&msg);
		pp__pb_reset(&body);
		pp__pb_varint(&body, p->nnames + 2ull + r);
		for (uint32_t k = e->blocked.depth; k-- > 0;)
			pp__pb_varint(&body, func_id(p, e->blocked.names[k]));
		pp__pb_bytes(&msg, SAMPLE_LOCATION_ID, body.buf, body.len);
		pp__pb_reset(&body);
		pp__pb_varint(&body, 0);
		pp__pb_varint(&body, 0);
		pp__pb_varint(&body, e->time.sum > INT64_MAX ? INT64_MAX : e->time.sum);
		pp__pb_bytes(&msg, SAMPLE_VALUE, body.buf, body.len);
		const uint64_t lab[2][2] = {{STR_REASON, str_off + PP_OFF_REASONS + r},
					    {STR_WAKER, str_off + 2 * PP_OFF_REASONS + i}};
		for (int k = 0; k < 2; k++) {
			pp__pb_reset(&body);
			pp__pb_uint(&body, LABEL_KEY, lab[k][0]);
			pp__pb_uint(&body, LABEL_STR, lab[k][1]);
			pp__pb_bytes(&msg, SAMPLE_LABEL, body.buf, body.len);
		}
		pp__pb_bytes(b, PROFILE_SAMPLE, msg.buf, msg.len);
	}

	for (uint32_t i = 0; off && i < PP_OFF_REASONS; i++) {
		uint64_t id = p->nnames + 2ull + i;
		pp__pb_reset(&msg);
		pp__pb_uint(&msg, LOCATION_ID, id);
		pp__pb_reset(&body);
		pp__pb_uint(&body, LINE_FUNCTION_ID, id);
		pp__pb_bytes(&msg, LOCATION_LINE, body.buf, body.len);
		pp__pb_bytes(b, PROFILE_LOCATION, msg.buf, msg.len);
		pp__pb_reset(&msg);
		pp__pb_uint(&msg, FUNCTION_ID, id);
		pp__pb_uint(&msg, FUNCTION_NAME, str_off + i);
		pp__pb_uint(&msg, FUNCTION_SYSTEM_NAME, str_off + i);
		pp__pb_bytes(b, PROFILE_FUNCTION, msg.buf, msg.len);
	}

	for (uint32_t i = 0; i <= p->nnames; i++) {
		int known = i < p->nnames && p->names && p->names[i].name;
		if (i < p->nnames && !known)
			continue;
		uint64_t id = i + 1ull;
		pp__pb_reset(&msg);
		pp__pb_uint(&msg, LOCATION_ID, id);
		pp__pb_reset(&body);
		pp__pb_uint(&body, LINE_FUNCTION_ID, id);
		if (known && p->names[i].line)
			pp__pb_uint(&body, LINE_LINE, p->names[i].line);
		pp__pb_bytes(&msg, LOCATION_LINE, body.buf, body.len);
		pp__pb_bytes(b, PROFILE_LOCATION, msg.buf, msg.len);

		pp__pb_reset(&msg);
		pp__pb_uint(&msg, FUNCTION_ID, id);
		pp__pb_uint(&msg, FUNCTION_NAME, known ? str_names + i : str_unknown);
		pp__pb_uint(&msg, FUNCTION_SYSTEM_NAME, known ? str_names + i : str_unknown);
		if (known && p->names[i].file && *p->names[i].file)
			pp__pb_uint(&msg, FUNCTION_FILENAME, str_files + i);
		if (known && p->names[i].line)
			pp__pb_uint(&msg, FUNCTION_START_LINE, p->names[i].line);
		pp__pb_bytes(b, PROFILE_FUNCTION, msg.buf, msg.len);
	}

	for (int i = 0; i < STR_FIXED; i++)
		put_string(b, &tmp, fixed[i]);
	for (uint32_t i = 0; i < p->nnames; i++)
		put_string(b, &tmp, p->names[i].name);
	for (uint32_t i = 0; i < p->nnames; i++)
		put_string(b, &tmp, p->names[i].file);
	put_string(b, &tmp, "?");
	/* The comment says where the profile came from; pprof prints it. */
	pp__pb_reset(&body);
	pp__pb_raw(&body, "pathprof ", 9);
	pp__pb_raw(&body, p->frontend ? p->frontend : "", p->frontend ? strlen(p->frontend) : 0);
	pp__pb_raw(&body, ": ", 2);
	pp__pb_raw(&body, p->command ? p->command : "", p->command ? strlen(p->command) : 0);
	for (uint32_t i = 0; i < p->nthrottled; i++) {
		const char *f = pp__report_name(p, p->throttled[i].name);
		const char *sep = i ? ", " : "; throttled by the budget: ";
		pp__pb_raw(&body, sep, strlen(sep));
		pp__pb_raw(&body, f, strlen(f));
	}
	pp__pb_raw(&body, "", 1);
	put_string(b, &tmp, body.oom ? "" : (const char *)body.buf);
	for (size_t i = 0; i < n; i++) {
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)t[i].id);
		put_string(b, &tmp, hex);
	}
	for (int k = 0; k < 3; k++)
		put_string(b, &tmp, who[k] ? who[k] : "");
	if (off)
		off_strings(b, &tmp, &body, p);

	if (p->start_ns)
		pp__pb_uint(b, PROFILE_TIME_NANOS, p->start_ns > INT64_MAX ? INT64_MAX : p->start_ns);
	if (p->end_ns > p->start_ns)
		pp__pb_uint(b, PROFILE_DURATION_NANOS, p->end_ns - p->start_ns);
	/* Every leaf return is counted, none sampled: one per period. */
	value_type(b, &tmp, PROFILE_PERIOD_TYPE, STR_RETURNS, STR_COUNT);
	pp__pb_uint(b, PROFILE_PERIOD, 1);
	pp__pb_uint(b, PROFILE_COMMENT, str_comment);
	pp__pb_uint(b, PROFILE_DEFAULT_SAMPLE_TYPE, timed ? STR_TIME : STR_RETURNS);

	b->oom |= msg.oom | body.oom | tmp.oom;
	pp__map_free(&at);
	pp__pb_free(&msg);
	pp__pb_free(&body);
	pp__pb_free(&tmp);
}

int pp__report_pprof(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
		     const pp__row_t *rows, size_t n)
{
	pp__pb_t b = { 0 };
	pp__tnode_t *t;
	int rc;
	(void)o;
	long m = pp__report_tree(p, rows, n, &t);
	if (m < 0)
		return -1;
	encode(&b, p, t, (size_t)m);
	free(t);
	rc = b.oom ? -1 : pp__gzip_write(out, b.buf, b.len);
	pp__pb_free(&b);
	if (rc < 0)
		errno = ENOMEM;
	return rc;
}
