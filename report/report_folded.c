/* Folded stacks: `root;...;leaf value` lines, the input of flamegraph.pl,
 * inferno and speedscope. The value is a path's count, a node's self time
 * (widths add up to inclusive times) or a path's leaf self time (docs/reference/reports.md). */
#include <stdlib.h>

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

static void put_line(FILE *out, const pp_profile_t *p, const pp_ppath_t *pa, uint64_t v)
{
	/* Flame graph tools drop zero-width stacks anyway; untimed paths
	 * have no time to show. */
	if (!v || !pa->depth)
		return;
	for (uint32_t d = 0; d < pa->depth; d++) {
		if (d)
			fputc(';', out);
		put_frame(out, pp__report_name(p, pa->names[d]));
	}
	fprintf(out, " %llu\n", (unsigned long long)v);
}

/* count: a line per path (leaf returns). leaf: a line per path, its leaf
 * node's self time. time: a line per node on the selected paths, its self
 * time, so that a frame's width (its line plus its descendants') is its
 * inclusive time and the root's is the gated time. */
int pp__report_folded(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
		      const pp__row_t *rows, size_t n)
{
	if (o->value != PP_VALUE_TIME) {
		for (size_t i = 0; i < n; i++)
			put_line(out, p, rows[i].path,
				 o->value == PP_VALUE_LEAF ? pp__report_ns(p, rows[i].time)
							   : rows[i].path->count);
		return 0;
	}
	pp__tnode_t *t;
	long m = pp__report_tree(p, rows, n, &t);
	if (m < 0)
		return -1;
	for (long i = 0; i < m; i++) {
		const pp_pnode_t *node = pp__profile_node(p, t[i].id);
		if (node)
			put_line(out, p, node, pp__report_ns(p, node->self));
	}
	free(t);
	return 0;
}
