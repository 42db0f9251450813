/* Fuzz target: the live segment reader (pp__shm_check, then pp__shm_snapshot)
 * over an in-memory image standing in for the read-only mapping of a dead or
 * hostile writer's segment. Oracles: a refusal is one line naming the
 * segment; an accepted snapshot is a well-formed profile (indices in range,
 * ids of its names, histograms that add up, records = paths + unnamed +
 * drops) that writes and reads back identical; nothing leaks.
 *
 * A real segment is mostly zeros (a 256 KiB path chunk holds a few paths), so
 * the input is the image stored sparse: records of a 4-byte offset and a
 * 2-byte length (little-endian) followed by that many bytes, laid over a
 * zeroed image as long as the furthest record's end (a record of length 0
 * only sets the size). A record cut short by the end of the input keeps what
 * is there. mkseeds_shm.c writes seeds in this form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "profile_merge.h"
#include "shm_read.h"

/* Larger images only slow the fuzzer down: every structure the reader walks
 * fits in a few hundred KiB of a real segment. */
#define MAX_IMAGE (1u << 20)
#define OBJECT "/fuzz-shm"
#define FILE_MAX_DEPTH 4096u

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_dir();
	return 0;
}

/* Lay the records of data over image (NULL: only measure). Returns the image
 * size. */
static size_t unpack(const uint8_t *data, size_t size, uint8_t *image)
{
	size_t end = 0;
	for (size_t i = 0; size - i >= 6;) {
		uint32_t off = data[i] | data[i + 1] << 8 | data[i + 2] << 16 | (uint32_t)data[i + 3] << 24;
		size_t len = data[i + 4] | data[i + 5] << 8;
		i += 6;
		if (len > size - i)
			len = size - i;
		if (off <= MAX_IMAGE && len <= MAX_IMAGE - off) {
			if (image)
				memcpy(image + off, data + i, len);
			if (off + len > end)
				end = off + len;
		}
		i += len;
	}
	return end;
}

static void check_profile(const pp_profile_t *p, const pp__shm_stats_t *st)
{
	uint64_t records = p->drops_table + st->unnamed_records; /* mod 2^64, as the reader sums */
	for (uint32_t i = 0; i < p->npaths; i++) {
		const pp_ppath_t *q = &p->paths[i];
		records += q->count;
		if (!q->depth || !q->names)
			fz_fail("path %u has depth %u", i, q->depth);
		if (i && q->id <= p->paths[i - 1].id)
			fz_fail("paths are not in id order at %u", i);
		const char **strs = malloc(q->depth * sizeof *strs);
		if (!strs)
			fz_fail("out of memory");
		for (uint32_t k = 0; k < q->depth; k++) {
			if (q->names[k] >= p->nnames)
				fz_fail("path %u names index %u of %u", i, q->names[k], p->nnames);
			strs[k] = p->names[q->names[k]].name;
		}
		if (q->id != pp__path_id(strs, q->depth))
			fz_fail("path %u: id is not the id of its names", i);
		free(strs);
	}
	for (uint32_t i = 0; i < p->nnodes; i++) {
		const pp_seg_t *s = &p->nodes[i].incl;
		uint64_t n = 0;
		if (i && p->nodes[i].id <= p->nodes[i - 1].id)
			fz_fail("node %u: ids out of order", i);
		for (uint32_t b = 0; b < s->nbins; b++) {
			if (s->bins[b].bucket >= PP_HIST_BUCKETS || !s->bins[b].count ||
			    (b && s->bins[b].bucket <= s->bins[b - 1].bucket))
				fz_fail("node %u: bin %u is out of order or empty", i, b);
			n += s->bins[b].count;
		}
		if (n != s->count)
			fz_fail("node %u: bins hold %llu, count says %llu", i,
				(unsigned long long)n, (unsigned long long)s->count);
	}
	if (records != p->records)
		fz_fail("records %llu, paths + unnamed + drops make %llu",
			(unsigned long long)p->records, (unsigned long long)records);
	if (!memchr(st->program, 0, sizeof st->program))
		fz_fail("program name is not terminated");
}

/* What a snapshot gives, `pathprof top` may save: it must read back the same.
 * Paths deeper than a profile file holds (docs/reference/file-format.md) are left
 * out: the runtime never writes them (PATHPROF_DEPTH stops at 4096), but a
 * segment is untrusted input and the reader accepts what it can bound. */
static void round_trip(const pp_profile_t *p)
{
	for (uint32_t i = 0; i < p->npaths; i++)
		if (p->paths[i].depth > FILE_MAX_DEPTH)
			return;
	for (uint32_t i = 0; i < p->nnodes; i++) /* a node alone can be deeper too */
		if (p->nodes[i].depth > FILE_MAX_DEPTH)
			return;
	char err[512] = "";
	const char *path = fz_put("snap.pathprof", "", 0);
	if (pp__profile_write(p, path, err, sizeof err) != 0)
		fz_fail("a snapshot cannot be written: %s", err);
	pp_profile_t back;
	if (pp__profile_read(&back, path, err, sizeof err) != 0)
		fz_fail("a written snapshot is refused: %s", err);
	fz_same_profile(p, &back);
	pp__profile_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = unpack(data, size, NULL);
	/* Page-aligned like a mapping, and exactly n bytes so ASan sees a read
	 * past the end of the object. */
	void *image = NULL;
	if (posix_memalign(&image, 4096, n ? n : 1) != 0)
		fz_fail("out of memory");
	memset(image, 0, n);
	unpack(data, size, image);

	/* odd sizes also name keys that have no record (pathprof recover) */
	pp__shm_view_t v = {.fd = -1, .map = image, .size = n, .mapped = n, .h = image, .raw_keys = (int)(n & 1)};
	snprintf(v.object, sizeof v.object, "%s", OBJECT);
	pp_profile_t p;
	pp__shm_stats_t st;
	char err[512] = "";
	int rc = pp__shm_check(&v, err, sizeof err);
	if (rc == 0)
		rc = pp__shm_snapshot(&v, &p, &st, err, sizeof err);
	if (rc != 0) {
		if ((strncmp(err, OBJECT ": ", strlen(OBJECT) + 2) && strcmp(err, "out of memory")) ||
		    strchr(err, '\n'))
			fz_fail("refusal is not one line naming the segment: '%s'", err);
	} else {
		check_profile(&p, &st);
		round_trip(&p);
		pp__profile_free(&p);
	}
	free(image);
	return 0;
}
