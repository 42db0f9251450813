/* The live segment's module list: the files mapped when the process began
 * exporting, each with where it lies and its build id. A program that runs
 * one thread has no naming thread (PATHPROF_NAMER=auto, shm.c), so when it
 * is killed its segment holds keys and no names; with this list the
 * reader names its cyg and raii keys from the files themselves
 * (reader/shm_offline.c). Written once, at export, on the exporting
 * thread: a library loaded later is not in it, and its keys stay raw
 * unless a naming pass named them (docs/guides/crash.md). */
#define _GNU_SOURCE
#include <limits.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"
#include "shm.h"
#include "slab.h"

static int add_module(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	pp__shm_hdr_t *h = arg;
	char exe[PATH_MAX];
	const char *path = info->dlpi_name;
	if (!path || !*path) {
		/* the main program: listed first, without a name */
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0)
			return 0;
		exe[n] = '\0';
		path = exe;
	}
	if (path[0] != '/')
		return 0; /* the vDSO, which has no file */
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		lo = a < lo ? a : lo;
		hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
	}
	size_t pl = strlen(path);
	if (lo >= hi || pl > 4000)
		return 0;
	pp__shm_module_t *m = pp__arena_alloc(sizeof *m + pl + 1);
	if (!m)
		return 1; /* the arena is full: the list ends here */
	m->bias = info->dlpi_addr;
	m->lo = lo;
	m->hi = hi;
	pp__phdr_build_id(info, m->build_id, sizeof m->build_id);
	m->path_len = (uint32_t)pl;
	m->pad = 0;
	memcpy(m->path, path, pl + 1);
	m->next = __atomic_load_n(&h->modules, __ATOMIC_RELAXED);
	/* Readers follow h->modules: the record must be whole first. */
	__atomic_store_n(&h->modules, (uint64_t)((char *)m - pp__arena.base), __ATOMIC_RELEASE);
	return 0;
}

void pp__shm_modules_publish(pp__shm_hdr_t *h)
{
	dl_iterate_phdr(add_module, h);
}
