/* The selection lists (format/glob.c), exact answers: whole names, sets,
 * exclusions, and a list whose entry is a full C++ name with commas inside
 * its template arguments or parameters (#29), as a report prints it. */
#include <stdio.h>

#include "glob.h"

static int fails;

static void check(const char *list, const char *name, int want)
{
	int got = pp__select_name(list, ',', name);
	if (got != want) {
		printf("FAIL: '%s' on '%s': %d, want %d\n", list, name, got, want);
		fails++;
	}
}

int main(void)
{
	check("lex", "lex", 1);
	check("lex", "lexer_start", 0);
	check("lex*", "lexer_start", 1);
	check("a,b", "b", 1);
	check("ts_*,!ts_lex", "ts_lex", 0);
	check("ts_*,!ts_lex", "ts_parse", 1);
	/* commas inside <...> and (...) do not split */
	check("std::map<int, int>::find", "std::map<int, int>::find", 1);
	check("std::map<int, int>::find,zz", "zz", 1);
	check("std::map<int, int>::find", "int>::find", 0);
	check("f(int, char)", "f(int, char)", 1);
	check("db::Impl::Write(char const*, unsigned long)",
	      "db::Impl::Write(char const*, unsigned long)", 1);
	/* the qualified name: not the return type, parameters only when the
	 * glob spells them */
	check("db::Impl::*", "db::Impl::Writer** std::copy<db::Impl::Writer**, db::Impl::Writer**>"
	      "(db::Impl::Writer**, db::Impl::Writer**, db::Impl::Writer**)", 0);
	check("std::copy<*>", "db::Impl::Writer** std::copy<db::Impl::Writer**, db::Impl::Writer**>"
	      "(db::Impl::Writer**, db::Impl::Writer**, db::Impl::Writer**)", 1);
	/* a full name from a report, return type and all, selects it */
	check("long util::pair_sum<int, long>(int, long)", "long util::pair_sum<int, long>(int, long)", 1);
	check("long util::pair_sum<int, long>(int, long)", "long util::pair_sum<int, int>(int, int)", 0);
	check("db::Impl::*", "db::Impl::Write(char const*, unsigned long)", 1);
	check("db::Impl::Write", "db::Impl::Write(char const*, unsigned long)", 1);
	check("*unsigned long*", "db::Impl::Write(char const*, unsigned long)", 0);
	check("*(char const\\*, unsigned long)", "db::Impl::Write(char const*, unsigned long)", 1);
	check("operator new", "operator new(unsigned long)", 1);
	check("ns::operator int", "ns::operator int() const", 1);
	check("(anonymous namespace)::f", "(anonymous namespace)::f(int)", 1);
	/* an unclosed bracket (operator<) does not swallow the rest */
	check("ns::operator<,b", "b", 1);
	check("ns::operator<,b", "ns::operator<", 1);
	/* nor does an operator's '<' or '>' in a middle entry, though a later
	 * '>' would close it: the entries after it are entries of their own
	 * (pathprof select's lists, which held operator<= and operator->
	 * between other names, left the names after them gated) */
	check("!a::operator<(int),!b,!c::operator>(int)", "b", 0);
	check("!a::operator<(int),!b,!c::operator>(int)", "e", 1);
	check("!v<int>::operator<=(v<int>) const,!f(a<b\\, c>),!p::operator->() const,!g,!h<x>", "g", 0);
	check("!v<int>::operator<=(v<int>) const,!f(a<b\\, c>),!p::operator->() const,!g,!h<x>",
	      "f(a<b, c>)", 0);
	check("!v<int>::operator<=(v<int>) const,!f(a<b\\, c>),!p::operator->() const,!g,!h<x>",
	      "v<int>::operator<=(v<int>) const", 0);
	check("!s::operator<<(int),!u,!t::operator>>=(int)", "u", 0);
	check("!s::operator<<(int),!u,!t::operator>>=(int)", "t::operator>>=(int)", 0);
	check("!x::operator<=>(x const&) const,!y,!w<z>", "y", 0);
	if (fails)
		return 1;
	puts("glob: all checks passed");
	return 0;
}
