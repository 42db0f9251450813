/* Glob matching and selection lists (glob.h). Written here rather than taken
 * from fnmatch(3) or LLVM's GlobPattern so that the runtime, the wrapper's
 * lists and the compiler plugin agree on every pattern, byte for byte. Runs
 * only at start-up or at the first sight of a key, never per gate. */
#include <stdio.h>
#include <string.h>

#include "glob.h"

/* Length of the set starting at g[0] == '[' (up to and including its ']'),
 * or 0 when it is not closed within n bytes. A ']' right after '[' or
 * '[!' is a member, as in fnmatch. */
static size_t set_len(const char *g, size_t n)
{
	size_t i = 1;
	if (i < n && (g[i] == '!' || g[i] == '^'))
		i++;
	if (i < n && g[i] == ']')
		i++;
	for (; i < n; i++) {
		if (g[i] == '\\' && i + 1 < n)
			i++;
		else if (g[i] == ']')
			return i + 1;
	}
	return 0;
}

/* Is c in the set g[0..n) (which starts with '[' and ends with ']')? */
static int in_set(const char *g, size_t n, unsigned char c)
{
	size_t i = 1, end = n - 1;
	int neg = g[i] == '!' || g[i] == '^';
	int hit = 0;
	if (neg)
		i++;
	for (int first = 1; i < end; first = 0) {
		if (g[i] == ']' && !first)
			break;
		unsigned char lo = (unsigned char)g[i];
		if (lo == '\\' && i + 1 < end)
			lo = (unsigned char)g[++i];
		i++;
		unsigned char hi = lo;
		if (i + 1 < end && g[i] == '-') {
			hi = (unsigned char)g[i + 1];
			if (hi == '\\' && i + 2 < end)
				hi = (unsigned char)g[++i + 1];
			i += 2;
		}
		if (c >= lo && c <= hi)
			hit = 1;
	}
	return hit != neg;
}

/* One step of the pattern at g[*gi] against name[ni]: 1 when it matches one
 * character (and advances *gi past the step). */
static int step(const char *g, size_t n, size_t *gi, unsigned char c)
{
	size_t i = *gi;
	if (g[i] == '?') {
		*gi = i + 1;
		return 1;
	}
	if (g[i] == '[') {
		size_t l = set_len(g + i, n - i);
		if (l) {
			*gi = i + l;
			return in_set(g + i, l, c);
		}
		/* an unclosed '[' is a plain character */
	}
	if (g[i] == '\\' && i + 1 < n)
		i++;
	*gi = i + 1;
	return (unsigned char)g[i] == c;
}

/* Backtracking over the last '*' only: linear in practice, and at most
 * quadratic, for any pattern. */
int pp__glob_match(const char *g, size_t n, const char *name)
{
	size_t gi = 0, ni = 0;
	size_t star = (size_t)-1, star_ni = 0;
	for (;;) {
		if (gi < n && g[gi] == '*') {
			while (gi < n && g[gi] == '*')
				gi++;
			star = gi;
			star_ni = ni;
			continue;
		}
		if (name[ni] == '\0') {
			if (gi == n)
				return 1;
		} else if (gi < n) {
			size_t next = gi;
			if (step(g, n, &next, (unsigned char)name[ni])) {
				gi = next;
				ni++;
				continue;
			}
		}
		if (star == (size_t)-1 || name[star_ni] == '\0')
			return 0;
		gi = star;
		ni = ++star_ni;
	}
}

/* Is s[i] ('<' or '>') a character of an operator's name (operator<,
 * operator<<=, operator->, operator<=>), which opens or closes nothing? */
static int operator_char(const char *s, size_t i)
{
	size_t j = i;
	while (j > 0 && i - j < 2 && strchr("<>=-", s[j - 1]))
		j--;
	return j >= 8 && !memcmp(s + j - 8, "operator", 8);
}

/* Length of the glob starting at s, up to the separator that ends it. A
 * separator inside <...> or (...) does not end it, so that a full C++ name
 * copied from a report (std::map<int, int>::find(int const&)) is one glob
 * (#29). An operator's '<' or '>' nests nothing: one in a list's middle
 * entry (operator<=(simd8<unsigned char>) const) otherwise stayed open and
 * took the entries after it, up to some later '>', for part of its name,
 * so that pathprof select's list left those functions gated. When the
 * brackets never close anyway, the first separator ends it after all. */
static size_t scan(const char *s, char sep, int nest)
{
	size_t i = 0;
	int depth = 0;
	while (s[i] && (s[i] != sep || depth > 0)) {
		if (s[i] == '\\' && s[i + 1]) {
			i += 2;
			continue;
		}
		if (s[i] == '[' && set_len(s + i, strlen(s + i))) {
			i += set_len(s + i, strlen(s + i));
			continue;
		}
		if (nest && (s[i] == '(' || (s[i] == '<' && !operator_char(s, i))))
			depth++;
		else if (nest && (s[i] == ')' || (s[i] == '>' && !operator_char(s, i))) && depth > 0)
			depth--;
		i++;
	}
	return !s[i] && depth > 0 ? (size_t)-1 : i;
}

static size_t glob_len(const char *s, char sep)
{
	size_t l = scan(s, sep, 1);
	return l != (size_t)-1 ? l : scan(s, sep, 0);
}

/* Does a glob (g, l) spell a parameter list: an unescaped '(' other than
 * the one of "(anonymous namespace)"? */
static int has_paren(const char *g, size_t l)
{
	static const char anon[] = "(anonymous namespace)";
	for (size_t i = 0; i < l; i++) {
		if (g[i] == '\\')
			i++;
		else if (g[i] == '(' && !(l - i >= sizeof anon - 1 && !memcmp(g + i, anon, sizeof anon - 1)))
			return 1;
	}
	return 0;
}

/* A glob against the names; with_params, when given, is what a glob that
 * spells a parameter list is matched against instead. */
/* with_params: the name with its parameters, without a template
 * function's return type; whole: as the report shows it, return type and
 * all, so a full name copied from a report matches too. */
static int any_match(const char *g, size_t l, const char *const *names, size_t n,
		     const char *with_params, const char *whole)
{
	if (with_params && has_paren(g, l))
		return pp__glob_match(g, l, with_params) || (whole && pp__glob_match(g, l, whole));
	for (size_t i = 0; i < n; i++)
		if (pp__glob_match(g, l, names[i]))
			return 1;
	return 0;
}

static int match_list(const char *list, char sep, const char *const *names, size_t n,
		      const char *with_params, const char *whole)
{
	int includes = 0, included = 0;
	for (const char *p = list; *p;) {
		size_t l = glob_len(p, sep);
		if (p[0] == '!') {
			if (any_match(p + 1, l - 1, names, n, with_params, whole))
				return 0;
		} else if (l) {
			includes = 1;
			included = included || any_match(p, l, names, n, with_params, whole);
		}
		p += l;
		if (*p == sep)
			p++;
	}
	return included || !includes;
}

size_t pp__select_entry_len(const char *s, char sep)
{
	return glob_len(s, sep);
}

int pp__select_match(const char *list, char sep, const char *const *names, size_t n)
{
	return match_list(list, sep, names, n, NULL, NULL);
}

int pp__select_check(const char *list, char sep, char *err, size_t errlen)
{
	if (!*list) {
		snprintf(err, errlen, "the list is empty");
		return -1;
	}
	for (const char *p = list;;) {
		size_t l = glob_len(p, sep);
		size_t body = p[0] == '!' ? 1 : 0;
		if (l == body) {
			snprintf(err, errlen, "an empty pattern at byte %zu", (size_t)(p - list) + body);
			return -1;
		}
		for (size_t i = body; i < l; i++) {
			if (p[i] == '\\') {
				if (i + 1 == l) {
					snprintf(err, errlen, "'%.*s' ends with a lone backslash", (int)l,
						 p);
					return -1;
				}
				i++;
			} else if (p[i] == '[' && !set_len(p + i, l - i)) {
				snprintf(err, errlen, "'%.*s' has a '[' that is never closed", (int)l, p);
				return -1;
			}
		}
		p += l;
		if (!*p)
			return 0;
		p++; /* the separator */
	}
}

/* The name without its parameter list, in buf; NULL when it has none. */
static const char *bare_name(const char *name, char *buf, size_t n)
{
	const char *close = strrchr(name, ')');
	if (!close)
		return NULL;
	int depth = 0;
	for (const char *p = close; p >= name; p--) {
		depth += *p == ')' ? 1 : *p == '(' ? -1 : 0;
		if (depth == 0) {
			size_t l = (size_t)(p - name);
			if (l == 0 || l >= n)
				return NULL;
			memcpy(buf, name, l);
			buf[l] = '\0';
			return buf;
		}
	}
	return NULL;
}

/* Where the qualified name starts: after a template function's return type
 * (the demangler writes "R ns::f<T>(args)"), i.e. after the last space
 * outside brackets before the parameters, unless that space belongs to an
 * operator's name ("operator new", "operator int"). */
static const char *after_return_type(const char *name)
{
	const char *start = name;
	int depth = 0;
	for (const char *p = name; *p; p++) {
		if (*p == '(' && depth == 0)
			break; /* the parameters (or "(anonymous namespace)"): no return type beyond */
		if (*p == '<' || *p == '(' || *p == '[')
			depth++;
		else if ((*p == '>' || *p == ')' || *p == ']') && depth > 0)
			depth--;
		else if (depth == 0 && *p == ' ' && !(p - name >= 8 && !strncmp(p - 8, "operator", 8)))
			start = p + 1;
	}
	return start;
}

/* A glob matches the qualified function name: not its return type, and
 * not its parameters unless the glob spells them with a '(' (#29: a
 * pattern 'db::Impl::*' selected std::copy, whose return type was a
 * db::Impl type). A glob with a '(' also matches the whole name, so a
 * template function's full name copied from a report selects it. */
int pp__select_name(const char *list, char sep, const char *name)
{
	char bare[1024];
	const char *full = after_return_type(name);
	const char *q = bare_name(full, bare, sizeof bare);
	const char *names[1] = {q ? q : full};
	return match_list(list, sep, names, 1, full, full != name ? name : NULL);
}
