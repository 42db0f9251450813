/* A recursive walk of 16 384 calling contexts for `pathprof diff`'s noise
 * (bench/diffnoise.sh): level i has two functions, ai and bi, each calling
 * both of level i + 1, down to level 13, whose functions add to a sink.
 * With -DSLOW_B3, b3 also spins for about its own subtree's time (its four
 * nodes twice as long): the known change the diff must find.
 * usage: diffwalk [WALKS]   (default 1) */
#include <stdlib.h>

static volatile unsigned sink;

#define LEAF(n)                                   \
	__attribute__((noinline)) void n(unsigned x); \
	__attribute__((noinline)) void n(unsigned x)  \
	{                                             \
		sink += x;                                \
	}
#define NODE(n, a, b, extra)                      \
	__attribute__((noinline)) void n(unsigned x); \
	__attribute__((noinline)) void n(unsigned x)  \
	{                                             \
		extra;                                    \
		a(x * 2);                                 \
		b(x * 2 + 1);                             \
	}
#ifdef SLOW_B3
#define B3_EXTRA                                  \
	for (volatile int s = 0; s < 300000; s++) {   \
	}
#else
#define B3_EXTRA (void)0
#endif
#define PLAIN (void)0

LEAF(a13)
LEAF(b13)
NODE(a12, a13, b13, PLAIN)
NODE(b12, a13, b13, PLAIN)
NODE(a11, a12, b12, PLAIN)
NODE(b11, a12, b12, PLAIN)
NODE(a10, a11, b11, PLAIN)
NODE(b10, a11, b11, PLAIN)
NODE(a9, a10, b10, PLAIN)
NODE(b9, a10, b10, PLAIN)
NODE(a8, a9, b9, PLAIN)
NODE(b8, a9, b9, PLAIN)
NODE(a7, a8, b8, PLAIN)
NODE(b7, a8, b8, PLAIN)
NODE(a6, a7, b7, PLAIN)
NODE(b6, a7, b7, PLAIN)
NODE(a5, a6, b6, PLAIN)
NODE(b5, a6, b6, PLAIN)
NODE(a4, a5, b5, PLAIN)
NODE(b4, a5, b5, PLAIN)
NODE(a3, a4, b4, PLAIN)
NODE(b3, a4, b4, B3_EXTRA)
NODE(a2, a3, b3, PLAIN)
NODE(b2, a3, b3, PLAIN)
NODE(a1, a2, b2, PLAIN)
NODE(b1, a2, b2, PLAIN)
NODE(a0, a1, b1, PLAIN)

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	for (int k = 0; k < n; k++)
		a0((unsigned)k);
	return 0;
}
