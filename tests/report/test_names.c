/* --names short on demangled C++ names of every shape the symbolizer gives:
 * templates, operators (including '<', '()' and conversions), lambdas,
 * anonymous namespaces, qualifiers after the parameter list, return types;
 * C names unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *const cases[][2] = {
	{"bool __gnu_cxx::operator!=<int const*, std::vector<int, std::allocator<int> > >("
	 "__gnu_cxx::__normal_iterator<int const*, std::vector<int, std::allocator<int> > > const&, "
	 "__gnu_cxx::__normal_iterator<int const*, std::vector<int, std::allocator<int> > > const&)",
	 "__gnu_cxx::operator!="},
	{"std::function<int (int)>::operator()(int) const", "std::function::operator()"},
	{"main::{lambda(int)#1}::operator()(int) const", "main::{lambda(int)#1}::operator()"},
	{"(anonymous namespace)::Parser::feed(int)", "(anonymous namespace)::Parser::feed"},
	{"ns::Box<int>::operator<(ns::Box<int> const&) const", "ns::Box::operator<"},
	{"std::basic_ostream<char, std::char_traits<char> >& std::operator<< <std::char_traits<char> >"
	 "(std::basic_ostream<char, std::char_traits<char> >&, char const*)", "std::operator<<"},
	{"void* operator new(unsigned long)", "operator new"},
	{"Foo::operator int() const", "Foo::operator int"},
	{"unsigned int std::__detail::__to_chars_len<unsigned int>(unsigned int, int)",
	 "std::__detail::__to_chars_len"},
	{"a::b<c>::~b()", "a::b::~b"},
	{"Vec::operator[](unsigned long) &&", "Vec::operator[]"},
	{"parse_request", "parse_request"},
	{"cyg:0x5563a1b2", "cyg:0x5563a1b2"},
};

/* One name at a time: renaming re-sorts a profile's names. */
static int check(const char *full, const char *want)
{
	pp_profile_t p;
	memset(&p, 0, sizeof p);
	p.nnames = 1;
	p.names = calloc(1, sizeof *p.names);
	p.names[0].name = strdup(full);
	p.names[0].file = strdup("");
	int bad = pp__report_names_short(&p) != 0 || p.nnames != 1 || strcmp(p.names[0].name, want);
	if (bad)
		printf("FAIL: '%s' -> '%s', expected '%s'\n", full, p.nnames ? p.names[0].name : "",
		       want);
	pp__profile_free(&p);
	return bad;
}

/* Two overloads that print alike: their paths are summed under one id. */
static int check_merge(void)
{
	pp_profile_t p;
	memset(&p, 0, sizeof p);
	p.version = PP_PROFILE_VERSION;
	p.nnames = 2;
	p.names = calloc(2, sizeof *p.names);
	p.names[0].name = strdup("ns::f(int)");
	p.names[1].name = strdup("ns::f(double)");
	p.names[0].file = strdup("");
	p.names[1].file = strdup("");
	p.npaths = 2;
	p.paths = calloc(2, sizeof *p.paths);
	for (uint32_t i = 0; i < 2; i++) {
		p.paths[i].depth = 1;
		p.paths[i].names = malloc(sizeof(uint32_t));
		p.paths[i].names[0] = i;
		p.paths[i].count = 10 + i;
	}
	p.records = 21;
	int bad = pp__report_names_short(&p) != 0 || p.npaths != 1 || p.paths[0].count != 21 ||
		  strcmp(p.names[p.paths[0].names[0]].name, "ns::f");
	if (bad)
		printf("FAIL: overloads: %u paths, first count %llu\n", p.npaths,
		       p.npaths ? (unsigned long long)p.paths[0].count : 0ull);
	pp__profile_free(&p);
	return bad;
}

int main(void)
{
	size_t n = sizeof cases / sizeof cases[0];
	int fails = 0;
	for (size_t i = 0; i < n; i++)
		fails += check(cases[i][0], cases[i][1]);
	fails += check_merge();
	printf("%zu names and one merge, %d failures\n", n, fails);
	return fails != 0;
}
