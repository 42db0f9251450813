/* Fuzz target: the API capture trace reader (tools/capture/capture_trace.c)
 * through `pathprof capture show`'s printer, which decodes every value of
 * every call. The input follows the magic (the reader is only ever given
 * bytes that start with it). Oracles: ASan and UBSan for every read, and
 * the status is CLI_OK or CLI_FAIL, never anything else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_cli.h"
#include "capture_format.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_dir();
	sink = fopen("/dev/null", "w");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!sink)
		LLVMFuzzerInitialize(NULL, NULL);
	/* seeds are whole traces: take them as they are, else put the magic in front */
	int whole = size >= 8 && !memcmp(data, PP_CAP_MAGIC, 8);
	uint8_t *b = malloc(size + 8);
	if (!b)
		return 0;
	memcpy(b, PP_CAP_MAGIC, 8);
	memcpy(b + 8, data + (whole ? 8 : 0), size - (whole ? 8 : 0));
	int rc = pp__cap_show(sink, "fuzz.cap", b, size + 8 - (whole ? 8 : 0));
	if (rc != CLI_OK && rc != CLI_FAIL)
		fz_fail("status %d", rc);
	free(b);
	return 0;
}
