/* pathprof: the command-line tool over profile files. main() only finds the
 * subcommand in the table below and hands it its arguments; each command
 * lives in its own cmd_<name>.c, as in perf and uftrace. */
#include <stdio.h>
#include <string.h>

#include <pathprof/pathprof.h>

#include "cli.h"

#ifndef PATHPROF_VERSION_STRING
#define PATHPROF_VERSION_STRING "unknown"
#endif

static const cli_cmd_t commands[] = {
	{ "run", cmd_run, "run a program with profiling set up and print its report when it exits" },
	{ "diff", cmd_diff, "compare two profiles (or two directories of runs): B - A per path" },
	{ "replay", cmd_replay, "rebuild the profile of a recorded trace (PATHPROF_TRACE)" },
	{ "report", cmd_report, "print a profile as text, json, paths, folded, dot, html, pprof or waitfor" },
	{ "top", cmd_top, "live view of a running program's profile (PATHPROF_SHM)" },
	{ "merge", cmd_merge, "merge profiles of several processes or runs into one" },
	{ "recover", cmd_recover, "write the profile of a killed process from its live segment" },
	{ "record", cmd_record, "record where a running process's threads block (--offcpu -p PID)" },
	{ "serve", cmd_serve, "serve this host's live profiles to Prometheus (/metrics)" },
	{ "select", cmd_select, "list the functions not worth their gates (--budget PCT), for the next build" },
	{ "capture", cmd_capture, "record a C library's API calls (a generated shim) and replay them" },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const cli_cmd_t *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int usage(FILE *out)
{
	fputs("usage: pathprof [--help] [--version] <command> [<args>]\n"
	      "\n"
	      "Read the profiles that programs built with a pathprof front-end write:\n"
	      "exact counts of every root-to-leaf call path and the time of each segment.\n"
	      "\n"
	      "commands:\n",
	      out);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\n"
	      "'pathprof <command> --help' (or 'pathprof help <command>') explains a\n"
	      "command's options. Exit status: 0 success, 1 bad input or failed write,\n"
	      "2 bad command line.\n",
	      out);
	return 0;
}

static int unknown_command(const char *name)
{
	cli_error("'%s' is not a pathprof command (see 'pathprof --help')", name);
	return CLI_USAGE;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	const char *first = argv[1];
	if (!strcmp(first, "--help") || !strcmp(first, "-h")) {
		usage(stdout);
		return cli_output_close(stdout, NULL);
	}
	if (!strcmp(first, "--version") || !strcmp(first, "-V")) {
		puts("pathprof " PATHPROF_VERSION_STRING);
		return cli_output_close(stdout, NULL);
	}
	if (!strcmp(first, "help")) {
		if (argc < 3) {
			usage(stdout);
			return cli_output_close(stdout, NULL);
		}
		const cli_cmd_t *c = find_command(argv[2]);
		if (!c)
			return unknown_command(argv[2]);
		char *help_argv[] = { (char *)c->name, (char *)"--help", NULL };
		return c->run(2, help_argv);
	}
	if (first[0] == '-') {
		cli_error("unknown option '%s' (see 'pathprof --help')", first);
		return CLI_USAGE;
	}
	const cli_cmd_t *c = find_command(first);
	if (!c)
		return unknown_command(first);
	return c->run(argc - 1, argv + 1);
}
