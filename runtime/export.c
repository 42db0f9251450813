/* Exporting: the arena moves, at the same addresses, into a named
 * shared-memory object, so every pointer the slabs hold stays valid and a
 * reader in another process maps the same bytes (docs/guides/live.md). The
 * configured name waits in pp__config.shm until the arena's next allocation
 * (or pp_shm_export) so that a forked child that only execs or exits never
 * creates a segment. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"
#include "shm.h"
#include "slab.h"

static pthread_mutex_t export_lock = PTHREAD_MUTEX_INITIALIZER;

/* Is the page all zero bytes? (A word loop: a zero page to compare with
 * would put 64 KiB into every profiled program's text.) */
static int all_zero(const char *p, size_t n)
{
	const uint64_t *w = (const uint64_t *)(const void *)p;
	for (size_t i = 0; i < n / 8; i++)
		if (w[i])
			return 0;
	for (size_t i = n & ~(size_t)7; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Copy what is in use into the object, then map the object over the arena's
 * addresses: every pointer stays valid and nothing moves. Increments other
 * threads make between the copy and the remap are lost, so exporting a
 * running multi-threaded program is exact only for a caller with no rival
 * writers (PATHPROF_SHM exports before the first slab exists). */
static int arena_to_shm(const char *name, int keep)
{
	char object[300];
	pp__shm_object_name(name, object, sizeof object);
	int fd = pp__shm_create(object, sizeof object, pp__arena.size);
	if (fd < 0)
		return -1;
	size_t used = __atomic_load_n(&pp__arena.used, __ATOMIC_ACQUIRE);
	if (used > pp__arena.size)
		used = pp__arena.size;
	long pg = sysconf(_SC_PAGESIZE);
	int rc = fallocate(fd, 0, 0, (off_t)used);
	/* Only pages with data are written: an untouched page of the
	 * anonymous arena reads as the shared zero page and costs nothing. */
	for (size_t off = PP__ARENA_HDR_BYTES; rc == 0 && off < used; off += (size_t)pg) {
		size_t n = used - off < (size_t)pg ? used - off : (size_t)pg;
		if (all_zero(pp__arena.base + off, n))
			continue;
		if (pwrite(fd, pp__arena.base + off, n, (off_t)off) != (ssize_t)n)
			rc = -1;
	}
	if (rc == 0 && mmap(pp__arena.base, pp__arena.size, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0) == MAP_FAILED)
		rc = -1;
	/* a core dump would allocate every page of the object (slab.c) */
	if (rc == 0)
		madvise(pp__arena.base, pp__arena.size, MADV_DONTDUMP);
	if (rc != 0) {
		pp__warn("%s: cannot export the arena: %s; the live view is off, counting goes "
			 "on in private memory", object, strerror(errno));
		shm_unlink(object);
		close(fd);
		return -1;
	}
	/* The mapping holds the object: no descriptor is kept, so nothing is
	 * ever written through a number the program has closed and reused. */
	close(fd);
	pp__slab_keep_fork_frames();
	pp__shm_hdr_t *h = (pp__shm_hdr_t *)pp__arena.base;
	pp__shm_note_used(h, __atomic_load_n(&pp__arena.used, __ATOMIC_ACQUIRE));
	__atomic_store_n(&h->slabs, (uint64_t)(uintptr_t)pp__slab_first(), __ATOMIC_RELEASE);
	__atomic_store_n(&pp__arena.hdr, h, __ATOMIC_RELEASE);
	pp__shm_start(h, object, keep);
	return 0;
}

/* The arena's pending hook: the first allocation after arming exports. */
static int export_now(void)
{
	int rc = 0;
	pthread_mutex_lock(&export_lock);
	if (__atomic_load_n(&pp__arena_pending, __ATOMIC_ACQUIRE) == export_now) {
		__atomic_store_n(&pp__arena_pending, NULL, __ATOMIC_RELEASE);
		/* a name cleared since arming (the replay tool) exports nothing */
		if (pp__config.shm[0])
			rc = arena_to_shm(pp__config.shm, pp__config.shm_keep);
	}
	pthread_mutex_unlock(&export_lock);
	return rc;
}

void pp__shm_export_arm(void)
{
	__atomic_store_n(&pp__arena_pending, export_now, __ATOMIC_RELEASE);
}

void pp__shm_export_after_fork(int fresh)
{
	pthread_mutex_init(&export_lock, NULL);
	if (fresh && pp__config.shm[0])
		pp__shm_export_arm(); /* the parent's segment is not the child's */
}

int pp__shm_export(const char *name, int keep)
{
	if (!pp__shm_name_ok(name)) {
		pp__warn("'%s' is not a usable segment name (1-200 bytes, no '/' inside)",
			 name ? name : "(null)");
		return -1;
	}
	pthread_mutex_lock(&export_lock);
	if (pp__arena.hdr && pp__config.shm_default) {
		/* exported under the default name: the program's own wins */
		int rc = pp__shm_rename(name, keep);
		if (rc == 0) {
			snprintf(pp__config.shm, sizeof pp__config.shm, "%s", name);
			pp__config.shm_default = 0;
		}
		pthread_mutex_unlock(&export_lock);
		return rc;
	}
	if (pp__arena.hdr) {
		pthread_mutex_unlock(&export_lock);
		pp__warn("the arena is already exported as %s", pp__config.shm);
		return -1;
	}
	pp__config.shm_default = 0;
	snprintf(pp__config.shm, sizeof pp__config.shm, "%s", name);
	pp__config.shm_keep = keep;
	pthread_mutex_unlock(&export_lock);
	if (!pp__arena_ready())
		return -1;
	pp__shm_export_arm();
	return export_now();
}
