/* From slabs to a profile: merge every slab (live threads and exited ones)
 * into the self-describing profile model, name keys, assign stable path ids,
 * and write it at exit or on request. Paths are merged first by running hash
 * (cheap, exact within the process) and then by stable id (two sites with the
 * same names are the same path to the user). Output order is sorted, so the
 * same events always give the same bytes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_high.h"
#include "map.h"
#include "out_claim.h"
#include "path_ids.h"
#include "profile.h"
#include "gate_window.h"
#include "runtime.h"
#include "shm.h"
#include "select.h"
#include "slab.h"
#include "raii_patch.h"
#include "site_patch.h"
#include "throttle.h"
#include "recorder.h"

static pthread_mutex_t dump_lock = PTHREAD_MUTEX_INITIALIZER;

/* Paths and nodes are gathered alike into one of two lists. */
typedef struct clist {
	pp_ppath_t **items;
	uint32_t *n;
	uint32_t cap;
	pp__map_t ids; /* stable id -> index */
} clist_t;

typedef struct collect {
	pp_profile_t *p;
	pp__resolver_t *res;
	pp__map_t key_names; /* key -> name index */
	uint32_t cap_names;
	clist_t paths, nodes;
	pp__ids_t ids; /* the prefixes' hashes met so far */
	uint32_t *names;     /* a record's name indices, reused record to record */
	uint64_t *keys;      /* ... the keys they name: at a position where the
			      * next record has the same key (records come in
			      * the order they were first seen, so neighbours
			      * share prefixes), no lookup */
	uint32_t cap_depth;  /* ... room for this many */
	uint32_t known;      /* ... positions filled so far */
} collect_t;

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

static char *read_cmdline(void)
{
	char buf[4096];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return xstrdup(program_invocation_name);
	for (ssize_t i = 0; i < n - 1; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return xstrdup(buf);
}

static int name_index(collect_t *c, int fe, uint64_t key, uint32_t *out)
{
	if (pp__map_get(&c->key_names, key, out))
		return 0;
	pp_profile_t *p = c->p;
	if (p->nnames == c->cap_names) {
		uint32_t cap = c->cap_names ? c->cap_names * 2 : 64;
		pp_name_t *m = realloc(p->names, cap * sizeof *m);
		if (!m)
			return -1;
		p->names = m;
		c->cap_names = cap;
	}
	const char *file, *name;
	uint32_t line;
	if (!pp__shm_named(key, &name, &file, &line))
		name = pp__resolve(c->res, fe, key, &file, &line);
	pp_name_t *n = &p->names[p->nnames];
	n->name = xstrdup(name);
	n->file = xstrdup(file);
	n->line = line;
	if (!n->name || !n->file)
		return -1;
	pp__trace_name(fe, key, n->name, n->file, n->line);
	*out = p->nnames++;
	return pp__map_put(&c->key_names, key, *out);
}

/* A consistent snapshot of one node's timing: the count is taken from the
 * buckets themselves, so a writer racing with us cannot make the total
 * disagree with the histogram. */
static int seg_snapshot(pp_seg_t *dst, const pp__segrt_t *g)
{
	pp__cell_row_t rows[PP__CELL_ROWS];
	uint32_t n = 0;
	for (uint32_t r = 0; r < PP__CELL_ROWS; r++) {
		uint32_t ref = __atomic_load_n(&g->rows[r], __ATOMIC_ACQUIRE);
		if (ref) {
			const uint64_t *cells = pp__arena_ptr(ref);
			/* fetched while the rest of the rows are looked at */
			__builtin_prefetch(cells);
			__builtin_prefetch(cells + 8);
			rows[n++] = (pp__cell_row_t){ cells, r };
		}
	}
	uint64_t min = g->min, max = g->max;
	if (min > max) /* a writer was mid-update: fall back to bucket bounds */
		min = 0;
	return pp__seg_from_cells(dst, rows, n, g->sum, min, max);
}

/* The name indices of a record's keys, into c->names, and its stable id,
 * found once for both of its entries (its path's count, its node's time),
 * the id from the hashes of the prefixes met before (path_ids.h). */
static int record_names(collect_t *c, int fe, const uint64_t *keys, uint32_t depth, uint64_t *id)
{
	if (depth > c->cap_depth) {
		uint32_t *m = realloc(c->names, depth * sizeof *m);
		if (m)
			c->names = m;
		uint64_t *k = realloc(c->keys, depth * sizeof *k);
		if (k)
			c->keys = k;
		if (!m || !k)
			return -1;
		c->cap_depth = depth;
	}
	for (uint32_t i = 0; i < depth; i++) {
		if (i < c->known && c->keys[i] == keys[i])
			continue;
		if (name_index(c, fe, keys[i], &c->names[i]) != 0)
			return -1;
		c->keys[i] = keys[i];
	}
	if (depth > c->known)
		c->known = depth;
	*id = pp__ids_get(&c->ids, c->p->names, c->names, depth);
	return 0;
}

/* Add (count, self, open, incl) to list l under id, merging by it; a new
 * entry keeps a copy of names; incl is taken over (zeroed in the caller's
 * hands). */
static int add_entry(collect_t *c, clist_t *l, uint64_t id, const uint32_t *names, uint32_t depth,
		     uint64_t count, uint64_t self, uint64_t open, pp_seg_t *incl)
{
	pp_profile_t *p = c->p;
	uint32_t at;
	if (pp__map_get(&l->ids, id, &at)) {
		pp_ppath_t *q = &(*l->items)[at];
		if (q->depth != depth) {
			/* A 64-bit id collision between different paths: keep the
			 * first, count the other as dropped rather than mix them. */
			p->drops_table += count;
			return 0;
		}
		q->count += count;
		q->self += self;
		q->open += open;
		return pp__seg_merge(&q->incl, incl);
	}
	if (*l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 256;
		pp_ppath_t *m = realloc(*l->items, cap * sizeof *m);
		if (!m)
			return -1;
		*l->items = m;
		l->cap = cap;
	}
	uint32_t *own = malloc(depth * sizeof *own);
	if (!own)
		return -1;
	memcpy(own, names, depth * sizeof *own);
	if (pp__map_put(&l->ids, id, *l->n) != 0) {
		free(own);
		return -1;
	}
	(*l->items)[(*l->n)++] = (pp_ppath_t){id, count, depth, own, self, *incl, open};
	memset(incl, 0, sizeof *incl);
	return 0;
}

/* One runtime record: a path when it ended leaves, a node when it was timed. */
static int add_record(collect_t *c, int fe, const pp__path_t *rp)
{
	const pp__segrt_t *g = __atomic_load_n((pp__segrt_t **)&rp->seg, __ATOMIC_ACQUIRE);
	pp_seg_t none = {0}, incl = {0};
	/* a node seen only in cut calls (burst timing) has time and no call */
	if (g && seg_snapshot(&incl, g) != 0)
		return -1;
	int timed = g && (incl.count || g->self || g->open);
	uint64_t id;
	int rc = 0;
	if ((rp->count || timed) && (rc = record_names(c, fe, rp->keys, rp->depth, &id)) == 0) {
		if (rp->count)
			rc = add_entry(c, &c->paths, id, c->names, rp->depth, rp->count, 0, 0, &none);
		if (rc == 0 && timed)
			rc = add_entry(c, &c->nodes, id, c->names, rp->depth, 0, g->self, g->open, &incl);
	}
	pp__seg_free(&incl);
	return rc;
}

/* Merging is bound by memory, not by instructions: on SQLite's exit dump
 * four fifths of perf's samples in it fell on the first loads of a
 * record's timing, its keys and the record itself, each a cache miss
 * (the run pushed them out long ago). So the records are listed first,
 * and the timing and keys of the one AHEAD places on are fetched while
 * this one is merged. */
enum { AHEAD = 4 };

typedef struct rec {
	const pp__path_t *rp;
	const pp__segrt_t *g; /* for the fetch only: add_record loads it again */
	uint32_t depth;
} rec_t;

static void fetch_ahead(const rec_t *r)
{
	const char *k = (const char *)r->rp->keys;
	for (uint32_t off = 0; off < r->depth * sizeof(uint64_t); off += 64)
		__builtin_prefetch(k + off);
	for (uint32_t off = 0; r->g && off < sizeof *r->g; off += 64)
		__builtin_prefetch((const char *)r->g + off);
}

/* Every slab's records, in list order, into *l (n of them): 0, or -1
 * when there is no memory for the list. */
static int list_records(rec_t **l, size_t *n)
{
	size_t cap = 0;
	*l = NULL;
	*n = 0;
	for (pp__slab_t *s = pp__slab_first(); s; s = s->next_all) {
		for (pp__path_t *q = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE); q; q = q->next) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 1024;
				rec_t *m = realloc(*l, cap * sizeof *m);
				if (!m) {
					free(*l);
					*l = NULL;
					return -1;
				}
				*l = m;
			}
			(*l)[(*n)++] = (rec_t){ q, __atomic_load_n((pp__segrt_t **)&q->seg, __ATOMIC_ACQUIRE),
						q->depth };
		}
	}
	return 0;
}

/* Every record merged: from the list, fetching ahead; without the memory
 * for it, as the slabs' lists are walked. */
static int add_records(collect_t *c, int fe)
{
	rec_t *l;
	size_t n;
	int rc = 0;
	if (list_records(&l, &n) != 0) {
		for (pp__slab_t *s = pp__slab_first(); s && rc == 0; s = s->next_all)
			for (pp__path_t *q = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE); q && rc == 0;
			     q = q->next)
				rc = add_record(c, fe, q);
		return rc;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (i + AHEAD < n)
			fetch_ahead(&l[i + AHEAD]);
		rc = add_record(c, fe, l[i].rp);
	}
	free(l);
	return rc;
}

/* The budget and the functions it stopped, named like the paths' keys. */
static int add_throttled(collect_t *c, int fe)
{
	const pp__throttle_entry_t *l;
	uint32_t n = pp__throttle_list(&l);
	pp_profile_t *p = c->p;
	p->budget = 100 * pp__throttle_budget();
	pp__site_patch_counts(&p->patched_sites, &p->refused_sites);
	uint32_t raii_patched, raii_left;
	pp__raii_patch_counts(&raii_patched, &raii_left);
	p->patched_sites += raii_patched;
	p->refused_sites += raii_left;
	if (!n)
		return 0;
	if (!(p->throttled = calloc(n, sizeof *p->throttled)))
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		pp_throttled_t *e = &p->throttled[p->nthrottled];
		if (name_index(c, fe, l[i].key, &e->name) != 0)
			return -1;
		e->calls = l[i].calls;
		e->incl = l[i].incl;
		e->at_ns = l[i].at_ns;
		p->nthrottled++;
	}
	return 0;
}

int pp__profile_collect(pp_profile_t *p, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	collect_t c = {.p = p, .res = pp__resolver_open(),
		       .paths = {.items = &p->paths, .n = &p->npaths},
		       .nodes = {.items = &p->nodes, .n = &p->nnodes}};
	int fe = __atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED);
	p->version = PP_PROFILE_VERSION;
	p->frontend = xstrdup(pp__frontend_name(fe));
	p->command = read_cmdline();
	p->service = strdup(pp__g.service);
	p->host = strdup(pp__g.host);
	p->build_id = strdup(pp__g.build_id);
	p->pid = pp__g.pid;
	p->start_ns = pp__g.start_ns;
	p->end_ns = pp__run_now_ns();
	p->ticks_per_ns = pp__clock_ticks_per_ns();
	p->timing = pp__mode.timing;
	p->sample_n = pp__mode.sample_n;
	p->windows = __atomic_load_n(&pp__g.windows, __ATOMIC_RELAXED);
	p->selection = pp__select_describe();
	p->roots = pp__select_roots();
	pp__gate_cost_get(&p->gate_in, &p->gate_out);
	/* the program's CPU time over the run and its switches, when this is
	 * the process (a copy writing at a crash, _exit or exec would give its
	 * own) */
	struct rusage ru;
	if ((uint64_t)getpid() == pp__g.pid && getrusage(RUSAGE_SELF, &ru) == 0) {
		p->has_cpu = 1;
		p->cpu_ns = pp__program_cpu_ns();
		p->nvcsw = (uint64_t)ru.ru_nvcsw;
		p->nivcsw = (uint64_t)ru.ru_nivcsw;
		p->end_ns = pp__run_now_ns(); /* the run ends after the CPU read */
	}
	p->threads = pp__threads_seen();
	p->unprofiled_frames = pp__g.skipped;
	p->unprofiled_threads = pp__g.unprofiled_threads;
	p->drops_signal = pp__g.signal_skipped;
	p->crash_signal = pp__g.crash_signal;
	p->crash_tid = pp__g.crash_tid;
	int rc = c.res && p->frontend && p->command && p->service && p->host && p->build_id ? 0 : -1;
	/* Every map below takes about one entry a distinct record (a prefix
	 * of a record is a record: its node): room for them at once saves
	 * rehashing at each doubling. The largest slab's records are a floor
	 * of the distinct ones, and all of them when one thread did the work;
	 * the sum over slabs would count the same path once a thread. Only a
	 * hint: without the memory, or with more, the maps grow as they fill. */
	uint64_t records = 0;
	for (pp__slab_t *s = pp__slab_first(); s; s = s->next_all) {
		uint64_t n = __atomic_load_n(&s->npaths, __ATOMIC_RELAXED);
		records = n > records ? n : records;
	}
	if (records < UINT32_MAX / 4) {
		pp__map_reserve(&c.paths.ids, records);
		pp__map_reserve(&c.nodes.ids, records);
		pp__map_reserve(&c.ids.at, records);
	}
	for (pp__slab_t *s = pp__slab_first(); s && rc == 0; s = s->next_all) {
		p->events += s->pub.events;
		p->drops_table += s->drops_table;
		p->drops_depth += s->drops_depth;
		p->unmatched += s->unmatched;
		p->outside_roots += s->outside_roots;
		p->drops_time += s->drops_time;
		p->drops_signal += s->drops_signal;
		p->own_ticks += s->own_ticks;
		p->own_n += s->own_n;
	}
	if (rc == 0)
		rc = add_records(&c, fe);
	if (rc == 0)
		rc = add_throttled(&c, fe);
	if (rc == 0)
		rc = pp__profile_canonical(p);
	p->ids_from_names = 1;
	p->records = p->drops_table;
	for (uint32_t i = 0; i < p->npaths; i++)
		p->records += p->paths[i].count;
	pp__resolver_close(c.res);
	pp__map_free(&c.key_names);
	pp__ids_free(&c.ids);
	free(c.names);
	free(c.keys);
	pp__map_free(&c.paths.ids);
	pp__map_free(&c.nodes.ids);
	if (rc != 0) {
		snprintf(err, errlen, "out of memory while merging the profile");
		pp__profile_free(p);
	}
	return rc;
}

static uint64_t cpu_clock_ns(clockid_t id)
{
	struct timespec t;
	if (clock_gettime(id, &t) != 0)
		return 0;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

uint64_t pp__process_cpu_ns(void)
{
	return cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

uint64_t pp__thread_cpu_ns(void)
{
	return cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void pp__own_cpu_since(uint64_t from)
{
	uint64_t now = pp__thread_cpu_ns();
	if (now > from)
		__atomic_fetch_add(&pp__g.own_cpu, now - from, __ATOMIC_RELAXED);
}

static uint64_t program_cpu_now(void)
{
	uint64_t all = pp__process_cpu_ns(),
		 own = pp__g.cpu_at_start + __atomic_load_n(&pp__g.own_cpu, __ATOMIC_RELAXED) +
		       pp__shm_namer_cpu_ns() + pp__throttle_cpu_ns();
	return all > own ? all - own : 0;
}

uint64_t pp__program_cpu_ns(void)
{
	if (__atomic_load_n(&pp__g.cpu_frozen, __ATOMIC_ACQUIRE))
		return pp__g.cpu_end;
	return program_cpu_now();
}

void pp__program_cpu_restart(void)
{
	if (!__atomic_load_n(&pp__g.cpu_frozen, __ATOMIC_ACQUIRE))
		pp__g.cpu_at_start += program_cpu_now();
}

void pp__program_cpu_freeze(void)
{
	if (__atomic_load_n(&pp__g.cpu_frozen, __ATOMIC_ACQUIRE))
		return;
	pp__g.cpu_end = program_cpu_now();
	__atomic_store_n(&pp__g.cpu_frozen, 1, __ATOMIC_RELEASE);
}

/* The exit dump's profile, never freed: the process is ending, and freeing
 * its thousands of allocations took 2.3 M of the 35 M instructions a
 * SQLite run's exit dump took (bench/README.md, "Gates inlined into
 * dropped functions"). Kept here, it stays reachable for leak checkers. */
static pp_profile_t exit_profile;

/* Dump to path; at_exit: keep the profile in exit_profile. */
static int dump(const char *path, int at_exit)
{
	char file[4200], err[512];
	pp_profile_t p;
	int saved = errno;
	pthread_mutex_lock(&dump_lock);
	pp__out_path(path, file, sizeof file);
	int created = 0;
	int lock = path ? -1 : pp__out_claim(file, sizeof file, &created);
	int rc = pp__profile_collect(&p, err, sizeof err);
	if (rc == 0) {
		pp__trace_dumped(&p);
		rc = pp__profile_write(&p, file, err, sizeof err);
		if (at_exit && !exit_profile.version)
			exit_profile = p;
		else
			pp__profile_free(&p);
	}
	if (rc != 0 && created)
		unlink(file); /* the empty claim */
	if (lock >= 0)
		close(lock);
	pthread_mutex_unlock(&dump_lock);
	if (rc != 0)
		pp__warn("%s", err);
	errno = saved;
	return rc;
}

int pp__dump(const char *path)
{
	return dump(path, 0);
}

void pp__summary(FILE *out, int n)
{
	char err[512];
	pp_profile_t p;
	pthread_mutex_lock(&dump_lock);
	int rc = pp__profile_collect(&p, err, sizeof err);
	if (rc == 0)
		pp__summary_print(out, &p, n);
	pthread_mutex_unlock(&dump_lock);
	if (rc != 0) {
		pp__warn("%s", err);
		return;
	}
	pp__profile_free(&p);
}

/* The trace freezes first, so that its replay is this profile exactly. */
static void exit_dump(void)
{
	if (__atomic_load_n(&pp__g.exit_dump, __ATOMIC_ACQUIRE)) {
		/* the run's CPU time ends here: what follows is pathprof's */
		pp__program_cpu_freeze();
		pp__trace_freeze();
		pp__throttle_stop();
		pp__burst_stop();
		pp__select_report();
		pp__gate_cost_measure();
		/* Nobody asked for this file by name: say where it went and how
		 * it was taken, once, or a first run leaves a puzzle in the
		 * current directory (#32; docs/reference/runtime.md, Defaults). */
		if (dump(NULL, 1) == 0 && !pp__g.out[0])
			pp__warn("profile written to %s (timing %s; PATHPROF_OUT=FILE names it, "
				 "PATHPROF_TIMING=on times it, 'pathprof run' does both)",
				 pp__out_claimed(), pp__mode.timing == PP_TIMING_ON ? "on"
					  : pp__mode.timing == PP_TIMING_SAMPLE ? "sampled"
					  : pp__mode.timing == PP_TIMING_BURST ? "in bursts" : "off");
	}
}

void pp__hook_exit(void)
{
	if (__atomic_exchange_n(&pp__g.exit_dump_hooked, 1, __ATOMIC_ACQ_REL))
		return;
	__atomic_store_n(&pp__g.exit_dump, 1, __ATOMIC_RELEASE);
	atexit(exit_dump);
}

void pp__disable_exit_dump(void)
{
	__atomic_store_n(&pp__g.exit_dump_hooked, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&pp__g.exit_dump, 0, __ATOMIC_RELEASE);
}
