/* Stable path ids (pp__path_id) of many paths of one profile, which share
 * their prefixes: the hash of each prefix's names is kept, so a path costs
 * the bytes of the names its longest known prefix does not hold, not of
 * all of them. The runtime's dump and the profile writer each name every
 * path and node this way (SQLite: 16 M of the dump's 68 M instructions
 * went to hashing names again, #29). */
#ifndef PP_PATH_IDS_H
#define PP_PATH_IDS_H

#include <stdint.h>

#include "map.h"
#include "profile.h"

typedef struct pp__ids_prefix pp__ids_prefix_t;

typedef struct pp__ids {
	pp__map_t at;            /* a prefix's key (a mix of its name indices) -> entry */
	pp__ids_prefix_t *entry; /* one per prefix met: its name, its parent, its hash so far */
	uint32_t n, cap;
	uint64_t *keys;          /* scratch: the keys of one path's prefixes */
	uint32_t nkeys;
} pp__ids_t;

/* The id of the names idx[0..depth) of table names, equal to pp__path_id
 * of their strings. Never fails: without memory for its memo it hashes
 * every name, as pp__path_id does. A zeroed pp__ids_t is ready; the name
 * table may grow between calls, its existing entries may not change. */
uint64_t pp__ids_get(pp__ids_t *m, const pp_name_t *names, const uint32_t *idx, uint32_t depth);
void pp__ids_free(pp__ids_t *m);

#endif
