/* Fuzz target: the selection lists (format/glob.c) that PATHPROF_ROOT,
 * PATHPROF_FUNCTIONS, PATHPROF_XRAY and the plugin's list files go through.
 * Input: a list, a NUL byte, a name. Oracles: nothing reads past either
 * string; a glob without '[' or '\' agrees with glibc's fnmatch (flags 0,
 * the same syntax for '*' and '?'); a glob without any special character
 * matches exactly the name equal to it; a list that passes the check gives
 * the same answer twice, and '!' before a glob that matches excludes. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "glob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int has_paren(const char *s)
{
	return strchr(s, '(') != NULL;
}

static int plain(const char *s, const char *specials)
{
	return strpbrk(s, specials) == NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	/* Exact-size copies: ASan catches any read past either string. */
	const uint8_t *nul = memchr(data, 0, size);
	size_t llen = nul ? (size_t)(nul - data) : size;
	size_t nlen = nul ? size - llen - 1 : 0;
	char *list = malloc(llen + 1), *name = malloc(nlen + 1);
	if (!list || !name)
		fz_fail("out of memory");
	memcpy(list, data, llen);
	list[llen] = '\0';
	if (nlen)
		memcpy(name, nul + 1, nlen);
	name[nlen] = '\0';

	int g = pp__glob_match(list, strlen(list), name);
	if (plain(list, "[\\") && (fnmatch(list, name, 0) == 0) != g)
		fz_fail("glob '%s' on '%s': %d, fnmatch says %d", list, name, g, !g);
	if (plain(list, "[\\*?") && g != (strcmp(list, name) == 0))
		fz_fail("plain glob '%s' on '%s': %d", list, name, g);

	char err[256];
	if (pp__select_check(list, ',', err, sizeof err) == 0) {
		const char *names[1] = {name};
		int a = pp__select_match(list, ',', names, 1);
		if (a != pp__select_match(list, ',', names, 1))
			fz_fail("list '%s' on '%s' answers twice differently", list, name);
		if (a != pp__select_name(list, ',', name) && !strpbrk(name, ") ") && !has_paren(list))
			fz_fail("list '%s' on '%s': select_name differs without parameters", list, name);
		if (!strchr(list, ',') && list[0] != '!' && a != g)
			fz_fail("one-glob list '%s' on '%s': %d, the glob says %d", list, name, a, g);
		if (!strchr(list, ',') && list[0] != '!') {
			size_t n = strlen(list);
			char *neg = malloc(n + 2);
			if (!neg)
				fz_fail("out of memory");
			neg[0] = '!';
			memcpy(neg + 1, list, n + 1);
			if (pp__select_match(neg, ',', names, 1) == g)
				fz_fail("'!%s' on '%s' does not invert '%s'", list, name, list);
			free(neg);
		}
	} else if (!memchr(err, 0, sizeof err) || !err[0]) {
		fz_fail("a refused list has no reason");
	}
	free(list);
	free(name);
	return 0;
}
