/* Overhead compensation (#29; docs/reference/semantics.md, "The gate's own
 * cost"). The process measured what one timed gate costs inside the
 * interval it times (`in`) and outside it, in its caller's self time
 * (`out`); every timed call carries both. So a node with n timed calls, c
 * timed calls of its gated children and D timed calls below it in all holds
 *     in its self time:       n * in + c * out   of gate cost,
 *     in its inclusive time:  n * in + D * (in + out).
 * Taking exactly that out of each node keeps the identity the report rests
 * on: the compensated self times still add up to the compensated inclusive
 * time of each root. A node's histogram moves down by its mean cost per
 * call (its per-call spread is not known). Figures that would go below 0
 * stop at 0. The tool applies this when it reads a profile unless --raw;
 * files keep the measured times. */
#include <stdlib.h>

#include "profile.h"
#include "report.h"

/* seg's calls each `shift` ticks shorter: sum, min, max and every bucket. */
static void shift_seg(pp_seg_t *s, double shift)
{
	uint64_t d = (uint64_t)(shift + 0.5);
	if (!s->count || !d)
		return;
	uint64_t total = d * s->count;
	s->sum = s->sum > total ? s->sum - total : 0;
	s->min = s->min > d ? s->min - d : 0;
	s->max = s->max > d ? s->max - d : 0;
	/* the mapping is monotonic, so the bins stay sorted; equal neighbours merge */
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->nbins; i++) {
		uint64_t m = pp__hist_mid(s->bins[i].bucket);
		uint32_t b = pp__hist_bucket(m > d ? m - d : 0);
		if (k && s->bins[k - 1].bucket == b)
			s->bins[k - 1].count += s->bins[i].count;
		else
			s->bins[k++] = (pp_hbin_t){ .bucket = b, .count = s->bins[i].count };
	}
	s->nbins = k;
}

int pp__profile_compensate(pp_profile_t *p)
{
	if (p->compensated || !(p->gate_in > 0 || p->gate_out > 0))
		return 0;
	uint32_t n = p->nnodes, maxd = 1;
	for (uint32_t i = 0; i < n; i++)
		if (p->nodes[i].depth > maxd)
			maxd = p->nodes[i].depth;
	uint32_t *parent = malloc((n ? n : 1) * sizeof *parent);
	double *kids = calloc(n ? n : 1, sizeof *kids), *below = calloc(n ? n : 1, sizeof *below);
	const char **names = malloc(maxd * sizeof *names);
	if (!parent || !kids || !below || !names) {
		free(parent), free(kids), free(below), free(names);
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
	/* deepest first, so a node's calls below are whole before its parent reads them */
	for (uint32_t d = maxd; d >= 2; d--)
		for (uint32_t i = 0; i < n; i++)
			if (p->nodes[i].depth == d && parent[i] != UINT32_MAX) {
				double calls = (double)p->nodes[i].incl.count;
				kids[parent[i]] += calls;
				below[parent[i]] += calls + below[i];
			}
	double in = p->gate_in, out = p->gate_out, removed = 0;
	for (uint32_t i = 0; i < n; i++) {
		pp_pnode_t *q = &p->nodes[i];
		double calls = (double)q->incl.count;
		if (!calls)
			continue;
		double cost = calls * in + kids[i] * out;
		uint64_t self = cost >= (double)q->self ? 0 : q->self - (uint64_t)(cost + 0.5);
		removed += (double)(q->self - self);
		q->self = self;
		shift_seg(&q->incl, in + below[i] / calls * (in + out));
	}
	p->compensated = 1;
	p->gate_removed = removed;
	free(parent), free(kids), free(below), free(names);
	return 0;
}
