/* tests/capture/paths.sh: one handle, five calls of mini_work (10 to 14
 * rounds of 100 steps: 60 inner calls, 6000 steps), then freed. */
#include <stdio.h>

#include "minilib.h"

int main(void)
{
	mini *m = mini_new(100);
	long r = 0;
	for (int i = 0; i < 5; i++)
		r = mini_work(m, 10 + i);
	mini_free(m);
	printf("%ld\n", r);
	return 0;
}
