/* What every report format shares (report_impl.h): the row selection
 * (filters, sort, top), name, time and UTF-8 helpers. Each format renders in
 * report_<format>.c from the same selection, so no two formats disagree on
 * which paths a report covers; formats depend on this model, never on the
 * dispatcher (report.c). */
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

/* A path's time: the self time of its leaf node (what the leaf itself spent,
 * summed over timed calls), so that path times never count a shared prefix
 * twice and never exceed the gated time. */
uint64_t pp__report_path_time(const pp_profile_t *p, const pp_ppath_t *pa)
{
	const pp_pnode_t *leaf = pp__profile_node(p, pa->id);
	return leaf ? leaf->self : 0;
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
		uint64_t t = pp__report_path_time(p, pa);
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

/* The timing mode as the text header and the JSON export name it. */
const char *pp__report_timing_word(uint32_t t)
{
	switch (t) {
	case PP_TIMING_OFF: return "off";
	case PP_TIMING_ON: return "on";
	case PP_TIMING_SAMPLE: return "sample";
	case PP_TIMING_BURST: return "burst";
	default: return "unknown";
	}
}

/* Text output: valid UTF-8 passes through; control and ill-formed bytes show
 * as '?' so a hostile name cannot move the cursor or break a row. */
void pp__report_put_text(FILE *out, const char *str)
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
