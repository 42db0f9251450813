/* The XRay misuse test program: with "api" it arms by a pattern that matches
 * nothing and by an empty one, then runs its functions; otherwise only
 * PATHPROF_XRAY arms it. Either way it must run to its end. */
#include <stdio.h>
#include <string.h>

#include <pathprof/xray.h>

__attribute__((noinline)) static int work_leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) static int work_root(int x)
{
	return work_leaf(x) + work_leaf(x + 1);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "api") == 0) {
		int a = pp_xray_arm_pattern("nomatch*"), b = pp_xray_arm_pattern("");
		printf("nomatch %d, empty %d\n", a, b);
	}
	int sink = 0;
	for (int i = 0; i < 4; i++)
		sink += work_root(i);
	printf("ran %d\n", sink);
	return 0;
}
