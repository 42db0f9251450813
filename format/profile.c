/* Profile files: what the writer (profile_write.c) and the validating reader
 * (profile_read.c) share — the stable path id, tick conversion, freeing, and
 * the semantic checks both apply. The file may come from another machine,
 * another version or a crashed run. Field-by-field layout: docs/reference/file-format.md. */
#include "profile_impl.h"

#include <pathprof/state.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- stable path id ---- */

/* FNV-1a 64 over each name followed by a 0 byte (no C string contains one, so
 * the byte stream names the sequence unambiguously), then the murmur3 64-bit
 * finaliser: FNV alone leaves the high bits weak for short inputs, and ids are
 * also used as hash-table keys and printed truncated. */
uint64_t pp__path_id(const char *const *names, uint32_t depth)
{
	uint64_t h = pp__path_fnv_start();
	for (uint32_t i = 0; i < depth; i++)
		h = pp__path_fnv(h, names[i]);
	return pp__path_fnv_end(h);
}

uint64_t pp__profile_stored_id(const pp_profile_t *p, const pp_ppath_t *pp, const char **scratch)
{
	for (uint32_t k = 0; k < pp->depth; k++)
		scratch[k] = p->names[pp->names[k]].name;
	return pp__path_id(scratch, pp->depth);
}

const pp_pnode_t *pp__profile_node(const pp_profile_t *p, uint64_t id)
{
	uint32_t lo = 0, hi = p->nnodes;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint64_t m = p->nodes[mid].id;
		if (m == id)
			return &p->nodes[mid];
		if (m < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const pp_pnode_t *pp__profile_stage(const pp_profile_t *p, const pp_ppath_t *q, uint32_t i)
{
	const char *names[64];
	if (i >= q->depth)
		return NULL;
	if (i + 1 == q->depth)
		return pp__profile_node(p, q->id);
	const char **v = i < 64 ? names : malloc((i + 1) * sizeof *v);
	if (!v)
		return NULL;
	for (uint32_t k = 0; k <= i; k++)
		v[k] = q->names[k] < p->nnames && p->names[q->names[k]].name ? p->names[q->names[k]].name : "?";
	const pp_pnode_t *n = pp__profile_node(p, pp__path_id(v, i + 1));
	if (v != names)
		free(v);
	return n;
}

uint64_t pp__profile_gated_ticks(const pp_profile_t *p)
{
	uint64_t t = 0;
	for (uint32_t i = 0; i < p->nnodes; i++)
		t = p->nodes[i].self > UINT64_MAX - t ? UINT64_MAX : t + p->nodes[i].self;
	return t;
}

double pp__ticks_ns(const pp_profile_t *p, uint64_t ticks)
{
	if (p && isfinite(p->ticks_per_ns) && p->ticks_per_ns > 0)
		return (double)ticks / p->ticks_per_ns;
	return (double)ticks;
}

void pp__profile_free(pp_profile_t *p)
{
	if (!p)
		return;
	free(p->frontend);
	free(p->command);
	free(p->service);
	free(p->host);
	free(p->build_id);
	free(p->selection);
	free(p->throttled);
	free(p->roots);
	for (uint32_t i = 0; p->names && i < p->nnames; i++) {
		free(p->names[i].name);
		free(p->names[i].file);
	}
	free(p->names);
	for (uint32_t i = 0; p->paths && i < p->npaths; i++)
		free(p->paths[i].names);
	free(p->paths);
	for (uint32_t i = 0; p->nodes && i < p->nnodes; i++) {
		free(p->nodes[i].names);
		pp__seg_free(&p->nodes[i].incl);
	}
	free(p->nodes);
	for (uint32_t i = 0; p->offcpu && i < p->noffcpu; i++) {
		free(p->offcpu[i].blocked.names);
		free(p->offcpu[i].waker.names);
		free(p->offcpu[i].kstack);
		pp__seg_free(&p->offcpu[i].time);
	}
	free(p->offcpu);
	memset(p, 0, sizeof *p);
}

const char *pp__offcpu_reason_name(uint32_t reason)
{
	static const char *const names[PP_OFF_REASONS] = {"other", "futex", "poll", "disk", "net",
							   "sleep", "preempt"};
	return reason < PP_OFF_REASONS ? names[reason] : "?";
}

const char *pp__waker_name(uint32_t kind)
{
	static const char *const names[PP_WAKER_KINDS] = {"unseen", "path", "thread", "process",
							   "kernel"};
	return kind < PP_WAKER_KINDS ? names[kind] : "?";
}

/* ---- checks shared by writer and reader ----
 * The writer refuses what the reader would reject, so a profile that was
 * written can always be read back. */

static int check_seg(const pp_seg_t *s, char *msg, size_t len)
{
	if (s->nbins > PP_HIST_BUCKETS) {
		snprintf(msg, len, "%u histogram bins, at most %u", s->nbins, PP_HIST_BUCKETS);
		return -1;
	}
	uint64_t total = 0;
	for (uint32_t j = 0; j < s->nbins; j++) {
		const pp_hbin_t *b = &s->bins[j];
		if (b->bucket >= PP_HIST_BUCKETS) {
			snprintf(msg, len, "bucket %u out of range (%u buckets)", b->bucket, PP_HIST_BUCKETS);
			return -1;
		}
		if (j && b->bucket <= s->bins[j - 1].bucket) {
			snprintf(msg, len, "buckets not strictly increasing (%u after %u)", b->bucket,
				 s->bins[j - 1].bucket);
			return -1;
		}
		if (b->count == 0 || b->count > UINT64_MAX - total) {
			snprintf(msg, len, "bucket %u has count %llu", b->bucket,
				 (unsigned long long)b->count);
			return -1;
		}
		total += b->count;
	}
	if (total != s->count) {
		snprintf(msg, len, "bin counts sum to %llu but the count is %llu",
			 (unsigned long long)total, (unsigned long long)s->count);
		return -1;
	}
	if (s->count && s->min > s->max) {
		snprintf(msg, len, "min %llu above max %llu", (unsigned long long)s->min,
			 (unsigned long long)s->max);
		return -1;
	}
	return 0;
}

/* Paths or nodes: depths, name indices, ids, histograms; nodes sorted by
 * id with no id twice, so that lookups by id (pp__profile_node) are exact. */
static int check_list(const pp_profile_t *p, const pp_ppath_t *list, uint32_t n, const char *what,
		      int sorted, int check_ids, const char **scratch, char *msg, size_t len)
{
	if (n && !list) {
		snprintf(msg, len, "%s array missing", what);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		const pp_ppath_t *pp = &list[i];
		if (pp->depth == 0 || pp->depth > MAX_DEPTH || !pp->names) {
			snprintf(msg, len, "%s %u: depth %u outside 1..%u", what, i, pp->depth, MAX_DEPTH);
			return -1;
		}
		for (uint32_t k = 0; k < pp->depth; k++) {
			if (pp->names[k] >= p->nnames) {
				snprintf(msg, len, "%s %u: name index %u out of range (%u names)", what, i,
					 pp->names[k], p->nnames);
				return -1;
			}
		}
		if (check_ids) {
			uint64_t id = pp__profile_stored_id(p, pp, scratch);
			if (id != pp->id) {
				snprintf(msg, len, "%s %u: id %016llx does not match its names (%016llx)", what,
					 i, (unsigned long long)pp->id, (unsigned long long)id);
				return -1;
			}
		}
		if (sorted && i && pp->id <= list[i - 1].id) {
			snprintf(msg, len, "%s %u: ids not strictly increasing", what, i);
			return -1;
		}
		char why[160];
		if (check_seg(&pp->incl, why, sizeof why)) {
			snprintf(msg, len, "%s %u: %s", what, i, why);
			return -1;
		}
	}
	return 0;
}

/* One side of an off-CPU entry: a node, or depth 0 for none. */
static int check_side(const pp_profile_t *p, const pp_ppath_t *pp, uint32_t i, const char *side,
		      int check_ids, const char **scratch, char *msg, size_t len)
{
	if (pp->depth > MAX_DEPTH || (pp->depth && !pp->names)) {
		snprintf(msg, len, "off-CPU entry %u: %s depth %u above %u", i, side, pp->depth,
			 MAX_DEPTH);
		return -1;
	}
	for (uint32_t k = 0; k < pp->depth; k++) {
		if (pp->names[k] >= p->nnames) {
			snprintf(msg, len, "off-CPU entry %u: %s name index %u out of range (%u names)", i,
				 side, pp->names[k], p->nnames);
			return -1;
		}
	}
	if (check_ids && pp->id != pp__profile_stored_id(p, pp, scratch)) {
		snprintf(msg, len, "off-CPU entry %u: %s id %016llx does not match its names", i, side,
			 (unsigned long long)pp->id);
		return -1;
	}
	return 0;
}

static int check_offcpu(const pp_profile_t *p, int check_ids, const char **scratch, char *msg,
			size_t len)
{
	if (p->noffcpu && !p->offcpu) {
		snprintf(msg, len, "off-CPU array missing");
		return -1;
	}
	for (uint32_t i = 0; i < p->noffcpu; i++) {
		const pp_offcpu_t *e = &p->offcpu[i];
		if (check_side(p, &e->blocked, i, "blocked", check_ids, scratch, msg, len) ||
		    check_side(p, &e->waker, i, "waker", check_ids, scratch, msg, len))
			return -1;
		if (e->reason >= PP_OFF_REASONS || e->waker_kind >= PP_WAKER_KINDS ||
		    (e->waker.depth && e->waker_kind != PP_WAKER_GATED)) {
			snprintf(msg, len, "off-CPU entry %u: reason %u, waker kind %u with depth %u", i,
				 e->reason, e->waker_kind, e->waker.depth);
			return -1;
		}
		char why[160];
		if (check_seg(&e->time, why, sizeof why)) {
			snprintf(msg, len, "off-CPU entry %u: %s", i, why);
			return -1;
		}
	}
	return 0;
}

/* The throttled list names functions of the profile, once each. */
static int check_throttled(const pp_profile_t *p, char *msg, size_t len)
{
	if ((p->nthrottled && !p->throttled) || !isfinite(p->budget) || p->budget < -1 ||
	    p->budget > 100 || (p->budget < 0 && p->budget != -1)) {
		snprintf(msg, len, "throttled list missing or budget %g outside 0-100", p->budget);
		return -1;
	}
	for (uint32_t i = 0; i < p->nthrottled; i++) {
		if (p->throttled[i].name >= p->nnames) {
			snprintf(msg, len, "throttled function %u: name %u of %u", i, p->throttled[i].name,
				 p->nnames);
			return -1;
		}
		for (uint32_t j = 0; j < i; j++)
			if (p->throttled[j].name == p->throttled[i].name) {
				snprintf(msg, len, "throttled function %u: '%s' listed twice", i,
					 p->names[p->throttled[i].name].name);
				return -1;
			}
	}
	return 0;
}

/* What every profile a pathprof wrote satisfies, whatever it measured: a
 * file that breaks one was changed after it was written (a checksum
 * recomputed, or format 2 without them), and its numbers would be read as
 * true. Leaf returns seen are at least the recorded ones plus the dropped
 * ones (a live snapshot also saw returns on paths it could not name yet);
 * the run does not end before it starts; the gated time fits in the run on
 * every thread (with 1 % for the clocks' disagreement; not checked for a
 * recovered profile, whose end is the writer's last sign of life). Writer
 * and readers share these (#27). */
int pp__profile_invariants(const pp_profile_t *p, char *msg, size_t len)
{
	uint64_t sum = p->drops_table;
	for (uint32_t i = 0; i < p->npaths; i++)
		sum += p->paths[i].count;
	if (p->records < sum) {
		snprintf(msg, len, "%llu leaf returns seen, but the paths count %llu and %llu were "
			 "dropped", (unsigned long long)p->records,
			 (unsigned long long)(sum - p->drops_table), (unsigned long long)p->drops_table);
		return -1;
	}
	if (p->start_ns && p->end_ns && p->end_ns < p->start_ns) {
		snprintf(msg, len, "the run ends (%llu) before it starts (%llu)",
			 (unsigned long long)p->end_ns, (unsigned long long)p->start_ns);
		return -1;
	}
	if (p->ticks_per_ns > 0 && p->start_ns && p->end_ns && !p->recovered) {
		double gated = pp__ticks_ns(p, pp__profile_gated_ticks(p));
		double room = (double)(p->end_ns - p->start_ns) * (double)(p->threads ? p->threads : 1);
		if (gated > room * 1.01 + 1e6) {
			snprintf(msg, len, "gated time %.0f ns exceeds the run (%llu ns) on %llu thread(s)",
				 gated, (unsigned long long)(p->end_ns - p->start_ns),
				 (unsigned long long)p->threads);
			return -1;
		}
	}
	return 0;
}

int pp__profile_check(const pp_profile_t *p, int check_ids, const char **scratch, char *msg,
		      size_t len)
{
	if (p->timing > PP_TIMING_BURST) {
		snprintf(msg, len, "unknown timing mode %u", p->timing);
		return -1;
	}
	if (!isfinite(p->ticks_per_ns) || p->ticks_per_ns < 0) {
		snprintf(msg, len, "tick rate %g is not a finite non-negative number", p->ticks_per_ns);
		return -1;
	}
	if (p->nnames && !p->names) {
		snprintf(msg, len, "name array missing");
		return -1;
	}
	if (check_list(p, p->paths, p->npaths, "path", 0, check_ids, scratch, msg, len) ||
	    check_list(p, p->nodes, p->nnodes, "node", 1, check_ids, scratch, msg, len) ||
	    check_offcpu(p, check_ids, scratch, msg, len) || check_throttled(p, msg, len) ||
	    pp__profile_invariants(p, msg, len))
		return -1;
	return 0;
}

int pp__profile_fail_io(char *err, size_t errlen, const char *path, const char *what, int e)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s: %s", path, what, strerror(e));
	return -1;
}

/* ---- canonical order (the dump and every reader) ---- */

static const pp_name_t *sort_base;

static int by_name(const void *a, const void *b)
{
	const pp_name_t *x = &sort_base[*(const uint32_t *)a];
	const pp_name_t *y = &sort_base[*(const uint32_t *)b];
	int r = strcmp(x->name, y->name);
	if (!r)
		r = strcmp(x->file, y->file);
	if (!r)
		r = (x->line > y->line) - (x->line < y->line);
	return r;
}

static int by_id(const void *a, const void *b)
{
	uint64_t x = ((const pp_ppath_t *)a)->id, y = ((const pp_ppath_t *)b)->id;
	return x < y ? -1 : x > y;
}

/* Paths or nodes by id (ids are unique in a list: entries merge by id).
 * qsort moved the entries themselves, 104 bytes each, at every step of its
 * merge (glibc's msort: a memcpy a move): 2.7 M instructions of SQLite's
 * exit dump, 6 700 entries. Here their (id, place) pairs go into 256
 * buckets by the 8 bits below the highest bit in which ids differ (ids are
 * hashes: a few pairs a bucket), each bucket is sorted on its own, and
 * then each entry moves once, along the permutation's cycles, in place
 * (0.6 M). */
struct id_at {
	uint64_t id;
	uint32_t at;
};

static int by_pair_id(const void *a, const void *b)
{
	uint64_t x = ((const struct id_at *)a)->id, y = ((const struct id_at *)b)->id;
	return x < y ? -1 : x > y;
}

/* A bucket: by insertion when small, qsort when ids crowd into it. */
static void sort_bucket(struct id_at *b, uint32_t n)
{
	if (n > 32) {
		qsort(b, n, sizeof *b, by_pair_id);
		return;
	}
	for (uint32_t i = 1; i < n; i++) {
		struct id_at x = b[i];
		uint32_t j = i;
		for (; j > 0 && b[j - 1].id > x.id; j--)
			b[j] = b[j - 1];
		b[j] = x;
	}
}

static void sort_by_id(pp_ppath_t *v, uint32_t n)
{
	if (n < 2)
		return;
	struct id_at *k = malloc(2 * (size_t)n * sizeof *k);
	if (!k) {
		qsort(v, n, sizeof *v, by_id);
		return;
	}
	struct id_at *b = k + n;
	uint64_t diff = 0;
	for (uint32_t i = 0; i < n; i++) {
		k[i] = (struct id_at){ v[i].id, i };
		diff |= v[i].id ^ v[0].id;
	}
	unsigned top = diff ? 63u - (unsigned)__builtin_clzll(diff) : 0;
	unsigned shift = top >= 7 ? top - 7 : 0;
	uint32_t start[257] = { 0 };
	for (uint32_t i = 0; i < n; i++)
		start[((k[i].id >> shift) & 255) + 1]++;
	for (unsigned d = 1; d < 257; d++)
		start[d] += start[d - 1];
	uint32_t fill[256];
	memcpy(fill, start, sizeof fill);
	for (uint32_t i = 0; i < n; i++)
		b[fill[(k[i].id >> shift) & 255]++] = k[i];
	for (unsigned d = 0; d < 256; d++)
		sort_bucket(b + start[d], start[d + 1] - start[d]);
	/* v[i] takes the entry at b[i].at: follow each cycle with one entry
	 * held; a place filled is marked by at == its own index */
	for (uint32_t i = 0; i < n; i++) {
		if (b[i].at == i)
			continue;
		pp_ppath_t held = v[i];
		uint32_t j = i;
		while (b[j].at != i) {
			uint32_t from = b[j].at;
			v[j] = v[from];
			b[j].at = j;
			j = from;
		}
		v[j] = held;
		b[j].at = j;
	}
	free(k);
}

/* Off-CPU entries: by total time, heaviest first, then by key. */
static int by_offcpu(const void *a, const void *b)
{
	const pp_offcpu_t *x = a, *y = b;
	if (x->time.sum != y->time.sum)
		return x->time.sum > y->time.sum ? -1 : 1;
	const uint64_t kx[4] = {x->blocked.id, x->waker.id, x->reason, x->waker_kind};
	const uint64_t ky[4] = {y->blocked.id, y->waker.id, y->reason, y->waker_kind};
	for (int i = 0; i < 4; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

int pp__profile_canonical(pp_profile_t *p)
{
	size_t n = p->nnames ? p->nnames : 1;
	uint32_t *order = malloc(n * sizeof *order);
	uint32_t *remap = malloc(n * sizeof *remap);
	pp_name_t *sorted = malloc(n * sizeof *sorted);
	if (!order || !remap || !sorted) {
		free(order);
		free(remap);
		free(sorted);
		return -1;
	}
	for (uint32_t i = 0; i < p->nnames; i++)
		order[i] = i;
	/* qsort has no context argument in C11; callers are single-threaded
	 * tools and the runtime's dump, which holds its lock. */
	sort_base = p->names;
	if (p->nnames > 1)
		qsort(order, p->nnames, sizeof *order, by_name);
	for (uint32_t i = 0; i < p->nnames; i++) {
		sorted[i] = p->names[order[i]];
		remap[order[i]] = i;
	}
	free(p->names);
	if (p->nnames) {
		p->names = sorted;
	} else {
		free(sorted);
		p->names = NULL;
	}
	for (uint32_t i = 0; i < p->npaths; i++)
		for (uint32_t j = 0; j < p->paths[i].depth; j++)
			p->paths[i].names[j] = remap[p->paths[i].names[j]];
	for (uint32_t i = 0; i < p->nnodes; i++)
		for (uint32_t j = 0; j < p->nodes[i].depth; j++)
			p->nodes[i].names[j] = remap[p->nodes[i].names[j]];
	for (uint32_t i = 0; i < p->noffcpu; i++) {
		pp_ppath_t *side[2] = {&p->offcpu[i].blocked, &p->offcpu[i].waker};
		for (int s = 0; s < 2; s++)
			for (uint32_t j = 0; j < side[s]->depth; j++)
				side[s]->names[j] = remap[side[s]->names[j]];
	}
	for (uint32_t i = 0; i < p->nthrottled; i++)
		p->throttled[i].name = remap[p->throttled[i].name];
	if (p->noffcpu > 1)
		qsort(p->offcpu, p->noffcpu, sizeof *p->offcpu, by_offcpu);
	sort_by_id(p->paths, p->npaths);
	sort_by_id(p->nodes, p->nnodes);
	free(order);
	free(remap);
	return 0;
}
