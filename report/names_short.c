/* --names short: C++ names as a reader scans them. A demangled name carries
 * its return type, template arguments and parameter list
 * ("bool __gnu_cxx::operator!=<int const*, std::vector<int>>(… const&, …)");
 * the short form keeps the qualified name only ("__gnu_cxx::operator!="),
 * as simple demanglers in other tracers do. C names pass unchanged. Two
 * overloads may then print alike; their paths keep their own ids. */
#include <stdlib.h>
#include <string.h>

#include "profile_impl.h"
#include "profile_merge.h"
#include "report.h"

/* Length of an operator's symbol at s (just after "operator"), so that the
 * '<', '>' and '(' of operator<, operator>>= or operator() are not taken for
 * brackets. */
static size_t operator_len(const char *s)
{
	static const char *const ops[] = {"<=>", "<<=", ">>=", "->*", "()", "[]", "<<", ">>",
					  "<=", ">=", "->", "<", ">"};
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (!strncmp(s, ops[i], strlen(ops[i])))
			return strlen(ops[i]);
	return 0;
}

/* Cut what surrounds the name in s (templates already gone): trailing
 * qualifiers, the parameter list they follow, and the return type. */
static void strip_tail(char *s)
{
	static const char *const quals[] = {" const", " volatile", " &&", " &", " noexcept"};
	size_t n = strlen(s);
	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; i < sizeof quals / sizeof quals[0]; i++) {
			size_t q = strlen(quals[i]);
			if (n >= q && !strcmp(s + n - q, quals[i])) {
				n -= q;
				s[n] = '\0';
				again = 1;
			}
		}
	}
	if (n && s[n - 1] == ')') {
		int depth = 0;
		size_t i = n;
		while (i-- > 0) {
			depth += s[i] == ')';
			depth -= s[i] == '(';
			if (!depth)
				break;
		}
		/* not a name's own parentheses: "(anonymous namespace)" alone */
		if (i > 0 && i < n && (i < 8 || strncmp(s + i - 8, "operator", 8) || s[i + 1] != ')' ||
				       i + 2 < n))
			s[n = i] = '\0';
	}
	while (n && s[n - 1] == ' ') /* "operator<< <T>(...)" left a space */
		s[--n] = '\0';
	/* the return type: up to the last space outside brackets, unless
	 * that space is an operator's ("operator new", "operator int") */
	size_t space = (size_t)-1;
	int depth = 0;
	for (size_t i = 0; i < n; i++) {
		depth += (s[i] == '(' || s[i] == '{') - (s[i] == ')' || s[i] == '}');
		if (s[i] == ' ' && !depth && (i < 8 || strncmp(s + i - 8, "operator", 8)))
			space = i;
	}
	if (space != (size_t)-1)
		memmove(s, s + space + 1, n - space);
}

/* The short form of name, written to out (at most strlen(name) + 1 bytes). */
static void shorten(const char *name, char *out)
{
	size_t n = 0;
	int angle = 0, paren = 0, brace = 0;
	for (const char *c = name; *c;) {
		if (!strncmp(c, "operator", 8) && !angle && !paren) {
			size_t k = 8 + operator_len(c + 8);
			memcpy(out + n, c, k);
			n += k;
			c += k;
			continue;
		}
		if (!strncmp(c, "(anonymous namespace)", 21) && !angle && !paren) {
			memcpy(out + n, c, 21);
			n += 21;
			c += 21;
			continue;
		}
		char ch = *c++;
		/* "{lambda(int)#1}": kept whole, its parentheses are not a list */
		if (ch == '{' || (brace && ch != '}')) {
			brace += ch == '{';
			out[n++] = ch;
			continue;
		}
		if (ch == '}' && brace) {
			brace--;
			out[n++] = ch;
			continue;
		}
		if (ch == '<') {
			angle++;
			continue;
		}
		if (ch == '>' && angle) {
			angle--;
			continue;
		}
		if (angle)
			continue;
		if (ch == '(') {
			paren++;
			out[n++] = ch;
			continue;
		}
		if (ch == ')' && paren) {
			paren--;
			out[n++] = ch;
			continue;
		}
		out[n++] = ch;
	}
	out[n] = '\0';
	strip_tail(out);
}

/* Every id is a hash of its path's names: after renaming, paths and nodes
 * get the ids of their new names, and entries that now share one (two
 * overloads that print alike) are summed by the ordinary merge. */
static int rekey(pp_profile_t *p)
{
	uint32_t depth = 1;
	for (uint32_t i = 0; i < p->npaths; i++)
		depth = p->paths[i].depth > depth ? p->paths[i].depth : depth;
	for (uint32_t i = 0; i < p->nnodes; i++)
		depth = p->nodes[i].depth > depth ? p->nodes[i].depth : depth;
	const char **scratch = malloc(depth * sizeof *scratch);
	if (!scratch)
		return -1;
	for (uint32_t i = 0; i < p->npaths; i++)
		p->paths[i].id = pp__profile_stored_id(p, &p->paths[i], scratch);
	for (uint32_t i = 0; i < p->nnodes; i++)
		p->nodes[i].id = pp__profile_stored_id(p, &p->nodes[i], scratch);
	free(scratch);
	pp_profile_t sum;
	char err[256];
	memset(&sum, 0, sizeof sum);
	if (pp__profile_merge(&sum, p, err, sizeof err) != 0) {
		pp__profile_free(&sum);
		return -1;
	}
	/* what merge does not carry */
	sum.crash_signal = p->crash_signal;
	sum.crash_tid = p->crash_tid;
	sum.recovered = p->recovered;
	sum.recovered_signal = p->recovered_signal;
	sum.recovered_raw_keys = p->recovered_raw_keys;
	pp__profile_free(p);
	*p = sum;
	return 0;
}

int pp__report_names_short(pp_profile_t *p)
{
	int renamed = 0;
	for (uint32_t i = 0; i < p->nnames; i++) {
		char *name = p->names[i].name;
		if (!name || !strpbrk(name, "<( "))
			continue;
		char *s = malloc(strlen(name) + 1);
		if (!s)
			return -1;
		shorten(name, s);
		if (!*s || !strcmp(s, name)) { /* nothing left, or nothing to cut */
			free(s);
			continue;
		}
		free(name);
		p->names[i].name = s;
		renamed = 1;
	}
	return renamed ? rekey(p) : 0;
}
