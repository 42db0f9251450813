/* The tree inlrec.c and inlrec_jmp.c walk: grow() builds a full binary
 * tree of the given depth (2^depth - 1 nodes, each its depth as value),
 * gated, never inlined. */
#ifndef INLREC_TREE_H
#define INLREC_TREE_H

#include <stdlib.h>

#include "../../examples/feed/gate.h"

typedef struct node {
	struct node *left, *right;
	unsigned v;
} node_t;

static volatile unsigned sink;

__attribute__((noinline)) static node_t *grow(int depth)
{
	GATE();
	if (depth == 0)
		return NULL;
	node_t *n = malloc(sizeof *n);
	if (!n)
		abort();
	n->v = (unsigned)depth;
	n->left = grow(depth - 1);
	n->right = grow(depth - 1);
	return n;
}

#endif
