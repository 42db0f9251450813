/* Naming a segment's keys from its writer's files (shm_offline.h). cyg keys
 * go through the runtime's own symbolizer, opened over the files as the
 * writer had them loaded, so a name is the one the writer would have
 * published. A raii key is the address of the gate's static pp_site_t:
 * its name and file pointers are read from the file's data, where a
 * position-independent file keeps the pointer in place, or in the
 * relocation that sets it at load time (GNU ld writes both, lld may write
 * only the relocation). A plugin key is the hash of a name, found in the
 * table section the pass gives every module (pathprof/frontend.h). */
#define _GNU_SOURCE
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pathprof/frontend.h>
#include <pathprof/state.h>
#include "map.h"
#include "shm_offline.h"
#include "symbolize.h"

struct module {
	char *path;
	uint64_t bias, lo, hi;
	char build_id[48];
	int checked; /* 0: not yet, 1: the file is the writer's, -1: it is not */
	/* the file's relative relocations, sorted by where they write:
	 * offsets and addends, read at the first pointer looked up */
	uint64_t *rel_at, *rel_add;
	size_t nrel;
	int rel_read;
};

struct pp__offline {
	struct module *m;
	size_t n, cap;
	pp__symbolizer_t *sym;
	int sym_tried, listed;
	/* plugin keys (hashes of names) -> plugin_name[index], from every
	 * file's table section, read at the first plugin key */
	pp__map_t plugin_keys;
	char **plugin_name;
	size_t nplugin;
	int plugin_read;
	char buf[4096], file[4096];
};

pp__offline_t *pp__offline_new(void)
{
	return calloc(1, sizeof(pp__offline_t));
}

int pp__offline_first(pp__offline_t *o)
{
	int first = !o->listed;
	o->listed = 1;
	return first;
}

int pp__offline_add(pp__offline_t *o, const char *path, uint64_t bias, uint64_t lo, uint64_t hi,
		    const char *build_id)
{
	/* only a file, never a device or a pipe a damaged segment names,
	 * which reading could block on */
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 16;
		struct module *m = realloc(o->m, cap * sizeof *m);
		if (!m)
			return -1;
		o->m = m;
		o->cap = cap;
	}
	struct module *m = &o->m[o->n];
	memset(m, 0, sizeof *m);
	if (!(m->path = strdup(path)))
		return -1;
	m->bias = bias;
	m->lo = lo;
	m->hi = hi;
	snprintf(m->build_id, sizeof m->build_id, "%s", build_id);
	o->n++;
	return 0;
}

void pp__offline_free(pp__offline_t *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++) {
		free(o->m[i].path);
		free(o->m[i].rel_at);
		free(o->m[i].rel_add);
	}
	free(o->m);
	for (size_t i = 0; i < o->nplugin; i++)
		free(o->plugin_name[i]);
	free(o->plugin_name);
	pp__map_free(&o->plugin_keys);
	if (o->sym)
		pp__symbolizer_close(o->sym);
	free(o);
}

static pp__symbolizer_t *symbolizer(pp__offline_t *o)
{
	if (o->sym_tried)
		return o->sym;
	o->sym_tried = 1;
	const char **paths = calloc(o->n ? o->n : 1, sizeof *paths);
	uint64_t *bias = calloc(o->n ? o->n : 1, sizeof *bias);
	if (paths && bias) {
		for (size_t i = 0; i < o->n; i++) {
			paths[i] = o->m[i].path;
			bias[i] = o->m[i].bias;
		}
		char err[256];
		o->sym = pp__symbolizer_open_files(paths, bias, o->n, err, sizeof err);
	}
	free(paths);
	free(bias);
	return o->sym;
}

/* The writer's module holding address a, as libdwfl reported it, when its
 * file still has the build id the writer loaded (a file without one is
 * taken as it is). */
static Dwfl_Module *module_of(pp__offline_t *o, uint64_t a, struct module **out)
{
	struct module *m = NULL;
	for (size_t i = 0; i < o->n && !m; i++)
		if (a >= o->m[i].lo && a < o->m[i].hi)
			m = &o->m[i];
	pp__symbolizer_t *s;
	if (!m || m->checked < 0 || !(s = symbolizer(o)))
		return NULL;
	Dwfl_Module *mod = dwfl_addrmodule(pp__symbolizer_dwfl(s), a);
	if (out)
		*out = m;
	if (!mod || m->checked)
		return mod;
	const unsigned char *bits;
	GElf_Addr at;
	int nb = dwfl_module_build_id(mod, &bits, &at);
	char hex[sizeof m->build_id] = "";
	for (int i = 0; i < nb && 2 * i + 2 < (int)sizeof hex; i++)
		snprintf(hex + 2 * i, 3, "%02x", bits[i]);
	m->checked = strcmp(hex, m->build_id) == 0 ? 1 : -1;
	return m->checked > 0 ? mod : NULL;
}

/* The bytes at file address va in elf's loaded sections, n of them, or
 * NULL. */
static const unsigned char *data_at(Elf *elf, uint64_t va, size_t n, size_t *left)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOBITS ||
		    va < sh.sh_addr || va - sh.sh_addr >= sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		uint64_t off = va - sh.sh_addr;
		if (!d || !d->d_buf || off > d->d_size || d->d_size - off < n)
			return NULL;
		*left = d->d_size - off;
		return (const unsigned char *)d->d_buf + off;
	}
	return NULL;
}

/* The machine's relative relocation, which sets a pointer to the load
 * address plus its addend. */
static uint32_t relative_type(Elf *elf)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh))
		return 0;
	return eh.e_machine == EM_X86_64 ? R_X86_64_RELATIVE
	       : eh.e_machine == EM_AARCH64 ? R_AARCH64_RELATIVE
					    : 0;
}

static int by_offset(const void *a, const void *b)
{
	uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
	return x < y ? -1 : x > y;
}

/* m's relative relocations, sorted, so that each pointer looked up costs
 * a binary search (a C++ program has a table row or a site per function
 * and as many relocations). Left empty when memory runs out: pointers
 * are then read in place. */
static void read_relocs(struct module *m, Elf *elf)
{
	m->rel_read = 1;
	uint32_t relative = relative_type(elf);
	size_t n = 0, cap = 0;
	uint64_t *pairs = NULL;
	Elf_Scn *scn = NULL;
	while (relative && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t nrel = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < nrel; i++) {
			GElf_Rela r;
			if (!gelf_getrela(d, (int)i, &r) || GELF_R_TYPE(r.r_info) != relative)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				uint64_t *p = realloc(pairs, 2 * cap * sizeof *p);
				if (!p) {
					free(pairs);
					return;
				}
				pairs = p;
			}
			pairs[2 * n] = r.r_offset;
			pairs[2 * n + 1] = (uint64_t)r.r_addend;
			n++;
		}
	}
	if (!n) {
		free(pairs);
		return;
	}
	qsort(pairs, n, 2 * sizeof *pairs, by_offset);
	m->rel_at = malloc(n * sizeof *m->rel_at);
	m->rel_add = malloc(n * sizeof *m->rel_add);
	if (m->rel_at && m->rel_add) {
		for (size_t i = 0; i < n; i++) {
			m->rel_at[i] = pairs[2 * i];
			m->rel_add[i] = pairs[2 * i + 1];
		}
		m->nrel = n;
	}
	free(pairs);
}

/* The pointer the loader writes at file address va of m's file: the
 * relocation's addend where one sets it, else the value in place. */
static uint64_t pointer_at(struct module *m, Elf *elf, uint64_t va)
{
	if (!m->rel_read)
		read_relocs(m, elf);
	size_t lo = 0, hi = m->nrel;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->rel_at[mid] < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->nrel && m->rel_at[lo] == va)
		return m->rel_add[lo];
	size_t left;
	const unsigned char *p = data_at(elf, va, 8, &left);
	uint64_t v = 0;
	if (p)
		memcpy(&v, p, 8);
	return v;
}

/* The NUL-terminated string at file address va, or NULL. */
static const char *string_at(Elf *elf, uint64_t va)
{
	size_t left;
	const unsigned char *p = va ? data_at(elf, va, 1, &left) : NULL;
	return p && memchr(p, '\0', left) ? (const char *)p : NULL;
}

static const char *raii_name(pp__offline_t *o, uint64_t key, const char **file, uint32_t *line)
{
	struct module *m = NULL;
	Dwfl_Module *mod = module_of(o, key, &m);
	GElf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	if (!elf || !m || gelf_getclass(elf) != ELFCLASS64 || key < bias)
		return NULL;
	uint64_t va = key - bias;
	size_t left;
	const unsigned char *site = data_at(elf, va, sizeof(pp_site_t), &left);
	if (!site)
		return NULL;
	const char *name = string_at(elf, pointer_at(m, elf, va + offsetof(pp_site_t, name)));
	const char *f = string_at(elf, pointer_at(m, elf, va + offsetof(pp_site_t, file)));
	if (!name)
		return NULL;
	unsigned ln;
	memcpy(&ln, site + offsetof(pp_site_t, line), sizeof ln);
	snprintf(o->buf, sizeof o->buf, "%s", name);
	snprintf(o->file, sizeof o->file, "%s", f ? f : "");
	*file = o->file;
	*line = ln;
	return o->buf;
}

/* One file's plugin name table section: its rows into o's map. */
static void read_plugin_table(pp__offline_t *o, struct module *m, Elf *elf)
{
	size_t shstrndx;
	if (gelf_getclass(elf) != ELFCLASS64 || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sn;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(sn = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(sn, PP_PLUGIN_NAMES_SECTION))
			continue;
		for (uint64_t va = sh.sh_addr; va + sizeof(pp_name_entry_t) <= sh.sh_addr + sh.sh_size;
		     va += sizeof(pp_name_entry_t)) {
			size_t left;
			const unsigned char *row = data_at(elf, va, sizeof(pp_name_entry_t), &left);
			uint64_t key;
			uint32_t seen;
			if (!row)
				return;
			memcpy(&key, row, sizeof key);
			const char *name =
				string_at(elf, pointer_at(m, elf, va + offsetof(pp_name_entry_t, name)));
			if (!key || !name || pp__map_get(&o->plugin_keys, key, &seen))
				continue;
			char **grown = realloc(o->plugin_name, (o->nplugin + 1) * sizeof *grown);
			if (!grown)
				return;
			o->plugin_name = grown;
			if (!(grown[o->nplugin] = strdup(name)))
				return;
			if (pp__map_put(&o->plugin_keys, key, (uint32_t)o->nplugin) != 0) {
				free(grown[o->nplugin]);
				return;
			}
			o->nplugin++;
		}
	}
}

/* A plugin key is the hash of its function's name, not an address: the
 * name is looked up in the tables of every file the writer had mapped. */
static const char *plugin_name(pp__offline_t *o, uint64_t key)
{
	if (!o->plugin_read) {
		o->plugin_read = 1;
		for (size_t i = 0; i < o->n; i++) {
			struct module *m = NULL;
			Dwfl_Module *mod = module_of(o, o->m[i].lo, &m);
			GElf_Addr bias;
			Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
			if (elf && m)
				read_plugin_table(o, m, elf);
		}
	}
	uint32_t i;
	if (!pp__map_get(&o->plugin_keys, key, &i))
		return NULL;
	snprintf(o->buf, sizeof o->buf, "%s", o->plugin_name[i]);
	return o->buf;
}

const char *pp__offline_name(pp__offline_t *o, int fe, uint64_t key, const char **file,
			     uint32_t *line)
{
	*file = "";
	*line = 0;
	if (fe == PP_FE_RAII)
		return raii_name(o, key, file, line);
	if (fe == PP_FE_PLUGIN)
		return plugin_name(o, key);
	/* a symbolizer's stand-in ("module+0x...") says no more than the raw
	 * key: only a symbol is a name */
	if (fe == PP_FE_CYG && module_of(o, key, NULL) &&
	    pp__symbolize(o->sym, key, o->buf, sizeof o->buf) == 0)
		return o->buf;
	return NULL;
}
