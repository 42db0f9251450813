// C++ names come back demangled when the process links libstdc++: a method
// in a namespace (reached through a return address inside it, since a
// pointer to member is not a code address) and a template instantiation.
// operator new keeps libstdc++ linked under --as-needed, as in real programs.
extern "C" {
#include "symbolize.h"
}

#include <cinttypes>
#include <cstdio>
#include <cstring>

static int failures;

extern "C" __attribute__((noinline)) uint64_t pp_symtest_caller_pc(void)
{
	return (uint64_t)(uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
}

namespace ns {

struct Widget {
	int level = 1;
	uint64_t seen = 0;
	int poke(int x);
};

// The work after the call keeps it from becoming a tail jump, so the
// return address lies inside poke.
__attribute__((noinline)) int Widget::poke(int x)
{
	seen = pp_symtest_caller_pc();
	level += x;
	return level * 3;
}

template <typename T>
__attribute__((noinline)) T twice(T v)
{
	volatile T w = v;
	return w + w;
}

template int twice<int>(int);

} // namespace ns

static void expect(pp__symbolizer_t *s, const char *what, uint64_t addr, const char *want)
{
	char buf[512];
	int rc = pp__symbolize(s, addr, buf, sizeof buf);
	if (rc != 0 || std::strcmp(buf, want) != 0) {
		std::printf("FAIL %s: 0x%" PRIx64 " -> rc %d \"%s\", want rc 0 \"%s\"\n",
			what, addr, rc, buf, want);
		failures++;
	} else {
		std::printf("ok   %s: %s\n", what, buf);
	}
}

int main()
{
	ns::Widget *w = new ns::Widget;
	volatile int arg = 2;
	if (w->poke(arg) != 9)
		failures++;
	uint64_t in_poke = w->seen;
	delete w;
	int (*volatile tw)(int) = &ns::twice<int>;
	if (tw(21) != 42)
		failures++;

	char err[256] = "";
	pp__symbolizer_t *s = pp__symbolizer_open(err, sizeof err);
	if (!s) {
		std::printf("FAIL open: %s\n", err);
		return 1;
	}
	expect(s, "namespaced method", in_poke, "ns::Widget::poke(int)");
	expect(s, "template instance", (uint64_t)(uintptr_t)tw, "int ns::twice<int>(int)");
	expect(s, "template instance +4", (uint64_t)(uintptr_t)tw + 4, "int ns::twice<int>(int)");
	pp__symbolizer_close(s);
	std::printf("cpp: %d failure(s)\n", failures);
	return failures ? 1 : 0;
}
