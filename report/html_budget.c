/* The HTML page's size budget. A browser parses and lays out a page of a few
 * thousand paths at once, not one of a hundred thousand (152 MB, seconds to
 * load): above the budget the page carries the heaviest paths of the
 * selection and, under each parent of the others, one "(other)" path holding
 * their leaf returns. The page says so; the JSON export keeps every path.
 * The reduced profile shares the names and paths of the original: only the
 * arrays made here are freed by pp__html_budget_free(). */
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "report_html.h"
#include "report_impl.h"

#define OTHER "(other)"

void pp__html_budget_free(pp_profile_t *q, uint32_t shared_paths)
{
	for (uint32_t i = shared_paths; i < q->npaths; i++)
		free(q->paths[i].names);
	free(q->paths);
	free(q->names);
	free(q->nodes);
	memset(q, 0, sizeof *q);
}

int pp__html_budget(const pp_profile_t *p, const pp__row_t *rows, size_t n, size_t keep,
		    pp_profile_t *q)
{
	*q = *p; /* totals and metadata as they are */
	q->names = NULL;
	q->paths = NULL;
	q->nodes = NULL;
	q->npaths = q->nnodes = 0;
	uint32_t maxd = 1;
	for (size_t i = 0; i < n; i++)
		maxd = rows[i].path->depth > maxd ? rows[i].path->depth : maxd;
	const char **strs = malloc((maxd + 1) * sizeof *strs);
	uint64_t *ids = malloc(maxd * sizeof *ids);
	pp__map_t other = {0}, prefixes = {0};
	q->names = malloc((p->nnames + 1) * sizeof *q->names);
	q->paths = malloc(n * sizeof *q->paths); /* kept + at most one other per dropped */
	q->nodes = malloc((p->nnodes ? p->nnodes : 1) * sizeof *q->nodes);
	int rc = -1;
	if (!strs || !ids || !q->names || !q->paths || !q->nodes)
		goto out;
	memcpy(q->names, p->names, p->nnames * sizeof *q->names);
	q->names[p->nnames] = (pp_name_t){.name = (char *)OTHER, .file = (char *)"", .line = 0};
	q->nnames = p->nnames + 1;
	/* the heaviest: the selection's own order */
	for (size_t i = 0; i < keep && i < n; i++) {
		q->paths[q->npaths++] = *rows[i].path;
		if (pp__report_prefix_ids(p, rows[i].path, ids) < 0)
			goto out;
		for (uint32_t d = 0; d < rows[i].path->depth; d++)
			if (pp__map_put(&prefixes, ids[d], 1) != 0)
				goto out;
	}
	/* the rest: one "(other)" path under each parent */
	for (size_t i = keep; i < n; i++) {
		const pp_ppath_t *pa = rows[i].path;
		uint32_t d = pa->depth - 1; /* the parent's depth */
		for (uint32_t k = 0; k < d; k++)
			strs[k] = pp__report_name(p, pa->names[k]);
		strs[d] = OTHER;
		uint64_t id = pp__path_id(strs, d + 1);
		uint32_t at;
		if (pp__map_get(&other, id, &at)) {
			q->paths[at].count = pp__report_sat_add(q->paths[at].count, pa->count);
			continue;
		}
		pp_ppath_t *o = &q->paths[q->npaths];
		*o = (pp_ppath_t){.id = id, .count = pa->count, .depth = d + 1,
				  .names = malloc((d + 1) * sizeof(uint32_t))};
		if (!o->names)
			goto out;
		memcpy(o->names, pa->names, d * sizeof(uint32_t));
		o->names[d] = p->nnames;
		if (pp__map_put(&other, id, q->npaths++) != 0)
			goto out;
	}
	/* the nodes the kept paths go through, still sorted by id */
	for (uint32_t i = 0; i < p->nnodes; i++) {
		uint32_t dummy;
		if (pp__map_get(&prefixes, p->nodes[i].id, &dummy))
			q->nodes[q->nnodes++] = p->nodes[i];
	}
	rc = 0;
out:
	free(strs);
	free(ids);
	pp__map_free(&other);
	pp__map_free(&prefixes);
	if (rc != 0)
		pp__html_budget_free(q, (uint32_t)(keep < n ? keep : n));
	return rc;
}
