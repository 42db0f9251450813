/* CRC-32, table-driven: a byte a step is fast enough for what is checked
 * (a trace chunk when it is written, a profile when it is dumped or read),
 * and needs no zlib in the profiled program. */
#include <pthread.h>

#include "crc32.h"

static uint32_t table[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fill(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
}

uint32_t pp__crc32(const void *p, size_t n, uint32_t crc)
{
	pthread_once(&once, fill);
	const uint8_t *b = p;
	crc = ~crc;
	while (n--)
		crc = table[(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
