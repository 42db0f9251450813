/* A small open-addressing map from 64-bit keys to 32-bit values, for the
 * slow paths (merging at dump, naming keys). Grows by doubling; not for the
 * hot path, which has its own fixed table in each slab. */
#ifndef PP_MAP_H
#define PP_MAP_H

#include <stdint.h>
#include <stddef.h>

typedef struct pp__map {
	uint64_t *keys;
	uint32_t *vals;
	uint8_t *used;
	size_t cap, len;
} pp__map_t;

/* Find key: 1 and *val set when present, else 0. */
int pp__map_get(const pp__map_t *m, uint64_t key, uint32_t *val);
/* Insert or overwrite. 0, or -1 when out of memory. */
int pp__map_put(pp__map_t *m, uint64_t key, uint32_t val);
/* Room for n keys without growing, when the caller knows about how many
 * will come (each doubling rehashes every key so far). 0, or -1 when out of
 * memory, where the map is left as it was. */
int pp__map_reserve(pp__map_t *m, size_t n);
void pp__map_free(pp__map_t *m);

#endif
