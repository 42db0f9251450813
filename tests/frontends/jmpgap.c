/* A longjmp out of two gated frames, then a sibling of theirs with a much
 * larger frame, called from the function that called setjmp. Through cyg
 * the sibling's hook runs below the dead frames' positions, so at its
 * entry they look like its callers: before the runtime saw the jump
 * (runtime/host/longjmp.c) its path was main>driver>mid>deep>big. raii and
 * XRay tell the sibling from the dead by the call (the same frame address
 * or return-address slot as mid's). Every way the frames the jump leaves
 * are closed there, as exits: deep's path counts all ten calls, the five
 * that jumped too, and no exit is unmatched (jmpgap.expected; dropped
 * at the next gate, as under a sanitizer, 10 were). */
#include <setjmp.h>
#include <stdio.h>
#include <pathprof/pathprof.h>

#include "../../examples/feed/gate.h"

static jmp_buf env;
static volatile int sink;

GATED static void deep(int i)
{
	GATE();
	sink++;
	if (i % 2)
		longjmp(env, 1);
}

GATED static void mid(int i)
{
	GATE();
	deep(i);
	sink++;
}

/* the sibling, its frame far larger than mid's and deep's together */
GATED static int big(int i)
{
	GATE();
	volatile char buf[1024];
	buf[i] = (char)i;
	return buf[i];
}

GATED static void driver(int i)
{
	GATE();
	if (!setjmp(env))
		mid(i);
	sink += big(i);
}

int main(void)
{
	GATE();
	for (int i = 0; i < 10; i++)
		driver(i);
	printf("%d\n", sink);
	return 0;
}
