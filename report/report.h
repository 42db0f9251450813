/* Renderers of a merged profile: a readable text report, a complete JSON
 * export, the canonical path listing that verify and tests compare, and the
 * formats other tools read: folded stacks, Graphviz DOT, a self-contained
 * HTML page and gzip-compressed pprof (docs/reference/reports.md).
 * The tool's side only (`pathprof report`, run, diff, top): a profiled
 * program never carries them (its pp_summary() is runtime/summary.c). */
#ifndef PP_REPORT_H
#define PP_REPORT_H

#include <stdio.h>
#include <stdint.h>
#include "profile.h"

typedef enum pp_report_sort {
	PP_SORT_COUNT = 0, /* leaf returns, highest first */
	PP_SORT_TIME = 1,  /* the leaf node's self time, highest first */
} pp_report_sort_t;

typedef enum pp_report_format {
	PP_FORMAT_TEXT = 0,
	PP_FORMAT_JSON = 1,
	PP_FORMAT_PATHS = 2,  /* canonical listing: count|name>name>...>leaf */
	PP_FORMAT_FOLDED = 3, /* a;b;c value, for flame graph tools */
	PP_FORMAT_DOT = 4,    /* the path tree for Graphviz */
	PP_FORMAT_HTML = 5,   /* one self-contained interactive page */
	PP_FORMAT_PPROF = 6,  /* gzip-compressed profile.proto */
	PP_FORMAT_WAITFOR = 7, /* off-CPU wait-for graph of paths for Graphviz */
	PP_FORMAT_FLAT = 8,    /* one line per function by self time */
} pp_report_format_t;

/* What a folded line's value counts. */
typedef enum pp_report_value {
	PP_VALUE_COUNT = 0, /* leaf returns */
	PP_VALUE_TIME = 1,  /* a line per node: its self time, ns (ticks when the rate is unknown) */
	PP_VALUE_LEAF = 2,  /* a line per path: its leaf node's self time */
} pp_report_value_t;

/* A zeroed struct means: every path, by count, as text. */
typedef struct pp_report_opts {
	uint32_t top;          /* paths shown after sorting, 0 = all (ignored by paths) */
	pp_report_sort_t sort; /* ignored by paths, which sorts by names */
	uint64_t min_count;    /* hide paths with fewer leaf returns */
	uint64_t min_time_ns;  /* hide paths whose leaf self time is below this */
	pp_report_format_t format;
	pp_report_value_t value; /* folded only */
	/* dot only: hide nodes below min_share percent of the total; unset,
	 * as many as keeps about 100 nodes */
	int min_share_set;
	double min_share;
} pp_report_opts_t;

/* Render p to out as o says. Returns 0, or -1 when writing failed (out is
 * flushed and its error flag checked; errno tells why) or out of memory. */
int pp__report(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o);

/* Parse a --format / --sort word. Return 0, or -1 when s names none. */
int pp__report_format_parse(const char *s, pp_report_format_t *f);
int pp__report_sort_parse(const char *s, pp_report_sort_t *sort);
int pp__report_value_parse(const char *s, pp_report_value_t *v);

/* The report formats, in enum order: the one table that --help, the man
 * page, the error for a bad word, shell completion (`pathprof report
 * --formats`) and the dispatch below all read, so adding a format is one
 * row here and its renderer (docs/reference/reports.md, "Adding a format"). */
typedef struct pp_report_format_info {
	const char *name;
	const char *summary; /* one line of --help */
} pp_report_format_info_t;
#define PP_REPORT_NFORMATS 9
extern const pp_report_format_info_t pp__report_formats[PP_REPORT_NFORMATS];

/* "'text', 'json', ... or 'waitfor'" into buf, for error lines. */
const char *pp__report_format_list(char *buf, size_t n);
/* The formats as --help lines, each indented by indent spaces. */
void pp__report_format_help(FILE *out, int indent);

/* Write str (NULL reads as "") as a JSON string: escaped, and with U+FFFD for
 * each byte that is not well-formed UTF-8, since JSON text must be UTF-8.
 * Shared with the CLI's own JSON outputs (diff, top). */
void pp__report_json_str(FILE *out, const char *str);

/* compensate.c: take the gate's measured cost out of every node's times
 * (self, inclusive sum, min, max, histogram); nothing when the profile has
 * no measure or is compensated already. 0, or -1 when out of memory. */
int pp__profile_compensate(pp_profile_t *p);

/* numbers.c: a JSON number (fixed point, trailing zeros dropped, never
 * nan, inf or -0) and a duration for people: "850 ns", "1.25 us", "3.40 ms",
 * "2.10 s", or compact for narrow columns ("850ns", "1.2us"). */
void pp__report_json_num(FILE *out, double v, int decimals);
const char *pp__report_duration(double ns, int compact, char *buf, size_t n);

/* Version of the JSON export's layout (docs/reference/cli.md); bumped on any change a
 * consumer could notice. */
#define PP_REPORT_JSON_SCHEMA 2

/* --names short: replace every C++ name of p by its qualified name without
 * return type, template arguments or parameters (names_short.c). 0, or -1
 * when out of memory. */
int pp__report_names_short(pp_profile_t *p);

#endif
