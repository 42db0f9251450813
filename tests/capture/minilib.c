/* mini_work(m, r) calls inner r times, each calling step m->n times. */
#include <stdlib.h>

#include "minilib.h"

struct mini {
	int n;
	long acc;
};

__attribute__((noinline)) static long step(long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 31 + 7;
}

__attribute__((noinline)) static long inner(mini *m, int i)
{
	long v = 0;
	for (int k = 0; k < m->n; k++)
		v += step(k + i);
	return v;
}

mini *mini_new(int n)
{
	mini *m = calloc(1, sizeof *m);
	if (m)
		m->n = n;
	return m;
}

long mini_work(mini *m, int rounds)
{
	for (int i = 0; i < rounds; i++)
		m->acc += inner(m, i);
	return m->acc;
}

void mini_free(mini *m)
{
	free(m);
}
