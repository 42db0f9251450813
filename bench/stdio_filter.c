/* stdio_filter: a single-threaded filter of the kind that writes its output
 * a character at a time and allocates per word (bench/namer.sh): it makes
 * its own input (N words of pseudo-random letters), copies each word into
 * a fresh allocation, upper-cases it and writes it with putc to /dev/null.
 * Whether pathprof runs a thread beside it decides whether glibc takes a
 * lock in every putc and malloc (PATHPROF_NAMER, docs/guides/live.md).
 * Prints its own run time in ns and a checksum.
 * usage: stdio_filter [WORDS]   (default 3000000) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__attribute__((noinline)) static size_t next_word(uint64_t *seed, char *buf)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	size_t n = 2 + (*seed >> 59);
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)('a' + (*seed >> (i * 3 % 58)) % 26);
	buf[n] = '\0';
	return n;
}

__attribute__((noinline)) static uint64_t emit(FILE *out, const char *w, size_t n)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		int c = w[i] - 'a' + 'A';
		putc(c, out);
		sum += (uint64_t)c;
	}
	putc(' ', out);
	return sum;
}

__attribute__((noinline)) static uint64_t filter(FILE *out, long words)
{
	uint64_t seed = 42, sum = 0;
	char buf[64];
	for (long i = 0; i < words; i++) {
		size_t n = next_word(&seed, buf);
		char *w = malloc(n + 1);
		if (!w)
			return 0;
		memcpy(w, buf, n + 1);
		sum += emit(out, w, n);
		free(w);
	}
	return sum;
}

int main(int argc, char **argv)
{
	long words = argc > 1 ? atol(argv[1]) : 3000000;
	FILE *out = fopen("/dev/null", "w");
	if (!out)
		return 1;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t sum = filter(out, words);
	clock_gettime(CLOCK_MONOTONIC, &b);
	fclose(out);
	printf("%lld %llu\n", (long long)((b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec)),
	       (unsigned long long)sum);
	return 0;
}
