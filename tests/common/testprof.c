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
	if (segs) {
		pa->segs = tp_calloc(depth, sizeof *pa->segs);
		memcpy(pa->segs, segs, depth * sizeof *segs);
	}
	return pa;
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
