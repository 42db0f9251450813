/* Consumer program, C: main > handle > parse for every request, and
 * main > handle > reply for one in three. */
#include <stdio.h>
#include "gate.h"

PROFILED int main(void)
{
	GATE();
	int sum = 0;
	for (int i = 0; i < 300; i++)
		sum += handle(i);
	printf("sum %d\n", sum);
	return 0;
}
