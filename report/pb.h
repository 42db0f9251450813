/* A minimal protocol-buffers writer (wire format only) for the pprof export:
 * varints, length-delimited fields and packed repeated integers, appended to
 * a growable buffer. Nested messages are written into their own buffer and
 * then added as a bytes field, which is all profile.proto needs. */
#ifndef PP_PB_H
#define PP_PB_H

#include <stddef.h>
#include <stdint.h>

typedef struct pp__pb {
	uint8_t *buf;
	size_t len, cap;
	int oom; /* set on the first failed allocation; later writes do nothing */
} pp__pb_t;

/* Field `field` as a varint (wire type 0): uint64, and int64 as its two's
 * complement (never negative here). Zero is written too: proto3 readers
 * take an absent field as zero, so callers may skip it to save bytes. */
void pp__pb_uint(pp__pb_t *b, uint32_t field, uint64_t v);

/* Field `field` as length-delimited bytes (wire type 2): strings, nested
 * messages, packed repeated scalars. */
void pp__pb_bytes(pp__pb_t *b, uint32_t field, const void *data, size_t len);

/* Raw bytes, for building the body of a field in a scratch buffer. */
void pp__pb_raw(pp__pb_t *b, const void *data, size_t len);

/* A bare varint, for building the body of a packed repeated field. */
void pp__pb_varint(pp__pb_t *b, uint64_t v);

/* Empties b, keeping its memory for the next message. */
void pp__pb_reset(pp__pb_t *b);
void pp__pb_free(pp__pb_t *b);

#endif
