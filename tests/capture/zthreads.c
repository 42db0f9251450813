/* zthreads: two threads compress and decompress with libzstd at once, each
 * with contexts of its own, 50 rounds of different data; the main thread
 * creates one context the workers share read-only through ZSTD_compressBound
 * only. A capture of it must replay each thread's calls in their order
 * with the same results (tests/capture/zstd.sh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static void *work(void *arg)
{
	int seed = *(int *)arg;
	ZSTD_CCtx *c = ZSTD_createCCtx();
	ZSTD_DCtx *d = ZSTD_createDCtx();
	char in[4096], back[4096];
	for (int r = 0; r < 50; r++) {
		for (size_t i = 0; i < sizeof in; i++)
			in[i] = (char)('a' + (i * (size_t)(seed + r)) % 7);
		size_t cap = ZSTD_compressBound(sizeof in);
		char *z = malloc(cap);
		size_t zn = ZSTD_compressCCtx(c, z, cap, in, sizeof in, 1 + r % 5);
		size_t bn = ZSTD_decompressDCtx(d, back, sizeof back, z, zn);
		if (ZSTD_isError(zn) || bn != sizeof in || memcmp(in, back, bn))
			abort();
		free(z);
	}
	ZSTD_freeCCtx(c);
	ZSTD_freeDCtx(d);
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	int seeds[2] = { 3, 11 };
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, &seeds[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	puts("zthreads: ok");
	return 0;
}
