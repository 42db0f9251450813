/* Graphviz DOT: the path tree of the selected paths. A node is a function in
 * its path context (a name prefix), an edge carries the leaf returns and the
 * time of the paths that go through it, and colour grows with the node's
 * share of time. Ids are stable so the HTML page and scripts can bind to them. */
#include <math.h>
#include <stdlib.h>

#include "map.h"
#include "report_impl.h"

/* Graphviz lays out a few hundred boxes legibly, not thousands: by default
 * the graph keeps about this many, the heaviest (docs/reference/reports.md). */
#define DOT_NODES 100

/* A DOT quoted string: '"' and '\' escaped (labels read '\' sequences),
 * control and ill-formed bytes as '?', which Graphviz (UTF-8) would reject. */
void pp__report_dot_str(FILE *out, const char *str)
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
	if (!pp__report_rate_known(p))
		snprintf(b, len, "%llu ticks", (unsigned long long)ticks);
	else
		pp__report_duration(pp__ticks_ns(p, ticks), 0, b, len);
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

static int by_weight_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The share (0..1) below which nodes are left out: o->min_share, or the
 * share of the DOT_NODES-th heaviest node. */
static double prune_share(const pp_report_opts_t *o, const double *share, long m)
{
	if (o->min_share_set)
		return o->min_share / 100;
	if (m <= DOT_NODES)
		return 0;
	double *s = malloc((size_t)m * sizeof *s);
	if (!s)
		return 0;
	for (long i = 0; i < m; i++)
		s[i] = share[i];
	qsort(s, (size_t)m, sizeof *s, by_weight_desc);
	double t = s[DOT_NODES - 1];
	free(s);
	return t > 0 ? t : 1e-300;
}

/* What was left out under a shown node: a node of its own, so the graph's
 * weights still add up. */
typedef struct pruned {
	uint64_t nodes, count, time;
} pruned_t;

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
	double *share = malloc((size_t)(m ? m : 1) * sizeof *share);
	uint32_t *keep_of = malloc((size_t)(m ? m : 1) * sizeof *keep_of); /* shown ancestor, or self */
	pruned_t *cut = calloc((size_t)(m ? m : 1), sizeof *cut);
	pp__map_t at = {0};
	if (!share || !keep_of || !cut) {
		free(share);
		free(keep_of);
		free(cut);
		free(t);
		return -1;
	}
	/* A node without a timed exit (a thread that never returns, a root a
	 * selection abandoned) weighs what its children took, so its subtree
	 * is drawn instead of dropped (#29). Children come after parents. */
	uint64_t *kids = timed ? calloc((size_t)(m ? m : 1), sizeof *kids) : NULL;
	if (kids) {
		pp__map_t idx = {0};
		int ok = 1;
		for (long i = 0; i < m && ok; i++)
			ok = pp__map_put(&idx, t[i].id, (uint32_t)i) == 0;
		for (long i = m - 1; ok && i >= 0; i--) {
			uint32_t pi;
			if (kids[i] > t[i].time)
				t[i].time = kids[i];
			if (t[i].depth > 1 && pp__map_get(&idx, t[i].parent, &pi))
				kids[pi] = pp__report_sat_add(kids[pi], t[i].time);
		}
		pp__map_free(&idx);
		free(kids);
	}
	for (long i = 0; i < m; i++)
		share[i] = timed ? (total_time ? (double)t[i].time / (double)total_time : 0)
				 : (total_count ? (double)t[i].count / (double)total_count : 0);
	double min = prune_share(o, share, m);
	long shown = 0;
	/* Nodes come by depth, so a parent is decided before its children. */
	for (long i = 0; i < m; i++) {
		uint32_t pi = 0;
		int parent_shown = t[i].depth < 2;
		if (!parent_shown && pp__map_get(&at, t[i].parent, &pi))
			parent_shown = keep_of[pi] == pi;
		if (parent_shown && share[i] >= min) {
			keep_of[i] = (uint32_t)i;
			shown++;
		} else {
			/* summed into the nearest shown ancestor; a left-out root
			 * has none and is counted in the graph's label only */
			keep_of[i] = t[i].depth < 2 || !pp__map_get(&at, t[i].parent, &pi) ? UINT32_MAX
												: keep_of[pi];
			if (keep_of[i] != UINT32_MAX) {
				pruned_t *c = &cut[keep_of[i]];
				c->nodes++;
				if (parent_shown) { /* inclusive weights: the subtree once */
					c->count += t[i].count;
					c->time += t[i].time;
				}
			}
		}
		if (pp__map_put(&at, t[i].id, (uint32_t)i) != 0) {
			free(share);
			free(keep_of);
			free(cut);
			pp__map_free(&at);
			free(t);
			return -1;
		}
	}
	pp__map_free(&at);

	fputs("digraph pathprof {\n\tgraph [id=\"pathprof\", rankdir=TB, labelloc=t, "
	      "fontname=\"Helvetica\", label=", out);
	fprintf(out, "\"pathprof: %zu paths, %llu leaf returns, colour by share of %s", n,
		(unsigned long long)total_count, timed ? "time" : "count");
	if (shown < m)
		fprintf(out, "\\n%ld of %ld nodes shown (share >= %.3g%%); the rest are summed in "
			"'...' boxes (--min-share)", shown, m, 100 * min);
	for (uint32_t i = 0; i < p->nthrottled; i++) {
		fputs(i ? " + \", \" + " : "\\nthrottled by the budget (dashed; their frames elided once "
						"stopped): \" + ", out);
		pp__report_dot_str(out, pp__report_name(p, p->throttled[i].name));
	}
	fputs(p->nthrottled ? "];\n" : "\"];\n", out);
	fputs("\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
	      "fontsize=10];\n\tedge [fontname=\"Helvetica\", fontsize=9];\n", out);

	for (long i = 0; i < m; i++) {
		const pp__tnode_t *a = &t[i];
		if (keep_of[i] != (uint32_t)i)
			continue;
		double sh = share[i];
		fprintf(out, "\t\"p%016llx\" [id=\"p%016llx\", label=", (unsigned long long)a->id,
			(unsigned long long)a->id);
		/* The name goes through dot_str(); the numbers are appended to
		 * the same quoted string by closing and reopening it with '+'. */
		pp__report_dot_str(out, pp__report_name(p, a->name));
		fprintf(out, " + \"\\n%llu leaf returns", (unsigned long long)a->count);
		if (a->timed) {
			fmt_time(tb, sizeof tb, p, a->time);
			fmt_time(sb, sizeof sb, p, a->self);
			fprintf(out, "\\n%llu calls\\nincl %s (%.1f%%)\\nself %s",
				(unsigned long long)a->calls, tb, 100 * sh, sb);
		}
		colour(cb, sizeof cb, sh);
		fprintf(out, "\", fillcolor=\"%s\", fontcolor=\"%s\"%s];\n", cb,
			sh > 0.6 ? "#ffffff" : "#000000",
			pp__report_throttled(p, a->name) ? ", style=\"rounded,filled,dashed\"" : "");
		if (cut[i].nodes) {
			const pruned_t *c = &cut[i];
			fprintf(out, "\t\"q%016llx\" [id=\"q%016llx\", label=\"... %llu nodes\\n%llu leaf returns",
				(unsigned long long)a->id, (unsigned long long)a->id,
				(unsigned long long)c->nodes, (unsigned long long)c->count);
			if (timed) {
				fmt_time(tb, sizeof tb, p, c->time);
				fprintf(out, "\\nincl %s", tb);
			}
			fprintf(out, "\", fillcolor=\"#eeeeee\", style=\"rounded,filled,dashed\"];\n"
				"\t\"p%016llx\" -> \"q%016llx\" [id=\"e%016llx_q\", style=dashed, color=\"#999999\"];\n",
				(unsigned long long)a->id, (unsigned long long)a->id,
				(unsigned long long)a->id);
		}
	}
	for (long i = 0; i < m; i++) {
		const pp__tnode_t *a = &t[i];
		if (a->depth < 2 || keep_of[i] != (uint32_t)i)
			continue;
		double sh = share[i];
		colour(cb, sizeof cb, 0.3 + 0.7 * sh); /* cream would vanish on white */
		fprintf(out, "\t\"p%016llx\" -> \"p%016llx\" [id=\"e%016llx_%016llx\", label=\"%llu",
			(unsigned long long)a->parent, (unsigned long long)a->id,
			(unsigned long long)a->parent, (unsigned long long)a->id,
			(unsigned long long)a->count);
		if (a->timed) {
			fmt_time(tb, sizeof tb, p, a->time);
			fprintf(out, "\\n%s", tb);
		}
		fprintf(out, "\", color=\"%s\", penwidth=%.2f];\n", cb, 1 + 4 * sh);
	}
	fputs("}\n", out);
	free(share);
	free(keep_of);
	free(cut);
	free(t);
	return 0;
}
