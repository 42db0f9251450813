/* inlrec.c's walk left by a longjmp from inside a copy GCC inlined into
 * itself, then entered again from main's same call: through cyg the new
 * entry runs at the position, with the key and from the hook, of the
 * outermost abandoned copy, while the copies it held sit above it at that
 * position with other hooks. Only a scan of every frame at the position
 * (runtime/gate_resync.c, drop_reentered_copy) finds the copy entered
 * again; stopping at the top frame would nest the new walk in the dead
 * one. The bailing walk leaves at the first node of value 1, once its two
 * empty children were walked (two paths counted), leaving the four
 * copies that hold it, which the jump closes (runtime/host/longjmp.c;
 * where it is not seen, under a sanitizer, they are what
 * drop_reentered_copy drops: 40 exits unmatched in ten rounds); the walk that
 * follows frees the tree whole (inlrec_jmp.expected: 16 + 2 paths a
 * round). */
#include <setjmp.h>
#include <stdio.h>
#include <pathprof/pathprof.h>

#include "inlrec_tree.h"

static jmp_buf out;
static unsigned bail; /* a node's value, or none (0) */

/* Frees a node, or leaves the walk at the node of value bail: out of line
 * and not a gate (a noreturn call in release kept GCC from inlining it
 * into itself) */
__attribute__((noinline)) PP_NOINSTR static void discard(node_t *n)
{
	if (n->v == bail)
		longjmp(out, 1);
	free(n);
}

/* small and self-recursive, as in inlrec.c */
static void release(node_t *n)
{
	GATE();
	if (n) {
		release(n->left);
		release(n->right);
		discard(n);
	}
}

int main(void)
{
	GATE();
	for (int i = 0; i < 10; i++) {
		node_t *t = grow(4);
		sink += t->v;
		/* one call of the walk in main (two kept GCC from inlining it
		 * into itself): bailing first, then, back from the jump, freeing */
		bail = 1;
		if (setjmp(out))
			bail = 0;
		release(t);
	}
	printf("%u\n", sink);
	return 0;
}
