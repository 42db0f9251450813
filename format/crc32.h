/* CRC-32 (the IEEE polynomial, as zlib and gzip use it): the checksum of a
 * trace chunk and of every profile section, computed by the writers in the
 * runtime and checked by the tool's readers. */
#ifndef PP_CRC32_H
#define PP_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC of n bytes at p, continuing from crc (0 to start). */
uint32_t pp__crc32(const void *p, size_t n, uint32_t crc);

#endif
