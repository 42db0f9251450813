/* The canonical path listing (`count|name>name>...`) that verify and the tests
 * compare across front-ends: sorted by names, escaped to one line per path,
 * and a function of names alone. */
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

typedef struct canon {
	char *key; /* escaped name sequence joined by '>' */
	uint64_t count, time;
} canon_t;

static int by_key(const void *va, const void *vb)
{
	const canon_t *a = va, *b = vb;
	return strcmp(a->key, b->key);
}

/* Control bytes and '\' are escaped so every path stays on one line and the
 * line can be split back unambiguously; everything else is kept byte for
 * byte, because verify compares these lines across front-ends. */
static size_t canon_put(char *dst, const char *name)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
		if (*s == '\\') {
			if (dst)
				dst[n] = dst[n + 1] = '\\';
			n += 2;
		} else if (*s < 0x20 || *s == 0x7f) {
			if (dst) {
				dst[n] = '\\', dst[n + 1] = 'x';
				dst[n + 2] = hex[*s >> 4], dst[n + 3] = hex[*s & 15];
			}
			n += 4;
		} else {
			if (dst)
				dst[n] = (char)*s;
			n++;
		}
	}
	return n;
}

static char *canon_key(const pp_profile_t *p, const pp_ppath_t *pa)
{
	size_t len = 0;
	for (uint32_t d = 0; d < pa->depth; d++)
		len += canon_put(NULL, pp__report_name(p, pa->names[d])) + 1;
	char *k = malloc(len + 1), *w = k;
	if (!k)
		return NULL;
	for (uint32_t d = 0; d < pa->depth; d++) {
		if (d)
			*w++ = '>';
		w += canon_put(w, pp__report_name(p, pa->names[d]));
	}
	*w = 0;
	return k;
}

int pp__report_paths(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o)
{
	canon_t *c = calloc(p->npaths ? p->npaths : 1, sizeof *c);
	size_t n = 0;
	int rc = 0;
	if (!c)
		return -1;
	for (uint32_t i = 0; i < p->npaths; i++) {
		c[i].key = canon_key(p, &p->paths[i]);
		c[i].count = p->paths[i].count;
		c[i].time = pp__report_path_time(p, &p->paths[i]);
		if (!c[i].key) {
			rc = -1;
			goto done;
		}
	}
	qsort(c, p->npaths, sizeof *c, by_key);
	/* Distinct keys resolving to one name (two static functions "init") are
	 * one path as far as names can tell: merge them so the listing stays a
	 * function of names alone. */
	for (uint32_t i = 0; i < p->npaths; i++) {
		if (n && !strcmp(c[n - 1].key, c[i].key)) {
			c[n - 1].count = pp__report_sat_add(c[n - 1].count, c[i].count);
			c[n - 1].time = pp__report_sat_add(c[n - 1].time, c[i].time);
			continue;
		}
		canon_t t = c[n];
		c[n++] = c[i];
		c[i] = t;
	}
	for (size_t i = 0; i < n; i++) {
		if (c[i].count < o->min_count)
			continue;
		if (o->min_time_ns && pp__ticks_ns(p, c[i].time) < (double)o->min_time_ns)
			continue;
		fprintf(out, "%llu|%s\n", (unsigned long long)c[i].count, c[i].key);
	}
done:
	for (uint32_t i = 0; i < p->npaths; i++)
		free(c[i].key);
	free(c);
	return rc;
}
