/* realparse: a real parser that never returns to an event loop, for
 * bench/realparse.sh. Parses each C file given REPEATS times with
 * tree-sitter's C grammar and walks every tree (a recursive walk, gated too
 * when the build gates everything), then prints the node count and the
 * parse loop's own time in ns, so that a plain build measures the truth.
 * usage: realparse REPEATS FILE... */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_c(void);

static unsigned long walk(TSNode n)
{
	unsigned long count = 1;
	uint32_t kids = ts_node_child_count(n);
	for (uint32_t i = 0; i < kids; i++)
		count += walk(ts_node_child(n, i));
	return count;
}

static char *slurp(const char *path, long *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	if (f && fseek(f, 0, SEEK_END) == 0 && (*size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)*size + 1)) && fread(buf, 1, (size_t)*size, f) != (size_t)*size) {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	if (!buf)
		fprintf(stderr, "realparse: %s: cannot read\n", path);
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: realparse REPEATS FILE...\n");
		return 2;
	}
	int repeats = atoi(argv[1]);
	TSParser *parser = ts_parser_new();
	ts_parser_set_language(parser, tree_sitter_c());
	unsigned long nodes = 0;
	uint64_t ns = 0;
	for (int a = 2; a < argc; a++) {
		long size;
		char *text = slurp(argv[a], &size);
		if (!text)
			return 1;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int r = 0; r < repeats; r++) {
			TSTree *tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)size);
			nodes += walk(ts_tree_root_node(tree));
			ts_tree_delete(tree);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u + (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
		free(text);
	}
	ts_parser_delete(parser);
	printf("nodes %lu ns %llu\n", nodes, (unsigned long long)ns);
	return 0;
}
