/* Merging profiles: paths matched by stable id, histograms added bucket by
 * bucket (exact), counters and threads summed. `pathprof merge` and `diff`
 * on directories aggregate processes with it, and the live reader builds a
 * snapshot by merging the raw paths of every slab into an empty profile. */
#ifndef PP_PROFILE_MERGE_H
#define PP_PROFILE_MERGE_H

#include <stddef.h>
#include "profile.h"

/* dst += src. A zeroed dst is empty and takes src's metadata; otherwise the
 * metadata combine as docs/guides/live.md says (start the earliest, end the latest,
 * front-end or command "mixed"/"(merged)" when they differ). The result is
 * in canonical order (names sorted, paths by id), so merging is associative
 * byte for byte. Returns 0, or -1 with one line in err: tick rates that
 * differ by more than 1 % while both sides hold times (their histograms
 * would not be comparable), a count overflow, an id with two depths, or out
 * of memory. On error dst is left valid but possibly half-merged. */
int pp__profile_merge(pp_profile_t *dst, const pp_profile_t *src, char *err, size_t errlen);


#endif
