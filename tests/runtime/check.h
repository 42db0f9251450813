/* Tiny assertion helpers for the runtime tests: print what differed and fail
 * the process, so meson shows the exact mismatch. */
#ifndef PP_TEST_CHECK_H
#define PP_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c)                                                                   \
	do {                                                                       \
		if (!(c)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
			exit(1);                                                   \
		}                                                                  \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                         \
	do {                                                                       \
		unsigned long long a_ = (a), b_ = (b);                             \
		if (a_ != b_) {                                                    \
			fprintf(stderr, "%s:%d: %s == %llu, expected %s == %llu\n", __FILE__, \
				__LINE__, #a, a_, #b, b_);                         \
			exit(1);                                                   \
		}                                                                  \
	} while (0)

#define CHECK_EQ_STR(a, b)                                                         \
	do {                                                                       \
		const char *a_ = (a), *b_ = (b);                                   \
		if (strcmp(a_, b_)) {                                              \
			fprintf(stderr, "%s:%d: got:\n%s\nexpected:\n%s\n", __FILE__, __LINE__, a_, b_); \
			exit(1);                                                   \
		}                                                                  \
	} while (0)

#endif
