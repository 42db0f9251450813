/* For `pathprof run`'s test: work() runs once per argument, then the program
 * exits with the status its first argument names, or kills itself. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static int __attribute__((noinline)) work(const char *s)
{
	return (int)strlen(s);
}

int main(int argc, char **argv)
{
	int sum = 0;
	for (int i = 1; i < argc; i++)
		sum += work(argv[i]);
	if (argc > 1 && !strcmp(argv[1], "kill"))
		raise(SIGTERM);
	return argc > 1 ? (int)strtol(argv[1], NULL, 10) : sum;
}
