/* `pathprof capture`: its subcommands (docs/guides/capture.md). gen.c
 * writes a shim from a header; replay.c calls a recorded trace's calls
 * again against a build of the library. */
#ifndef PP_CAPTURE_CLI_H
#define PP_CAPTURE_CLI_H

#include "cli.h"

int cmd_capture_gen(int argc, char **argv);
int cmd_capture_replay(int argc, char **argv);

#endif
