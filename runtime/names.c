/* Naming keys at dump time, per front-end: raii keys point at their site
 * descriptor, cyg keys are code addresses for the ELF symbolizer, xray ids
 * become addresses through the shim's translator, and plugin keys are looked
 * up in the tables the pass emitted. Keys that cannot be named keep a
 * readable stand-in ("cyg:0x..."), never an empty name. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/frontend.h>
#include "map.h"
#include "runtime.h"
#include "slab.h"
#include "symbolize.h"

struct table_ref {
	int fe;
	const pp_name_entry_t *table;
	uint32_t n;
};

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct table_ref *tables;
static size_t ntables, cap_tables;
static uint64_t (*key_address[PP_FE_COUNT])(uint64_t);
/* Names of keys whose library was unloaded (modules.c), in our own memory. */
static pp__map_t retired;
static pp_name_t *retired_names;
static uint32_t nretired, cap_retired;

void pp_register_names(int fe, const pp_name_entry_t *table, uint32_t n)
{
	pthread_mutex_lock(&names_lock);
	if (ntables == cap_tables) {
		size_t c = cap_tables ? cap_tables * 2 : 16;
		struct table_ref *m = realloc(tables, c * sizeof *m);
		if (!m) {
			pthread_mutex_unlock(&names_lock);
			pp__warn("out of memory registering %u names", n);
			return;
		}
		tables = m;
		cap_tables = c;
	}
	tables[ntables++] = (struct table_ref){fe, table, n};
	pthread_mutex_unlock(&names_lock);
}

void pp_register_key_address(int fe, uint64_t (*fn)(uint64_t key))
{
	if (fe > PP_FE_NONE && fe < PP_FE_COUNT)
		key_address[fe] = fn;
}

const char *pp__frontend_name(int fe)
{
	static const char *const names[PP_FE_COUNT] = {
		[PP_FE_NONE] = "none", [PP_FE_RAII] = "raii", [PP_FE_CYG] = "cyg",
		[PP_FE_XRAY] = "xray", [PP_FE_PLUGIN] = "plugin", [PP_FE_REPLAY] = "replay",
	};
	return fe >= 0 && fe < PP_FE_COUNT ? names[fe] : "unknown";
}

/* One resolution session: a symbolizer over the modules loaded now and a
 * scratch buffer per answer (answers are copied by the caller). */
struct pp__resolver {
	pp__symbolizer_t *sym;
	int sym_tried;
	char buf[4096];
};

pp__resolver_t *pp__resolver_open(void)
{
	return calloc(1, sizeof(pp__resolver_t));
}

void pp__resolver_close(pp__resolver_t *r)
{
	if (!r)
		return;
	if (r->sym)
		pp__symbolizer_close(r->sym);
	free(r);
}

static const char *by_address(pp__resolver_t *r, uint64_t addr)
{
	if (!r->sym_tried) {
		char err[256];
		r->sym_tried = 1;
		r->sym = pp__symbolizer_open(err, sizeof err);
		if (!r->sym)
			pp__warn("%s; functions are named by address", err);
	}
	if (r->sym) {
		pp__symbolize(r->sym, addr, r->buf, sizeof r->buf);
		return r->buf;
	}
	snprintf(r->buf, sizeof r->buf, "0x%llx", (unsigned long long)addr);
	return r->buf;
}

static const char *by_table(int fe, uint64_t key)
{
	const char *found = NULL;
	pthread_mutex_lock(&names_lock);
	for (size_t i = 0; i < ntables && !found; i++) {
		if (tables[i].fe != fe)
			continue;
		for (uint32_t j = 0; j < tables[i].n; j++)
			if (tables[i].table[j].key == key) {
				found = tables[i].table[j].name;
				break;
			}
	}
	pthread_mutex_unlock(&names_lock);
	return found;
}

const char *pp__resolve(pp__resolver_t *r, int fe, uint64_t key, const char **file, uint32_t *line)
{
	*file = "";
	*line = 0;
	uint32_t ri;
	pthread_mutex_lock(&names_lock);
	int gone = pp__map_get(&retired, key, &ri);
	pthread_mutex_unlock(&names_lock);
	if (gone) {
		*file = retired_names[ri].file;
		*line = retired_names[ri].line;
		return retired_names[ri].name;
	}
	switch (fe) {
	case PP_FE_RAII: {
		const pp_site_t *site = (const pp_site_t *)(uintptr_t)key;
		*file = site->file ? site->file : "";
		*line = site->line;
		return site->name ? site->name : "?";
	}
	case PP_FE_CYG:
		return by_address(r, key);
	case PP_FE_XRAY:
		if (key_address[fe]) {
			uint64_t a = key_address[fe](key);
			if (a)
				return by_address(r, a);
		}
		break;
	case PP_FE_PLUGIN:
	case PP_FE_REPLAY: {
		const char *n = by_table(fe, key);
		if (n)
			return n;
		break;
	}
	default:
		break;
	}
	snprintf(r->buf, sizeof r->buf, "%s:0x%llx", pp__frontend_name(fe), (unsigned long long)key);
	return r->buf;
}

/* A resolver that lives as long as the process (the recorder's first
 * sights, the selections). A code address in a library loaded since it was
 * opened is not always named by address: libdwfl may place it in a module
 * it knows (a library dlopen()ed after a selection was set was named
 * "libc.so.6+0x1e9270", and its functions silently left out), so the
 * resolver is reopened before it names an address whenever the loaded
 * modules changed (one dl_iterate_phdr() call a first sight). The caller
 * serialises. */
const char *pp__resolve_live(pp__live_resolver_t *lr, int fe, uint64_t key, const char **file,
			     uint32_t *line)
{
	if (lr->r && (fe == PP_FE_CYG || fe == PP_FE_XRAY))
		pp__resolve_live_refresh(lr);
	if (!lr->r) {
		lr->modules = pp__modules_loaded();
		lr->r = pp__resolver_open();
	}
	if (!lr->r)
		return NULL;
	return pp__resolve(lr->r, fe, key, file, line);
}

void pp__resolve_live_refresh(pp__live_resolver_t *lr)
{
	if (lr->r && pp__modules_loaded() != lr->modules) {
		pp__resolver_close(lr->r);
		lr->r = NULL;
	}
}

/* The code address a key names, for the front-ends whose keys are addresses
 * (0 when it has none: plugin hashes, untranslatable xray ids). */
static uint64_t key_addr(int fe, uint64_t key)
{
	if (fe == PP_FE_RAII || fe == PP_FE_CYG)
		return key;
	if (fe == PP_FE_XRAY && key_address[fe])
		return key_address[fe](key);
	return 0;
}

struct retire_walk {
	pp__resolver_t *res;
	int fe;
	uintptr_t lo, hi;
};

static void retire_key(void *ctx, uint64_t key)
{
	struct retire_walk *w = ctx;
	uint64_t a = key_addr(w->fe, key);
	uint32_t ri;
	if (a < w->lo || a >= w->hi)
		return;
	pthread_mutex_lock(&names_lock);
	int known = pp__map_get(&retired, key, &ri);
	pthread_mutex_unlock(&names_lock);
	if (known)
		return;
	const char *file;
	uint32_t line;
	const char *name = pp__resolve(w->res, w->fe, key, &file, &line);
	pp_name_t n = {strdup(name), strdup(file), line};
	pthread_mutex_lock(&names_lock);
	if (nretired == cap_retired) {
		uint32_t c = cap_retired ? cap_retired * 2 : 64;
		pp_name_t *m = realloc(retired_names, c * sizeof *m);
		if (m) {
			retired_names = m;
			cap_retired = c;
		}
	}
	if (n.name && n.file && nretired < cap_retired &&
	    pp__map_put(&retired, key, nretired) == 0) {
		retired_names[nretired++] = n;
		n.name = n.file = NULL;
	}
	pthread_mutex_unlock(&names_lock);
	free(n.name);
	free(n.file);
}

/* A name table in [lo, hi) is about to be unmapped: copy it. On failure the
 * table is forgotten, so its keys get stand-in names, never a dangling read. */
static void retire_tables(uintptr_t lo, uintptr_t hi)
{
	pthread_mutex_lock(&names_lock);
	for (size_t i = 0; i < ntables; i++) {
		uintptr_t t = (uintptr_t)tables[i].table;
		if (t < lo || t >= hi)
			continue;
		uint32_t n = tables[i].n;
		pp_name_entry_t *copy = calloc(n ? n : 1, sizeof *copy);
		for (uint32_t j = 0; copy && j < n; j++) {
			copy[j].key = tables[i].table[j].key;
			copy[j].name = strdup(tables[i].table[j].name);
			if (!copy[j].name) {
				while (j--)
					free((char *)copy[j].name);
				free(copy);
				copy = NULL;
			}
		}
		tables[i].table = copy;
		tables[i].n = copy ? n : 0;
	}
	pthread_mutex_unlock(&names_lock);
}

void pp__names_retire(uintptr_t lo, uintptr_t hi)
{
	retire_tables(lo, hi);
	struct retire_walk w = {pp__resolver_open(), __atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED),
				lo, hi};
	if (!w.res)
		return;
	pp__slab_for_each_key(retire_key, &w);
	pp__resolver_close(w.res);
}
