/* A recursive walk that GCC inlines into itself at -O2: through cyg every
 * copy's hooks run at the host's one position with the one key, and only
 * the hook's return address tells a copy nested in another from a copy
 * entered again (runtime/gate_resync.c). The listing must be the one the
 * recursion makes, with no exit unmatched (inlrec.expected); inlrec.sh
 * checks that the compiler did inline the walk into itself. */
#include <stdio.h>
#include <pathprof/pathprof.h>

#include "inlrec_tree.h"

/* small and self-recursive: GCC's recursive inlining at -O2 */
static void release(node_t *n)
{
	GATE();
	if (n) {
		release(n->left);
		release(n->right);
		free(n);
	}
}

int main(void)
{
	GATE();
	for (int i = 0; i < 10; i++) {
		node_t *t = grow(4);
		sink += t->v;
		release(t);
	}
	printf("%u\n", sink);
	return 0;
}
