/* pathprof-capture-gen: `pathprof capture gen` as an executable of its
 * own, so that only it loads libclang (tools/meson.build says why). */
#include "capture_cli.h"

int main(int argc, char **argv)
{
	return cmd_capture_gen(argc, argv);
}
