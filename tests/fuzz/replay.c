/* Runs a fuzz target over saved inputs without libFuzzer, so the seed corpus
 * and every crash kept under regress/ are replayed as unit tests by any
 * compiler (gcc builds too). Arguments are files or directories; names that
 * start with '.' are skipped. Exits 0 when every input ran, 1 when one could
 * not be read; a target's finding aborts the process. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int ran;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: cannot open\n", path);
		return -1;
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	int bad = !buf || ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		fprintf(stderr, "replay: %s: cannot read\n", path);
		return -1;
	}
	/* A copy of exactly n bytes, so ASan sees a read past the input. */
	uint8_t *in = malloc(n ? n : 1);
	memcpy(in, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(in, n);
	free(in);
	ran++;
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int skip_hidden(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: not found\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	struct dirent **list;
	int n = scandir(path, &list, skip_hidden, by_name), rc = 0;
	if (n < 0) {
		fprintf(stderr, "replay: %s: cannot list\n", path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", path, list[i]->d_name);
		rc |= run_path(sub);
		free(list[i]);
	}
	free(list);
	return rc;
}

int main(int argc, char **argv)
{
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= run_path(argv[i]);
	printf("replay: %d inputs ran\n", ran);
	return rc ? 1 : 0;
}
