/* Run-time check of the plugin's gates in C: functions that return from
 * several places (inside a loop, after a child, before any child) and
 * recursion. Exact counts in returns.expected; no frame may stay open. */
#include <stdio.h>
#include <pathprof/pathprof.h>
#include <pathprof/plugin.h>

PATHPROF static int classify(int x)
{
	if (x < 0)
		return -1;
	if (x == 0)
		return 0;
	if (x > 100)
		return 2;
	return 1;
}

PATHPROF static int fact(int n)
{
	if (n <= 1)
		return 1;
	return n * fact(n - 1);
}

PATHPROF static int find(const int *v, int n, int want)
{
	for (int i = 0; i < n; i++)
		if (v[i] == want)
			return i;
	return -1;
}

PATHPROF static int work(int i)
{
	static const int v[] = {3, 1, 4, 1, 5};
	int r = classify(i - 2);
	if (i % 3 == 0)
		return r + fact(3);
	if (i == 4)
		return r;
	return r + find(v, 5, i);
}

int main(void)
{
	int sum = 0;
	for (int i = 0; i < 6; i++)
		sum += work(i);
	if (PP__DS_DEPTH(pp__tls.dstate) != 0) {
		fprintf(stderr, "returns: %u frames left open\n", PP__DS_DEPTH(pp__tls.dstate));
		return 1;
	}
	/* Using the results keeps the optimiser from dropping the calls. */
	printf("sum %d\n", sum);
	return sum == 17 ? 0 : 1;
}
