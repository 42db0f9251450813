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
#include "runtime.h"
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
