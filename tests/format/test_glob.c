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
	if (fails)
		return 1;
	puts("glob: all checks passed");
	return 0;
}
