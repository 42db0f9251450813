/* See map.h. Linear probing over a power-of-two table kept at most half full. */
#include <stdlib.h>

#include "map.h"

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

int pp__map_get(const pp__map_t *m, uint64_t key, uint32_t *val)
{
	if (!m->cap)
		return 0;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->used[i])
			return 0;
		if (m->keys[i] == key) {
			*val = m->vals[i];
			return 1;
		}
	}
}

static int resize(pp__map_t *m, size_t cap)
{
	pp__map_t n = {calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(uint32_t)),
		       calloc(cap, 1), cap, 0};
	if (!n.keys || !n.vals || !n.used) {
		pp__map_free(&n);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->used[i])
			pp__map_put(&n, m->keys[i], m->vals[i]);
	pp__map_free(m);
	*m = n;
	return 0;
}

static int grow(pp__map_t *m)
{
	return resize(m, m->cap ? m->cap * 2 : 64);
}

int pp__map_reserve(pp__map_t *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;
	while (n * 2 > cap)
		cap *= 2;
	return cap == m->cap ? 0 : resize(m, cap);
}

int pp__map_put(pp__map_t *m, uint64_t key, uint32_t val)
{
	if ((m->len + 1) * 2 > m->cap && grow(m) != 0)
		return -1;
	size_t i = slot_of(key, m->cap);
	while (m->used[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->used[i]) {
		m->used[i] = 1;
		m->keys[i] = key;
		m->len++;
	}
	m->vals[i] = val;
	return 0;
}

void pp__map_free(pp__map_t *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	m->keys = NULL;
	m->vals = NULL;
	m->used = NULL;
	m->cap = m->len = 0;
}
