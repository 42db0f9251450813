/* Input files of the validating readers (profile, trace): what they read
 * is bounded by the input itself. A regular file is mapped, so memory
 * follows the bytes a reader touches: a sparse or lying file costs nothing
 * beyond its first bad field. "-" is standard input, read as a stream; a
 * stream whose first bytes are not the expected magic is not read further.
 * Devices, directories and sockets are refused. */
#ifndef PP_INPUT_H
#define PP_INPUT_H

#include <stddef.h>
#include <stdint.h>

typedef struct pp__input {
	const uint8_t *data;
	size_t size;
	void *map;     /* mapping of a regular file, or NULL */
	uint8_t *heap; /* bytes read from a stream, or NULL */
} pp__input_t;

/* Open path ("-": standard input) with the magic its format starts with.
 * 0, or -1 with "path: what is wrong" in err. */
int pp__input_open(pp__input_t *in, const char *path, const char *magic, size_t magic_len,
		   char *err, size_t errlen);

void pp__input_close(pp__input_t *in);

#endif
