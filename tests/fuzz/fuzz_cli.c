/* Fuzz target: the pathprof command line. The input picks a command word and
 * supplies the remaining argv words (NUL-separated); the CLI's main (built
 * here as pp_cli_main) runs in the scratch directory, which holds a valid
 * untimed and timed profile and a damaged one to name as FILE. Every '/'
 * becomes '_', so any file a command creates stays in that directory (the
 * run enters it and leaves it again, so the fuzzer's own relative paths keep
 * working); stdout and stdin are /dev/null. Oracles: the exit status is one
 * of cli.h's, and the run leaks nothing (LeakSanitizer). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz.h"

int pp_cli_main(int argc, char **argv);
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* First word: chosen, not fuzzed, so that only commands that read files and
 * write where they are told can run (never one that runs or waits on a
 * program); words that name no command test the dispatcher. */
static const char *const commands[] = {
	"report", "diff", "merge", "replay", "help", "--help", "--version", "-h", "nosuch", "-x", "",
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])
#define MAX_WORDS 16

static const char *const fixtures[] = { "a.pathprof", "t.pathprof", "bad.pathprof", NULL };
static int home = -1; /* the directory to return to after a run */
static uint8_t *fixture_bytes[3];
static size_t fixture_len[3];

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	static uint8_t buf[1 << 16];
	if (!f)
		fz_fail("cannot read %s", path);
	*n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	uint8_t *b = malloc(*n);
	memcpy(b, buf, *n);
	return b;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[512];
	for (int timed = 0; timed < 2; timed++) {
		pp_profile_t p;
		fz_sample(&p, timed);
		const char *path = fz_put(fixtures[timed], "", 0);
		if (pp__profile_write(&p, path, err, sizeof err))
			fz_fail("%s", err);
		pp__profile_free(&p);
		fixture_bytes[timed] = slurp(path, &fixture_len[timed]);
	}
	/* The timed profile cut in the middle of a section. */
	fixture_len[2] = fixture_len[1] / 2;
	fixture_bytes[2] = malloc(fixture_len[2]);
	memcpy(fixture_bytes[2], fixture_bytes[1], fixture_len[2]);
	home = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (home < 0)
		fz_fail("cannot open the current directory");
	int fd = open("/dev/null", O_RDWR);
	if (fd < 0 || dup2(fd, 0) < 0 || dup2(fd, 1) < 0)
		fz_fail("cannot redirect to /dev/null");
	close(fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0 || size > 4096)
		return 0;
	/* Restore what the last run may have overwritten, drop what it made. */
	for (int i = 0; i < 3; i++)
		fz_put(fixtures[i], fixture_bytes[i], fixture_len[i]);
	fz_clean(fixtures);

	char *words = malloc(size);
	memcpy(words, data + 1, size - 1);
	words[size - 1] = 0;
	for (size_t i = 0; i < size - 1; i++)
		if (words[i] == '/')
			words[i] = '_';
	char *argv[MAX_WORDS + 3];
	int argc = 0;
	argv[argc++] = (char *)"pathprof";
	argv[argc++] = (char *)commands[data[0] % NCOMMANDS];
	for (char *w = words; size > 1 && argc < MAX_WORDS + 2 && w < words + size - 1; w += strlen(w) + 1)
		argv[argc++] = w;
	argv[argc] = NULL;

	if (chdir(fz_dir()) != 0)
		fz_fail("cannot enter %s", fz_dir());
	int rc = pp_cli_main(argc, argv);
	if (fchdir(home) != 0)
		fz_fail("cannot return to the starting directory");
	if (rc != CLI_OK && rc != CLI_FAIL && rc != CLI_USAGE && rc != CLI_PARTIAL)
		fz_fail("exit status %d is none of those documented", rc);
	clearerr(stdout);
	free(words);
	return 0;
}
