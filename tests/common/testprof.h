/* Builders of in-memory profiles for the tests and test-input generators:
 * names, paths with their real stable ids, and segments whose bins come from
 * the runtime's own bucket function, so every hand-made profile looks like
 * one a run recorded. Allocation failures abort (a test has no way out). */
#ifndef PP_TESTPROF_H
#define PP_TESTPROF_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* Zero p and set what every profile carries: the format version, the
 * front-end and the command line (both copied). */
void tp_init(pp_profile_t *p, const char *frontend, const char *command);

/* Give p its n names (copied). files and lines may be NULL, and a NULL entry
 * of files reads as "" (no source location). */
void tp_names(pp_profile_t *p, uint32_t n, const char *const *names, const char *const *files,
	      const uint32_t *lines);

/* Append a path of depth name indices (root first), its id computed from
 * those names. segs, when not NULL, holds depth histograms (freed here) of
 * a pipeline's stages: stage k's own time goes to the node of prefix k as
 * self time, and its inclusive time per call is its own plus the mean of
 * the deeper stages. The pointer is valid until the next tp_path. */
pp_ppath_t *tp_path(pp_profile_t *p, uint64_t count, const uint32_t *names, uint32_t depth,
		    const pp_seg_t *segs);

/* Add a node (self ticks, inclusive histogram copied) at its sorted place,
 * or add to the node of the same names. */
pp_pnode_t *tp_node(pp_profile_t *p, const uint32_t *names, uint32_t depth, uint64_t self,
		    const pp_seg_t *incl);

/* A segment of n (ticks, times) pairs, in any order; pairs seen 0 times are
 * skipped. */
pp_seg_t tp_seg(const uint64_t (*pairs)[2], size_t n);

/* TP_SEG({ 10, 3 }, { 20, 1 }): tp_seg of the pairs written out. */
#define TP_SEG(...)                                                                            \
	tp_seg((const uint64_t[][2]){ __VA_ARGS__ },                                           \
	       sizeof((const uint64_t[][2]){ __VA_ARGS__ }) / sizeof(uint64_t[2]))

/* TP_IDX(0, 1, 2): the names and depth arguments of tp_path. */
#define TP_IDX(...)                                                                            \
	(const uint32_t[]){ __VA_ARGS__ },                                                     \
		(uint32_t)(sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

/* calloc and strdup that abort instead of returning NULL. */
void *tp_calloc(size_t n, size_t size);
char *tp_strdup(const char *s);

#endif
