/* The part of the workload that lives in a shared library (libwlcodec.so),
 * so every front-end has to follow calls from the program into a DSO and
 * name what it finds there. The xray build links this same file into the
 * executable instead: LLVM 14's XRay patches only the executable's sleds
 * (docs/internals/verify.md). */
#include "codec.hpp"
#include "names.hpp"

namespace wl {

/* raii names per instantiation: a string literal in a template body would be
 * shared by every instantiation. */
template <typename T> struct codec_names;
template <> struct codec_names<int> {
	static constexpr const char *decode = N_DECODE_INT;
	static constexpr const char *check = N_CHECK_INT;
};
template <> struct codec_names<long> {
	static constexpr const char *decode = N_DECODE_LONG;
	static constexpr const char *check = N_CHECK_LONG;
};

void Checksum::add(long v)
{
	GATE(N_ADD);
	sum = sum * 131 + v;
	n++;
}

template <typename T> T Codec<T>::decode(int v)
{
	GATE(codec_names<T>::decode);
	state = (T)(state * 31 + v);
	if (v % 3 == 0)
		check(v);
	if (sizeof(T) > sizeof(int))
		sink->add(v);
	return state;
}

template <typename T> void Codec<T>::check(int v)
{
	GATE(codec_names<T>::check);
	state ^= (T)v << 3;
}

template class Codec<int>;
template class Codec<long>;

} // namespace wl
