/* A parent calling eight small sibling leaves, the shape of a dispatcher
 * or a visitor: under XRay their ids are consecutive, and before the path
 * table's home moved to bit 28 of the hash (runtime/include/pathprof/
 * state.h, pp__slot_index) siblings one bit apart shared a home slot at
 * every table size. bench/tailinstr.sh BUILD bench/siblings.c loop 100000
 * counts the instructions a gate costs here. */
#include <stdlib.h>

static volatile long sink;

#define LEAF(n)                                      \
	__attribute__((noinline)) void leaf_##n(long i) \
	{                                                \
		sink += i * n;                           \
	}
LEAF(1)
LEAF(2)
LEAF(3)
LEAF(4)
LEAF(5)
LEAF(6)
LEAF(7)
LEAF(8)

__attribute__((noinline)) void parent(long i)
{
	leaf_1(i);
	leaf_2(i);
	leaf_3(i);
	leaf_4(i);
	leaf_5(i);
	leaf_6(i);
	leaf_7(i);
	leaf_8(i);
	sink++; /* no tail call: every leaf returns here */
}

__attribute__((noinline)) void loop(long n)
{
	for (long i = 0; i < n; i++)
		parent(i);
}

int main(int argc, char **argv)
{
	loop(argc > 1 ? atol(argv[1]) : 100000);
	return 0;
}
