/* The arena and the per-thread slabs carved from it (see slab.h).
 * Everything here runs off the hot path: at a thread's first gate, when a
 * path is first seen, at thread exit and at dump. The arena is reserved once
 * with MAP_NORESERVE, so untouched slab memory (most of a path table) costs
 * address space, not resident memory. Exporting moves the arena, at the same
 * addresses, into a shared-memory object (shm.c) so pointers stay valid. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gate_window.h"
#include "runtime.h"
#include "segment.h"
#include "thread_state.h"
#include "slab.h"

/* Path memory comes in chunks of 16 KiB at first, each twice the one before
 * up to 256 KiB: in an exported arena every chunk is backed when it is
 * taken, and a thread that records a handful of paths (most threads of a
 * server) should not hold a quarter of a MiB of /dev/shm for them. */
#define FIRST_CHUNK_BYTES (16u * 1024u)
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

/* The forking thread's shadow stack, copied before fork(): once the arena is
 * shared, the parent keeps writing those frames while the child starts. */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static pp__frame_t *fork_frames;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
int (*pp__arena_pending)(void);
static uint32_t fork_nframes;

static void thread_exit(void *arg);

/* The arena never goes into a core dump: it is reserved at 64 GiB, and a
 * dump would read (and, once exported, allocate) every page of it; the
 * profile is written at the crash anyway (crash.c). */
static char *map_anon(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, size, MADV_DONTDUMP);
	return p;
}

/* /dev/shm could not back [off, off + n): take a fresh range with a page
 * of slack at each end and map its page-aligned inside privately, over the
 * object. Only this caller owns those pages (the ranges handed out never
 * overlap), so no other thread's memory is touched. NULL when the arena is
 * full. */
static void *arena_private(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t want = ((n + pg - 1) & ~(pg - 1)) + 2 * pg;
	size_t off = __atomic_fetch_add(&pp__arena.used, want, __ATOMIC_RELAXED);
	if (off + want > pp__arena.size || off + want < off)
		return NULL;
	char *p = pp__arena.base + ((off + pg - 1) & ~(pg - 1));
	size_t len = want - 2 * pg;
	if (mmap(p, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_DONTDUMP);
	return p;
}

/* An allocation in an exported arena: back its pages now, so that a full
 * /dev/shm shows here and not as a SIGBUS on the hot path. When it cannot,
 * this and every later allocation is private memory (one line says so,
 * and the segment's state tells readers the live view stopped). */
static void *arena_backed(size_t off, size_t n)
{
	if (!__atomic_load_n(&pp__arena.detached, __ATOMIC_ACQUIRE)) {
		int saved = errno;
		/* madvise takes whole pages: an allocation is only 128-byte
		 * aligned, and a start inside a page fails with EINVAL, which
		 * below reads as an old kernel and would leave the range to
		 * fault in (a SIGBUS on a full /dev/shm). The page shared with
		 * the previous allocation is backed already. */
		size_t pg = (size_t)sysconf(_SC_PAGESIZE);
		size_t lo = off & ~(pg - 1), hi = (off + n + pg - 1) & ~(pg - 1);
		int rc = madvise(pp__arena.base + lo, hi - lo, MADV_POPULATE_WRITE);
		int err = errno;
		errno = saved;
		/* EINVAL: a kernel before 5.14, which cannot populate; the pages
		 * are then allocated as they are touched */
		if (rc == 0 || err == EINVAL)
			return pp__arena.base + off;
		/* said by the namer's next pass (shm.c), which also marks the
		 * segment for readers */
		__atomic_store_n(&pp__arena.detach_err, err, __ATOMIC_RELAXED);
		__atomic_store_n(&pp__arena.detached, 1, __ATOMIC_RELEASE);
	}
	return arena_private(n);
}

static void arena_reserve(void)
{
	size_t size = pp__config.arena_mb << 20;
	char *p = map_anon(size);
	/* Some environments cap address space (ulimit -v, valgrind): halve the
	 * reservation until it fits rather than run unprofiled, and say so. */
	while (!p && size > (16u << 20)) {
		size /= 2;
		p = map_anon(size);
	}
	if (!p) {
		pp__warn("cannot reserve %zu MiB for the arena: %s; profiling is off",
			 pp__config.arena_mb, strerror(errno));
		return;
	}
	if (size != pp__config.arena_mb << 20 && getenv("PATHPROF_ARENA_MB"))
		pp__warn("PATHPROF_ARENA_MB=%zu does not fit in the address space; using %zu MiB",
			 pp__config.arena_mb, size >> 20);
	pp__arena.base = p;
	pp__arena.size = size;
	pp__arena.used = PP__ARENA_HDR_BYTES;
	if (pthread_key_create(&exit_key, thread_exit) != 0) {
		pp__warn("cannot create the thread-exit key; profiling is off");
		return;
	}
	arena_ok = 1;
}

static void fork_prepare(void)
{
	pthread_mutex_lock(&fork_lock);
	pp__tls_t *t = &pp__tls;
	fork_nframes = 0;
	if (t->slab && fork_frames && PP__DS_DEPTH(t->dstate) <= pp__config.depth) {
		fork_nframes = PP__DS_DEPTH(t->dstate) + 1;
		memcpy(fork_frames, t->stack - 1, fork_nframes * sizeof *fork_frames);
	}
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&fork_lock);
}

static void atfork_register(void)
{
	fork_frames = malloc((pp__config.depth + 1) * sizeof *fork_frames);
	pthread_atfork(fork_prepare, fork_parent, NULL);
}

void pp__slab_keep_fork_frames(void)
{
	pthread_once(&atfork_once, atfork_register);
}

void *pp__arena_alloc(size_t n)
{
	int (*pending)(void) = __atomic_load_n(&pp__arena_pending, __ATOMIC_ACQUIRE);
	if (PP_UNLIKELY(pending != NULL))
		pending();
	n = (n + 127) & ~(size_t)127;
	size_t off = __atomic_fetch_add(&pp__arena.used, n, __ATOMIC_RELAXED);
	if (off + n > pp__arena.size || off + n < off)
		return NULL;
	pp__shm_hdr_t *h = __atomic_load_n(&pp__arena.hdr, __ATOMIC_ACQUIRE);
	if (!h)
		return pp__arena.base + off;
	void *p = arena_backed(off, n);
	if (!__atomic_load_n(&pp__arena.detached, __ATOMIC_ACQUIRE))
		pp__shm_note_used(h, off + n);
	return p;
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
		uint32_t size = s->chunk_bytes ? s->chunk_bytes : FIRST_CHUNK_BYTES;
		while (size < n)
			size *= 2;
		char *c = pp__arena_alloc(size);
		if (!c)
			return NULL;
		s->bump = c;
		s->end = c + size;
		s->chunk_bytes = size < CHUNK_BYTES ? 2 * size : CHUNK_BYTES;
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

/* The first table's slots (512 paths at half full, 16 KiB): with the
 * frames and the first chunk, an idle thread's slab stays under 64 KiB
 * backed (bench/scale --memory); 8 192 slots made it 416 KiB. */
#define FIRST_SLOTS 1024u

/* A new slab: header, frames (plus the sentinel) and a table that grows to
 * twice as many slots as paths, so probes stay short when it is full. */
static pp__slab_t *slab_carve(uint64_t paths)
{
	uint64_t slots = pow2_at_least(paths * 2);
	if (slots > FIRST_SLOTS)
		slots = FIRST_SLOTS;
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
	/* The sentinel lies above every stack: never taken for a dead frame. */
	s->frames[0].sp = PP__SP_NONE;
	s->table = (pp__slot_t *)(m + table_off);
	s->mask = slots - 1;
	_Static_assert(sizeof(pp__slot_t) == 16, "pp__slot_at scales by 16 bytes");
	s->capacity = paths;
	return s;
}

/* A thread's slab, in the list every reader walks. */
static pp__slab_t *slab_create(void)
{
	pp__slab_t *s = slab_carve(pp__config.paths);
	if (!s)
		return NULL;
	s->next_all = all_slabs;
	__atomic_store_n(&all_slabs, s, __ATOMIC_RELEASE);
	if (pp__arena.hdr)
		__atomic_store_n(&pp__arena.hdr->slabs, (uint64_t)(uintptr_t)s, __ATOMIC_RELEASE);
	return s;
}

int pp__slab_renew_table(pp__slab_t *s)
{
	if (s->npaths * 2 < s->capacity)
		return 0;
	uint64_t slots = s->mask + 1;
	pp__slot_t *table = pp__arena_alloc(slots * sizeof(pp__slot_t));
	if (!table)
		return -1;
	/* Readers walk the list, never the table: the old records stay in the
	 * list with their counts, and a path seen again gets a new record
	 * (merged by id when the profile is built). */
	s->table = table;
	s->npaths = 0;
	return 0;
}

int pp__slab_grow(pp__tls_t *t, pp__slab_t *s)
{
	uint64_t slots = s->mask + 1;
	if (slots >= pow2_at_least(s->capacity * 2))
		return -1;
	pp__slot_t *old = s->table, *table = pp__arena_alloc(2 * slots * sizeof(pp__slot_t));
	if (!table)
		return -1;
	uint64_t mask = 2 * slots - 1;
	for (uint64_t i = 0; i < slots; i++) {
		uint64_t h = old[i].hash;
		if (!h)
			continue;
		uint64_t j = pp__slot_index(h, mask);
		while (table[j].hash)
			j = (j + 1) & mask;
		table[j].path = old[i].path;
		table[j].hash = h;
	}
	s->table = table;
	s->mask = mask;
	/* The inline gate reads the table, then the mask: a signal handler
	 * that runs in between sees the new table with the old, smaller mask,
	 * which stays inside it (the other order would not). */
	t->table = table;
	__asm__ volatile("" ::: "memory");
	t->smask = mask * sizeof(pp__slot_t);
	return 0;
}

int pp__arena_ready(void)
{
	pthread_once(&arena_once, arena_reserve);
	return arena_ok;
}

/* The calling thread owns s from now on; under slab_lock (or alone, in a
 * forked child). */
static void set_owner(pp__slab_t *s, pp__tls_t *t)
{
	s->owner = t;
	s->tid = gettid();
	s->thread = pthread_self();
	s->lag_cpu = 0;
}

int pp__thread_register(pp__tls_t *t, int fe)
{
	if (!pp__arena_ready())
		return -1;
	pthread_mutex_lock(&slab_lock);
	pp__slab_t *s = free_slabs;
	if (s) {
		free_slabs = s->next_free;
		pp__slab_renew_table(s); /* on failure the thread drops, counted */
	} else {
		s = slab_create();
	}
	if (s) {
		s->live = 1;
		s->uses++;
		__atomic_add_fetch(&threads_seen, 1, __ATOMIC_RELAXED);
		if (pp__arena.hdr)
			__atomic_store_n(&pp__arena.hdr->threads, pp__threads_seen(), __ATOMIC_RELAXED);
		/* Read without the lock by the dump and the live naming thread. */
		int seen = __atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED);
		if (seen == PP_FE_NONE)
			__atomic_store_n(&pp__g.frontend, fe, __ATOMIC_RELAXED);
		else if (seen != fe)
			__atomic_store_n(&pp__g.mixed_frontends, 1, __ATOMIC_RELAXED);
		/* in the segment before any name: a reader of a process killed
		 * before its namer's first pass still knows the front-end */
		if (pp__arena.hdr && seen == PP_FE_NONE)
			__atomic_store_n(&pp__arena.hdr->frontend, (uint32_t)fe, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&slab_lock);
	if (!s) {
		/* once per process: a program starting threads by the thousand
		 * must not get a line each; the count is in the profile */
		static int warned;
		if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
			pp__warn("arena full: new threads run unprofiled (counted in the profile; "
				 "raise PATHPROF_ARENA_MB)");
		return -1;
	}
	pthread_setspecific(exit_key, s);
	pp__slab_attach(t, s);
	pthread_mutex_lock(&slab_lock);
	set_owner(s, t);
	pthread_mutex_unlock(&slab_lock);
	t->countdown = pp__mode.sample_n;
	t->timing_now = 0;
	return 0;
}

/* pthread key destructor: the thread is going; its slab stays for the dump
 * and for the next thread. Gates run by later destructors on this thread are
 * skipped (the thread is marked dead, not re-registered). */
static void thread_exit(void *arg)
{
	pp__slab_t *s = arg;
	pp__gate_dead(&pp__tls);
	pthread_mutex_lock(&slab_lock);
	s->live = 0;
	s->owner = NULL;
	s->next_free = free_slabs;
	free_slabs = s;
	pthread_mutex_unlock(&slab_lock);
}

void pp__slab_attach(pp__tls_t *t, pp__slab_t *s)
{
	t->slab = &s->pub;
	t->stack = s->frames + 1;
	t->table = s->table;
	t->abase = pp__arena.base;
	t->smask = s->mask * sizeof(pp__slot_t);
	t->hash = PP__SEED;
	t->dstate = 0;
	t->wend = PP__NO_WINDOW;
}

void pp__slab_for_each_owner(void (*fn)(pp__tls_t *t))
{
	pthread_mutex_lock(&slab_lock);
	for (pp__slab_t *s = all_slabs; s; s = s->next_all)
		if (s->owner)
			fn(s->owner);
	pthread_mutex_unlock(&slab_lock);
}

pp__slab_t *pp__slab_scratch(uint64_t paths)
{
	return pp__arena_ready() ? slab_carve(paths) : NULL;
}

pp__slab_t *pp__slab_first(void)
{
	return __atomic_load_n(&all_slabs, __ATOMIC_ACQUIRE);
}

void pp__slab_for_each_key(void (*fn)(void *ctx, uint64_t key), void *ctx)
{
	for (pp__slab_t *s = pp__slab_first(); s; s = s->next_all)
		for (pp__path_t *p = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE); p; p = p->next)
			for (uint32_t i = 0; i < p->depth; i++)
				fn(ctx, p->keys[i]);
}

/* Lock-free: the live naming thread calls this while holding its own lock,
 * and registration takes that lock under slab_lock (lock order). */
uint64_t pp__threads_seen(void)
{
	return __atomic_load_n(&threads_seen, __ATOMIC_RELAXED);
}

static void seg_zero(pp__segrt_t *g)
{
	g->sum = g->max = g->self = g->open = 0;
	g->min = UINT64_MAX;
	for (uint32_t r = 0; r < PP__CELL_ROWS; r++)
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
				seg_zero(g);
		}
		s->pub.events = 0;
		s->drops_table = s->drops_depth = s->drops_time = s->unmatched = 0;
		s->own_ticks = s->own_n = 0;
		s->drops_signal = 0;
	}
	pthread_mutex_lock(&slab_lock);
	uint64_t live = 0;
	for (pp__slab_t *s = all_slabs; s; s = s->next_all)
		live += s->live;
	__atomic_store_n(&threads_seen, live, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&slab_lock);
	/* atomic: the naming thread reads them concurrently */
	__atomic_store_n(&pp__g.skipped, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pp__g.unprofiled_threads, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pp__g.signal_skipped, 0, __ATOMIC_RELAXED);
	/* Counts went down: a live reader must not take the drop for a rate. */
	if (pp__arena.hdr)
		__atomic_fetch_add(&pp__arena.hdr->generation, 1, __ATOMIC_RELEASE);
}

/* The child of an exporting parent: drop the parent's segment from this
 * address space (the child must never write into it) and start over in a
 * fresh private arena with one slab holding the forking thread's shadow
 * stack as it was at fork(). The export under the child's own name follows
 * at the first allocation. */
static void fresh_arena_after_fork(void)
{
	pp__tls_t *t = &pp__tls;
	uint32_t nframes = fork_nframes;
	pthread_mutex_init(&fork_lock, NULL);
	munmap(pp__arena.base, pp__arena.size);
	pp__arena.hdr = NULL;
	pp__arena.detached = 0;
	all_slabs = free_slabs = NULL;
	__atomic_store_n(&threads_seen, 0, __ATOMIC_RELAXED);
	char *p = map_anon(pp__arena.size);
	pp__arena.base = p;
	pp__arena.used = p ? PP__ARENA_HDR_BYTES : pp__arena.size;
	pp__slab_t *s = t->slab && nframes ? slab_create() : NULL;
	if (!s) {
		if (t->slab) {
			if (p)
				pp__warn("cannot give the forked child a slab; it runs unprofiled");
			/* Same as a thread that has exited: gates are skipped. */
			pp__gate_dead(t);
		}
		return;
	}
	memcpy(s->frames, fork_frames, nframes * sizeof *fork_frames);
	s->live = 1;
	s->uses = 1;
	set_owner(s, t);
	__atomic_store_n(&threads_seen, 1, __ATOMIC_RELAXED);
	t->slab = &s->pub;
	t->stack = s->frames + 1;
	t->table = s->table;
	t->abase = pp__arena.base;
	t->smask = s->mask * sizeof(pp__slot_t);
	pthread_setspecific(exit_key, s);
}

/* The forking thread's frames open across fork() hold the parent's time up
 * to it: the fork itself (which copies the page tables: milliseconds for a
 * large process, more under ASan) and what ran before. The child's run
 * starts after it (env.c), so its frames start over now, with no children
 * yet but a window's cut mark kept: no time of the child's exceeds its run
 * (a reader rejects a segment whose gated time does). */
static void restart_open_frames(void)
{
	pp__tls_t *t = &pp__tls;
	if (!t->slab)
		return;
	uint64_t now = pp_ticks();
	for (uint32_t i = PP__DS_DEPTH(t->dstate); i-- > 0;) {
		t->stack[i].t = now;
		t->stack[i].kids &= PP__KIDS_CUT;
	}
}

int pp__slab_after_fork(void)
{
	/* Only the forking thread exists in the child: every other live slab
	 * belongs to a thread that is gone. The mutex may have been held by a
	 * parent thread at fork time, so start from a fresh one. */
	pthread_mutex_init(&slab_lock, NULL);
	if (pp__arena.hdr) {
		fresh_arena_after_fork();
		restart_open_frames();
		return 1;
	}
	pp__slab_t *mine = pp__tls.slab ? (pp__slab_t *)pp__tls.slab : NULL;
	free_slabs = NULL;
	for (pp__slab_t *s = all_slabs; s; s = s->next_all) {
		if (s == mine)
			continue;
		s->live = 0;
		s->owner = NULL;
		s->next_free = free_slabs;
		free_slabs = s;
	}
	pp__slab_reset_all();
	/* The child's thread keeps its slab, emptied; a full table would make
	 * it drop every new path. */
	if (mine && pp__slab_renew_table(mine) == 0)
		pp__tls.table = mine->table;
	restart_open_frames();
	return 0;
}
