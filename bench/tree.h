/* The expression parser of the tree benchmark (tree.c, built gated and
 * plain) and its document generator (treebench.c). */
#ifndef BENCH_TREE_H
#define BENCH_TREE_H

#include <stdint.h>

uint64_t plain_parse(const char *doc);
uint64_t gated_parse(const char *doc);

#endif
