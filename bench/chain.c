/* CHAIN_FUNCS functions that call each other through a table, built once
 * gated (BENCH_GATED) and once plain: which function runs at each level is a
 * digit of the event's code, so the set of codes decides how many distinct
 * paths the profiler sees and the depth how many gates each event opens. The
 * table call is the same indirect call in both builds. */
#include "chain.h"
#include "variant.h"

typedef uint64_t (*link_fn)(uint64_t code, uint32_t level);
static const link_fn T(table)[CHAIN_FUNCS];

/* Level 0 is the leaf; levels 0-2 spell the code, the others are fixed
 * functions of it (any choice works: they add depth, not paths). */
static inline uint32_t digit(uint64_t code, uint32_t level)
{
	switch (level) {
	case 0: return (uint32_t)(code % CHAIN_FUNCS);
	case 1: return (uint32_t)(code / CHAIN_FUNCS % CHAIN_FUNCS);
	case 2: return (uint32_t)(code / (CHAIN_FUNCS * CHAIN_FUNCS) % CHAIN_FUNCS);
	default: return (uint32_t)((code + level * 37u) % CHAIN_FUNCS);
	}
}

#if defined(__clang__)
#define CALL __attribute__((noinline))
#else
#define CALL __attribute__((noinline, noclone))
#endif

#define LINK(n)                                                                    \
	static CALL uint64_t T(f##n)(uint64_t code, uint32_t level)                \
	{                                                                          \
		G();                                                               \
		if (!level)                                                        \
			return code * 0x9e3779b97f4a7c15ull + n;                   \
		return T(table)[digit(code, level - 1)](code, level - 1) + 1;      \
	}
#define TEN(d) LINK(d##0) LINK(d##1) LINK(d##2) LINK(d##3) LINK(d##4) \
	LINK(d##5) LINK(d##6) LINK(d##7) LINK(d##8) LINK(d##9)
TEN(1) TEN(2) TEN(3) TEN(4) TEN(5) TEN(6) TEN(7) TEN(8) TEN(9) TEN(10)

#define P(n) T(f##n),
#define PTEN(d) P(d##0) P(d##1) P(d##2) P(d##3) P(d##4) P(d##5) P(d##6) P(d##7) P(d##8) P(d##9)
static const link_fn T(table)[CHAIN_FUNCS] = {
	PTEN(1) PTEN(2) PTEN(3) PTEN(4) PTEN(5) PTEN(6) PTEN(7) PTEN(8) PTEN(9) PTEN(10)
};

CALL uint64_t T(event)(uint64_t code, uint32_t depth)
{
#ifdef BENCH_GATED
	PP_ROOT();
#endif
	return T(table)[digit(code, depth - 1)](code, depth - 1);
}
