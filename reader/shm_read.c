/* The reader's side of the live segment: merge every slab of a segment
 * shm_open.c opened into a profile while the writer keeps running. Every
 * pointer is the writer's address: it is turned into an offset and checked
 * against the bytes the writer has handed out before it is touched, so a
 * damaged or hostile segment gives one error line, never a crash. Nothing
 * here stores into the mapping (it is PROT_READ). */
#define _GNU_SOURCE
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "profile_impl.h"
#include "profile_merge.h"
#include "runtime.h"
#include "shm.h"
#include "shm_read.h"
#include "shm_offline.h"
#include "tick_clock.h"
#include "slab.h"

#define SHM_MAX_DEPTH 65536u

#define fail pp__shm_fail


typedef struct walk {
	const pp__shm_view_t *v;
	uint64_t base, limit;
	char *err;
	size_t errlen;
	/* Every histogram count read so far. Kept below 2^64 (far out of a real
	 * writer's reach), so no segment merged from several slabs overflows. */
	uint64_t timed;
	uint32_t names_cap;
	pp__offline_t *offline; /* the writer's files, once a key needs them */
} walk_t;

/* Re-read used. The header was checked once, but a hostile writer can
 * rewrite it at any time: the mapping's own size is the bound that holds. */
static void refresh_limit(walk_t *w)
{
	uint64_t used = __atomic_load_n(&w->v->h->used, __ATOMIC_ACQUIRE);
	uint64_t size = __atomic_load_n(&w->v->h->arena_size, __ATOMIC_RELAXED);
	if (size > w->v->mapped)
		size = w->v->mapped;
	w->limit = used < size ? used : size;
}

/* Bytes [off, off + n) of the arena, or NULL when they were never handed out.
 * The limit is re-read so a reference published after the walk began (its
 * bytes were counted in used before it was published) still passes. */
static const void *at_off(walk_t *w, uint64_t off, uint64_t n, uint64_t align)
{
	if (off < PP__ARENA_HDR_BYTES || (off & (align - 1)) || n > w->limit || off > w->limit - n) {
		refresh_limit(w);
		if (off < PP__ARENA_HDR_BYTES || (off & (align - 1)) || n > w->limit ||
		    off > w->limit - n)
			return NULL;
	}
	return w->v->map + off;
}

/* More than fit in the used bytes: a list that loops. */
static int too_many(walk_t *w, uint64_t seen, uint64_t size)
{
	if (seen <= w->limit / size)
		return 0;
	refresh_limit(w);
	return seen > w->limit / size;
}

static const void *at_ptr(walk_t *w, uint64_t ptr, uint64_t n)
{
	if (ptr < w->base)
		return NULL;
	return at_off(w, ptr - w->base, n, 8);
}

static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	siglongjmp(bus_jmp, sig);
}

static const char *frontend_name(uint32_t fe)
{
	return fe < PP_FE_COUNT ? pp__frontend_name((int)fe) : "unknown";
}

/* Append key's name to raw and index it in by_key. */
static int add_name(walk_t *w, pp_profile_t *raw, pp__map_t *by_key, uint64_t key,
		    const char *name, uint32_t name_len, const char *file, uint32_t file_len,
		    uint32_t line)
{
	if (raw->nnames == w->names_cap) {
		uint32_t cap = w->names_cap ? w->names_cap * 2 : 64;
		pp_name_t *m = realloc(raw->names, cap * sizeof *m);
		if (!m)
			return fail(w->err, w->errlen, "out of memory");
		raw->names = m;
		w->names_cap = cap;
	}
	pp_name_t *n = &raw->names[raw->nnames];
	n->name = strndup(name, name_len);
	n->file = strndup(file, file_len);
	n->line = line;
	if (!n->name || !n->file) {
		free(n->name);
		free(n->file);
		return fail(w->err, w->errlen, "out of memory");
	}
	if (pp__map_put(by_key, key, raw->nnames++) != 0)
		return fail(w->err, w->errlen, "out of memory");
	return 0;
}

static int load_names(walk_t *w, pp_profile_t *raw, pp__map_t *by_key)
{
	const pp__shm_hdr_t *h = w->v->h;
	uint64_t off = __atomic_load_n(&h->names, __ATOMIC_ACQUIRE);
	uint64_t seen = 0;
	while (off) {
		if (too_many(w, ++seen, sizeof(pp__shm_name_t)))
			return fail(w->err, w->errlen, "%s: the name list loops", w->v->object);
		const pp__shm_name_t *r = at_off(w, off, sizeof *r, 8);
		if (!r)
			return fail(w->err, w->errlen, "%s: name record at offset %llu lies outside the "
				    "used %llu bytes", w->v->object, (unsigned long long)off,
				    (unsigned long long)w->limit);
		/* Read once: the lengths checked are the lengths used. */
		uint32_t name_len = __atomic_load_n(&r->name_len, __ATOMIC_RELAXED);
		uint32_t file_len = __atomic_load_n(&r->file_len, __ATOMIC_RELAXED);
		uint64_t tl = (uint64_t)name_len + file_len + 2;
		const char *text = at_off(w, off + sizeof *r, tl, 1);
		if (!text || text[name_len] || text[tl - 1])
			return fail(w->err, w->errlen, "%s: name record at offset %llu is damaged",
				    w->v->object, (unsigned long long)off);
		uint32_t dummy;
		if (!pp__map_get(by_key, r->key, &dummy) &&
		    add_name(w, raw, by_key, r->key, text, name_len, text + name_len + 1, file_len,
			     r->line) != 0)
			return -1;
		off = r->next;
	}
	return 0;
}

/* The writer's module list into o, for naming what it did not
 * (shm_offline.h). A damaged list names nothing more: the keys stay raw. */
static void load_modules(walk_t *w, pp__offline_t *o)
{
	uint64_t off = __atomic_load_n(&w->v->h->modules, __ATOMIC_ACQUIRE);
	uint64_t seen = 0;
	while (off && !too_many(w, ++seen, sizeof(pp__shm_module_t))) {
		const pp__shm_module_t *m = at_off(w, off, sizeof *m, 8);
		uint32_t pl = m ? __atomic_load_n(&m->path_len, __ATOMIC_RELAXED) : 0;
		const char *path = m ? at_off(w, off + sizeof *m, (uint64_t)pl + 1, 1) : NULL;
		char id[sizeof m->build_id];
		if (!path || path[pl])
			break;
		memcpy(id, m->build_id, sizeof id);
		id[sizeof id - 1] = '\0';
		if (pp__offline_add(o, path, m->bias, m->lo, m->hi, id) != 0)
			break;
		off = m->next;
	}
}

/* A key the writer has not named (it runs or ran one thread, or died
 * before its namer's next pass), named from its files where they can
 * (cyg, raii, plugin): 0 with *idx set, 1 when they cannot, -1 on error. */
static int name_from_files(walk_t *w, pp_profile_t *raw, pp__map_t *by_key, uint64_t key,
			   uint32_t *idx, pp__shm_stats_t *st)
{
	pp__offline_t *o = w->v->files;
	if (!o) {
		if (!w->offline)
			w->offline = pp__offline_new();
		o = w->offline;
	}
	if (!o)
		return 1;
	if (pp__offline_first(o))
		load_modules(w, o);
	const char *file;
	uint32_t line;
	const char *name = pp__offline_name(o, (int)w->v->h->frontend, key, &file, &line);
	if (!name)
		return 1;
	st->file_named++;
	*idx = raw->nnames;
	return add_name(w, raw, by_key, key, name, (uint32_t)strlen(name), file, (uint32_t)strlen(file),
			line);
}

/* A key nobody could name: "FRONTEND:0xKEY", as a trace whose name
 * records were lost replays. */
static int name_raw_key(walk_t *w, pp_profile_t *raw, pp__map_t *by_key, uint64_t key,
			uint32_t *idx, pp__shm_stats_t *st)
{
	st->raw_keys++;
	char text[64];
	int n = snprintf(text, sizeof text, "%s:%#llx", frontend_name(w->v->h->frontend),
			 (unsigned long long)key);
	*idx = raw->nnames;
	return add_name(w, raw, by_key, key, text, (uint32_t)n, "", 0, 0);
}


/* One segment's timing as of now: the count is the sum of the buckets read,
 * so a racing writer can never make the total disagree with the histogram. */
static int seg_read(walk_t *w, pp_seg_t *dst, const pp__segrt_t *g)
{
	pp__cell_row_t rows[PP__CELL_ROWS];
	uint32_t nrows = 0;
	uint64_t n = 0;
	memset(dst, 0, sizeof *dst);
	for (uint32_t r = 0; r < PP__CELL_ROWS; r++) {
		uint32_t ref = __atomic_load_n(&g->rows[r], __ATOMIC_ACQUIRE);
		if (!ref)
			continue;
		const uint64_t *cells = at_off(w, (uint64_t)ref << 7, PP__ROW_BYTES, 128);
		if (!cells)
			return fail(w->err, w->errlen, "%s: histogram row at offset %llu lies outside the "
				    "used %llu bytes", w->v->object, (unsigned long long)ref << 7,
				    (unsigned long long)w->limit);
		for (uint32_t i = 0; i < PP_HIST_SUB; i++) {
			uint64_t c = __atomic_load_n(&cells[i], __ATOMIC_RELAXED);
			if (c > UINT64_MAX - w->timed)
				return fail(w->err, w->errlen, "%s: histogram counts at offset %llu "
					    "overflow 64 bits", w->v->object, (unsigned long long)ref << 7);
			w->timed += c;
			n += c;
		}
		rows[nrows++] = (pp__cell_row_t){ cells, r };
	}
	if (!n)
		return 0;
	uint64_t min = __atomic_load_n(&g->min, __ATOMIC_RELAXED);
	uint64_t max = __atomic_load_n(&g->max, __ATOMIC_RELAXED);
	if (min > max)
		min = 0;
	if (pp__seg_from_cells(dst, rows, nrows, __atomic_load_n(&g->sum, __ATOMIC_RELAXED), min, max))
		return fail(w->err, w->errlen, "out of memory");
	return 0;
}

/* A path (count) or a node (timing g) of the raw per-slab profile; the
 * merge that follows adds entries of one id. */
static int add_raw(walk_t *w, const pp_profile_t *raw, pp_ppath_t **list, uint32_t *n,
		   uint32_t *cap, uint32_t depth, uint64_t count, const uint32_t *names,
		   const pp__segrt_t *g)
{
	if (*n == *cap) {
		uint32_t c = *cap ? *cap * 2 : 256;
		pp_ppath_t *m = realloc(*list, c * sizeof *m);
		if (!m)
			return fail(w->err, w->errlen, "out of memory");
		*list = m;
		*cap = c;
	}
	const char **strs = malloc(depth * sizeof *strs);
	pp_ppath_t *p = &(*list)[*n];
	*p = (pp_ppath_t){.count = count, .depth = depth, .names = malloc(depth * sizeof(uint32_t))};
	if (!strs || !p->names) {
		free(strs);
		free(p->names);
		return fail(w->err, w->errlen, "out of memory");
	}
	(*n)++; /* owned by raw from here: freed with it on error */
	for (uint32_t i = 0; i < depth; i++) {
		p->names[i] = names[i];
		strs[i] = raw->names[names[i]].name;
	}
	p->id = pp__path_id(strs, depth);
	free(strs);
	if (!g)
		return 0;
	p->self = __atomic_load_n(&g->self, __ATOMIC_RELAXED);
	p->open = __atomic_load_n(&g->open, __ATOMIC_RELAXED);
	return seg_read(w, &p->incl, g);
}

static int walk_slabs(walk_t *w, pp_profile_t *raw, pp__map_t *by_key, pp__shm_stats_t *st)
{
	const pp__shm_hdr_t *h = w->v->h;
	/* keys and timing of the paths walked: a real writer's paths never
	 * share bytes and each is walked once, so together they fit in used; a
	 * segment whose paths overlap could otherwise make the walk quadratic
	 * in its size. */
	uint64_t nslabs = 0, npaths = 0, walked = 0;
	uint32_t cap = 0, cap_nodes = 0;
	uint32_t *names = malloc(SHM_MAX_DEPTH * sizeof *names);
	if (!names)
		return fail(w->err, w->errlen, "out of memory");
	int rc = 0;
	uint64_t sp = __atomic_load_n(&h->slabs, __ATOMIC_ACQUIRE);
	while (sp && rc == 0) {
		const pp__slab_t *s = at_ptr(w, sp, sizeof *s);
		if (too_many(w, ++nslabs, sizeof(pp__slab_t))) {
			rc = fail(w->err, w->errlen, "%s: the slab list loops", w->v->object);
			break;
		}
		if (!s || s->pub.magic != PP__SLAB_MAGIC) {
			rc = fail(w->err, w->errlen, "%s: slab at %#llx %s", w->v->object,
				  (unsigned long long)sp,
				  s ? "has a bad magic" : "lies outside the used part of the mapping");
			break;
		}
		raw->events += __atomic_load_n(&s->pub.events, __ATOMIC_RELAXED);
		raw->drops_table += __atomic_load_n(&s->drops_table, __ATOMIC_RELAXED);
		raw->drops_depth += __atomic_load_n(&s->drops_depth, __ATOMIC_RELAXED);
		raw->unmatched += __atomic_load_n(&s->unmatched, __ATOMIC_RELAXED);
		st->threads_live += __atomic_load_n(&s->live, __ATOMIC_RELAXED) != 0;
		uint64_t pp = (uint64_t)(uintptr_t)__atomic_load_n(&s->head, __ATOMIC_ACQUIRE);
		while (pp && rc == 0) {
			const pp__path_t *p = at_ptr(w, pp, sizeof *p);
			if (too_many(w, ++npaths, sizeof(pp__path_t))) {
				rc = fail(w->err, w->errlen, "%s: a path list loops", w->v->object);
				break;
			}
			uint32_t depth = p ? p->depth : 0;
			if (!p || depth == 0 || depth > SHM_MAX_DEPTH ||
			    !at_ptr(w, pp, sizeof *p + (uint64_t)depth * sizeof(uint64_t))) {
				rc = fail(w->err, w->errlen, "%s: path at %#llx %s", w->v->object,
					  (unsigned long long)pp,
					  p ? "has a bad depth or runs past the used bytes"
					    : "lies outside the used part of the mapping");
				break;
			}
			uint64_t count = __atomic_load_n(&p->count, __ATOMIC_RELAXED);
			uint64_t gp = (uint64_t)(uintptr_t)__atomic_load_n(&p->seg, __ATOMIC_ACQUIRE);
			const pp__segrt_t *g = NULL;
			if (gp && !(g = at_ptr(w, gp, sizeof *g))) {
				rc = fail(w->err, w->errlen, "%s: timing of path at %#llx lies outside the "
					  "used part of the mapping", w->v->object, (unsigned long long)pp);
				break;
			}
			walked += (uint64_t)depth * sizeof(uint64_t) + (g ? sizeof *g : 0);
			if (too_many(w, walked, 1)) {
				rc = fail(w->err, w->errlen, "%s: a list loops or paths overlap (their "
					  "keys and timing exceed the used %llu bytes)", w->v->object,
					  (unsigned long long)w->limit);
				break;
			}
			/* A key without a published name is named from the
			 * writer's files, else (raw keys wanted) raw, else its
			 * path waits for the namer. */
			uint32_t known = 0;
			for (; known < depth; known++) {
				uint64_t k = p->keys[known];
				if (pp__map_get(by_key, k, &names[known]))
					continue;
				rc = name_from_files(w, raw, by_key, k, &names[known], st);
				if (rc == 1 && w->v->raw_keys)
					rc = name_raw_key(w, raw, by_key, k, &names[known], st);
				if (rc != 0)
					break;
			}
			if (rc == 1)
				rc = 0; /* unnamed, no raw keys wanted: known < depth */
			if (rc != 0)
				break;
			if (known < depth && !w->v->raw_keys) {
				st->unnamed_records += count;
			} else {
				if (count)
					rc = add_raw(w, raw, &raw->paths, &raw->npaths, &cap, depth,
						     count, names, NULL);
				if (rc == 0 && g)
					rc = add_raw(w, raw, &raw->nodes, &raw->nnodes, &cap_nodes,
						     depth, 0, names, g);
			}
			pp = (uint64_t)(uintptr_t)p->next;
		}
		sp = (uint64_t)(uintptr_t)s->next_all;
	}
	free(names);
	return rc;
}

int pp__shm_names(const pp__shm_view_t *v, pp_profile_t *names, pp__map_t *by_key, char *err,
		  size_t errlen)
{
	memset(names, 0, sizeof *names);
	if (pp__shm_check(v, err, errlen) != 0)
		return -1;
	walk_t w = {v, v->h->base, 0, err, errlen, 0, 0, NULL};
	return load_names(&w, names, by_key);
}

/* 1 when the writer's first reading of the clock and the counter is of
 * this boot, so this process reads the same ones. */
static int same_clock(const pp__shm_hdr_t *h)
{
	char boot[sizeof h->boot_id];
	if (!h->tick0 || !h->clock0_ns || !h->boot_id[0] ||
	    memchr(h->boot_id, '\0', sizeof h->boot_id) == NULL)
		return 0;
	pp__boot_id(boot, sizeof boot);
	return strcmp(boot, h->boot_id) == 0;
}

/* A writer that never ran a naming pass (one thread, PATHPROF_NAMER=auto)
 * published no tick rate, but its first reading of the clock and the
 * counter: on the same boot the counter is the one this process reads, so
 * the rate from that reading to now is the writer's (format/tick_clock.h).
 * 0 (times stay in ticks) for another boot's segment or a writer without
 * the reading. */
static double rate_from_origin(const pp__shm_hdr_t *h)
{
#if defined(__x86_64__) || defined(__aarch64__)
	if (!same_clock(h))
		return 0;
	double r = pp__tick_rate_since(h->clock0_ns, h->tick0);
	return isfinite(r) && r > 0 ? r : 0;
#else
	(void)h;
	return 0;
#endif
}

int pp__shm_snapshot(pp__shm_view_t *v, pp_profile_t *p, pp__shm_stats_t *st, char *err,
		     size_t errlen)
{
	memset(p, 0, sizeof *p);
	memset(st, 0, sizeof *st);
	if (pp__shm_check(v, err, errlen) != 0)
		return -1;
	/* the writer may have grown past the mapping since the last look */
	if (v->fd >= 0 && __atomic_load_n(&v->h->used, __ATOMIC_ACQUIRE) > v->mapped &&
	    pp__shm_map_used(v, err, errlen) != 0)
		return -1;
	const pp__shm_hdr_t *h = v->h;
	walk_t w = {v, h->base, 0, err, errlen, 0, 0, NULL};
	pp_profile_t raw = {0};
	pp__map_t by_key = {0};
	int rc = -1;
	/* The object can shrink under us (another process truncates it):
	 * then a load faults with SIGBUS, which becomes an error here. */
	struct sigaction sa = {.sa_handler = on_bus}, old;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(bus_jmp, 1)) {
		fail(err, errlen, "%s: the segment shrank while being read", v->object);
		goto out;
	}
	if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == PP__SHM_DETACHED) {
		fail(err, errlen,
		     "%s: process %llu stopped exporting (/dev/shm was full); its counts stay "
		     "exact in the process and in the profile it writes at exit",
		     v->object, (unsigned long long)h->pid);
		goto out;
	}
	st->generation = __atomic_load_n(&h->generation, __ATOMIC_ACQUIRE);
	/* on the writer's run clock, as its own stamps are */
	st->taken_ns = same_clock(h) ? pp__run_clock_ns(h->start_ns, h->clock0_ns) : pp__realtime_ns();
	st->pid = h->pid;
	st->uid = v->owner;
	st->exited = __atomic_load_n(&h->state, __ATOMIC_ACQUIRE) == PP__SHM_EXITED;
	st->alive = !st->exited && pp__shm_writer_alive(h->pid, h->start_boot_ns);
	st->crash_signal = __atomic_load_n(&h->crash_signal, __ATOMIC_ACQUIRE);
	st->namer = __atomic_load_n(&h->namer_tid, __ATOMIC_ACQUIRE) != 0;
	st->update_ns = __atomic_load_n(&h->update_ns, __ATOMIC_ACQUIRE);
	st->exit_ns = __atomic_load_n(&h->exit_ns, __ATOMIC_RELAXED);
	memcpy(st->program, h->program, sizeof st->program);
	st->program[sizeof st->program - 1] = '\0';

	raw.version = PP_PROFILE_VERSION;
	raw.frontend = strdup(frontend_name(h->frontend));
	raw.command = strndup(h->command, sizeof h->command);
	raw.service = strndup(h->service, sizeof h->service);
	raw.host = strndup(h->host, sizeof h->host);
	raw.build_id = strndup(h->build_id, sizeof h->build_id);
	raw.pid = h->pid;
	raw.start_ns = h->start_ns;
	/* A dead writer's run ended after its last naming pass (every 50 ms)
	 * and before now, possibly long before: the pass is the bound kept.
	 * A writer that never had a naming thread (one thread, PATHPROF_NAMER
	 * auto) left no such mark: its run is bounded by now, which no time
	 * it recorded can exceed. */
	raw.end_ns = st->exit_ns ? st->exit_ns : st->taken_ns;
	if (!st->exit_ns && !st->alive && st->namer && st->update_ns >= raw.start_ns &&
	    st->update_ns < raw.end_ns)
		raw.end_ns = st->update_ns;
	raw.ticks_per_ns = isfinite(h->ticks_per_ns) && h->ticks_per_ns > 0 ? h->ticks_per_ns : 0;
	if (raw.ticks_per_ns == 0)
		raw.ticks_per_ns = rate_from_origin(h);
	raw.timing = h->timing <= 2 ? h->timing : 0;
	raw.sample_n = h->sample_n;
	/* the gate's cost, measured while the writer ran (0: not yet) */
	pp__shm_cost_unpack(__atomic_load_n(&h->gate_cost, __ATOMIC_ACQUIRE), &raw.gate_in, &raw.gate_out);
	raw.threads = __atomic_load_n(&h->threads, __ATOMIC_RELAXED);
	raw.unprofiled_frames = __atomic_load_n(&h->skipped, __ATOMIC_RELAXED);
	if (!raw.frontend || !raw.command || !raw.service || !raw.host || !raw.build_id) {
		fail(err, errlen, "out of memory");
		goto out;
	}
	/* Names first: a path seen below whose keys are not named yet is
	 * counted as unnamed rather than shown half-named. */
	if (load_names(&w, &raw, &by_key) != 0 || walk_slabs(&w, &raw, &by_key, st) != 0)
		goto out;
	raw.records = raw.drops_table + st->unnamed_records;
	for (uint32_t i = 0; i < raw.npaths; i++)
		raw.records += raw.paths[i].count;
	/* Slabs can hold the same path: their sum can still be refused. */
	char why[256];
	rc = pp__profile_merge(p, &raw, why, sizeof why);
	if (rc != 0) {
		fail(err, errlen, "%s: %s", v->object, why);
	} else {
		/* what the writer would refuse to save is a damaged segment */
		rc = pp__profile_invariants(p, why, sizeof why);
		if (rc != 0)
			fail(err, errlen, "%s: damaged segment: %s", v->object, why);
	}
out:
	sigaction(SIGBUS, &old, NULL);
	pp__map_free(&by_key);
	pp__offline_free(w.offline);
	pp__profile_free(&raw);
	if (rc != 0)
		pp__profile_free(p);
	return rc;
}
