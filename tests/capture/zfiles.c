/* zfiles: compresses each file it is given with libzstd (the system's,
 * Debian libzstd-dev), decompresses it again and checks the round trip: a
 * real program of a real library for tests/capture. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

int main(int argc, char **argv)
{
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_DCtx *d = ZSTD_createDCtx();
	unsigned long long total = 0;
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) { perror(argv[i]); return 1; }
		static char in[1 << 20];
		size_t n = fread(in, 1, sizeof in, f);
		fclose(f);
		size_t cap = ZSTD_compressBound(n);
		char *z = malloc(cap), *back = malloc(n + 1);
		size_t zn = ZSTD_compressCCtx(c, z, cap, in, n, 3);
		if (ZSTD_isError(zn)) { fprintf(stderr, "%s\n", ZSTD_getErrorName(zn)); return 1; }
		unsigned long long orig = ZSTD_getFrameContentSize(z, zn);
		size_t bn = ZSTD_decompressDCtx(d, back, n + 1, z, zn);
		if (ZSTD_isError(bn) || bn != n || orig != n || memcmp(in, back, n)) { fprintf(stderr, "round trip failed\n"); return 1; }
		printf("%s: %zu -> %zu bytes\n", argv[i], n, zn);
		total += zn;
		free(z), free(back);
	}
	ZSTD_freeCCtx(c);
	ZSTD_freeDCtx(d);
	printf("total %llu compressed bytes\n", total);
	return 0;
}
