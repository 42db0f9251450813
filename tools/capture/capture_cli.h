/* `pathprof capture`: its subcommands (docs/guides/capture.md). gen.c
 * writes a shim from a header; replay.c calls a recorded trace's calls
 * again against a build of the library. */
#ifndef PP_CAPTURE_CLI_H
#define PP_CAPTURE_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

int cmd_capture_gen(int argc, char **argv);
int cmd_capture_replay(int argc, char **argv);
int cmd_capture_show(int argc, char **argv);
int cmd_capture_compare(int argc, char **argv);

/* The calls of the trace of n bytes at b as text (show.c); CLI_OK, or
 * CLI_FAIL for a damaged or cut trace after one line on standard error.
 * The fuzz target reads traces through it. */
#include <stdio.h>
int pp__cap_show(FILE *o, const char *path, const uint8_t *b, size_t n);

#endif
