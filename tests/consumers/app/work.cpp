// The second file of the C++ consumer program (see main.cpp). What parse()
// computes is folded at compile time (a constexpr template), so its path ends
// there with every injector; the library calls are main's.
#include "gate.h"

namespace {
template <int N> struct Masks {
	int v[N];
	constexpr Masks() : v()
	{
		for (int i = 0; i < N; i++)
			v[i] = i & 7;
	}
};
constexpr Masks<64> masks;
volatile int sink;
} // namespace

extern "C" PROFILED int parse(int i)
{
	GATE();
	return masks.v[i & 63];
}

extern "C" PROFILED int reply(int i)
{
	GATE();
	sink = sink + i;
	return 1;
}

extern "C" PROFILED int handle(int i)
{
	GATE();
	int r = parse(i);
	if (i % 3 == 0)
		r += reply(i);
	return r;
}
