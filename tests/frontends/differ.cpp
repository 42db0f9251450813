/* Where the injectors cannot agree on C++ (docs/guides/injectors.md), pinned:
 * - an aliased destructor: clang at -O2 emits Outer::~Outer() (its body is
 *   empty) as an alias of Inner::~Inner(): one body, one frame, two names.
 *   The plugin gates the body it sees (Inner::~Inner), cyg names the address
 *   through the symbol table (Outer::~Outer); gcc and -O0 keep both frames.
 * - an extern-template member: std::string::size() lives in libstdc++.so,
 *   uninstrumented; it is a gate only where the compiler inlined its body
 *   (clang and gcc at -O2, any injector), never at clang -O0.
 * differ.sh checks each build's listing against differ.expected. */
#include <string>

#include "../../examples/feed/gate.h"

static volatile int sink;

struct Inner {
	~Inner();
};
Inner::~Inner()
{
	sink = sink + 1;
}

struct Outer : Inner {
	~Outer();
};
Outer::~Outer() {}

__attribute__((noinline)) static void scope()
{
	Outer o;
	(void)o;
}

__attribute__((noinline)) static unsigned long measure(const std::string &s)
{
	return s.size();
}

int main(int argc, char **argv)
{
	(void)argv;
	for (int i = 0; i < 3; i++)
		scope();
	std::string s(argc > 5 ? "a" : "hello");
	return measure(s) != 5;
}
