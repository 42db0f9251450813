/* Protocol-buffers wire format (pb.h): a field is a varint key
 * (field << 3 | wire type) followed by a varint, or by a varint length and
 * that many bytes. Varints are little-endian base 128, 7 bits per byte, the
 * top bit set on every byte but the last. */
#include <stdlib.h>
#include <string.h>

#include "pb.h"

static int reserve(pp__pb_t *b, size_t more)
{
	if (b->oom)
		return -1;
	if (b->cap - b->len >= more)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < more) {
		if (cap > SIZE_MAX / 2) {
			b->oom = 1;
			return -1;
		}
		cap *= 2;
	}
	uint8_t *n = realloc(b->buf, cap);
	if (!n) {
		b->oom = 1;
		return -1;
	}
	b->buf = n;
	b->cap = cap;
	return 0;
}

void pp__pb_varint(pp__pb_t *b, uint64_t v)
{
	if (reserve(b, 10) < 0)
		return;
	while (v >= 0x80) {
		b->buf[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->buf[b->len++] = (uint8_t)v;
}

void pp__pb_uint(pp__pb_t *b, uint32_t field, uint64_t v)
{
	pp__pb_varint(b, (uint64_t)field << 3 | 0);
	pp__pb_varint(b, v);
}

void pp__pb_raw(pp__pb_t *b, const void *data, size_t len)
{
	if (len && reserve(b, len) == 0) {
		memcpy(b->buf + b->len, data, len);
		b->len += len;
	}
}

void pp__pb_bytes(pp__pb_t *b, uint32_t field, const void *data, size_t len)
{
	pp__pb_varint(b, (uint64_t)field << 3 | 2);
	pp__pb_varint(b, len);
	pp__pb_raw(b, data, len);
}

void pp__pb_reset(pp__pb_t *b)
{
	b->len = 0;
}

void pp__pb_free(pp__pb_t *b)
{
	free(b->buf);
	memset(b, 0, sizeof *b);
}
