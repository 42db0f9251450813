/* The program the PATHPROF_* misuse tests run: 20 roots, each a recursion one
 * level deeper than the last, so the listing is 20 distinct paths of depth
 * 1..20 and changes visibly when a bad value is taken instead of refused
 * (PATHPROF_DEPTH below 20, PATHPROF_PATHS below 20). */
#include <stdio.h>

#include <pathprof/raii.h>

static void rec(int n)
{
	PP_GATE("rec");
	if (n > 0)
		rec(n - 1);
}

int main(void)
{
	for (int i = 0; i < 20; i++) {
		PP_ROOT();
		rec(i);
	}
	puts("ran");
	return 0;
}
