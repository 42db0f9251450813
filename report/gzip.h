/* A small gzip (RFC 1952) writer for the pprof export: one DEFLATE block
 * with the fixed Huffman codes (RFC 1951 3.2.6) over a greedy LZ77 match
 * search. It compresses protobuf's repeated strings and ids well enough and
 * keeps the runtime free of a zlib link dependency that every user's static
 * link line would have to add (docs/reports.md). */
#ifndef PP_GZIP_H
#define PP_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Write data compressed as one gzip member to out. Returns 0, or -1 when out
 * of memory; write errors are left in out's error flag. */
int pp__gzip_write(FILE *out, const uint8_t *data, size_t len);

#endif
