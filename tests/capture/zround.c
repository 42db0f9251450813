/* A zlib round trip for tests/capture/zlib.sh: each file given is
 * compressed with compress2 and decompressed with uncompress2, whose
 * lengths go in and out through pointers (uLongf *destLen, uLong
 * *sourceLen: 'ref' in tests/capture/zlib.spec). Prints each file's
 * length, compressed length and the bytes uncompress2 consumed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static unsigned char *slurp(const char *path, uLong *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	size_t len = 0, got;
	if (!f)
		return NULL;
	do {
		unsigned char *g = realloc(b, len + 65536);
		if (!g) {
			free(b);
			fclose(f);
			return NULL;
		}
		b = g;
		len += got = fread(b + len, 1, 65536, f);
	} while (got == 65536);
	fclose(f);
	*n = (uLong)len;
	return b;
}

int main(int argc, char **argv)
{
	int level = getenv("ZROUND_LEVEL") ? atoi(getenv("ZROUND_LEVEL")) : 6;
	for (int i = 1; i < argc; i++) {
		uLong n;
		unsigned char *src = slurp(argv[i], &n);
		if (!src) {
			fprintf(stderr, "zround: %s: cannot read\n", argv[i]);
			return 1;
		}
		uLongf dl = compressBound(n);
		unsigned char *dst = malloc(dl), *back = malloc(n + 1);
		if (compress2(dst, &dl, src, n, level) != Z_OK)
			return 1;
		uLongf bl = n + 1;
		uLong sl = dl;
		if (uncompress2(back, &bl, dst, &sl) != Z_OK || bl != n || memcmp(src, back, n) ||
		    crc32(0, back, (uInt)bl) != crc32(0, src, (uInt)n))
			return 1;
		printf("%lu %lu %lu\n", (unsigned long)n, (unsigned long)dl, (unsigned long)sl);
		free(src);
		free(dst);
		free(back);
	}
	return 0;
}
