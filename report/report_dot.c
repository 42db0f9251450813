/* Graphviz DOT: the path tree of the selected paths. A node is a function in
 * its path context (a name prefix), an edge carries the leaf returns and the
 * time of the paths that go through it, and colour grows with the node's
 * share of time. Ids are stable so the HTML page and scripts can bind to them. */
#include <math.h>
#include <stdlib.h>

#include "report_impl.h"

/* A DOT quoted string: '"' and '\' escaped (labels read '\' sequences),
 * control and ill-formed bytes as '?', which Graphviz (UTF-8) would reject. */
static void dot_str(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	fputc('"', out);
	while (*s) {
		size_t n = pp__report_utf8_seq(s);
		if (n > 1)
			fwrite(s, 1, n, out);
		else if (n == 1 && (*s == '"' || *s == '\\'))
			fprintf(out, "\\%c", *s);
		else if (n == 1 && *s >= 0x20 && *s != 0x7f)
			fputc(*s, out);
		else
			fputc('?', out);
		s += n ? n : 1;
	}
	fputc('"', out);
}

static void fmt_time(char *b, size_t len, const pp_profile_t *p, uint64_t ticks)
{
	double ns = pp__ticks_ns(p, ticks);
	if (!pp__report_rate_known(p))
		snprintf(b, len, "%llu ticks", (unsigned long long)ticks);
	else if (ns < 1e3)
		snprintf(b, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(b, len, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(b, len, "%.2f ms", ns / 1e6);
	else
		snprintf(b, len, "%.2f s", ns / 1e9);
}

/* From pale cream (no share) to deep red (all of it); text turns white where
 * black would be hard to read. */
static void colour(char *b, size_t len, double share)
{
	static const double lo[3] = { 255, 245, 235 }, hi[3] = { 200, 30, 30 };
	int c[3];
	if (!(share >= 0))
		share = 0;
	if (share > 1)
		share = 1;
	for (int i = 0; i < 3; i++)
		c[i] = (int)lround(lo[i] + (hi[i] - lo[i]) * share);
	snprintf(b, len, "#%02x%02x%02x", c[0], c[1], c[2]);
}

int pp__report_dot(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
		   const pp__row_t *rows, size_t n)
{
	pp__tnode_t *t;
	long m = pp__report_tree(p, rows, n, &t);
	uint64_t total_count = 0, total_time = pp__profile_gated_ticks(p);
	int timed = p->nnodes != 0;
	char tb[64], sb[64], cb[16];

	if (m < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		total_count = pp__report_sat_add(total_count, rows[i].path->count);

	fputs("digraph pathprof {\n\tgraph [id=\"pathprof\", rankdir=TB, labelloc=t, "
	      "fontname=\"Helvetica\", label=", out);
	fprintf(out, "\"pathprof: %zu paths, %llu leaf returns, colour by share of %s\"];\n", n,
		(unsigned long long)total_count, timed ? "time" : "count");
	fputs("\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
	      "fontsize=10];\n\tedge [fontname=\"Helvetica\", fontsize=9];\n", out);

	for (long i = 0; i < m; i++) {
		const pp__tnode_t *a = &t[i];
		double share = timed ? (total_time ? (double)a->time / (double)total_time : 0)
				     : (total_count ? (double)a->count / (double)total_count : 0);
		fprintf(out, "\t\"p%016llx\" [id=\"p%016llx\", label=", (unsigned long long)a->id,
			(unsigned long long)a->id);
		/* The name goes through dot_str(); the numbers are appended to
		 * the same quoted string by closing and reopening it with '+'. */
		dot_str(out, pp__report_name(p, a->name));
		fprintf(out, " + \"\\n%llu leaf returns", (unsigned long long)a->count);
		if (a->timed) {
			fmt_time(tb, sizeof tb, p, a->time);
			fmt_time(sb, sizeof sb, p, a->self);
			fprintf(out, "\\n%llu calls\\nincl %s (%.1f%%)\\nself %s",
				(unsigned long long)a->calls, tb, 100 * share, sb);
		}
		colour(cb, sizeof cb, share);
		fprintf(out, "\", fillcolor=\"%s\", fontcolor=\"%s\"];\n", cb,
			share > 0.6 ? "#ffffff" : "#000000");
	}
	for (long i = 0; i < m; i++) {
		const pp__tnode_t *a = &t[i];
		if (a->depth < 2)
			continue;
		double share = timed ? (total_time ? (double)a->time / (double)total_time : 0)
				     : (total_count ? (double)a->count / (double)total_count : 0);
		colour(cb, sizeof cb, 0.3 + 0.7 * share); /* cream would vanish on white */
		fprintf(out, "\t\"p%016llx\" -> \"p%016llx\" [id=\"e%016llx_%016llx\", label=\"%llu",
			(unsigned long long)a->parent, (unsigned long long)a->id,
			(unsigned long long)a->parent, (unsigned long long)a->id,
			(unsigned long long)a->count);
		if (a->timed) {
			fmt_time(tb, sizeof tb, p, a->time);
			fprintf(out, "\\n%s", tb);
		}
		fprintf(out, "\", color=\"%s\", penwidth=%.2f];\n", cb, 1 + 4 * share);
	}
	fputs("}\n", out);
	free(t);
	(void)o;
	return 0;
}
