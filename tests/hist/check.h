/* Minimal check macros for the unit tests: report every failure with its line
 * and keep going, so one run shows all that is wrong; main returns the verdict. */
#ifndef PP_TEST_CHECK_H
#define PP_TEST_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...)                                                           \
	do {                                                                       \
		if (!(cond)) {                                                     \
			check_failures++;                                          \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__,     \
				__LINE__, #cond);                                  \
			fprintf(stderr, __VA_ARGS__);                              \
			fputc('\n', stderr);                                       \
		}                                                                  \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                         \
	CHECK((unsigned long long)(a) == (unsigned long long)(b), "%llu != %llu", \
	      (unsigned long long)(a), (unsigned long long)(b))

static inline int check_done(const char *name)
{
	if (check_failures)
		fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
	else
		printf("%s: all checks passed\n", name);
	return check_failures ? 1 : 0;
}

#endif
