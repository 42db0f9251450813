/* What profile.c, profile_write.c and profile_read.c share: the section layout
 * of the file (docs/reference/file-format.md) and the semantic checks, so that the
 * writer refuses exactly what the reader would reject. Private to the runtime. */
#ifndef PP_PROFILE_IMPL_H
#define PP_PROFILE_IMPL_H

#include "profile.h"

enum { SEC_META = 1, SEC_NAMES = 2, SEC_PATHS = 3, SEC_END = 4, SEC_NODES = 5, SEC_CRASH = 6,
       SEC_RECOVERED = 7, SEC_PROCESS = 8, SEC_OFFCPU = 9,
       SEC_GATECOST = 10, SEC_CPU = 11, SEC_SELECT = 12,
       SEC_THROTTLE = 13, SEC_OPEN = 14, SEC_OWNWORK = 15 };
#define SEC_REQUIRED 1u /* flag: a reader that does not know the type must refuse */
#define HEADER_LEN 16u  /* magic, version, header length */
#define SECHDR_LEN 16u  /* type, flags, payload length */
#define MAX_DEPTH 4096u

/* The id of pp's stored names; scratch holds MAX_DEPTH pointers. */
uint64_t pp__profile_stored_id(const pp_profile_t *p, const pp_ppath_t *pp, const char **scratch);

/* Semantic checks of a whole profile; check_ids is off for the writer, which
 * writes the ids it derives itself. Returns 0, or -1 with the reason in msg. */
int pp__profile_check(const pp_profile_t *p, int check_ids, const char **scratch, char *msg,
		      size_t len);

/* The invariants every profile pathprof writes satisfies (part of the
 * check; alone for a live snapshot, which may hold paths deeper than a
 * file does). 0, or -1 with the reason in msg. */
int pp__profile_invariants(const pp_profile_t *p, char *msg, size_t len);

/* "path: what: strerror(e)" into err; returns -1. */
int pp__profile_fail_io(char *err, size_t errlen, const char *path, const char *what, int e);

#endif
