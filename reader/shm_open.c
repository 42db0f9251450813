/* Opening a live segment for reading (shm_read.h): find it by name, pid or
 * file, check who wrote it and that its header fits the mapping, and map
 * what the writer has used. A damaged or forged segment gives one error
 * line; nothing is ever written to it (shm_read.c walks it). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_kind.h"
#include "runtime.h"
#include "shm.h"
#include "shm_offline.h"
#include "shm_read.h"
#include "slab.h"

int pp__shm_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

#define fail pp__shm_fail

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* Is the object one this user may trust? A segment is only as honest as
 * whoever wrote it: another user's could claim any pid and service. Read
 * only one's own, or, as root, one whose owner owns the process it names. */
static int trusted(pp__shm_view_t *v, char *err, size_t errlen)
{
	uid_t me = geteuid();
	if (v->is_file)
		return 0; /* a copy the user chose to read */
	if (v->owner != me && me != 0)
		return fail(err, errlen, "%s: owned by uid %u, not by this user (uid %u): not read",
			    v->object, v->owner, (unsigned)me);
	char proc[64];
	struct stat st;
	snprintf(proc, sizeof proc, "/proc/%llu", (unsigned long long)v->h->pid);
	if (stat(proc, &st) == 0 && st.st_uid != v->owner)
		return fail(err, errlen, "%s: written by uid %u but claims process %llu of uid %u: "
			    "not read (a forged segment?)", v->object, v->owner,
			    (unsigned long long)v->h->pid, (unsigned)st.st_uid);
	return 0;
}

int pp__shm_check(const pp__shm_view_t *v, char *err, size_t errlen)
{
	const char *o = v->object;
	const pp__shm_hdr_t *h = v->h;
	if (v->size < sizeof *h)
		return fail(err, errlen, "%s: truncated: %zu bytes, a segment header needs %zu", o,
			    v->size, sizeof *h);
	if (memcmp(h->magic, PP__SHM_MAGIC, 8)) {
		const char *hint = pp__file_kind_hint(pp__head_kind(h->magic, 8), PP__FILE_OTHER);
		return fail(err, errlen, "%s: %s", o, hint ? hint : "not a pathprof live segment (bad magic)");
	}
	if (h->version != PP__SHM_VERSION)
		return fail(err, errlen, "%s: segment layout version %u, this pathprof reads version %u",
			    o, h->version, PP__SHM_VERSION);
	struct {
		const char *what;
		uint32_t got, want;
	} sizes[] = {
		{"header", h->header_size, sizeof(pp__shm_hdr_t)},
		{"slab", h->slab_size, sizeof(pp__slab_t)},
		{"path", h->path_size, sizeof(pp__path_t)},
		{"segment timing", h->segrt_size, sizeof(pp__segrt_t)},
		{"name record", h->name_size, sizeof(pp__shm_name_t)},
		{"histogram rows", h->hist_rows, PP__CELL_ROWS},
		{"histogram sub-buckets", h->hist_sub, PP_HIST_SUB},
	};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		if (sizes[i].got != sizes[i].want)
			return fail(err, errlen,
				    "%s: %s size %u, this pathprof expects %u (another build wrote it)",
				    o, sizes[i].what, sizes[i].got, sizes[i].want);
	if (h->arena_size > v->size)
		return fail(err, errlen, "%s: truncated: the header says %llu bytes, the object has %zu",
			    o, (unsigned long long)h->arena_size, v->size);
	uint64_t used = __atomic_load_n(&h->used, __ATOMIC_ACQUIRE);
	if (used < PP__ARENA_HDR_BYTES || used > h->arena_size)
		return fail(err, errlen,
			    "%s: used size %llu lies outside the %llu-byte mapping", o,
			    (unsigned long long)used, (unsigned long long)h->arena_size);
	if (h->base & 4095)
		return fail(err, errlen, "%s: arena base %#llx is not page-aligned", o,
			    (unsigned long long)h->base);
	return 0;
}

/* Map what the writer has used now, with MAP_SLACK to grow into, instead of
 * the whole reservation: a reader under `ulimit -v` (or on a 32-bit
 * address space) failed to map 64 GiB (#27). A snapshot maps again when
 * the writer has gone past it. */
#define MAP_SLACK (256ull << 20)

int pp__shm_map_used(pp__shm_view_t *v, char *err, size_t errlen)
{
	pp__shm_hdr_t h;
	size_t want = v->size;
	if (pread(v->fd, &h, sizeof h, 0) == (ssize_t)sizeof h && h.used + MAP_SLACK < want)
		want = (size_t)(h.used + MAP_SLACK);
	if (v->map && want <= v->mapped)
		return 0;
	void *m = mmap(NULL, want, PROT_READ, MAP_SHARED | MAP_NORESERVE, v->fd, 0);
	if (m == MAP_FAILED)
		return fail(err, errlen, "%s: cannot map %zu bytes: %s", v->object, want,
			    strerror(errno));
	if (v->map)
		munmap((void *)v->map, v->mapped);
	v->map = m;
	v->h = m;
	v->mapped = want;
	return 0;
}

int pp__shm_open(pp__shm_view_t *v, const char *target, char *err, size_t errlen)
{
	memset(v, 0, sizeof *v);
	v->fd = -1;
	int found = -1;
	int is_file = strchr(target + 1, '/') != NULL;
	if (is_file) {
		snprintf(v->object, sizeof v->object, "%s", target);
	} else if (all_digits(target) && (found = pp__shm_find_by_pid(strtoull(target, NULL, 10), v->object,
							      sizeof v->object)) == 0) {
		/* found by pid */
	} else if (found == -2) {
		return fail(err, errlen, "%s: the live segment of process %s belongs to another user: "
			    "permission denied", target, target);
	} else if (pp__shm_name_ok(target)) {
		snprintf(v->object, sizeof v->object, "/%s", target[0] == '/' ? target + 1 : target);
	} else {
		return fail(err, errlen, "%s: not a segment name (1-200 bytes, no '/') nor a pid with "
			    "a segment", target);
	}
	v->fd = is_file ? open(v->object, O_RDONLY | O_CLOEXEC)
			: shm_open(v->object, O_RDONLY | O_CLOEXEC, 0);
	v->is_file = is_file;
	if (v->fd < 0) {
		int e = errno;
		if (is_file)
			return fail(err, errlen, "%s: cannot open: %s", v->object, strerror(e));
		if (e == ENOENT && all_digits(target))
			return fail(err, errlen, "%s: no live segment of process %s in /dev/shm (is "
				    "it profiled, has a gate run, is PATHPROF_SHM off?)", target, target);
		/* a recording in the current directory by that name */
		const char *hint = e == ENOENT ? pp__file_kind_hint(pp__file_kind(target), PP__FILE_OTHER) : NULL;
		if (hint)
			return fail(err, errlen, "%s: no live segment of that name; the file %s is %s", v->object,
				    target, hint);
		if (e == ENOENT)
			return fail(err, errlen, "%s: no live segment of that name in /dev/shm (is the "
				    "program running with PATHPROF_SHM=%s?)", v->object, v->object + 1);
		return fail(err, errlen, "%s: cannot open: %s", v->object, strerror(e));
	}
	struct stat st;
	if (fstat(v->fd, &st) != 0) {
		int e = errno;
		pp__shm_close(v);
		return fail(err, errlen, "%s: cannot stat: %s", v->object, strerror(e));
	}
	v->size = (size_t)st.st_size;
	v->owner = (uint32_t)st.st_uid;
	if (is_file && !S_ISREG(st.st_mode)) {
		pp__shm_close(v);
		return fail(err, errlen, "%s: not a regular file", target);
	}
	if (v->size < sizeof(pp__shm_hdr_t)) {
		int rc = fail(err, errlen, "%s: truncated: %zu bytes, a segment header needs %zu",
			      v->object, v->size, sizeof(pp__shm_hdr_t));
		pp__shm_close(v);
		return rc;
	}
	if (pp__shm_map_used(v, err, errlen) != 0) {
		pp__shm_close(v);
		return -1;
	}
	if (pp__shm_check(v, err, errlen) != 0 || trusted(v, err, errlen) != 0) {
		pp__shm_close(v);
		return -1;
	}
	v->files = pp__offline_new(); /* without memory, each snapshot tries its own */
	return 0;
}

void pp__shm_close(pp__shm_view_t *v)
{
	if (v->map)
		munmap((void *)v->map, v->mapped);
	if (v->fd >= 0)
		close(v->fd);
	v->map = NULL;
	v->h = NULL;
	v->fd = -1;
	pp__offline_free(v->files);
	v->files = NULL;
}
