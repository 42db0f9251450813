/* `pathprof capture gen|replay|compare|show`: record a C library's API calls once,
 * replay them on any build (docs/guides/capture.md). The subcommands live in
 * tools/capture/; this file only finds one, or says the tool was built
 * without libclang and libffi. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#ifdef PP_HAVE_CAPTURE
#include "capture_cli.h"
#endif

static const char help_text[] =
	"usage: pathprof capture gen|replay|compare|show [options]\n"
	"\n"
	"Record every call a program makes into a C library's API, then make them\n"
	"again against any build of the library:\n"
	"  gen      write a capture shim from the library's header (libclang)\n"
	"  replay   call a recorded trace's functions again (libffi), check every\n"
	"           result against the recording, time each entry point\n"
	"  compare  replay it against two builds, interleaved, and say per entry\n"
	"           point which is slower, when the passes say so\n"
	"  show     print a trace's calls, one a line (no library needed)\n"
	"\n"
	"'pathprof capture COMMAND --help' says more; docs/guides/capture.md is\n"
	"the workflow.\n";

#ifdef PP_HAVE_CAPTURE
/* gen is pathprof-capture-gen beside this executable (libclang is loaded
 * by it alone): run it in our place. */
static int run_gen(char **argv)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 32);
	if (n <= 0) {
		cli_error("capture gen: cannot find this executable (/proc/self/exe)");
		return CLI_FAIL;
	}
	self[n] = 0;
	char *slash = strrchr(self, '/');
	strcpy(slash ? slash + 1 : self, "pathprof-capture-gen");
	argv[0] = self;
	execv(self, argv);
	cli_error("capture gen: cannot run %s: %s", self, strerror(errno));
	return CLI_FAIL;
}
#endif

int cmd_capture(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (argc < 2) {
			fputs(help_text, stderr);
			return CLI_USAGE;
		}
		return cli_help(help_text);
	}
#ifdef PP_HAVE_CAPTURE
	if (!strcmp(argv[1], "gen"))
		return run_gen(argv + 1);
	if (!strcmp(argv[1], "replay"))
		return cmd_capture_replay(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return cmd_capture_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "compare"))
		return cmd_capture_compare(argc - 1, argv + 1);
	cli_error("capture: '%s' is not 'gen', 'replay', 'compare' or 'show' (see 'pathprof capture --help')",
		  argv[1]);
	return CLI_USAGE;
#else
	cli_error("capture: this pathprof was built without libclang and libffi (apt install "
		  "libclang-14-dev libffi-dev, then rebuild)");
	return CLI_FAIL;
#endif
}
