/* Folded stacks: one `root;...;leaf value` line per path, the input of
 * flamegraph.pl, inferno and speedscope. The value is the path's count, its
 * total time or its leaf segment's time (docs/reports.md). */
#include "report_impl.h"

/* ';' separates frames and a newline ends the line: either inside a name
 * would change the stack, so they print as '?' like every control or
 * ill-formed byte. Spaces are fine: tools split the value off the last one. */
static void put_frame(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	while (*s) {
		size_t n = pp__report_utf8_seq(s);
		if (n > 1)
			fwrite(s, 1, n, out);
		else if (n == 1 && *s >= 0x20 && *s != 0x7f && *s != ';')
			fputc(*s, out);
		else
			fputc('?', out);
		s += n ? n : 1;
	}
}

static uint64_t value_of(const pp_profile_t *p, const pp_report_opts_t *o, const pp__row_t *r)
{
	const pp_ppath_t *pa = r->path;
	uint64_t ticks;
	switch (o->value) {
	case PP_VALUE_TIME:
		ticks = r->time;
		break;
	case PP_VALUE_LEAF:
		ticks = pa->segs && pa->depth ? pa->segs[pa->depth - 1].sum : 0;
		break;
	default:
		return pa->count;
	}
	return pp__report_ns(p, ticks);
}

int pp__report_folded(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
		      const pp__row_t *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const pp_ppath_t *pa = rows[i].path;
		uint64_t v = value_of(p, o, &rows[i]);
		/* Flame graph tools drop zero-width stacks anyway; untimed paths
		 * have no time to show. */
		if (!v || !pa->depth)
			continue;
		for (uint32_t d = 0; d < pa->depth; d++) {
			if (d)
				fputc(';', out);
			put_frame(out, pp__report_name(p, pa->names[d]));
		}
		fprintf(out, " %llu\n", (unsigned long long)v);
	}
	return 0;
}
