/* CRC-32 (the IEEE polynomial, reflected, as zlib computes it), needing no
 * zlib in the profiled program. Eight bytes a step through eight tables
 * ("slicing by 8"): a profile is checksummed at every dump, and the byte a
 * step of the first version took 9 instructions a byte, 9 M of the 81 M a
 * SQLite run's exit dump took (#29); trace chunks are checksummed as they
 * are written. */
#include <pthread.h>

#include "crc32.h"

/* table[0] is the byte-at-a-time table; table[k][i] is the CRC of byte i
 * followed by k zero bytes, so eight lookups advance eight bytes. */
static uint32_t table[8][256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fill(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int k = 1; k < 8; k++)
			table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
}

/* Four bytes as a little-endian number, on any host. */
static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

uint32_t pp__crc32(const void *p, size_t n, uint32_t crc)
{
	pthread_once(&once, fill);
	const uint8_t *b = p;
	crc = ~crc;
	for (; n >= 8; n -= 8, b += 8) {
		uint32_t lo = crc ^ le32(b), hi = le32(b + 4);
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
		      table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
	}
	while (n--)
		crc = table[0][(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
