/* The profile builders of testprof.h, shared by the unit tests, the fuzz
 * helpers and the programs that write test profiles, so the fields a reader
 * checks (ids, bins, min/max) are filled the same way everywhere. */
#include "testprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(void)
{
	fputs("testprof: out of memory\n", stderr);
	abort();
}

void *tp_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		oom();
	return p;
}

char *tp_strdup(const char *s)
{
	char *d = strdup(s);
	if (!d)
		oom();
	return d;
}

void tp_init(pp_profile_t *p, const char *frontend, const char *command)
{
	memset(p, 0, sizeof *p);
	p->version = PP_PROFILE_VERSION;
	p->frontend = tp_strdup(frontend);
	p->command = tp_strdup(command);
}

void tp_names(pp_profile_t *p, uint32_t n, const char *const *names, const char *const *files,
	      const uint32_t *lines)
{
	p->nnames = n;
	p->names = tp_calloc(n, sizeof *p->names);
	for (uint32_t i = 0; i < n; i++) {
		p->names[i].name = tp_strdup(names[i]);
		p->names[i].file = tp_strdup(files && files[i] ? files[i] : "");
		p->names[i].line = lines ? lines[i] : 0;
	}
}

pp_ppath_t *tp_path(pp_profile_t *p, uint64_t count, const uint32_t *names, uint32_t depth,
		    const pp_seg_t *segs)
{
	pp_ppath_t *paths = realloc(p->paths, (p->npaths + 1) * sizeof *paths);
	const char **strs = tp_calloc(depth, sizeof *strs);
	if (!paths)
		oom();
	p->paths = paths;
	pp_ppath_t *pa = &paths[p->npaths++];
	memset(pa, 0, sizeof *pa);
	pa->count = count;
	pa->depth = depth;
	pa->names = tp_calloc(depth, sizeof *pa->names);
	memcpy(pa->names, names, depth * sizeof *names);
	for (uint32_t d = 0; d < depth; d++)
		strs[d] = p->names[names[d]].name;
	pa->id = pp__path_id(strs, depth);
	free(strs);
	/* Stage d's inclusive time per call: its own segment plus the mean of
	 * the deeper ones, so that sums add up exactly (a node's inclusive sum
	 * is its self plus its children's inclusive) and single-valued
	 * segments give exact histograms. */
	uint64_t rest = 0;
	for (uint32_t d = depth; segs && d-- > 0;) {
		const pp_seg_t *g = &segs[d];
		uint64_t per = g->count ? rest / g->count : 0;
		uint64_t *dense = tp_calloc(PP_HIST_BUCKETS, sizeof *dense);
		for (uint32_t b = 0; b < g->nbins; b++)
			dense[pp__hist_bucket(pp__hist_mid(g->bins[b].bucket) + per)] += g->bins[b].count;
		pp_seg_t incl;
		if (pp__seg_from_dense(&incl, g->count, g->sum + per * g->count, g->min + per,
				       g->max + per, dense) != 0)
			oom();
		free(dense);
		tp_node(p, names, d + 1, g->sum, &incl);
		pp__seg_free(&incl);
		rest += g->sum;
	}
	for (uint32_t d = 0; segs && d < depth; d++)
		pp__seg_free((pp_seg_t *)&segs[d]);
	return &p->paths[p->npaths - 1];
}

pp_pnode_t *tp_node(pp_profile_t *p, const uint32_t *names, uint32_t depth, uint64_t self,
		    const pp_seg_t *incl)
{
	const char **strs = tp_calloc(depth, sizeof *strs);
	for (uint32_t d = 0; d < depth; d++)
		strs[d] = p->names[names[d]].name;
	uint64_t id = pp__path_id(strs, depth);
	free(strs);
	uint32_t at = 0;
	while (at < p->nnodes && p->nodes[at].id < id)
		at++;
	if (at < p->nnodes && p->nodes[at].id == id) {
		p->nodes[at].self += self;
		if (pp__seg_merge(&p->nodes[at].incl, incl) != 0)
			oom();
		return &p->nodes[at];
	}
	pp_pnode_t *nodes = realloc(p->nodes, (p->nnodes + 1) * sizeof *nodes);
	if (!nodes)
		oom();
	p->nodes = nodes;
	memmove(&nodes[at + 1], &nodes[at], (p->nnodes - at) * sizeof *nodes);
	p->nnodes++;
	pp_pnode_t *n = &nodes[at];
	memset(n, 0, sizeof *n);
	n->id = id;
	n->depth = depth;
	n->self = self;
	n->names = tp_calloc(depth, sizeof *n->names);
	memcpy(n->names, names, depth * sizeof *names);
	if (pp__seg_merge(&n->incl, incl) != 0)
		oom();
	return n;
}

pp_seg_t tp_seg(const uint64_t (*pairs)[2], size_t n)
{
	uint64_t *dense = tp_calloc(PP_HIST_BUCKETS, sizeof *dense);
	uint64_t count = 0, sum = 0, min = UINT64_MAX, max = 0;
	pp_seg_t s;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = pairs[i][0], k = pairs[i][1];
		if (!k)
			continue; /* a value never seen moves neither min nor max */
		dense[pp__hist_bucket(v)] += k;
		count += k;
		sum += v * k;
		min = v < min ? v : min;
		max = v > max ? v : max;
	}
	if (pp__seg_from_dense(&s, count, sum, min, max, dense) != 0)
		oom();
	free(dense);
	return s;
}
