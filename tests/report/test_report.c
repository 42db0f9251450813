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

/* ---- building profiles ---- */

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p) {
		perror("calloc");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		perror("strdup");
		exit(1);
	}
	return d;
}

/* One segment from (value, times) pairs, values in ticks ascending; bins come
 * from the real bucket function so the test sees what the runtime records. */
static pp_seg_t seg_of(const uint64_t (*vals)[2], size_t n)
{
	pp_seg_t s = { .min = UINT64_MAX };
	s.bins = xcalloc(n, sizeof *s.bins);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = vals[i][0], k = vals[i][1];
		uint32_t b = pp__hist_bucket(v);
		if (s.nbins && s.bins[s.nbins - 1].bucket == b)
			s.bins[s.nbins - 1].count += k;
		else
			s.bins[s.nbins++] = (pp_hbin_t){ .bucket = b, .count = k };
		s.count += k;
		s.sum += v * k;
		if (v < s.min)
			s.min = v;
		if (v > s.max)
			s.max = v;
	}
	return s;
}

#define SEG(...) seg_of((const uint64_t[][2]){ __VA_ARGS__ }, \
			sizeof((const uint64_t[][2]){ __VA_ARGS__ }) / sizeof(uint64_t[2]))

static void set_names(pp_profile_t *p, const char *const *names, uint32_t n)
{
	p->nnames = n;
	p->names = xcalloc(n, sizeof *p->names);
	for (uint32_t i = 0; i < n; i++) {
		p->names[i].name = xstrdup(names[i]);
		p->names[i].file = xstrdup(i == 0 ? "demo.c" : "");
		p->names[i].line = i == 0 ? 12 : 0;
	}
}

/* Adds a path; segs (depth entries) is copied, NULL for an untimed path. */
static void add_path(pp_profile_t *p, uint64_t id, uint64_t count, const uint32_t *names,
		     uint32_t depth, const pp_seg_t *segs)
{
	pp_ppath_t *pa = &p->paths[p->npaths++];
	pa->id = id;
	pa->count = count;
	pa->depth = depth;
	pa->names = xcalloc(depth, sizeof *pa->names);
	memcpy(pa->names, names, depth * sizeof *names);
	if (segs) {
		pa->segs = xcalloc(depth, sizeof *pa->segs);
		memcpy(pa->segs, segs, depth * sizeof *segs);
	}
}

#define NAMES(...) (const uint32_t[]){ __VA_ARGS__ }, \
	(uint32_t)(sizeof((const uint32_t[]){ __VA_ARGS__ }) / sizeof(uint32_t))

static void free_profile(pp_profile_t *p)
{
	for (uint32_t i = 0; i < p->nnames; i++) {
		free(p->names[i].name);
		free(p->names[i].file);
	}
	for (uint32_t i = 0; i < p->npaths; i++) {
		if (p->paths[i].segs)
			for (uint32_t d = 0; d < p->paths[i].depth; d++)
				free(p->paths[i].segs[d].bins);
		free(p->paths[i].segs);
		free(p->paths[i].names);
	}
	free(p->names);
	free(p->paths);
	free(p->frontend);
	free(p->command);
	memset(p, 0, sizeof *p);
}

/* A timed profile at 2 ticks per ns. Count order and time order differ: io is
 * 4x rarer than leaf but slower in total. One path was never timed. */
static void make_timed(pp_profile_t *p)
{
	static const char *const names[] = {
		"main", "work", "leaf", "io",
		"std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>(int const&)",
		"parse",
	};
	memset(p, 0, sizeof *p);
	p->version = 1;
	p->frontend = xstrdup("raii");
	p->command = xstrdup("./demo --n 3");
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
	set_names(p, names, 6);
	p->paths = xcalloc(5, sizeof *p->paths);

	pp_seg_t leaf[] = {
		SEG({ 10, 3990 }, { 20, 10 }),
		SEG({ 4, 2000 }, { 6, 2000 }),
		SEG({ 30, 3960 }, { 31, 39 }, { 1000, 1 }),
	};
	add_path(p, 0xa1a1a1a1a1a1a1a1ull, 4000, NAMES(0, 1, 2), leaf);
	pp_seg_t io[] = {
		SEG({ 12, 1000 }),
		SEG({ 900, 500 }, { 1000, 400 }, { 5000, 99 }, { 100000, 1 }),
	};
	add_path(p, 0xb2b2b2b2b2b2b2b2ull, 1000, NAMES(0, 3), io);
	pp_seg_t vec[] = { SEG({ 8, 10 }), SEG({ 2, 10 }), SEG({ 64, 5 }, { 80, 5 }) };
	add_path(p, 0x0c0c0c0c0c0c0c0cull, 10, NAMES(0, 1, 4), vec);
	add_path(p, 0xd4d4d4d4d4d4d4d4ull, 1, NAMES(0, 5), NULL);
	pp_seg_t work[] = { SEG({ 3, 1 }), SEG({ 7, 1 }) };
	add_path(p, 0x00000000000000e5ull, 1, NAMES(0, 1), work);
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
	memset(p, 0, sizeof *p);
	p->version = 1;
	p->frontend = xstrdup("cyg");
	p->command = xstrdup("prog \"arg\"\x7f");
	p->timing = PP_TIMING_OFF;
	p->events = 7;
	p->records = 7;
	p->threads = 1;
	set_names(p, names, 8);
	p->paths = xcalloc(6, sizeof *p->paths);
	add_path(p, 1, 3, NAMES(0, 1), NULL);
	add_path(p, 2, 2, NAMES(0, 2, 3), NULL);
	add_path(p, 3, 1, NAMES(0, 4), NULL);
	add_path(p, 4, 1, NAMES(0, 5, 6), NULL);
	add_path(p, 5, 1, NAMES(0, 7), NULL);
	/* Two keys resolving to the same names: one line, counts summed. */
	add_path(p, 6, 4, NAMES(0, 1), NULL);
}

static void make_empty(pp_profile_t *p)
{
	memset(p, 0, sizeof *p);
	p->version = 1;
	p->frontend = xstrdup("xray");
	p->command = xstrdup("");
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
	free_profile(&p);
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
		free_profile(&p);
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
	free_profile(&p);
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
