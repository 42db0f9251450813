/* What a file holds, by its first bytes: whether the runtime or the tool may
 * write a recording over it. A profile, a trace or a capture is replaced
 * only by one of its kind, and anything else is never replaced (the
 * program itself, named by PATHPROF_OUT=./app, or a source file). */
#ifndef PP_FILE_KIND_H
#define PP_FILE_KIND_H

#include <stddef.h>

enum pp__file_kind {
	PP__FILE_NONE,    /* absent, empty, unreadable, or not a regular file
			   * (/dev/null, a pipe): written at freely */
	PP__FILE_PROFILE, /* PP_PROFILE_MAGIC */
	PP__FILE_TRACE,   /* PP_TRACE_MAGIC */
	PP__FILE_CAPTURE, /* PP_CAP_MAGIC */
	PP__FILE_OTHER,   /* anything else */
};

/* Of a file whose first n bytes are head (n < 8: PP__FILE_OTHER). */
enum pp__file_kind pp__head_kind(const void *head, size_t n);
/* What a reader expecting one kind (PP__FILE_OTHER: a live segment) says
 * of a file of another, after "<file>: ": "a pathprof trace, not a profile
 * ('pathprof replay TRACE -o FILE' makes one of it)"; NULL when the file
 * is of no kind pathprof writes, or of the one expected. */
const char *pp__file_kind_hint(enum pp__file_kind got, enum pp__file_kind want);
/* Of the file at path. */
enum pp__file_kind pp__file_kind(const char *path);

#endif
