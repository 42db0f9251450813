// C++ names under a selection (#29, tests/frontends/select_cxx.sh): a
// template whose return type starts like a namespace the glob selects, and
// a template whose full name has commas. raii gates carry the names the
// other injectors read from the symbol table, so every injector is judged
// on the same strings.
#include <cstdio>
#ifdef FEED_RAII
#include <pathprof/raii.h>
#define G(name) PP_GATE(name)
#else
#define G(name) ((void)0)
#endif

namespace db {
namespace Impl {
struct Writer {
	int v;
};
__attribute__((noinline)) void write(Writer *w, int v)
{
	G("db::Impl::write(db::Impl::Writer*, int)");
	w->v += v;
}
} // namespace Impl
} // namespace db

namespace util {
template <typename T> __attribute__((noinline)) T *first_of(T *a, int n)
{
	G("db::Impl::Writer* util::first_of<db::Impl::Writer>(db::Impl::Writer*, int)");
	__asm__ volatile("" ::: "memory");
	return n > 0 ? a : nullptr;
}
template <typename A, typename B> __attribute__((noinline)) long pair_sum(A a, B b)
{
	G("long util::pair_sum<int, long>(int, long)");
	__asm__ volatile("" ::: "memory");
	return (long)a + (long)b;
}
} // namespace util

int main(int argc, char **argv)
{
	G("main");
	int n = 0; // digits by hand: clang's cyg and the plugin would gate an inlined atoi
	for (const char *c = argc > 1 ? argv[1] : "10"; *c >= '0' && *c <= '9'; c++)
		n = n * 10 + (*c - '0');
	db::Impl::Writer w[4] = {};
	long s = 0;
	for (int i = 0; i < n; i++) {
		db::Impl::Writer *f = util::first_of(w, 4);
		db::Impl::write(f, i);
		s += util::pair_sum<int, long>(i, 2L);
	}
	std::printf("%ld %d\n", s, w[0].v);
	return 0;
}
