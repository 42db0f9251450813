/* `pathprof select --previous LIST`. The first profile of a program with
 * every function gated is distorted by its own gates: the work select
 * weighs them against is the run with their measured cost taken out, and
 * in place a gate costs more than the calibration measures (SQLite: the
 * compensated work came to 0.8 s where the plain program runs 0.47 s, so
 * the kept gates cost about twice the budget). The program rebuilt with
 * the list has few gates left and its profile little distortion, so a
 * second select over it finds what the first kept that it should not
 * have. Its list must hold the first one's entries too: those functions
 * are not gated in the second run and so are not in its profile. */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "glob.h"
#include "select_previous.h"

/* Lists longer than this are not something select wrote. */
#define PREV_MAX_BYTES (64u << 20)

static char *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		cli_error("select: --previous: %s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 4096, len = 0;
	char *b = malloc(cap + 1);
	while (b) {
		size_t got = fread(b + len, 1, cap - len, f);
		len += got;
		if (len < cap)
			break;
		if (cap >= PREV_MAX_BYTES) {
			cli_error("select: --previous: %s: longer than %u MiB: not a list select wrote", path,
				  PREV_MAX_BYTES >> 20);
			free(b);
			b = NULL;
			break;
		}
		char *m = realloc(b, 2 * cap + 1);
		if (!m) {
			free(b);
			b = NULL;
			cli_error("select: out of memory");
			break;
		}
		b = m;
		cap *= 2;
	}
	if (b && ferror(f)) {
		cli_error("select: --previous: %s: cannot read: %s", path, strerror(errno));
		free(b);
		b = NULL;
	}
	fclose(f);
	if (b) {
		b[len] = '\0';
		*n = len;
	}
	return b;
}

/* names and keep: a name a line; blank lines and CRs dropped. exclude and
 * gcc: one line. */
static int normalize(char *b, size_t n, int lines, const char *path)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (b[i] == '\r')
			continue;
		if (b[i] == '\0') {
			cli_error("select: --previous: %s: a NUL byte at byte %zu: not a list select wrote", path, i);
			return -1;
		}
		if (b[i] == '\n' && (o == 0 || b[o - 1] == '\n'))
			continue;
		b[o++] = b[i];
	}
	while (o > 0 && b[o - 1] == '\n')
		o--;
	b[o] = '\0';
	if (!lines && strchr(b, '\n')) {
		cli_error("select: --previous: %s: more than one line, where this --format's list is one", path);
		return -1;
	}
	return 0;
}

int pp__prev_load(pp__prev_list_t *l, const char *path, const char *format)
{
	memset(l, 0, sizeof *l);
	l->gcc = !strcmp(format, "gcc");
	l->keep = !strcmp(format, "keep");
	int exclude = !strcmp(format, "exclude");
	l->sep = l->gcc || exclude ? ',' : '\n';
	size_t n;
	char *b = read_all(path, &n);
	if (!b)
		return -1;
	l->text = b;
	char why[256];
	if (normalize(b, n, l->sep == '\n', path) != 0)
		goto bad;
	/* an exclude list that dropped nothing is '*' (every function) */
	if (exclude && !strcmp(b, "*"))
		*b = '\0';
	if (!*b)
		return 0;
	if (!l->gcc && pp__select_check(b, l->sep, why, sizeof why) != 0) {
		cli_error("select: --previous: %s: not a '%s' list: %s", path, format, why);
		goto bad;
	}
	for (size_t at = 0, end = strlen(b), len; at < end;) {
		size_t next = pp__prev_entry(l, at, &len);
		if (!len || (exclude && b[at] != '!') || (!exclude && !l->gcc && b[at] == '!')) {
			cli_error("select: --previous: %s: '%.*s' is not an entry of a --format %s list (%s)", path,
				  (int)len, b + at, format,
				  exclude ? "'!name,...'" : l->gcc ? "'name,...'" : "a name a line");
			goto bad;
		}
		at = next;
	}
	return 0;
bad:
	pp__prev_free(l);
	return -1;
}

size_t pp__prev_entry(const pp__prev_list_t *l, size_t at, size_t *len)
{
	const char *s = l->text + at;
	if (l->gcc) {
		const char *c = strchr(s, ',');
		*len = c ? (size_t)(c - s) : strlen(s);
	} else {
		*len = pp__select_entry_len(s, l->sep);
	}
	return at + *len + (s[*len] == l->sep);
}

int pp__prev_drops(const pp__prev_list_t *l, const char *name)
{
	if (!l->text || !*l->text)
		return 0;
	if (l->gcc) {
		size_t end = strlen(l->text);
		for (size_t at = 0, len; at < end;) {
			size_t next = pp__prev_entry(l, at, &len);
			/* gcc: the entry anywhere in the name */
			if (memmem(name, strlen(name), l->text + at, len))
				return 1;
			at = next;
		}
		return 0;
	}
	int selected = pp__select_name(l->text, l->sep, name);
	/* names: the list's entries are the dropped; exclude: '!' entries;
	 * keep: those it does not select */
	return l->keep || l->sep == ',' ? !selected : selected;
}

void pp__prev_free(pp__prev_list_t *l)
{
	free(l->text);
	l->text = NULL;
}
