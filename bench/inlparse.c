/* inlparse: a number parser whose small static helpers gcc inlines into
 * their caller, as real C code does: under -finstrument-functions their
 * hooks run at the caller's stack position (bench/inlinstr.sh). */
#include <stdio.h>
#include <stdlib.h>
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_space(int c) { return c == ' ' || c == '\n'; }
static int digit_value(int c) { return c - '0'; }
__attribute__((noinline)) long parse(const char *s)
{
	long sum = 0, cur = 0;
	for (; *s; s++) {
		if (is_digit(*s))
			cur = cur * 10 + digit_value(*s);
		else if (is_space(*s)) {
			sum += cur;
			cur = 0;
		}
	}
	return sum + cur;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	static char buf[4096];
	size_t k = 0;
	for (int i = 0; k < sizeof buf - 16; i++)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%d ", i * 7919 % 100000);
	long t = 0;
	for (int i = 0; i < n; i++)
		t += parse(buf);
	printf("%ld\n", t);
	return 0;
}
