/* Libraries that come and go. A gated library that is dlclose()d takes with
 * it what names its keys: raii site descriptors, plugin name tables, the code
 * that cyg and xray keys point into. The runtime interposes dlclose(): before
 * the library goes, every key the slabs hold that lies in it is named and the
 * name copied into the runtime's own memory (names.c), and plugin tables
 * that live in it are copied whole. The dump then never reads unmapped
 * memory, and names stay right whatever the library's fate. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "runtime.h"
#include "slab.h"

struct range {
	uintptr_t base, lo, hi;
	const char *name;
};

static int find_range(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct range *r = arg;
	(void)size;
	if (info->dlpi_addr != r->base || strcmp(info->dlpi_name ? info->dlpi_name : "", r->name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (!r->hi || lo < r->lo)
			r->lo = lo;
		if (hi > r->hi)
			r->hi = hi;
	}
	return 1;
}

/* Name what the library at handle holds, while it is still mapped. */
static void retire(void *handle)
{
	struct link_map *lm = NULL;
	if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
		return;
	struct range r = {.base = lm->l_addr, .name = lm->l_name ? lm->l_name : ""};
	dl_iterate_phdr(find_range, &r);
	if (r.hi > r.lo)
		pp__names_retire(r.lo, r.hi);
}

/* dlclose() as the program sees it. The real one is found once; the
 * runtime's bookkeeping runs first and costs a walk of the keys seen so far
 * (only when a slab exists, so programs without gates pay nothing). */
PP_EXPORT int dlclose(void *handle)
{
	static int (*real)(void *);
	int (*fn)(void *) = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
	if (!fn) {
		fn = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
		if (!fn)
			return -1;
		__atomic_store_n(&real, fn, __ATOMIC_RELEASE);
	}
	if (pp__slab_first())
		retire(handle);
	return fn(handle);
}
