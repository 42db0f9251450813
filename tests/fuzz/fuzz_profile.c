/* Fuzz target: the profile file reader (pp__profile_read) and, for every file
 * it accepts, each report renderer and a write/read round trip, because a
 * profile that passed validation is what the renderers and the writer trust.
 * Oracles: a refusal is one line naming the file; an accepted profile renders
 * without error and reads back identical after being written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "profile.h"
#include "report.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		fz_fail("cannot open /dev/null");
	fz_dir();
	return 0;
}

static void check_refusal(const char *path, const char *err)
{
	size_t n = strlen(path);
	if (strncmp(err, path, n) || strncmp(err + n, ": ", 2) || !err[n + 2])
		fz_fail("refusal does not start with '<file>: <what>': '%s'", err);
	if (strchr(err, '\n'))
		fz_fail("refusal spans several lines: '%s'", err);
}

static void render(const pp_profile_t *p)
{
	/* Every format with the defaults, then with every filter and sort
	 * engaged, so the selection code runs on the fuzzed values too. */
	for (int f = 0; f < PP_REPORT_NFORMATS; f++) {
		pp_report_opts_t all = { .format = (pp_report_format_t)f };
		pp_report_opts_t some = { .format = (pp_report_format_t)f, .top = 2,
					  .sort = PP_SORT_TIME, .min_count = 2, .min_time_ns = 1,
					  .value = (pp_report_value_t)(f % 3) };
		if (pp__report(devnull, p, &all) || pp__report(devnull, p, &some))
			fz_fail("format %s failed on a profile the reader accepted",
				pp__report_format_words[f]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_put("in.pathprof", data, size);
	pp_profile_t p, q;
	char err[512] = "";
	if (pp__profile_read(&p, path, err, sizeof err) < 0) {
		check_refusal(path, err);
		return 0;
	}
	render(&p);
	const char *again = fz_put("again.pathprof", "", 0);
	if (pp__profile_write(&p, again, err, sizeof err) < 0)
		fz_fail("an accepted profile cannot be written back: %s", err);
	if (pp__profile_read(&q, again, err, sizeof err) < 0)
		fz_fail("a profile written back cannot be read: %s", err);
	fz_same_profile(&p, &q);
	pp__profile_free(&q);
	pp__profile_free(&p);
	return 0;
}
