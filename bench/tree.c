/* A tree-shaped workload: a recursive-descent parser of generated arithmetic
 * expressions (nesting 6 to 12 deep, thousands of leaves a document), gated
 * with raii in every grammar function. Built twice (gated_*, plain_*) like
 * chain.c so the baseline is the same code without gates. Unlike the feed
 * (an event loop, 3.5 gates an event), one document is one deep event with
 * many short calls: what a parser or a recursive walk asks of the timed
 * model. */
#include <stdint.h>
#include "tree.h"
#include "variant.h"

typedef struct cur {
	const char *p;
} cur_t;

static uint64_t T(expr)(cur_t *c);

__attribute__((noinline)) static uint64_t T(number)(cur_t *c)
{
	G();
	uint64_t v = 0;
	while (*c->p >= '0' && *c->p <= '9')
		v = v * 10 + (uint64_t)(*c->p++ - '0');
	return v;
}

__attribute__((noinline)) static uint64_t T(atom)(cur_t *c)
{
	G();
	if (*c->p == '(') {
		c->p++;
		uint64_t v = T(expr)(c);
		c->p++; /* ')' */
		return v;
	}
	return T(number)(c);
}

__attribute__((noinline)) static uint64_t T(term)(cur_t *c)
{
	G();
	uint64_t v = T(atom)(c);
	while (*c->p == '*') {
		c->p++;
		v = v * T(atom)(c) + 1;
	}
	return v;
}

__attribute__((noinline)) static uint64_t T(expr)(cur_t *c)
{
	G();
	uint64_t v = T(term)(c);
	while (*c->p == '+') {
		c->p++;
		v += T(term)(c);
	}
	return v;
}

uint64_t T(parse)(const char *doc)
{
#ifdef BENCH_GATED
	PP_ROOT();
#endif
	cur_t c = {doc};
	return T(expr)(&c);
}
