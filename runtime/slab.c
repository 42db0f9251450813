/* The arena and the per-thread slabs carved from it (see slab.h).
 * Everything here runs off the hot path: at a thread's first gate, when a
 * path is first seen, at thread exit and at dump. The arena is reserved once
 * with MAP_NORESERVE, so untouched slab memory (most of a path table) costs
 * address space, not resident memory. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"
#include "slab.h"

#define CHUNK_BYTES (256u * 1024u)

pp__arena_t pp__arena;
pp__config_t pp__config = {.depth = 256, .paths = 65536, .arena_mb = 65536};

static pthread_mutex_t slab_lock = PTHREAD_MUTEX_INITIALIZER;
static pp__slab_t *all_slabs;  /* every slab, newest first (release-published) */
static pp__slab_t *free_slabs; /* slabs of exited threads */
static uint64_t threads_seen;
static pthread_key_t exit_key;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;
static int arena_ok;

static void thread_exit(void *arg);

static void arena_reserve(void)
{
	size_t size = pp__config.arena_mb << 20;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		pp__warn("cannot reserve %zu MiB for the arena: %s; profiling is off",
			 pp__config.arena_mb, strerror(errno));
		return;
	}
	pp__arena.base = p;
	pp__arena.size = size;
	/* Offset 0 means "no row" in segment references: never hand it out. */
	pp__arena.used = 128;
	if (pthread_key_create(&exit_key, thread_exit) != 0) {
		pp__warn("cannot create the thread-exit key; profiling is off");
		return;
	}
	arena_ok = 1;
}

void *pp__arena_alloc(size_t n)
{
	n = (n + 127) & ~(size_t)127;
	size_t off = __atomic_fetch_add(&pp__arena.used, n, __ATOMIC_RELAXED);
	if (off + n > pp__arena.size || off + n < off)
		return NULL;
	return pp__arena.base + off;
}

uint32_t pp__arena_ref(const void *p)
{
	return (uint32_t)(((const char *)p - pp__arena.base) >> 7);
}

void *pp__arena_ptr(uint32_t ref)
{
	return pp__arena.base + ((size_t)ref << 7);
}

void *pp__slab_alloc(pp__slab_t *s, size_t n, int align128)
{
	size_t a = align128 ? 128 : 8;
	n = (n + 7) & ~(size_t)7;
	uintptr_t at = ((uintptr_t)s->bump + a - 1) & ~(uintptr_t)(a - 1);
	if (s->bump == NULL || at + n > (uintptr_t)s->end) {
		if (n > CHUNK_BYTES)
			return NULL;
		char *c = pp__arena_alloc(CHUNK_BYTES);
		if (!c)
			return NULL;
		s->bump = c;
		s->end = c + CHUNK_BYTES;
		at = (uintptr_t)c;
	}
	s->bump = (char *)(at + n);
	return (void *)at;
}

static uint64_t pow2_at_least(uint64_t v)
{
	uint64_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

/* A new slab: header, frames (plus the sentinel) and a table with twice as
 * many slots as paths, so probes stay short when it is full. */
static pp__slab_t *slab_create(void)
{
	uint64_t slots = pow2_at_least(pp__config.paths * 2);
	size_t frames_off = (sizeof(pp__slab_t) + 63) & ~(size_t)63;
	size_t table_off = frames_off + (pp__config.depth + 1) * sizeof(pp__frame_t);
	table_off = (table_off + 4095) & ~(size_t)4095;
	size_t total = table_off + slots * sizeof(pp__slot_t);
	char *m = pp__arena_alloc(total);
	if (!m)
		return NULL;
	pp__slab_t *s = (pp__slab_t *)m;
	s->pub.magic = PP__SLAB_MAGIC;
	s->frames = (pp__frame_t *)(m + frames_off);
	s->table = (pp__slot_t *)(m + table_off);
	s->mask = slots - 1;
	s->capacity = pp__config.paths;
	s->next_all = all_slabs;
	__atomic_store_n(&all_slabs, s, __ATOMIC_RELEASE);
	return s;
}

int pp__thread_register(pp__tls_t *t, int fe)
{
	pp__init();
	pthread_once(&arena_once, arena_reserve);
	if (!arena_ok)
		return -1;
	pthread_mutex_lock(&slab_lock);
	pp__slab_t *s = free_slabs;
	if (s)
		free_slabs = s->next_free;
	else
		s = slab_create();
	if (s) {
		s->live = 1;
		s->uses++;
		threads_seen++;
		if (pp__g.frontend == PP_FE_NONE)
			pp__g.frontend = fe;
		else if (pp__g.frontend != fe)
			pp__g.mixed_frontends = 1;
	}
	pthread_mutex_unlock(&slab_lock);
	if (!s) {
		pp__warn("arena full: a new thread runs unprofiled (raise PATHPROF_ARENA_MB)");
		return -1;
	}
	pthread_setspecific(exit_key, s);
	t->slab = &s->pub;
	t->stack = s->frames + 1;
	t->table = s->table;
	t->mask = s->mask;
	t->hash = PP__SEED;
	t->depth = 0;
	t->countdown = pp__mode.sample_n;
	t->timing_now = 0;
	pp__hook_exit();
	return 0;
}

/* pthread key destructor: the thread is going; its slab stays for the dump
 * and for the next thread. Gates run by later destructors on this thread are
 * skipped (the thread is marked dead, not re-registered). */
static void thread_exit(void *arg)
{
	pp__slab_t *s = arg;
	pp__tls_t *t = &pp__tls;
	t->limit = 0;
	t->state = 3;
	t->excess = 0;
	t->depth = 0;
	t->slab = NULL;
	pthread_mutex_lock(&slab_lock);
	s->live = 0;
	s->next_free = free_slabs;
	free_slabs = s;
	pthread_mutex_unlock(&slab_lock);
}

pp__slab_t *pp__slab_first(void)
{
	return __atomic_load_n(&all_slabs, __ATOMIC_ACQUIRE);
}

uint64_t pp__threads_seen(void)
{
	pthread_mutex_lock(&slab_lock);
	uint64_t n = threads_seen;
	pthread_mutex_unlock(&slab_lock);
	return n;
}

static void seg_zero(pp__segrt_t *g)
{
	g->count = g->sum = g->max = 0;
	g->min = UINT64_MAX;
	for (uint32_t r = 0; r < PP_HIST_ROWS; r++)
		if (g->rows[r])
			memset(pp__arena_ptr(g->rows[r]), 0, PP__ROW_BYTES);
}

void pp__slab_reset_all(void)
{
	for (pp__slab_t *s = pp__slab_first(); s; s = s->next_all) {
		for (pp__path_t *p = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE); p; p = p->next) {
			p->count = 0;
			pp__segrt_t *g = (pp__segrt_t *)p->seg;
			if (g)
				for (uint32_t i = 0; i < p->depth; i++)
					seg_zero(&g[i]);
		}
		s->pub.events = 0;
		s->drops_table = s->drops_depth = s->drops_time = s->unmatched = 0;
	}
	pthread_mutex_lock(&slab_lock);
	threads_seen = 0;
	for (pp__slab_t *s = all_slabs; s; s = s->next_all)
		threads_seen += s->live;
	pthread_mutex_unlock(&slab_lock);
	pp__g.skipped = 0;
}

void pp__slab_after_fork(void)
{
	/* Only the forking thread exists in the child: every other live slab
	 * belongs to a thread that is gone. The mutex may have been held by a
	 * parent thread at fork time, so start from a fresh one. */
	pthread_mutex_init(&slab_lock, NULL);
	pp__slab_t *mine = pp__tls.slab ? (pp__slab_t *)pp__tls.slab : NULL;
	free_slabs = NULL;
	for (pp__slab_t *s = all_slabs; s; s = s->next_all) {
		if (s == mine)
			continue;
		s->live = 0;
		s->next_free = free_slabs;
		free_slabs = s;
	}
	pp__slab_reset_all();
}
