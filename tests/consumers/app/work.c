/* The second file of the C consumer program (see main.c). */
#include "gate.h"

static volatile int sink;

PROFILED static int parse(int i)
{
	GATE();
	sink += i;
	return i & 7;
}

PROFILED int reply(int i)
{
	GATE();
	sink += i;
	return 1;
}

PROFILED int handle(int i)
{
	GATE();
	int r = parse(i);
	if (i % 3 == 0)
		r += reply(i);
	return r;
}
