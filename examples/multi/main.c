/* multi's entry point: serve N generated requests (default 1000) and print a
 * checksum, so every build can be checked for doing the same work. */
#include <stdio.h>
#include <stdlib.h>
#include "multi.h"

PROFILED int main(int argc, char **argv)
{
	GATE();
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
	for (long i = 0; i < n; i++)
		handle_request((int)i);
	printf("multi: %ld requests, checksum %lu\n", n, total);
	return 0;
}
