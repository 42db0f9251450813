/* Turns a live segment left by a writer run (PATHPROF_SHM_KEEP=1) into a seed
 * of the shm fuzz target: the image cut to the bytes the writer handed out
 * (the header's size lowered to match), stored sparse as fuzz_shm.c reads it.
 * Run when the segment layout changes (docs/internals/robustness.md, Seeds):
 * mkseeds-shm /dev/shm/NAME tests/fuzz/seeds/shm/SEED */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "shm.h"

/* Zero stretches shorter than this stay inside a record: each record costs
 * 6 bytes, and fewer records keep structures whole for the fuzzer. */
#define JOIN_GAP 24
#define MAX_RECORD 65535u

static void put_record(FILE *f, const uint8_t *image, size_t off, size_t len)
{
	uint8_t head[6] = { off & 255, off >> 8 & 255, off >> 16 & 255, off >> 24 & 255,
			    len & 255, len >> 8 & 255 };
	if (fwrite(head, 1, 6, f) != 6 || (len && fwrite(image + off, 1, len, f) != len))
		fz_fail("cannot write the seed");
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fputs("usage: mkseeds-shm SEGMENT-FILE OUT\n", stderr);
		return 2;
	}
	FILE *in = fopen(argv[1], "rb");
	pp__shm_hdr_t h;
	if (!in || fread(&h, sizeof h, 1, in) != 1 || memcmp(h.magic, PP__SHM_MAGIC, 8))
		fz_fail("%s: not a live segment", argv[1]);
	/* The fuzz target takes at most 1 MiB; a seed should be far smaller. */
	if (h.used < sizeof h || h.used > (1u << 20) || h.used > h.arena_size)
		fz_fail("%s: used size %llu is not between the header and 1 MiB", argv[1],
			(unsigned long long)h.used);
	size_t used = h.used;
	uint8_t *image = malloc(used);
	if (!image || fseek(in, 0, SEEK_SET) || fread(image, 1, used, in) != used)
		fz_fail("%s: cannot read %zu bytes", argv[1], used);
	fclose(in);
	((pp__shm_hdr_t *)image)->arena_size = used;

	FILE *out = fopen(argv[2], "wb");
	if (!out)
		fz_fail("cannot create %s", argv[2]);
	for (size_t i = 0; i < used;) {
		if (!image[i]) {
			i++;
			continue;
		}
		size_t end = i + 1, zeros = 0;
		for (size_t j = end; j < used && zeros < JOIN_GAP && j - i < MAX_RECORD; j++) {
			zeros = image[j] ? 0 : zeros + 1;
			if (image[j])
				end = j + 1;
		}
		put_record(out, image, i, end - i);
		i = end;
	}
	put_record(out, image, used, 0); /* the image ends where the writer's bytes do */
	if (fclose(out))
		fz_fail("cannot write %s", argv[2]);
	free(image);
	return 0;
}
