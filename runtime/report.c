/* Renderers of a merged profile (report.h): text for people, JSON for
 * programs, and the canonical path listing for verify and tests. Every format
 * reads the same selection (filters, sort, top) so they never disagree on
 * which paths a report covers. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/gate.h>

#include "report_impl.h"

/* Name tables come from files and front-ends; an index that does not resolve
 * prints as "?" rather than reading out of bounds. */
const char *pp__report_name(const pp_profile_t *p, uint32_t idx)
{
	if (idx >= p->nnames || !p->names || !p->names[idx].name)
		return "?";
	return p->names[idx].name;
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

int pp__report_rate_known(const pp_profile_t *p)
{
	return isfinite(p->ticks_per_ns) && p->ticks_per_ns > 0;
}

uint64_t pp__report_sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

uint64_t pp__report_ns(const pp_profile_t *p, uint64_t ticks)
{
	double ns = nearbyint(pp__ticks_ns(p, ticks));
	if (!(ns > 0))
		return 0;
	return ns >= 0x1p64 ? UINT64_MAX : (uint64_t)ns;
}

/* Total time of a path in ticks: what its events spent from entering the root
 * until the leaf returned, summed over timed events. */
uint64_t pp__report_path_time(const pp_ppath_t *pa)
{
	uint64_t t = 0;
	if (!pa->segs)
		return 0;
	for (uint32_t i = 0; i < pa->depth; i++)
		t = pp__report_sat_add(t, pa->segs[i].sum);
	return t;
}

/* ---- selection: filters, order, top ---- */

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

/* Bytewise on the name sequence, root first; a prefix sorts first. */
static int cmp_names(const pp__row_t *a, const pp__row_t *b)
{
	uint32_t n = a->path->depth < b->path->depth ? a->path->depth : b->path->depth;
	for (uint32_t i = 0; i < n; i++) {
		int c = strcmp(pp__report_name(a->prof, a->path->names[i]), pp__report_name(b->prof, b->path->names[i]));
		if (c)
			return c;
	}
	if (a->path->depth != b->path->depth)
		return a->path->depth < b->path->depth ? -1 : 1;
	return a->path->id < b->path->id ? -1 : a->path->id > b->path->id;
}

static int by_count(const void *va, const void *vb)
{
	const pp__row_t *a = va, *b = vb;
	int c = cmp_u64_desc(a->path->count, b->path->count);
	if (!c)
		c = cmp_u64_desc(a->time, b->time);
	return c ? c : cmp_names(a, b);
}

static int by_time(const void *va, const void *vb)
{
	const pp__row_t *a = va, *b = vb;
	int c = cmp_u64_desc(a->time, b->time);
	if (!c)
		c = cmp_u64_desc(a->path->count, b->path->count);
	return c ? c : cmp_names(a, b);
}

static int passes(const pp_profile_t *p, const pp_report_opts_t *o, const pp_ppath_t *pa,
		  uint64_t time)
{
	if (pa->count < o->min_count)
		return 0;
	if (o->min_time_ns && pp__ticks_ns(p, time) < (double)o->min_time_ns)
		return 0;
	return 1;
}

/* Rows of the paths that pass the filters, sorted and cut to top. The caller
 * frees *rows. Returns the number of rows, or -1 when out of memory. */
long pp__report_select(const pp_profile_t *p, const pp_report_opts_t *o, pp__row_t **rows)
{
	pp__row_t *r = calloc(p->npaths ? p->npaths : 1, sizeof *r);
	size_t n = 0;
	if (!r)
		return -1;
	for (uint32_t i = 0; i < p->npaths; i++) {
		const pp_ppath_t *pa = &p->paths[i];
		uint64_t t = pp__report_path_time(pa);
		if (passes(p, o, pa, t))
			r[n++] = (pp__row_t){ .prof = p, .path = pa, .time = t };
	}
	qsort(r, n, sizeof *r, o->sort == PP_SORT_TIME ? by_time : by_count);
	if (o->top && n > o->top)
		n = o->top;
	*rows = r;
	return (long)n;
}

/* ---- character handling shared by the formats ---- */

/* Length of the well-formed UTF-8 sequence at s, or 0 when s starts with a
 * byte that cannot begin one (overlong forms, surrogates and code points past
 * U+10FFFF count as ill-formed). Stops at the terminating NUL. */
size_t pp__report_utf8_seq(const unsigned char *s)
{
	uint32_t cp, min;
	size_t n;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2, cp = s[0] & 0x1fu, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, cp = s[0] & 0x0fu, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4, cp = s[0] & 0x07u, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* Text output: valid UTF-8 passes through; control and ill-formed bytes show
 * as '?' so a hostile name cannot move the cursor or break a row. */
static void put_text(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		size_t n = pp__report_utf8_seq(s);
		if (n == 1 && *s >= 0x20 && *s != 0x7f)
			fputc(*s, out);
		else if (n > 1)
			fwrite(s, 1, n, out);
		else
			fputc('?', out);
		s += n ? n : 1;
	}
}

/* Columns put_text() uses for str (one per character; wide CJK glyphs are
 * rare enough in function names to ignore). */
static size_t text_width(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t w = 0;
	while (*s) {
		size_t n = pp__report_utf8_seq(s);
		s += n ? n : 1;
		w++;
	}
	return w;
}

static void pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

static size_t udigits(uint64_t v)
{
	size_t n = 1;
	while (v >= 10)
		v /= 10, n++;
	return n;
}

/* ---- text ---- */

/* Names longer than this get a line of their own above their numbers, so one
 * long C++ name does not push every row of the table to the right. */
#define SEG_NAME_MAX 32

enum { SEG_COUNT, SEG_MEAN, SEG_P50, SEG_P90, SEG_P99, SEG_MAX, SEG_NCOLS };
static const char *const seg_cols[SEG_NCOLS] = { "count", "mean", "p50", "p90", "p99", "max" };

static void seg_values(const pp_profile_t *p, const pp_seg_t *s, char v[SEG_NCOLS][32])
{
	double mean = s->count ? pp__ticks_ns(p, s->sum) / (double)s->count : 0;
	snprintf(v[SEG_COUNT], 32, "%llu", (unsigned long long)s->count);
	snprintf(v[SEG_MEAN], 32, "%.0f", mean);
	snprintf(v[SEG_P50], 32, "%.0f", pp__ticks_ns(p, pp__seg_percentile(s, 50)));
	snprintf(v[SEG_P90], 32, "%.0f", pp__ticks_ns(p, pp__seg_percentile(s, 90)));
	snprintf(v[SEG_P99], 32, "%.0f", pp__ticks_ns(p, pp__seg_percentile(s, 99)));
	snprintf(v[SEG_MAX], 32, "%.0f", pp__ticks_ns(p, s->max));
}

static void text_segments(FILE *out, const pp_profile_t *p, const pp_ppath_t *pa, size_t indent)
{
	size_t namew = strlen("segment"), w[SEG_NCOLS];
	char v[SEG_NCOLS][32];

	for (int c = 0; c < SEG_NCOLS; c++)
		w[c] = strlen(seg_cols[c]);
	for (uint32_t i = 0; i < pa->depth; i++) {
		size_t nw = text_width(pp__report_name(p, pa->names[i]));
		if (nw <= SEG_NAME_MAX && nw > namew)
			namew = nw;
		seg_values(p, &pa->segs[i], v);
		for (int c = 0; c < SEG_NCOLS; c++)
			if (strlen(v[c]) > w[c])
				w[c] = strlen(v[c]);
	}

	pad(out, indent);
	fputs("segment", out);
	pad(out, namew - strlen("segment"));
	for (int c = 0; c < SEG_NCOLS; c++)
		fprintf(out, "  %*s", (int)w[c], seg_cols[c]);
	fprintf(out, "  (%s)\n", pp__report_rate_known(p) ? "ns" : "ticks");

	for (uint32_t i = 0; i < pa->depth; i++) {
		const char *name = pp__report_name(p, pa->names[i]);
		size_t nw = text_width(name);
		pad(out, indent);
		put_text(out, name);
		if (nw > namew) {
			fputc('\n', out);
			pad(out, indent + namew);
		} else {
			pad(out, namew - nw);
		}
		seg_values(p, &pa->segs[i], v);
		for (int c = 0; c < SEG_NCOLS; c++)
			fprintf(out, "  %*s", (int)w[c], v[c]);
		fputc('\n', out);
	}
}

static const char *timing_word(uint32_t t)
{
	switch (t) {
	case PP_TIMING_OFF: return "off";
	case PP_TIMING_ON: return "on";
	case PP_TIMING_SAMPLE: return "sample";
	default: return "unknown";
	}
}

static void text_header(FILE *out, const pp_profile_t *p)
{
	fputs("pathprof report\n", out);
	fputs("  frontend   ", out);
	put_text(out, p->frontend && *p->frontend ? p->frontend : "-");
	fputs("\n  command    ", out);
	put_text(out, p->command && *p->command ? p->command : "-");
	fprintf(out, "\n  events     %llu\n", (unsigned long long)p->events);
	fprintf(out, "  records    %llu leaf returns, %u distinct paths\n",
		(unsigned long long)p->records, p->npaths);
	fprintf(out, "  drops      %llu (path table full), %llu (frames beyond depth bound)\n",
		(unsigned long long)p->drops_table, (unsigned long long)p->drops_depth);
	fprintf(out, "  unmatched  %llu\n", (unsigned long long)p->unmatched);
	fprintf(out, "  threads    %llu\n", (unsigned long long)p->threads);
	if (pp__report_rate_known(p))
		fprintf(out, "  tick rate  %.3f GHz\n", p->ticks_per_ns);
	else
		fputs("  tick rate  unknown (times in ticks)\n", out);
	if (p->timing == PP_TIMING_SAMPLE)
		fprintf(out, "  timing     sample (one event in %u timed; counts exact)\n", p->sample_n);
	else
		fprintf(out, "  timing     %s\n", timing_word(p->timing));
}

static void report_text(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
			const pp__row_t *rows, size_t n)
{
	uint64_t total = 0, total_time = 0;
	int any_timed = 0;
	const char *unit = pp__report_rate_known(p) ? "ns" : "ticks";

	for (uint32_t i = 0; i < p->npaths; i++) {
		total = pp__report_sat_add(total, p->paths[i].count);
		total_time = pp__report_sat_add(total_time, pp__report_path_time(&p->paths[i]));
	}
	for (size_t i = 0; i < n; i++)
		any_timed |= rows[i].path->segs != NULL;

	text_header(out, p);
	fprintf(out, "\n%zu of %u paths by %s", n, p->npaths,
		o->sort == PP_SORT_TIME ? "total time" : "count");
	if (o->top)
		fprintf(out, ", top %u", o->top);
	if (o->min_count)
		fprintf(out, ", min-count %llu", (unsigned long long)o->min_count);
	if (o->min_time_ns)
		fprintf(out, ", min-time %llu ns", (unsigned long long)o->min_time_ns);
	fputs("\n", out);
	if (!n)
		return;

	/* Column widths from the rows shown, so counts of any size line up. */
	char tbuf[32], tname[16];
	size_t rankw = udigits(n), countw = strlen("count"), timew;
	snprintf(tname, sizeof tname, "time(%s)", unit);
	timew = strlen(tname);
	for (size_t i = 0; i < n; i++) {
		if (udigits(rows[i].path->count) > countw)
			countw = udigits(rows[i].path->count);
		snprintf(tbuf, sizeof tbuf, "%.0f", pp__ticks_ns(p, rows[i].time));
		if (strlen(tbuf) > timew)
			timew = strlen(tbuf);
	}

	fprintf(out, "\n%*s  %*s  %7s", (int)rankw, "#", (int)countw, "count", "share");
	if (any_timed)
		fprintf(out, "  %*s  %7s", (int)timew, tname, "tshare");
	fprintf(out, "  %-16s  path\n", "id");

	for (size_t i = 0; i < n; i++) {
		const pp_ppath_t *pa = rows[i].path;
		double share = total ? 100.0 * (double)pa->count / (double)total : 0;
		fprintf(out, "%*zu  %*llu  %6.2f%%", (int)rankw, i + 1, (int)countw,
			(unsigned long long)pa->count, share);
		if (any_timed && pa->segs) {
			double ts = total_time ? 100.0 * (double)rows[i].time / (double)total_time : 0;
			snprintf(tbuf, sizeof tbuf, "%.0f", pp__ticks_ns(p, rows[i].time));
			fprintf(out, "  %*s  %6.2f%%", (int)timew, tbuf, ts);
		} else if (any_timed) {
			fprintf(out, "  %*s  %7s", (int)timew, "-", "-");
		}
		fprintf(out, "  %016llx  ", (unsigned long long)pa->id);
		for (uint32_t d = 0; d < pa->depth; d++) {
			if (d)
				fputs(" > ", out);
			put_text(out, pp__report_name(p, pa->names[d]));
		}
		fputc('\n', out);
		if (pa->segs) {
			text_segments(out, p, pa, rankw + 2);
			if (i + 1 < n)
				fputc('\n', out);
		}
	}
}

/* ---- JSON ---- */

void pp__report_json_str(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str_or_empty(str);
	fputc('"', out);
	while (*s) {
		size_t n = pp__report_utf8_seq(s);
		if (n == 0) {
			fputs("\\ufffd", out); /* ill-formed byte: JSON text must be UTF-8 */
			s++;
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, n, out);
		} else if (*s == '"' || *s == '\\') {
			fprintf(out, "\\%c", *s);
		} else if (*s == '\n') {
			fputs("\\n", out);
		} else if (*s == '\t') {
			fputs("\\t", out);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(out, "\\u%04x", *s);
		} else {
			fputc(*s, out);
		}
		s += n;
	}
	fputc('"', out);
}

/* Fixed-point with trailing zeros dropped: stable text for tests, and never
 * "nan"/"inf", which JSON cannot carry. */
static void json_num(FILE *out, double v, int decimals)
{
	char b[64];
	if (!isfinite(v)) {
		fputs("null", out);
		return;
	}
	int len = snprintf(b, sizeof b, "%.*f", decimals, v);
	if (len < 0 || (size_t)len >= sizeof b) {
		fprintf(out, "%.17g", v); /* beyond 1e60: exponent form is still JSON */
		return;
	}
	if (strchr(b, '.')) {
		while (len > 0 && b[len - 1] == '0')
			b[--len] = 0;
		if (len > 0 && b[len - 1] == '.')
			b[--len] = 0;
	}
	fputs(strcmp(b, "-0") ? b : "0", out);
}

static void json_u64(FILE *out, const char *key, uint64_t v, const char *sep)
{
	fprintf(out, "\"%s\": %llu%s", key, (unsigned long long)v, sep);
}

static void json_segment(FILE *out, const pp_profile_t *p, const pp_seg_t *s, const char *name)
{
	static const struct { const char *key; double pct; } pcts[] = {
		{ "p50_ns", 50 }, { "p90_ns", 90 }, { "p99_ns", 99 }, { "p999_ns", 99.9 },
	};
	fputs("{\"name\": ", out);
	pp__report_json_str(out, name);
	fputs(", ", out);
	json_u64(out, "count", s->count, ", ");
	json_u64(out, "sum_ticks", s->sum, ", ");
	json_u64(out, "min_ticks", s->min, ", ");
	json_u64(out, "max_ticks", s->max, ", ");
	fputs("\"mean_ns\": ", out);
	json_num(out, s->count ? pp__ticks_ns(p, s->sum) / (double)s->count : 0, 3);
	fputs(", \"min_ns\": ", out);
	json_num(out, pp__ticks_ns(p, s->min), 3);
	for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
		fprintf(out, ", \"%s\": ", pcts[i].key);
		json_num(out, pp__ticks_ns(p, pp__seg_percentile(s, pcts[i].pct)), 3);
	}
	fputs(", \"max_ns\": ", out);
	json_num(out, pp__ticks_ns(p, s->max), 3);
	fputs(", \"bins\": [", out);
	for (uint32_t b = 0; b < s->nbins; b++)
		fprintf(out, "%s[%u, %llu]", b ? ", " : "", s->bins[b].bucket,
			(unsigned long long)s->bins[b].count);
	fputs("]}", out);
}

static void report_json(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
			const pp__row_t *rows, size_t n)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < p->npaths; i++)
		total = pp__report_sat_add(total, p->paths[i].count);

	fprintf(out, "{\n  \"schema\": %d,\n", PP_REPORT_JSON_SCHEMA);
	fprintf(out, "  \"profile_version\": %u,\n", p->version);
	fputs("  \"frontend\": ", out);
	pp__report_json_str(out, p->frontend);
	fputs(",\n  \"command\": ", out);
	pp__report_json_str(out, p->command);
	fputs(",\n  ", out);
	json_u64(out, "pid", p->pid, ",\n  ");
	json_u64(out, "start_ns", p->start_ns, ",\n  ");
	json_u64(out, "end_ns", p->end_ns, ",\n  ");
	fputs("\"ticks_per_ns\": ", out);
	if (pp__report_rate_known(p))
		fprintf(out, "%.9g", p->ticks_per_ns);
	else
		fputs("null", out);
	fprintf(out, ",\n  \"timing\": \"%s\",\n  ", timing_word(p->timing));
	json_u64(out, "sample_n", p->sample_n, ",\n  ");
	json_u64(out, "events", p->events, ",\n  ");
	json_u64(out, "records", p->records, ",\n  ");
	json_u64(out, "drops_table", p->drops_table, ",\n  ");
	json_u64(out, "drops_depth", p->drops_depth, ",\n  ");
	json_u64(out, "unmatched", p->unmatched, ",\n  ");
	json_u64(out, "threads", p->threads, ",\n  ");
	fprintf(out, "\"hist\": {\"sub_bits\": %u, \"rows\": %u, \"buckets\": %u},\n",
		PP_HIST_SUB_BITS, PP_HIST_ROWS, PP_HIST_BUCKETS);

	fputs("  \"names\": [", out);
	for (uint32_t i = 0; i < p->nnames; i++) {
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		pp__report_json_str(out, p->names[i].name);
		fputs(", \"file\": ", out);
		pp__report_json_str(out, p->names[i].file);
		fprintf(out, ", \"line\": %u}", p->names[i].line);
	}
	fputs(p->nnames ? "\n  ],\n  " : "],\n  ", out);

	json_u64(out, "total_count", total, ",\n  ");
	json_u64(out, "total_paths", p->npaths, ",\n  ");
	fprintf(out, "\"selection\": {\"sort\": \"%s\", \"top\": %u, \"min_count\": %llu, "
		     "\"min_time_ns\": %llu, \"shown\": %zu},\n",
		o->sort == PP_SORT_TIME ? "time" : "count", o->top,
		(unsigned long long)o->min_count, (unsigned long long)o->min_time_ns, n);

	fputs("  \"paths\": [", out);
	for (size_t i = 0; i < n; i++) {
		const pp_ppath_t *pa = rows[i].path;
		fputs(i ? ",\n    {\n" : "\n    {\n", out);
		fprintf(out, "      \"id\": \"%016llx\",\n      ", (unsigned long long)pa->id);
		json_u64(out, "count", pa->count, ",\n      ");
		fputs("\"share\": ", out);
		json_num(out, total ? (double)pa->count / (double)total : 0, 6);
		fputs(",\n      \"time_ns\": ", out);
		if (pa->segs)
			json_num(out, pp__ticks_ns(p, rows[i].time), 3);
		else
			fputs("null", out);
		fputs(",\n      \"name_ids\": [", out);
		for (uint32_t d = 0; d < pa->depth; d++)
			fprintf(out, "%s%u", d ? ", " : "", pa->names[d]);
		fputs("],\n      \"path\": [", out);
		for (uint32_t d = 0; d < pa->depth; d++) {
			if (d)
				fputs(", ", out);
			pp__report_json_str(out, pp__report_name(p, pa->names[d]));
		}
		fputs("],\n      \"segments\": ", out);
		if (!pa->segs) {
			fputs("null", out);
		} else {
			fputc('[', out);
			for (uint32_t d = 0; d < pa->depth; d++) {
				fputs(d ? ",\n        " : "\n        ", out);
				json_segment(out, p, &pa->segs[d], pp__report_name(p, pa->names[d]));
			}
			fputs("\n      ]", out);
		}
		fputs("\n    }", out);
	}
	fputs(n ? "\n  ]\n}\n" : "]\n}\n", out);
}

/* ---- canonical listing ---- */

typedef struct canon {
	char *key; /* escaped name sequence joined by '>' */
	uint64_t count, time;
} canon_t;

static int by_key(const void *va, const void *vb)
{
	const canon_t *a = va, *b = vb;
	return strcmp(a->key, b->key);
}

/* Control bytes and '\' are escaped so every path stays on one line and the
 * line can be split back unambiguously; everything else is kept byte for
 * byte, because verify compares these lines across front-ends. */
static size_t canon_put(char *dst, const char *name)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
		if (*s == '\\') {
			if (dst)
				dst[n] = dst[n + 1] = '\\';
			n += 2;
		} else if (*s < 0x20 || *s == 0x7f) {
			if (dst) {
				dst[n] = '\\', dst[n + 1] = 'x';
				dst[n + 2] = hex[*s >> 4], dst[n + 3] = hex[*s & 15];
			}
			n += 4;
		} else {
			if (dst)
				dst[n] = (char)*s;
			n++;
		}
	}
	return n;
}

static char *canon_key(const pp_profile_t *p, const pp_ppath_t *pa)
{
	size_t len = 0;
	for (uint32_t d = 0; d < pa->depth; d++)
		len += canon_put(NULL, pp__report_name(p, pa->names[d])) + 1;
	char *k = malloc(len + 1), *w = k;
	if (!k)
		return NULL;
	for (uint32_t d = 0; d < pa->depth; d++) {
		if (d)
			*w++ = '>';
		w += canon_put(w, pp__report_name(p, pa->names[d]));
	}
	*w = 0;
	return k;
}

static int report_paths(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o)
{
	canon_t *c = calloc(p->npaths ? p->npaths : 1, sizeof *c);
	size_t n = 0;
	int rc = 0;
	if (!c)
		return -1;
	for (uint32_t i = 0; i < p->npaths; i++) {
		c[i].key = canon_key(p, &p->paths[i]);
		c[i].count = p->paths[i].count;
		c[i].time = pp__report_path_time(&p->paths[i]);
		if (!c[i].key) {
			rc = -1;
			goto done;
		}
	}
	qsort(c, p->npaths, sizeof *c, by_key);
	/* Distinct keys resolving to one name (two static functions "init") are
	 * one path as far as names can tell: merge them so the listing stays a
	 * function of names alone. */
	for (uint32_t i = 0; i < p->npaths; i++) {
		if (n && !strcmp(c[n - 1].key, c[i].key)) {
			c[n - 1].count = pp__report_sat_add(c[n - 1].count, c[i].count);
			c[n - 1].time = pp__report_sat_add(c[n - 1].time, c[i].time);
			continue;
		}
		canon_t t = c[n];
		c[n++] = c[i];
		c[i] = t;
	}
	for (size_t i = 0; i < n; i++) {
		if (c[i].count < o->min_count)
			continue;
		if (o->min_time_ns && pp__ticks_ns(p, c[i].time) < (double)o->min_time_ns)
			continue;
		fprintf(out, "%llu|%s\n", (unsigned long long)c[i].count, c[i].key);
	}
done:
	for (uint32_t i = 0; i < p->npaths; i++)
		free(c[i].key);
	free(c);
	return rc;
}

int pp__report(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o)
{
	static const pp_report_opts_t defaults;
	pp__row_t *rows = NULL;
	int rc = 0;

	if (!o)
		o = &defaults;
	if (o->format == PP_FORMAT_PATHS) {
		rc = report_paths(out, p, o);
	} else {
		long n = pp__report_select(p, o, &rows);
		if (n < 0) {
			errno = ENOMEM;
			return -1;
		}
		switch (o->format) {
		case PP_FORMAT_JSON: report_json(out, p, o, rows, (size_t)n); break;
		case PP_FORMAT_FOLDED: rc = pp__report_folded(out, p, o, rows, (size_t)n); break;
		case PP_FORMAT_DOT: rc = pp__report_dot(out, p, o, rows, (size_t)n); break;
		case PP_FORMAT_HTML: rc = pp__report_html(out, p, o, rows, (size_t)n); break;
		case PP_FORMAT_PPROF: rc = pp__report_pprof(out, p, o, rows, (size_t)n); break;
		default: report_text(out, p, o, rows, (size_t)n); break;
		}
		free(rows);
	}
	if (rc < 0) {
		errno = ENOMEM;
		return -1;
	}
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

const char *const pp__report_format_words[PP_REPORT_NFORMATS] = {
	"text", "json", "paths", "folded", "dot", "html", "pprof",
};

int pp__report_format_parse(const char *s, pp_report_format_t *f)
{
	for (int i = 0; i < PP_REPORT_NFORMATS; i++)
		if (!strcmp(s, pp__report_format_words[i])) {
			*f = (pp_report_format_t)i;
			return 0;
		}
	return -1;
}

int pp__report_sort_parse(const char *s, pp_report_sort_t *sort)
{
	if (!strcmp(s, "count"))
		*sort = PP_SORT_COUNT;
	else if (!strcmp(s, "time"))
		*sort = PP_SORT_TIME;
	else
		return -1;
	return 0;
}

int pp__report_value_parse(const char *s, pp_report_value_t *v)
{
	if (!strcmp(s, "count"))
		*v = PP_VALUE_COUNT;
	else if (!strcmp(s, "time"))
		*v = PP_VALUE_TIME;
	else if (!strcmp(s, "leaf"))
		*v = PP_VALUE_LEAF;
	else
		return -1;
	return 0;
}
