/* The list an earlier `pathprof select` wrote (--previous), read back for
 * a second pass over the profile of the program that list rebuilt: the new
 * list keeps it and adds what the second profile finds (select_previous.c). */
#ifndef PP_SELECT_PREVIOUS_H
#define PP_SELECT_PREVIOUS_H

#include <stddef.h>

typedef struct pp__prev_list {
	char *text; /* the entries, each ended by sep but the last; "" for none */
	char sep;
	int gcc;  /* gcc's list: entries are substrings, not globs */
	int keep; /* a list of the functions kept, not of those dropped */
} pp__prev_list_t;

/* Read the list at path, written in select's `format` ("names",
 * "exclude", "keep", "gcc"). 0, or -1 after one line on standard error. */
int pp__prev_load(pp__prev_list_t *l, const char *path, const char *format);
/* Did the list drop the function `name` (as the build or run it made
 * did: gcc by substring, the others by the glob rules of docs/guides/selection.md)? */
int pp__prev_drops(const pp__prev_list_t *l, const char *name);
/* The entry at offset at (0 for the first): its length in *len, and the
 * offset of the next one; at == the text's length when there are no more. */
size_t pp__prev_entry(const pp__prev_list_t *l, size_t at, size_t *len);
void pp__prev_free(pp__prev_list_t *l);

#endif
