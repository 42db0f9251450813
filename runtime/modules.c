/* Libraries that come and go. A gated library that is dlclose()d takes with
 * it what names its keys: raii site descriptors, plugin name tables, the code
 * that cyg and xray keys point into. The runtime interposes dlclose(): before
 * the library goes, every key the slabs hold that lies in it is named and the
 * name copied into the runtime's own memory (names.c), and plugin tables
 * that live in it are copied whole. The dump then never reads unmapped
 * memory, and names stay right whatever the library's fate.
 *
 * The throttling thread reads and writes code and raii sites in whatever
 * library holds a stopped key (site_patch.c, gate_budget.c): it holds the
 * unload lock meanwhile, which dlclose() takes too, so no library goes
 * away under it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
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

/* Recursive: a library's destructor may dlclose() another. */
static pthread_mutex_t unload_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static void unload_prepare(void)
{
	pthread_mutex_lock(&unload_lock);
}

static void unload_after(void)
{
	pthread_mutex_unlock(&unload_lock);
}

static void unload_atfork(void)
{
	pthread_atfork(unload_prepare, unload_after, unload_after);
}

void pp__modules_hold(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, unload_atfork);
	pthread_mutex_lock(&unload_lock);
}

void pp__modules_release(void)
{
	pthread_mutex_unlock(&unload_lock);
}

/* Is [a, a+n) inside a loaded module's segments? Under pp__modules_hold. */
struct span {
	uintptr_t a, n;
	int in;
};

static int find_span(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct span *s = arg;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum && !s->in; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		s->in = ph->p_type == PT_LOAD && s->a >= lo && s->a + s->n <= lo + ph->p_memsz;
	}
	return s->in;
}

/* glibc counts every load and unload (dlpi_adds, dlpi_subs, the same in
 * each module's entry): their sum changes when a library is unloaded and
 * another loaded, where a count of modules would not. Where a C library
 * lacks them, the count. */
static int module_generation(struct dl_phdr_info *info, size_t size, void *g)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
		*(unsigned long long *)g = info->dlpi_adds + info->dlpi_subs;
		return 1;
	}
	++*(unsigned long long *)g;
	return 0;
}

int pp__modules_loaded(void)
{
	unsigned long long g = 0;
	dl_iterate_phdr(module_generation, &g);
	return (int)g;
}

int pp__modules_holds(uintptr_t a, size_t n)
{
	struct span s = { a, n, 0 };
	dl_iterate_phdr(find_span, &s);
	return s.in;
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
	if (!pp__slab_first())
		return fn(handle);
	pthread_mutex_lock(&unload_lock);
	retire(handle);
	int rc = fn(handle);
	pthread_mutex_unlock(&unload_lock);
	return rc;
}
