/* A recursive parser of nested lists of numbers whose small functions end in
 * tail calls (clang -O2 turns them into jumps), the shape on which XRay's
 * tail sleds and cyg's inlined hooks cost the most (#30). The text is read
 * through a volatile pointer so that no compiler hoists the parse out of
 * the loop. usage: tailparse ROUNDS */
#include <stdio.h>
#include <stdlib.h>

static const char *volatile text = "[1, [22, 333, [4444, 5], 6], [[7], 88], 9, [10, [11, [12, [13]]]]]";

__attribute__((noinline)) static int skip_ws(const char *s, int i)
{
	while (s[i] == ' ')
		i++;
	return i;
}

__attribute__((noinline)) static int parse_value(const char *s, int i, int d);

__attribute__((noinline)) static int parse_num(const char *s, int i)
{
	while (s[i] >= '0' && s[i] <= '9')
		i++;
	return skip_ws(s, i);
}

__attribute__((noinline)) static int parse_list(const char *s, int i, int d)
{
	i = skip_ws(s, i + 1);
	while (s[i] != ']') {
		i = parse_value(s, i, d + 1);
		if (s[i] == ',')
			i = skip_ws(s, i + 1);
	}
	return skip_ws(s, i + 1);
}

__attribute__((noinline)) static int parse_value(const char *s, int i, int d)
{
	if (s[i] == '[')
		return parse_list(s, i, d);
	return parse_num(s, i);
}

__attribute__((noinline)) int parse(void)
{
	return parse_value(text, 0, 0);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;
	for (long r = 0; r < n; r++)
		sum += parse();
	printf("%ld\n", sum);
	return 0;
}
