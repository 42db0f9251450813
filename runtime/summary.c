/* pp_summary()'s text: the totals and the n hottest paths by count, printed
 * from inside the profiled program. Deliberately small and separate from the
 * tool's report formats (report/), which the runtime does not carry: a
 * program that wants the full report writes its profile (pp_dump) and runs
 * `pathprof report` on it. */
#include <stdio.h>
#include <stdlib.h>

#include "runtime.h"

static const pp_profile_t *sort_p;

static int by_count(const void *a, const void *b)
{
	const pp_ppath_t *x = &sort_p->paths[*(const uint32_t *)a];
	const pp_ppath_t *y = &sort_p->paths[*(const uint32_t *)b];
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void pp__summary_print(FILE *out, const pp_profile_t *p, int n)
{
	uint64_t drops = p->drops_table + p->drops_depth + p->drops_time;
	fprintf(out, "pathprof summary: %llu leaf returns on %u paths; threads %llu, dropped %llu\n",
		(unsigned long long)(p->records - p->drops_table), p->npaths,
		(unsigned long long)p->threads, (unsigned long long)drops);
	uint32_t *order = malloc((p->npaths ? p->npaths : 1) * sizeof *order);
	if (!order)
		return;
	for (uint32_t i = 0; i < p->npaths; i++)
		order[i] = i;
	sort_p = p; /* the caller holds the dump lock: one sort at a time */
	qsort(order, p->npaths, sizeof *order, by_count);
	uint32_t shown = n > 0 && (uint32_t)n < p->npaths ? (uint32_t)n : p->npaths;
	for (uint32_t i = 0; i < shown; i++) {
		const pp_ppath_t *q = &p->paths[order[i]];
		fprintf(out, "%12llu  ", (unsigned long long)q->count);
		for (uint32_t d = 0; d < q->depth; d++)
			fprintf(out, "%s%s", d ? " > " : "", p->names[q->names[d]].name);
		fputc('\n', out);
	}
	free(order);
}
