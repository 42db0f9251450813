/* gzip (RFC 1952) for the pprof export, written by zlib (gzip.c). */
#ifndef PP_GZIP_H
#define PP_GZIP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Write data compressed as one gzip member to out. Returns 0, or -1 when out
 * of memory; write errors are left in out's error flag. */
int pp__gzip_write(FILE *out, const uint8_t *data, size_t len);

#endif
