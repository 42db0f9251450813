/* What the pathprof subcommands share: the command table's entry type, the
 * exit statuses, and helpers for the one-line errors and checked output that
 * every command must get right the same way. */
#ifndef PP_CLI_H
#define PP_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/* Exit statuses of every command. */
enum {
	CLI_OK = 0,
	CLI_FAIL = 1,  /* bad input file, write error */
	CLI_USAGE = 2, /* bad command line */
	CLI_PARTIAL = 3, /* replay: part of the input was lost; the rest was used */
};

/* One subcommand: run(argc, argv) gets argv[0] == name. Adding a command is a
 * cmd_<name>.c file, a prototype below, and a line in pathprof.c's table. */
typedef struct cli_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} cli_cmd_t;

int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_recover(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_select(int argc, char **argv);

/* Write the profile of the dead process whose live segment is target (a
 * name, pid or file) to out (NULL: PROGRAM.PID.pathprof), noting signal (0:
 * unknown) as what killed it; `pathprof recover` and `pathprof run` after a
 * kill. Prints its own one-line error; returns CLI_OK or CLI_FAIL. */
enum { CLI_RECOVER_KEEP = 1, CLI_RECOVER_FORCE = 2, CLI_RECOVER_QUIET = 4 };
int cli_recover(const char *target, const char *out, int signal, int flags);

/* Print "pathprof: <message>" and a newline on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Where a long command is, on one stderr line rewritten in place; nothing
 * unless stderr is a terminal, so pipes, files and logs never see it.
 * cli_progress_end() clears the line (a no-op when nothing was shown). */
void cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_progress_end(void);

/* Report a getopt_long() failure (c is '?' or ':') of command cmd on one
 * line. Returns CLI_USAGE. */
int cli_bad_option(const char *cmd, int c, char **argv);

/* Parse a decimal number for option opt: digits only, at most max. Prints the
 * error and returns -1 when s is not one. */
int cli_parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *out);

/* Parse a duration for option opt: a non-negative number with a unit, ns, us,
 * ms or s (1ms, 250us, 2.5s); without a unit, nanoseconds. Prints the error
 * and returns -1 when s is not one. */
int cli_parse_duration(const char *opt, const char *s, uint64_t *ns);

/* Read the profile file path into p. On failure print the reader's one-line
 * error and return CLI_FAIL (p then holds nothing to free). */
int cli_read_profile(pp_profile_t *p, const char *path);

/* Read path into one and merge it into sum, printing the one-line error of a
 * failed read or merge; with compensate, one has the gate's cost it measured
 * taken out first (report/compensate.c: each file its own measure). Returns
 * CLI_OK, one then holding the file's profile (the caller frees it), or
 * CLI_FAIL with one holding nothing. */
int cli_read_merge(pp_profile_t *sum, pp_profile_t *one, const char *path, int compensate);

/* Print text (a command's --help) on standard output and check the write.
 * Returns CLI_OK or CLI_FAIL. */
int cli_help(const char *text);

/* A --format word of the report formats (report.c's table) for command
 * cmd: 0, or CLI_USAGE after one line that lists the formats. */
int cli_report_format(const char *cmd, const char *word, int *format);

/* Output of a command: path, or standard output when path is NULL or "-".
 * NULL (error printed) when it cannot be opened. */
FILE *cli_output_open(const char *path);
/* The directory part of path, allocated: "." when it has none, "/" for a
 * name at the root. NULL when out of memory. */
char *cli_dir_of(const char *path);
/* Do paths a and b name one file (links resolved; either may not exist
 * yet)? */
int cli_same_file(const char *a, const char *b);

/* Flush and close what cli_output_open() returned (stdout is flushed, not
 * closed) and report a failed write: a full disk is an error, not success.
 * Returns CLI_OK or CLI_FAIL. */
int cli_output_close(FILE *f, const char *path);

/* Room for n + 1 elements of size bytes in *arr, of *cap: doubled when
 * full. 0, or -1 when out of memory (*arr is then unchanged). */
int cli_grow(void **arr, size_t *cap, size_t n, size_t size);

/* The segments of this user's profiled processes of one kind
 * (PP__SHM_LIST_LIVE or _LEFT, shm_read.h), one "PID PROGRAM SEGMENT" line
 * each, by pid: `top --list`, `recover --list` and shell completion. A
 * status (CLI_OK, or CLI_FAIL with a line naming cmd). */
int cli_list_segments(FILE *out, int which, const char *cmd);

#endif
