/* Fuzz target: the profile file reader (pp__profile_read) and, for every file
 * it accepts, each report renderer and a write/read round trip, because a
 * profile that passed validation is what the renderers and the writer trust.
 * The same bytes are also read as a stream (a pipe, as `report -` reads
 * standard input), which must give the same answer as the mapped file.
 * Oracles: a refusal is one line naming the file; an accepted profile renders
 * without error and reads back identical after being written; file and
 * stream agree. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
				pp__report_formats[f].name);
	}
}

struct feed {
	int fd;
	const uint8_t *data;
	size_t size;
};

static void *feed_pipe(void *arg)
{
	struct feed *f = arg;
	for (size_t at = 0; at < f->size;) {
		ssize_t n = write(f->fd, f->data + at, f->size - at);
		if (n <= 0)
			break; /* the reader stopped early (a bad magic) */
		at += (size_t)n;
	}
	close(f->fd);
	return NULL;
}

/* Read data through a pipe: 0 accepted (profile in *p), -1 refused. */
static int read_stream(const uint8_t *data, size_t size, pp_profile_t *p, char *err, size_t len)
{
	int fds[2];
	if (pipe(fds) != 0)
		fz_fail("pipe failed");
	struct feed f = {fds[1], data, size};
	pthread_t t;
	if (pthread_create(&t, NULL, feed_pipe, &f) != 0)
		fz_fail("pthread_create failed");
	char path[64];
	snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
	int rc = pp__profile_read(p, path, err, len);
	close(fds[0]);
	pthread_join(t, NULL);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_put("in.pathprof", data, size);
	pp_profile_t p, q, s;
	char err[512] = "", serr[512] = "";
	int rc = pp__profile_read(&p, path, err, sizeof err);
	int src = read_stream(data, size, &s, serr, sizeof serr);
	if ((rc < 0) != (src < 0))
		fz_fail("the file and the stream disagree: %s / %s", rc < 0 ? err : "accepted",
			src < 0 ? serr : "accepted");
	if (src == 0) {
		if (rc == 0)
			fz_same_profile(&p, &s);
		pp__profile_free(&s);
	} else {
		const char *a = strchr(err, ':'), *b = strchr(serr, ':');
		if (!a || !b || strcmp(a, b))
			fz_fail("the file and the stream are refused differently: '%s' / '%s'", err,
				serr);
	}
	if (rc < 0) {
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
