/* What a budget stopped (PATHPROF_BUDGET, section THROTTLE), as every
 * format says it: whether a function was throttled, which throttled
 * functions a path's last frame called (their frames are missing from
 * paths after the moment they stopped: elided), and the text section that
 * lists them. docs/guides/selection.md, "A budget at run time". */
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

/* By the name's text: two gated functions of one name have two entries in
 * the table (report_flat.c sums them as one function). */
const pp_throttled_t *pp__report_throttled(const pp_profile_t *p, uint32_t name)
{
	const char *s = pp__report_name(p, name);
	for (uint32_t i = 0; i < p->nthrottled; i++)
		if (!strcmp(pp__report_name(p, p->throttled[i].name), s))
			return &p->throttled[i];
	return NULL;
}

/* The candidates below a node: a throttled name and the time its node
 * there held before the stop. */
struct elided {
	uint32_t name;
	uint64_t held;
};

static int by_held(const void *a, const void *b)
{
	const struct elided *x = a, *y = b;
	return (x->held < y->held) - (x->held > y->held);
}

size_t pp__report_elided_below(const pp_profile_t *p, const uint32_t *names, uint32_t depth, uint32_t *out,
			       size_t max)
{
	if (!p->nthrottled || !depth || !max)
		return 0;
	const char **strs = malloc(((size_t)depth + 1) * sizeof *strs);
	struct elided *c = malloc(p->nthrottled * sizeof *c);
	if (!strs || !c) {
		free(strs);
		free(c);
		return 0;
	}
	for (uint32_t d = 0; d < depth; d++)
		strs[d] = pp__report_name(p, names[d]);
	size_t n = 0;
	for (uint32_t i = 0; i < p->nthrottled; i++) {
		strs[depth] = pp__report_name(p, p->throttled[i].name);
		/* two throttled functions of one name are one frame name */
		int again = 0;
		for (size_t j = 0; j < n && !again; j++)
			again = !strcmp(pp__report_name(p, c[j].name), strs[depth]);
		const pp_pnode_t *q = again ? NULL : pp__profile_node(p, pp__path_id(strs, depth + 1));
		if (q)
			c[n++] = (struct elided){ p->throttled[i].name, pp__report_node_time(q) };
	}
	/* the one that held most time first: a list cut at max keeps those
	 * whose time the node's self time now holds most of */
	qsort(c, n, sizeof *c, by_held);
	if (n > max)
		n = max;
	for (size_t k = 0; k < n; k++)
		out[k] = c[k].name;
	free(strs);
	free(c);
	return n;
}

size_t pp__report_elided(const pp_profile_t *p, const pp_ppath_t *pa, uint32_t *out, size_t max)
{
	return pp__report_elided_below(p, pa->names, pa->depth, out, max);
}

void pp__report_budget_line(FILE *out, const pp_profile_t *p)
{
	if (p->budget == 0 && !p->nthrottled)
		return;
	if (p->budget > 0)
		fprintf(out, "  budget     %g%% of a function's work (PATHPROF_BUDGET): ", p->budget);
	else
		fputs("  budget     differs between merged profiles: ", out);
	fprintf(out, "%u function%s throttled (gates stopped during the run; listed at the end)",
		p->nthrottled, p->nthrottled == 1 ? "" : "s");
	/* raii's gates are inline: their entries become jumps over the gate
	 * (runtime/raii_patch.c); the other injectors' hook calls go */
	if (p->patched_sites || p->refused_sites)
		fprintf(out, ";\n             %s at %u site%s (%u left)",
			p->frontend && !strcmp(p->frontend, "raii") ? "gate entries made jumps over the gate"
								   : "hook calls patched out of the code",
			p->patched_sites, p->patched_sites == 1 ? "" : "s", p->refused_sites);
	fputc('\n', out);
}

void pp__report_throttled_text(FILE *out, const pp_profile_t *p)
{
	if (!p->nthrottled)
		return;
	int ns = pp__report_rate_known(p);
	/* What the stop leaves costs a few instructions a call, which on a
	 * function of a few nanoseconds is 5-15 % (bench/README.md, "A helper
	 * without a loop"): say what it is and how to lose it. */
	const char *fe = p->frontend ? p->frontend : "";
	/* where nothing was patched (not x86-64, raii unoptimised, a policy
	 * against writable code), the gates test the stop themselves */
	int patched = p->patched_sites > 0;
	fprintf(out, "\nthrottled: %u function%s whose gates cost more than the budget's share of their "
		     "work;\nfrom 'at' on they were not gated: their frames are missing from the paths "
		     "below their callers.\nEach call still runs what the gates left in its code (%s);\n"
		     "`pathprof select --budget` lists them for a rebuild without (docs/guides/selection.md)"
		     "\n\n",
		p->nthrottled, p->nthrottled == 1 ? "" : "s",
		!strcmp(fe, "raii")   ? (patched ? "a jump over the gate" : "the gate's test of its stop")
		: !strcmp(fe, "xray") ? "the unpatched sleds' jumps"
		: !strcmp(fe, "cyg") || !strcmp(fe, "plugin")
			? (patched ? "the hooks' frame and saved registers" : "the hook calls, which return at once")
			: "what the injector put there");
	fprintf(out, "%12s %14s %12s  function\n", "calls", ns ? "incl.mean(ns)" : "incl.mean(tk)",
		"at(ms)");
	for (uint32_t i = 0; i < p->nthrottled; i++) {
		const pp_throttled_t *e = &p->throttled[i];
		fprintf(out, "%12llu %14.1f %12.3f  ", (unsigned long long)e->calls,
			e->calls ? pp__ticks_ns(p, e->incl) / (double)e->calls : 0, (double)e->at_ns / 1e6);
		pp__report_put_text(out, pp__report_name(p, e->name));
		fputc('\n', out);
	}
}
