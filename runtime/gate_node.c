/* The path table's slow half: the first sight of a node (a path prefix
 * ending at a gate), inserted by the thread that owns the table while
 * readers (the exporter, the dump) walk it, and the leaf whose node is not
 * there yet. A re-entrancy flag keeps a signal handler that runs gated code
 * from corrupting a half-done insert: the nested record is dropped and
 * counted instead. */
#include <errno.h>

#include <pathprof/pathprof.h>
#include "gate_impl.h"
#include "shm.h"

__thread int pp__gate_in_slow PP_TLS_IE;

/* A node found past its home slot costs the timed exit and the leaf their
 * one-probe way (the rare way instead, about 100 instructions more): on
 * SQLite, with the table a quarter to half full, a quarter of the timed
 * exits went that way. The table is the owner thread's alone (readers
 * walk the list), so once a node has been found past its home this often,
 * it trades places with the node at home: linear probing allows it, every
 * slot between either node's home and its new place stays taken. The
 * threshold keeps two hot nodes of one home from trading at every call. */
#define PROMOTE_MISSES 16u
/* Two hot nodes of one home trade places every PROMOTE_MISSES calls and
 * one of them always goes the rare way. A table smaller than this grows
 * instead (one more bit of the hash in the home, which parts them half the
 * time, again if need be): tables start small (slab.c), and a dozen hot
 * nodes in 1 024 slots share a home one time in twelve, in 8 192 one in a
 * hundred (bench/gateinstr.sh at depth 12 met one: 135.8 instructions a
 * timed gate against 123.8). */
#define SPREAD_SLOTS 8192u

/* A table twice the size (pp__slab_grow), as the slow way may: the
 * re-entrancy flag up, errno kept. */
static int grow(pp__tls_t *t, pp__slab_t *s)
{
	int saved = errno;
	pp__gate_in_slow = 1;
	int grown = pp__slab_grow(t, s) == 0;
	pp__gate_in_slow = 0;
	errno = saved;
	return grown;
}

/* Put c's node at its home slot, the node there into c. Each hash is 0
 * while the two change, so a signal handler's gate that runs in between
 * finds neither and takes the slow way, where pp__gate_in_slow drops its
 * record (counted). */
static void promote(pp__slot_t *home, pp__slot_t *c)
{
	pp__gate_in_slow = 1;
	uint64_t hh = home->hash, ch = c->hash;
	pp__path_t *hp = home->path, *cp = c->path;
	home->hash = 0;
	c->hash = 0;
	__asm__ volatile("" ::: "memory");
	home->path = cp;
	c->path = hp;
	__asm__ volatile("" ::: "memory");
	home->hash = ch;
	c->hash = hh;
	__asm__ volatile("" ::: "memory");
	cp->misses = 0;
	pp__gate_in_slow = 0;
}

/* A signal handler's gate that interrupted the owner's slow way: a
 * promote or a growth hides slots for a moment, so a node already in the
 * table may not be found there. Every whole node is on the list (an insert
 * publishes it last): a walk finds it, and only a node whose insert was
 * interrupted is missing (NULL: the caller counts the drop). Rare, so the
 * walk's length does not matter; without it a handler's counts were lost
 * whenever two hot nodes of one home traded places under it (CI's
 * control-signal-xray: drops_signal 4 in 37 799 ticks). */
static pp__path_t *interrupted(const pp__slab_t *s, uint64_t h)
{
	for (pp__path_t *p = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE); p; p = p->next)
		if (p->hash == h)
			return p;
	return NULL;
}

/* The node named by the running hash (its gate open at depth d), inserted
 * at first sight with a count of 0. NULL when the table or the arena is full
 * or when a signal handler interrupted an insert (the caller counts the
 * drop). An insert notes in *w when it began, unless w is NULL or *w is
 * set (a timed exit takes that work out of the open frames). */
PP_NOINLINE pp__path_t *pp__node_get(pp__tls_t *t, uint32_t d, uint64_t *w)
{
	pp__slab_t *s = pp__slab_of(t);
	uint64_t h = t->hash;
	uint64_t mask = t->smask / sizeof(pp__slot_t);
	pp__slot_t *slot = NULL;
	for (uint64_t i = pp__slot_index(h, mask), n = 0; n <= mask; i++, n++) {
		pp__slot_t *c = t->table + (i & mask);
		uint64_t ch = c->hash;
		if (ch == h) {
			pp__path_t *p = c->path;
			if (n && ++p->misses >= PROMOTE_MISSES && !pp__gate_in_slow) {
				if (mask + 1 < SPREAD_SLOTS) {
					if (w)
						pp__own_begin(t, w);
					if (grow(t, s)) {
						p->misses = 0;
						return p;
					}
				}
				promote(t->table + pp__slot_index(h, mask), c);
			}
			return p;
		}
		if (ch == 0) {
			slot = c;
			break;
		}
	}
	if (pp__gate_in_slow)
		return interrupted(s, h);
	if (!slot || s->npaths >= s->capacity || h == 0)
		return NULL;
	if (w)
		pp__own_begin(t, w);
	/* Half full: a table twice the size, and the probe again there. */
	if ((s->npaths + 1) * 2 > mask + 1 && grow(t, s))
		return pp__node_get(t, d, w);
	pp__gate_in_slow = 1;
	int saved = errno;
	/* The node's prefix runs from the innermost frame entered with the
	 * seed hash (the event's root) up to depth d. */
	uint32_t r = d;
	while (r > 0 && t->stack[r].hash_before != PP__SEED)
		r--;
	uint32_t depth = d - r + 1;
	pp__path_t *p = pp__slab_alloc(s, sizeof(*p) + depth * sizeof(uint64_t), 0);
	if (!p) {
		pp__gate_in_slow = 0;
		errno = saved;
		return NULL;
	}
	p->hash = h;
	p->count = 0;
	p->depth = depth;
	p->misses = 0;
	p->seg = NULL;
	for (uint32_t i = 0; i < depth; i++)
		p->keys[i] = t->stack[r + i].key;
	p->next = s->head;
	s->npaths++;
	/* Readers walk the list and the table concurrently: publish a node only
	 * once it is whole. */
	__atomic_store_n(&s->head, p, __ATOMIC_RELEASE);
	slot->path = p;
	__atomic_store_n(&slot->hash, h, __ATOMIC_RELEASE);
	/* Exporting: name its keys now, so a kill right after loses few. */
	if (pp__arena.hdr)
		pp__shm_nudge();
	pp__gate_in_slow = 0;
	errno = saved;
	return p;
}

void pp__leaf_miss(pp__tls_t *t, uint32_t v)
{
	pp__path_t *p = pp__node_get(t, PP__DS_DEPTH(v), NULL);
	if (p)
		p->count++;
	else if (pp__gate_in_slow)
		pp__slab_of(t)->drops_signal++; /* a handler interrupted an insert */
	else
		pp__slab_of(t)->drops_table++;
	pp__finish_pop(t, v);
}

