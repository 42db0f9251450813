/* Stable path ids with their prefixes' hashes kept (path_ids.h). A prefix
 * is found by a 64-bit mix of its name indices, then checked link by link
 * (each entry holds its last name and its parent's entry), so a collision
 * of the mix costs a recomputation, never a wrong id. */
#include "path_ids.h"

#include <stdlib.h>

#define NO_ENTRY UINT32_MAX

struct pp__ids_prefix {
	uint64_t h;      /* pp__path_fnv over the prefix's names, not finalised */
	uint32_t name;   /* its last name's index */
	uint32_t parent; /* the entry of the prefix one shorter, or NO_ENTRY */
};

static uint64_t key_step(uint64_t k, uint32_t name)
{
	k = (k ^ (name + 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	return k ^ (k >> 31);
}

/* Entry e holds exactly the names idx[0..len). */
static int holds(const pp__ids_t *m, uint32_t e, const uint32_t *idx, uint32_t len)
{
	for (uint32_t j = len; j-- > 0; e = m->entry[e].parent)
		if (e == NO_ENTRY || m->entry[e].name != idx[j])
			return 0;
	return e == NO_ENTRY;
}

static uint32_t add(pp__ids_t *m, uint64_t key, uint64_t h, uint32_t name, uint32_t parent)
{
	if (m->n == m->cap) {
		uint32_t cap = m->cap ? 2 * m->cap : 1024;
		pp__ids_prefix_t *e = realloc(m->entry, cap * sizeof *e);
		if (!e)
			return NO_ENTRY;
		m->entry = e;
		m->cap = cap;
	}
	if (pp__map_put(&m->at, key, m->n) != 0)
		return NO_ENTRY;
	m->entry[m->n] = (pp__ids_prefix_t){ h, name, parent };
	return m->n++;
}

uint64_t pp__ids_get(pp__ids_t *m, const pp_name_t *names, const uint32_t *idx, uint32_t depth)
{
	if (depth > m->nkeys) {
		uint64_t *k = realloc(m->keys, depth * sizeof *k);
		if (k) {
			m->keys = k;
			m->nkeys = depth;
		}
	}
	uint64_t h = pp__path_fnv_start();
	if (depth > m->nkeys) { /* no memory: every name, no memo */
		for (uint32_t i = 0; i < depth; i++)
			h = pp__path_fnv(h, names[idx[i]].name);
		return pp__path_fnv_end(h);
	}
	uint64_t k = 0;
	for (uint32_t i = 0; i < depth; i++)
		m->keys[i] = k = key_step(k, idx[i]);
	/* the longest prefix held, usually the whole path or its parent */
	uint32_t from = 0, e = NO_ENTRY, at;
	for (uint32_t len = depth; len > 0; len--) {
		if (pp__map_get(&m->at, m->keys[len - 1], &at) && holds(m, at, idx, len)) {
			from = len;
			e = at;
			h = m->entry[at].h;
			break;
		}
	}
	for (uint32_t i = from; i < depth; i++) {
		h = pp__path_fnv(h, names[idx[i]].name);
		if (e != NO_ENTRY || i == 0)
			e = add(m, m->keys[i], h, idx[i], e);
	}
	return pp__path_fnv_end(h);
}

void pp__ids_free(pp__ids_t *m)
{
	pp__map_free(&m->at);
	free(m->entry);
	free(m->keys);
	*m = (pp__ids_t){ 0 };
}
