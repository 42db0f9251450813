/* Overhead compensation (#29; docs/reference/semantics.md, "The gate's own
 * cost"). The process measured what one timed gate costs inside the
 * interval it times (`in`) and outside it, in its caller's self time
 * (`out`); every timed call carries both. So a node with n timed calls, c
 * timed calls of its gated children and D timed calls below it in all holds
 *     in its self time:       n * in + c * out   of gate cost,
 *     in its inclusive time:  n * in + D * (in + out).
 * Each node's self time loses its share (stopping at 0), and its inclusive
 * time what its whole subtree's self times lost, so the identity the
 * report rests on holds to the tick: the compensated self times add up to
 * each root's compensated inclusive time. A node's calls are not recorded
 * one by one: its histogram, min and max lose, call by call, its own
 * gate's `in` and a share of the rest in proportion to the call's time
 * (shift_seg).
 * Under burst timing a node's inclusive time is also in its cut calls
 * (open): the loss splits between the two as their measured times do.
 * The tool applies this when it reads a profile unless --raw;
 * files keep the measured times. */
#include <stdlib.h>

#include "profile.h"
#include "report.h"

/* seg's calls `total` ticks shorter in all (the sum exactly), and each
 * call's time, and so min, max and every bucket, mapped the way the
 * calls' times most likely lost it. Of the total, each call held its own
 * gate's `in` (own: the same in every call); the rest is the gates below
 * it, which a call holds in proportion to its time: a node called once
 * for the whole run and eight times for a few microseconds (SQLite's
 * sqlite3_step) lost almost all of it in the long call. Taking the mean
 * off every call instead left the long call's max above its parent's and
 * the short calls at 0. A call of time x becomes (x - own) * keep: the
 * mapping is monotonic, so the bins stay sorted, and for calls of one
 * length it is the mean's shift. */
static void shift_seg(pp_seg_t *s, uint64_t total, double own)
{
	if (!s->count || !total)
		return;
	if (own * (double)s->count > (double)total)
		own = (double)total / (double)s->count; /* where self times stopped at 0 */
	double base = (double)s->sum - own * (double)s->count;
	double rest = (double)total - own * (double)s->count;
	double keep = base > rest && base > 0 ? (base - rest) / base : 0;
	s->sum = s->sum > total ? s->sum - total : 0;
#define PP__MAP(x) ((double)(x) > own ? (uint64_t)(((double)(x) - own) * keep + 0.5) : 0)
	s->min = PP__MAP(s->min);
	s->max = PP__MAP(s->max);
	/* equal neighbours merge */
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->nbins; i++) {
		uint32_t b = pp__hist_bucket(PP__MAP(pp__hist_mid(s->bins[i].bucket)));
		if (k && s->bins[k - 1].bucket == b)
			s->bins[k - 1].count += s->bins[i].count;
		else
			s->bins[k++] = (pp_hbin_t){ .bucket = b, .count = s->bins[i].count };
	}
#undef PP__MAP
	s->nbins = k;
	/* Each node's removal is rounded to a tick, so the sum can part from
	 * the mapping by a few: the mean stays between min and max, and one
	 * call is its sum. */
	uint64_t lo = s->sum / s->count, hi = lo + (s->sum % s->count != 0);
	if (s->min > lo || s->count == 1)
		s->min = lo;
	if (s->max < hi || s->count == 1)
		s->max = hi;
}

static const pp_profile_t *sort_p;

static int deeper_first(const void *a, const void *b)
{
	uint32_t x = sort_p->nodes[*(const uint32_t *)a].depth, y = sort_p->nodes[*(const uint32_t *)b].depth;
	return x < y ? 1 : x > y ? -1 : 0;
}

int pp__profile_compensate(pp_profile_t *p)
{
	if (p->compensated || !(p->gate_in > 0 || p->gate_out > 0))
		return 0;
	uint32_t n = p->nnodes, maxd = 1;
	for (uint32_t i = 0; i < n; i++)
		if (p->nodes[i].depth > maxd)
			maxd = p->nodes[i].depth;
	uint32_t *parent = malloc((n ? n : 1) * sizeof *parent), *order = malloc((n ? n : 1) * sizeof *order);
	/* kids: the node's gated children's calls; below: ticks its subtree
	 * lost */
	double *kids = calloc(n ? n : 1, sizeof *kids), *below = calloc(n ? n : 1, sizeof *below);
	const char **names = malloc(maxd * sizeof *names);
	if (!parent || !order || !kids || !below || !names) {
		free(parent), free(order), free(kids), free(below), free(names);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		const pp_pnode_t *q = &p->nodes[i];
		parent[i] = UINT32_MAX;
		if (q->depth < 2)
			continue;
		for (uint32_t k = 0; k + 1 < q->depth; k++)
			names[k] = q->names[k] < p->nnames && p->names[q->names[k]].name
					   ? p->names[q->names[k]].name : "?";
		const pp_pnode_t *up = pp__profile_node(p, pp__path_id(names, q->depth - 1));
		if (up)
			parent[i] = (uint32_t)(up - p->nodes);
	}
	/* a node's children's calls, then, deepest first, what each subtree
	 * loses: the self time actually removed from its nodes, so the
	 * inclusive times lose exactly what their self times did (the sums
	 * stay exact, to the tick, even where a self time stopped at 0) */
	for (uint32_t i = 0; i < n; i++)
		if (parent[i] != UINT32_MAX)
			kids[parent[i]] += (double)p->nodes[i].incl.count;
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	sort_p = p;
	qsort(order, n, sizeof *order, deeper_first);
	double in = p->gate_in, out = p->gate_out, removed = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = order[k];
		pp_pnode_t *q = &p->nodes[i];
		double cost = (double)q->incl.count * in + kids[i] * out;
		uint64_t rm = cost >= (double)q->self ? q->self : (uint64_t)(cost + 0.5);
		q->self -= rm;
		q->gate = rm;
		removed += (double)rm;
		below[i] += (double)rm;
		if (parent[i] != UINT32_MAX)
			below[parent[i]] += below[i];
		/* burst timing: the subtree's loss splits between the whole calls
		 * and the cut ones (open) as their raw times do */
		double whole = q->open ? (double)q->incl.sum / ((double)q->incl.sum + (double)q->open) : 1;
		uint64_t rm_whole = (uint64_t)(below[i] * whole + 0.5);
		uint64_t rm_open = (uint64_t)(below[i] + 0.5) - rm_whole;
		q->open = q->open > rm_open ? q->open - rm_open : 0;
		if (q->incl.count)
			shift_seg(&q->incl, rm_whole, in);
	}
	/* No call of a node outlasts the call of its parent it is in, so a
	 * parent's longest call is at least its children's: where a long
	 * call's time was not gate-dense (a parent of thousands of short
	 * calls and one that waited for a page), its share of the gates
	 * below took too much of it, and the children's max, deepest first,
	 * says so. */
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = order[k];
		pp_seg_t *c = &p->nodes[i].incl;
		if (parent[i] != UINT32_MAX && c->count && p->nodes[parent[i]].incl.max < c->max)
			p->nodes[parent[i]].incl.max = c->max;
	}
	p->compensated = 1;
	p->gate_removed = removed;
	free(parent), free(order), free(kids), free(below), free(names);
	return 0;
}
