/* Helpers every pathprof subcommand uses (cli.h): one error format, strict
 * number parsing, and output that is checked for write errors, so each
 * command fails the same way instead of each inventing its own. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "file_kind.h"
#include "profile_merge.h"
#include "report.h"
#include "shm_read.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("pathprof: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int progress_shown;

void cli_progress(const char *fmt, ...)
{
	static int tty = -1;
	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (!tty)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("\rpathprof: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\033[K", stderr);
	va_end(ap);
	progress_shown = 1;
}

void cli_progress_end(void)
{
	if (progress_shown)
		fputs("\r\033[K", stderr);
	progress_shown = 0;
}

int cli_bad_option(const char *cmd, int c, char **argv)
{
	/* getopt leaves the offending word at optind - 1, except for an unknown
	 * letter inside a bundle that goes on after it ("-xh"): optind still
	 * names the bundle, and only optopt names the letter. A long option
	 * given a value it does not take ("--once=3") comes back as '?' with
	 * optopt set to its code, which need not be a letter. */
	const char *word = argv[optind - 1], *next = argv[optind];
	const char *at = next && next[0] == '-' && next[1] != '-' && optopt > 0 && optopt < 256
				 ? strchr(next + 1, optopt)
				 : NULL;
	int name_len = (int)strcspn(word, "=");
	if (c == ':')
		cli_error("%s: option '%s' needs a value (see 'pathprof %s --help')", cmd, word, cmd);
	else if ((at && at[1]) || (optopt && strncmp(word, "--", 2)))
		cli_error("%s: unknown option '-%c' (see 'pathprof %s --help')", cmd, optopt, cmd);
	else if (optopt && word[name_len] == '=')
		cli_error("%s: option '%.*s' takes no value (see 'pathprof %s --help')", cmd, name_len,
			  word, cmd);
	else
		cli_error("%s: unknown option '%.*s' (see 'pathprof %s --help')", cmd, name_len, word,
			  cmd);
	return CLI_USAGE;
}

int cli_parse_u64(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *c = s;
	if (!*c)
		goto bad;
	for (; *c; c++) {
		if (*c < '0' || *c > '9')
			goto bad;
		if (v > (max - (uint64_t)(*c - '0')) / 10) {
			cli_error("%s: '%s' is too large (at most %llu)", opt, s, (unsigned long long)max);
			return -1;
		}
		v = v * 10 + (uint64_t)(*c - '0');
	}
	*out = v;
	return 0;
bad:
	cli_error("%s: '%s' is not a non-negative integer", opt, s);
	return -1;
}

int cli_parse_duration(const char *opt, const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1}};
	char *end;
	if (*s < '0' || *s > '9')
		goto bad;
	double v = strtod(s, &end);
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(end, units[i].unit))
			continue;
		double t = v * units[i].scale;
		if (!(t < 18446744073709551616.0)) {
			cli_error("%s: '%s' is too long a duration", opt, s);
			return -1;
		}
		*ns = (uint64_t)(t + 0.5);
		return 0;
	}
bad:
	cli_error("%s: '%s' is not a duration (a number with ns, us, ms or s; no unit: ns)", opt, s);
	return -1;
}

static int is_stdout(const char *path)
{
	return !path || !strcmp(path, "-");
}

/* Does path hold what a program recorded: a profile, a trace or a
 * capture? A report, a diff or a list written over it would destroy it
 * (`pathprof report -o app.pathprof app.pathprof`, or `pathprof run -o
 * app.pathprof`, whose -o is the report's). */
static int holds_recording(const char *path)
{
	enum pp__file_kind k = pp__file_kind(path);
	return k == PP__FILE_PROFILE || k == PP__FILE_TRACE || k == PP__FILE_CAPTURE;
}

char *cli_dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
}

/* path made absolute with its links resolved; one that does not exist yet
 * by its directory's. NULL when neither resolves. */
static char *resolve(const char *path)
{
	char *r = realpath(path, NULL);
	if (r || errno != ENOENT)
		return r;
	const char *slash = strrchr(path, '/');
	char *dir = cli_dir_of(path);
	char *d = dir ? realpath(dir, NULL) : NULL;
	free(dir);
	const char *base = slash ? slash + 1 : path;
	if (d && *base && asprintf(&r, "%s/%s", strcmp(d, "/") ? d : "", base) < 0)
		r = NULL;
	free(d);
	return r;
}

int cli_same_file(const char *a, const char *b)
{
	char *ra = resolve(a), *rb = resolve(b);
	int same = ra && rb && !strcmp(ra, rb);
	free(ra);
	free(rb);
	return same;
}

FILE *cli_output_open(const char *path)
{
	if (is_stdout(path))
		return stdout;
	if (holds_recording(path)) {
		cli_error("%s: holds a pathprof recording (a profile, trace or capture), which "
			  "writing there would destroy: name another file",
			  path);
		return NULL;
	}
	FILE *f = fopen(path, "w");
	if (!f)
		cli_error("%s: cannot open for writing: %s", path, strerror(errno));
	return f;
}

int cli_output_close(FILE *f, const char *path)
{
	const char *what = is_stdout(path) ? "standard output" : path;
	int bad = fflush(f) != 0 || ferror(f);
	int err = errno;
	if (f != stdout && fclose(f) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (bad) {
		cli_error("%s: write failed: %s", what, err ? strerror(err) : "I/O error");
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cli_report_format(const char *cmd, const char *word, int *format)
{
	pp_report_format_t f;
	if (pp__report_format_parse(word, &f) == 0) {
		*format = (int)f;
		return 0;
	}
	char list[256];
	cli_error("%s: --format: '%s' is not %s", cmd, word, pp__report_format_list(list, sizeof list));
	return CLI_USAGE;
}

int cli_help(const char *text)
{
	fputs(text, stdout);
	return cli_output_close(stdout, NULL);
}

int cli_read_profile(pp_profile_t *p, const char *path)
{
	char err[512];
	if (pp__profile_read(p, path, err, sizeof err) < 0) {
		cli_error("%s", err);
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cli_read_merge(pp_profile_t *sum, pp_profile_t *one, const char *path, int compensate)
{
	char err[512];
	if (cli_read_profile(one, path) != CLI_OK)
		return CLI_FAIL;
	if (compensate && pp__profile_compensate(one) != 0) {
		cli_error("%s: out of memory", path);
		pp__profile_free(one);
		return CLI_FAIL;
	}
	if (pp__profile_merge(sum, one, err, sizeof err) < 0) {
		cli_error("%s: cannot merge: %s", path, err);
		pp__profile_free(one);
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cli_grow(void **arr, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	void *p = realloc(*arr, c * size);
	if (!p)
		return -1;
	*arr = p;
	*cap = c;
	return 0;
}

int cli_list_segments(FILE *out, int which, const char *cmd)
{
	pp__shm_live_t *l;
	long n = pp__shm_list(&l, which);
	if (n < 0) {
		cli_error("%s: /dev/shm: cannot list: %s", cmd, strerror(errno));
		return CLI_FAIL;
	}
	for (long i = 0; i < n; i++)
		fprintf(out, "%llu %s %s\n", (unsigned long long)l[i].pid,
			l[i].program[0] ? l[i].program : "-", l[i].object);
	free(l);
	return out == stdout ? cli_output_close(stdout, NULL) : CLI_OK;
}
