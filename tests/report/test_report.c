/* Unit test of the report renderers: profiles built in memory with known
 * counts and histogram bins are rendered in every format and compared byte
 * for byte with the files in expected/, plus checks of the listing order and
 * of write errors. Also prints a rendering (--print) for the JSON check and
 * writes a profile file (--write-profile) for the CLI test. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/gate.h>

#include "profile.h"
#include "report.h"
#include "testprof.h"

static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("FAIL: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failures++;
}

/* ---- building profiles ----
 * Path ids are made up (and one repeats) so the renderers' use of them shows
 * in the expected outputs; write_profile sets the real ones. Only the first
 * name has a source location, in every profile. */
static const char *const files[8] = { "demo.c" };
static const uint32_t lines[8] = { 12 };

/* A timed profile at 2 ticks per ns. Count order and time order differ: io is
 * 4x rarer than leaf but slower in total. One path was never timed. Path ids
 * are real here: a path finds its nodes by them. */
static void make_timed(pp_profile_t *p)
{
	static const char *const names[] = {
		"main", "work", "leaf", "io",
		"std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>(int const&)",
		"parse",
	};
	tp_init(p, "raii", "./demo --n 3");
	p->pid = 4242;
	p->start_ns = 1700000000000000000ull;
	p->end_ns = 1700000001500000000ull;
	p->ticks_per_ns = 2.0;
	p->timing = PP_TIMING_ON;
	p->events = 5011;
	p->records = 5013;
	p->drops_table = 1;
	p->drops_depth = 2;
	p->unmatched = 3;
	p->threads = 2;
	tp_names(p, 6, names, files, lines);

	/* Nodes that add up: main's inclusive time (2 340 440 ticks) is the
	 * sum of every node's self time; parse was never timed. */
	pp_seg_t leaf = TP_SEG({ 30, 3960 }, { 31, 39 }, { 1000, 1 });
	pp_seg_t vec = TP_SEG({ 64, 5 }, { 80, 5 });
	pp_seg_t io = TP_SEG({ 900, 500 }, { 1000, 400 }, { 5000, 99 }, { 100000, 1 });
	pp_seg_t work = TP_SEG({ 70, 2000 }, { 150, 10 }, { 7, 1 });
	pp_seg_t main_ = TP_SEG({ 100, 2000 }, { 320, 2000 }, { 1500, 1000 }, { 40, 11 });
	tp_node(p, TP_IDX(0, 1, 2), 121009, &leaf);
	tp_node(p, TP_IDX(0, 1, 4), 720, &vec);
	tp_node(p, TP_IDX(0, 3), 1445000, &io);
	tp_node(p, TP_IDX(0, 1), 141507 - 121009 - 720, &work);
	tp_node(p, TP_IDX(0), 2340440 - 141507 - 1445000, &main_);
	pp_seg_t *all[] = { &leaf, &vec, &io, &work, &main_ };
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		pp__seg_free(all[i]);
	tp_path(p, 4000, TP_IDX(0, 1, 2), NULL);
	tp_path(p, 1000, TP_IDX(0, 3), NULL);
	tp_path(p, 10, TP_IDX(0, 1, 4), NULL);
	tp_path(p, 1, TP_IDX(0, 5), NULL);
	tp_path(p, 1, TP_IDX(0, 1), NULL);
}

/* Untimed, unknown tick rate, and names no renderer may pass through raw:
 * quotes, backslash, control bytes, ill-formed UTF-8, '|' and '>'. */
static void make_weird(pp_profile_t *p)
{
	static const char *const names[] = {
		"root \"q\"",
		"back\\slash",
		"nl\nand\ttab\x01",
		"bad\xff\xc0\xafutf8",
		"caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80",
		"a|b",
		"operator>",
		"\xed\xa0\x80surrogate",
	};
	tp_init(p, "cyg", "prog \"arg\"\x7f");
	p->timing = PP_TIMING_OFF;
	p->events = 7;
	p->records = 7;
	p->threads = 1;
	tp_names(p, 8, names, files, lines);
	tp_path(p, 3, TP_IDX(0, 1), NULL)->id = 1;
	tp_path(p, 2, TP_IDX(0, 2, 3), NULL)->id = 2;
	tp_path(p, 1, TP_IDX(0, 4), NULL)->id = 3;
	tp_path(p, 1, TP_IDX(0, 5, 6), NULL)->id = 4;
	tp_path(p, 1, TP_IDX(0, 7), NULL)->id = 5;
	/* Two keys resolving to the same names: one line, counts summed. */
	tp_path(p, 4, TP_IDX(0, 1), NULL)->id = 6;
}

static void make_empty(pp_profile_t *p)
{
	tp_init(p, "xray", "");
	p->ticks_per_ns = 3.1;
	p->timing = PP_TIMING_SAMPLE;
	p->sample_n = 100;
}

/* ---- cases: every rendering compared with expected/<name> ---- */

typedef struct tcase {
	const char *name;
	void (*make)(pp_profile_t *);
	pp_report_opts_t o;
} tcase_t;

static const tcase_t cases[] = {
	{ "timed.txt", make_timed, { 0 } },
	{ "timed-time-top2.txt", make_timed, { .sort = PP_SORT_TIME, .top = 2 } },
	{ "timed-filtered.txt", make_timed, { .min_count = 2, .min_time_ns = 10 } },
	{ "timed.flat", make_timed, { .format = PP_FORMAT_FLAT } },
	{ "timed.json", make_timed, { .format = PP_FORMAT_JSON } },
	{ "timed-top1.json", make_timed, { .format = PP_FORMAT_JSON, .top = 1, .sort = PP_SORT_TIME } },
	{ "timed.paths", make_timed, { .format = PP_FORMAT_PATHS } },
	{ "timed-min.paths", make_timed,
	  { .format = PP_FORMAT_PATHS, .min_count = 10, .top = 1, .sort = PP_SORT_TIME } },
	{ "weird.txt", make_weird, { 0 } },
	{ "weird.json", make_weird, { .format = PP_FORMAT_JSON } },
	{ "weird.paths", make_weird, { .format = PP_FORMAT_PATHS } },
	{ "empty.txt", make_empty, { 0 } },
	{ "empty.json", make_empty, { .format = PP_FORMAT_JSON } },
	{ "empty.paths", make_empty, { .format = PP_FORMAT_PATHS } },
};

#define NCASES (sizeof cases / sizeof cases[0])

static char *render(const tcase_t *c, size_t *len)
{
	pp_profile_t p;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f) {
		perror("open_memstream");
		exit(1);
	}
	c->make(&p);
	if (pp__report(f, &p, &c->o) != 0)
		fail("%s: pp__report returned an error", c->name);
	fclose(f);
	pp__profile_free(&p);
	return buf;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;
	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len + 4096 > cap) {
			cap = cap * 2 + 4096;
			buf = realloc(buf, cap + 1);
			if (!buf)
				exit(1);
		}
		size_t n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	buf[*len] = 0;
	return buf;
}

static void check_case(const tcase_t *c, const char *dir)
{
	char path[4096];
	size_t glen, len;
	snprintf(path, sizeof path, "%s/%s", dir, c->name);
	char *want = slurp(path, &glen);
	char *got = render(c, &len);
	if (!want) {
		fail("%s: cannot read %s", c->name, path);
	} else if (glen != len || memcmp(want, got, len)) {
		size_t line = 1, i = 0;
		while (i < len && i < glen && want[i] == got[i])
			line += want[i++] == '\n';
		fail("%s: differs from %s at line %zu; got:\n%s", c->name, path, line, got);
	}
	free(want);
	free(got);
}

/* The listing's order is its definition: each line's text after '|' is
 * bytewise greater than the previous one's. */
static void check_listing_order(void)
{
	for (size_t i = 0; i < NCASES; i++) {
		if (cases[i].o.format != PP_FORMAT_PATHS)
			continue;
		size_t len;
		char *out = render(&cases[i], &len), *prev = NULL, *save = NULL;
		for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *bar = strchr(line, '|');
			if (!bar || bar == line || strspn(line, "0123456789") != (size_t)(bar - line))
				fail("%s: malformed line '%s'", cases[i].name, line);
			else if (prev && strcmp(prev, bar + 1) >= 0)
				fail("%s: '%s' listed after '%s'", cases[i].name, bar + 1, prev);
			if (bar)
				prev = bar + 1;
		}
		free(out);
	}
}

/* A full device is an error the caller must see, in every format. */
static void check_write_error(void)
{
	for (int fmt = PP_FORMAT_TEXT; fmt <= PP_FORMAT_PATHS; fmt++) {
		FILE *f = fopen("/dev/full", "w");
		pp_profile_t p;
		pp_report_opts_t o = { .format = (pp_report_format_t)fmt };
		if (!f) {
			fprintf(stderr, "skip: /dev/full: %s\n", strerror(errno));
			return;
		}
		make_timed(&p);
		if (pp__report(f, &p, &o) != -1)
			fail("format %d: writing to /dev/full did not fail", fmt);
		fclose(f);
		pp__profile_free(&p);
	}
}

static void check_parse(void)
{
	pp_report_format_t f = PP_FORMAT_TEXT;
	pp_report_sort_t s = PP_SORT_COUNT;
	if (pp__report_format_parse("json", &f) || f != PP_FORMAT_JSON)
		fail("format 'json' not parsed");
	if (pp__report_format_parse("paths", &f) || f != PP_FORMAT_PATHS)
		fail("format 'paths' not parsed");
	if (pp__report_format_parse("Text", &f) != -1 || pp__report_format_parse("", &f) != -1)
		fail("bad format words accepted");
	if (pp__report_sort_parse("time", &s) || s != PP_SORT_TIME)
		fail("sort 'time' not parsed");
	if (pp__report_sort_parse("counts", &s) != -1)
		fail("sort 'counts' accepted");
}

/* A real profile file for the CLI test: the timed profile with the ids the
 * runtime would compute. */
static int write_profile(const char *path)
{
	pp_profile_t p;
	char err[512];
	make_timed(&p);
	for (uint32_t i = 0; i < p.npaths; i++) {
		const char *seq[8];
		for (uint32_t d = 0; d < p.paths[i].depth; d++)
			seq[d] = p.names[p.paths[i].names[d]].name;
		p.paths[i].id = pp__path_id(seq, p.paths[i].depth);
	}
	int rc = pp__profile_write(&p, path, err, sizeof err);
	if (rc < 0)
		fprintf(stderr, "%s\n", err);
	pp__profile_free(&p);
	return rc < 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--print")) {
		for (size_t i = 0; i < NCASES; i++) {
			if (strcmp(cases[i].name, argv[2]))
				continue;
			size_t len;
			char *out = render(&cases[i], &len);
			fwrite(out, 1, len, stdout);
			free(out);
			return failures != 0 || fflush(stdout) != 0;
		}
		fprintf(stderr, "no case %s\n", argv[2]);
		return 1;
	}
	if (argc == 3 && !strcmp(argv[1], "--write-profile"))
		return write_profile(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < NCASES; i++)
			puts(cases[i].name);
		return 0;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s EXPECTED_DIR | --print CASE | --list | --write-profile FILE\n",
			argv[0]);
		return 2;
	}
	for (size_t i = 0; i < NCASES; i++)
		check_case(&cases[i], argv[1]);
	check_listing_order();
	check_write_error();
	check_parse();
	if (failures)
		fprintf(stderr, "%d failure(s)\n", failures);
	return failures != 0;
}
