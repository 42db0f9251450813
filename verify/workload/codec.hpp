/* The shared library's interface: a class template explicitly instantiated
 * inside the library (main only declares it, so its calls cross into the
 * DSO) and a plain class. Gated members are declared GATED here. */
#ifndef WL_CODEC_HPP
#define WL_CODEC_HPP

#include "../../examples/feed/gate.h"

namespace wl {

class Checksum {
public:
	HELPER Checksum() : sum(0), n(0) {}
	GATED void add(long v);
	HELPER long value() const { return sum ^ n; }

private:
	long sum, n;
};

/* decode() is a leaf unless v is a multiple of 3 (then it calls check());
 * Codec<long> also feeds every value to the checksum. */
template <typename T> class Codec {
public:
	HELPER explicit Codec(Checksum *s) : sink(s), state(0) {}
	GATED T decode(int v);
	GATED void check(int v);
	HELPER T last() const { return state; }

private:
	Checksum *sink;
	T state;
};

extern template class Codec<int>;
extern template class Codec<long>;

} // namespace wl

#endif
