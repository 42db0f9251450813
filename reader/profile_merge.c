/* dst += src for profiles (profile_merge.h). Names are matched by their
 * (name, file, line) triple and paths by stable id, so profiles of different
 * processes, runs or front-ends combine; histograms add bucket by bucket, so
 * a merged percentile is the percentile of all the data together. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "profile_merge.h"

static uint64_t name_hash(const pp_name_t *n)
{
	/* FNV-1a over name, NUL, file, NUL, line: only a map key, checked
	 * against the strings on every hit. */
	uint64_t h = 0xcbf29ce484222325ull;
	const char *parts[2] = {n->name ? n->name : "", n->file ? n->file : ""};
	for (int k = 0; k < 2; k++) {
		for (const unsigned char *c = (const unsigned char *)parts[k]; *c; c++)
			h = (h ^ *c) * 0x100000001b3ull;
		h *= 0x100000001b3ull;
	}
	for (int b = 0; b < 4; b++)
		h = (h ^ ((n->line >> (8 * b)) & 0xff)) * 0x100000001b3ull;
	return h;
}

static int same_name(const pp_name_t *a, const pp_name_t *b)
{
	return !strcmp(a->name, b->name) && !strcmp(a->file, b->file) && a->line == b->line;
}

static int has_times(const pp_profile_t *p)
{
	return p->nnodes != 0;
}

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static int add_u64(uint64_t *dst, uint64_t v)
{
	if (*dst > UINT64_MAX - v)
		return -1;
	*dst += v;
	return 0;
}

/* One process field: kept where every input agrees, "" where they differ
 * or one input does not know it (associative: "" absorbs). */
static int merge_field(char **dst, const char *src)
{
	if (!*dst || !strcmp(*dst, src ? src : ""))
		return 0;
	free(*dst);
	return (*dst = strdup("")) ? 0 : -1;
}

/* The selection: kept where every input ran under the same one (or none),
 * "" where they differ. */
static int merge_selection(char **dst, const char *src)
{
	if ((!*dst && !src) || (*dst && src && !strcmp(*dst, src)))
		return 0;
	free(*dst);
	return (*dst = strdup("")) ? 0 : -1;
}

static int merge_process(pp_profile_t *dst, const pp_profile_t *src)
{
	return merge_field(&dst->service, src->service) || merge_field(&dst->host, src->host) ||
	       merge_field(&dst->build_id, src->build_id) ? -1 : 0;
}

/* Metadata of dst after taking src in; every rule is associative. */
static int merge_meta(pp_profile_t *dst, const pp_profile_t *src, int empty)
{
	if (empty) {
		free(dst->frontend);
		free(dst->command);
		dst->version = PP_PROFILE_VERSION;
		dst->frontend = dup_or_empty(src->frontend);
		dst->command = dup_or_empty(src->command);
		if (!dst->frontend || !dst->command)
			return -1;
		if (src->service && (!(dst->service = strdup(src->service)) ||
				     !(dst->host = dup_or_empty(src->host)) ||
				     !(dst->build_id = dup_or_empty(src->build_id))))
			return -1;
		if ((src->selection && !(dst->selection = strdup(src->selection))) ||
		    (src->roots && !(dst->roots = strdup(src->roots))))
			return -1;
		dst->outside_roots = src->outside_roots;
		dst->pid = src->pid;
		dst->start_ns = src->start_ns;
		dst->end_ns = src->end_ns;
		dst->ticks_per_ns = src->ticks_per_ns;
		dst->timing = src->timing;
		dst->sample_n = src->sample_n;
		dst->gate_in = src->gate_in;
		dst->gate_out = src->gate_out;
		dst->has_cpu = src->has_cpu;
		dst->cpu_ns = src->cpu_ns;
		dst->nvcsw = src->nvcsw;
		dst->nivcsw = src->nivcsw;
		dst->windows = src->windows;
		dst->own_ticks = src->own_ticks;
		dst->own_n = src->own_n;
		return 0;
	}
	/* CPU time and switches add up over processes; a side without them
	 * leaves none (a part of the sum would read as the whole) */
	if (dst->has_cpu && src->has_cpu) {
		dst->cpu_ns += src->cpu_ns;
		dst->nvcsw += src->nvcsw;
		dst->nivcsw += src->nivcsw;
	} else {
		dst->has_cpu = 0;
	}
	/* The gate's cost: the least either process measured (calibration keeps
	 * its least round too), and none where a side has none or the injectors
	 * differ: the times it would come out of are not all its. */
	if (!src->gate_in && !src->gate_out)
		dst->gate_in = dst->gate_out = 0;
	else if (dst->gate_in || dst->gate_out) {
		if (src->gate_in < dst->gate_in)
			dst->gate_in = src->gate_in;
		if (src->gate_out < dst->gate_out)
			dst->gate_out = src->gate_out;
	}
	if (strcmp(dst->frontend, src->frontend ? src->frontend : "")) {
		dst->gate_in = dst->gate_out = 0;
		free(dst->frontend);
		if (!(dst->frontend = strdup("mixed")))
			return -1;
	}
	if (strcmp(dst->command, src->command ? src->command : "")) {
		free(dst->command);
		if (!(dst->command = strdup("(merged)")))
			return -1;
	}
	if (dst->pid != src->pid)
		dst->pid = 0;
	if (merge_process(dst, src) != 0 || merge_selection(&dst->selection, src->selection) != 0 ||
	    merge_selection(&dst->roots, src->roots) != 0 || add_u64(&dst->outside_roots, src->outside_roots) != 0)
		return -1;
	if (add_u64(&dst->windows, src->windows) != 0 || add_u64(&dst->own_ticks, src->own_ticks) != 0 ||
	    add_u64(&dst->own_n, src->own_n) != 0)
		return -1;
	if (src->start_ns < dst->start_ns)
		dst->start_ns = src->start_ns;
	if (src->end_ns > dst->end_ns)
		dst->end_ns = src->end_ns;
	if (dst->ticks_per_ns == 0)
		dst->ticks_per_ns = src->ticks_per_ns;
	if (dst->timing == 0) {
		dst->timing = src->timing;
		dst->sample_n = src->sample_n;
	}
	return 0;
}

static int fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -1;
}

/* *dst (n entries) += src: entries matched by stable id; counts, self times
 * and histograms added. NULL, or why it failed. */
static const char *merge_list(pp_ppath_t **dst, uint32_t *n, const pp_ppath_t *src, uint32_t sn,
			      const uint32_t *remap)
{
	const char *oom = "out of memory while merging profiles";
	pp__map_t ids = {0};
	const char *why = oom;
	for (uint32_t i = 0; i < *n; i++)
		if (pp__map_put(&ids, (*dst)[i].id, i) != 0)
			goto out;
	if (sn) {
		pp_ppath_t *m = realloc(*dst, ((size_t)*n + sn) * sizeof *m);
		if (!m)
			goto out;
		*dst = m;
	}
	for (uint32_t i = 0; i < sn; i++) {
		const pp_ppath_t *sp = &src[i];
		uint32_t at;
		pp_ppath_t *dp;
		if (pp__map_get(&ids, sp->id, &at)) {
			dp = &(*dst)[at];
			if (dp->depth != sp->depth) {
				why = "two paths share a stable id but not a depth";
				goto out;
			}
		} else {
			dp = &(*dst)[*n];
			*dp = (pp_ppath_t){.id = sp->id, .depth = sp->depth};
			dp->names = malloc(sp->depth * sizeof *dp->names);
			if (!dp->names)
				goto out;
			for (uint32_t k = 0; k < sp->depth; k++)
				dp->names[k] = remap[sp->names[k]];
			if (pp__map_put(&ids, sp->id, (*n)++) != 0)
				goto out;
		}
		if (add_u64(&dp->count, sp->count) || add_u64(&dp->self, sp->self) ||
		    add_u64(&dp->open, sp->open)) {
			why = "a path's count overflows 64 bits";
			goto out;
		}
		if (pp__seg_merge(&dp->incl, &sp->incl) != 0)
			goto out;
	}
	why = NULL;
out:
	pp__map_free(&ids);
	return why;
}

/* A map key for an entry's (blocked, waker, reason, kind); equal keys are
 * then compared field by field. */
static uint64_t offcpu_key(const pp_offcpu_t *e)
{
	uint64_t w = e->waker.id;
	return e->blocked.id ^ (w << 17 | w >> 47) ^
	       ((uint64_t)(e->reason << 8 | e->waker_kind) * 0x9e3779b97f4a7c15ull);
}

static int copy_side(pp_ppath_t *d, const pp_ppath_t *s, const uint32_t *remap)
{
	*d = (pp_ppath_t){.id = s->id, .depth = s->depth};
	if (!s->depth)
		return 0;
	d->names = malloc(s->depth * sizeof *d->names);
	if (!d->names)
		return -1;
	for (uint32_t k = 0; k < s->depth; k++)
		d->names[k] = remap[s->names[k]];
	return 0;
}

/* dst's off-CPU entries += src's: matched by (blocked, waker, reason,
 * kind), times merged. NULL, or why it failed. */
static const char *merge_offcpu(pp_profile_t *dst, const pp_profile_t *src, const uint32_t *remap)
{
	const char *oom = "out of memory while merging profiles";
	pp__map_t at = {0};
	const char *why = oom;
	for (uint32_t i = 0; i < dst->noffcpu; i++)
		if (pp__map_put(&at, offcpu_key(&dst->offcpu[i]), i) != 0)
			goto out;
	if (src->noffcpu) {
		pp_offcpu_t *m = realloc(dst->offcpu, ((size_t)dst->noffcpu + src->noffcpu) * sizeof *m);
		if (!m)
			goto out;
		dst->offcpu = m;
	}
	for (uint32_t i = 0; i < src->noffcpu; i++) {
		const pp_offcpu_t *s = &src->offcpu[i];
		uint32_t k;
		pp_offcpu_t *d;
		if (pp__map_get(&at, offcpu_key(s), &k) && dst->offcpu[k].blocked.id == s->blocked.id &&
		    dst->offcpu[k].waker.id == s->waker.id && dst->offcpu[k].reason == s->reason &&
		    dst->offcpu[k].waker_kind == s->waker_kind) {
			d = &dst->offcpu[k];
		} else {
			d = &dst->offcpu[dst->noffcpu];
			memset(d, 0, sizeof *d);
			d->reason = s->reason;
			d->waker_kind = s->waker_kind;
			if (copy_side(&d->blocked, &s->blocked, remap) ||
			    copy_side(&d->waker, &s->waker, remap) ||
			    !(d->kstack = dup_or_empty(s->kstack))) {
				free(d->blocked.names);
				free(d->waker.names);
				goto out;
			}
			if (pp__map_put(&at, offcpu_key(s), dst->noffcpu++) != 0)
				goto out;
		}
		if (pp__seg_merge(&d->time, &s->time) != 0)
			goto out;
	}
	why = NULL;
out:
	pp__map_free(&at);
	return why;
}

/* Throttled functions: one entry a name, calls and time added, the earliest
 * moment kept; the budget kept where every input ran under the same one. */
static const char *merge_throttled(pp_profile_t *dst, const pp_profile_t *src, const uint32_t *remap,
				   int empty)
{
	if (empty)
		dst->budget = src->budget;
	else if (dst->budget != src->budget)
		dst->budget = -1;
	dst->patched_sites += src->patched_sites;
	dst->refused_sites += src->refused_sites;
	if (!src->nthrottled)
		return NULL;
	pp_throttled_t *m = realloc(dst->throttled, ((size_t)dst->nthrottled + src->nthrottled) * sizeof *m);
	if (!m)
		return "out of memory while merging profiles";
	dst->throttled = m;
	for (uint32_t i = 0; i < src->nthrottled; i++) {
		pp_throttled_t e = src->throttled[i];
		e.name = remap[e.name];
		uint32_t j = 0;
		while (j < dst->nthrottled && m[j].name != e.name)
			j++;
		if (j == dst->nthrottled) {
			m[dst->nthrottled++] = e;
			continue;
		}
		if (add_u64(&m[j].calls, e.calls) || add_u64(&m[j].incl, e.incl))
			return "counters overflow 64 bits";
		if (e.at_ns < m[j].at_ns)
			m[j].at_ns = e.at_ns;
	}
	return NULL;
}

int pp__profile_merge(pp_profile_t *dst, const pp_profile_t *src, char *err, size_t errlen)
{
	int empty = dst->version == 0 && dst->npaths == 0 && dst->nnodes == 0 && dst->nnames == 0;
	if (!empty && dst->ticks_per_ns > 0 && src->ticks_per_ns > 0 && has_times(dst) &&
	    has_times(src) && fabs(dst->ticks_per_ns / src->ticks_per_ns - 1.0) > 0.01) {
		snprintf(err, errlen,
			 "tick rates differ (%.4f and %.4f ticks/ns): their time histograms "
			 "cannot be merged",
			 dst->ticks_per_ns, src->ticks_per_ns);
		return -1;
	}
	pp__map_t names = {0};
	uint32_t *remap = malloc((src->nnames ? src->nnames : 1) * sizeof *remap);
	int rc = -1;
	const char *why = "out of memory while merging profiles";
	/* Histograms are in ticks: they are read with the rate of whichever
	 * side has any. */
	int take_rate = !empty && !has_times(dst) && has_times(src);
	if (!remap || merge_meta(dst, src, empty) != 0)
		goto out;
	if (take_rate)
		dst->ticks_per_ns = src->ticks_per_ns;
	why = "counters overflow 64 bits";
	if (add_u64(&dst->events, src->events) || add_u64(&dst->records, src->records) ||
	    add_u64(&dst->drops_table, src->drops_table) ||
	    add_u64(&dst->drops_depth, src->drops_depth) ||
	    add_u64(&dst->unmatched, src->unmatched) || add_u64(&dst->threads, src->threads) ||
	    add_u64(&dst->drops_time, src->drops_time) ||
	    add_u64(&dst->drops_signal, src->drops_signal) ||
	    add_u64(&dst->unprofiled_frames, src->unprofiled_frames) ||
	    add_u64(&dst->unprofiled_threads, src->unprofiled_threads))
		goto out;
	why = "out of memory while merging profiles";

	for (uint32_t i = 0; i < dst->nnames; i++)
		if (pp__map_put(&names, name_hash(&dst->names[i]), i) != 0)
			goto out;
	if (src->nnames) {
		pp_name_t *m = realloc(dst->names, ((size_t)dst->nnames + src->nnames) * sizeof *m);
		if (!m)
			goto out;
		dst->names = m;
	}
	for (uint32_t i = 0; i < src->nnames; i++) {
		const pp_name_t *n = &src->names[i];
		uint64_t h = name_hash(n);
		uint32_t at;
		if (pp__map_get(&names, h, &at) && same_name(&dst->names[at], n)) {
			remap[i] = at;
			continue;
		}
		pp_name_t *d = &dst->names[dst->nnames];
		d->name = dup_or_empty(n->name);
		d->file = dup_or_empty(n->file);
		d->line = n->line;
		if (!d->name || !d->file) {
			free(d->name);
			free(d->file);
			goto out;
		}
		remap[i] = dst->nnames++;
		if (pp__map_put(&names, h, remap[i]) != 0)
			goto out;
	}

	why = merge_list(&dst->paths, &dst->npaths, src->paths, src->npaths, remap);
	if (!why)
		why = merge_list(&dst->nodes, &dst->nnodes, src->nodes, src->nnodes, remap);
	if (!why)
		why = merge_offcpu(dst, src, remap);
	if (!why)
		why = merge_throttled(dst, src, remap, empty);
	if (why)
		goto out;
	rc = pp__profile_canonical(dst);
out:
	if (rc != 0)
		fail(err, errlen, why);
	free(remap);
	pp__map_free(&names);
	return rc;
}
