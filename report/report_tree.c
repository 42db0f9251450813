/* The path tree shared by the DOT and HTML renderers: paths folded into one
 * node per distinct name prefix, counts summed and times taken from the
 * profile's calling-context node of that prefix, keyed by the stable id of
 * the prefix so every format names a node the same way. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

int pp__report_prefix_ids(const pp_profile_t *p, const pp_ppath_t *pa, uint64_t *ids)
{
	const char **names = malloc((pa->depth ? pa->depth : 1) * sizeof *names);
	if (!names)
		return -1;
	for (uint32_t d = 0; d < pa->depth; d++)
		names[d] = pp__report_name(p, pa->names[d]);
	/* Quadratic in depth, but paths are short and this runs once per report;
	 * hashing each prefix whole keeps the ids exactly pp__path_id()'s. */
	for (uint32_t d = 0; d < pa->depth; d++)
		ids[d] = pp__path_id(names, d + 1);
	free(names);
	return 0;
}

int pp__report_path_nodes(const pp_profile_t *p, const pp_ppath_t *pa, const pp_pnode_t **nodes)
{
	for (uint32_t d = 0; d < pa->depth; d++)
		nodes[d] = pp__profile_stage(p, pa, d);
	return 0;
}

static int by_id(const void *va, const void *vb)
{
	const pp__tnode_t *a = va, *b = vb;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int by_place(const void *va, const void *vb)
{
	const pp__tnode_t *a = va, *b = vb;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return by_id(va, vb);
}

long pp__report_tree(const pp_profile_t *p, const pp__row_t *rows, size_t n, pp__tnode_t **nodes)
{
	size_t total = 0, maxdepth = 1, k = 0;
	for (size_t i = 0; i < n; i++) {
		total += rows[i].path->depth;
		if (rows[i].path->depth > maxdepth)
			maxdepth = rows[i].path->depth;
	}
	pp__tnode_t *t = calloc(total ? total : 1, sizeof *t);
	uint64_t *ids = malloc(maxdepth * sizeof *ids);
	if (!t || !ids)
		goto oom;

	/* One entry per (path, frame), then entries of one prefix merged. */
	for (size_t i = 0; i < n; i++) {
		const pp_ppath_t *pa = rows[i].path;
		if (pp__report_prefix_ids(p, pa, ids) < 0)
			goto oom;
		for (uint32_t d = 0; d < pa->depth; d++) {
			const pp_pnode_t *node = pp__profile_node(p, ids[d]);
			t[k++] = (pp__tnode_t){
				.id = ids[d],
				.parent = d ? ids[d - 1] : 0,
				.depth = d + 1,
				.name = pa->names[d],
				.count = pa->count,
				.leaves = d + 1 == pa->depth ? pa->count : 0,
				.calls = node ? node->incl.count : 0,
				.time = node ? pp__report_node_time(node) : 0,
				.self = node ? node->self : 0,
				.timed = node != NULL,
			};
		}
	}
	qsort(t, k, sizeof *t, by_id);
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		if (m && t[m - 1].id == t[i].id) {
			pp__tnode_t *a = &t[m - 1];
			a->count = pp__report_sat_add(a->count, t[i].count);
			a->leaves = pp__report_sat_add(a->leaves, t[i].leaves);
			continue; /* calls and times are the node's own, not per path */
		}
		t[m++] = t[i];
	}
	qsort(t, m, sizeof *t, by_place);
	free(ids);
	*nodes = t;
	return (long)m;
oom:
	free(t);
	free(ids);
	errno = ENOMEM;
	return -1;
}
