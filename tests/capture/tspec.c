/* Structs without pointers in them, through libc (tests/capture/libc.sh):
 * clock_getres fills one struct timespec, nanosleep reads one and may
 * fill another. Prints what it got. */
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec res = { 0, 0 }, req = { 0, 1000 }, rem = { 0, 0 };
	int a = clock_getres(CLOCK_MONOTONIC, &res);
	int b = nanosleep(&req, &rem);
	printf("%d %ld.%09ld %d\n", a, (long)res.tv_sec, res.tv_nsec, b);
	return 0;
}
