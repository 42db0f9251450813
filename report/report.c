/* The report's dispatch (report.h): the --format, --sort and --value words,
 * and pp__report(), which selects the rows once and hands them to the
 * format's renderer. Only the tool's commands call it; formats never do. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

/* Each format's renderer: over the selected rows, or over the whole
 * profile (paths: the canonical listing; waitfor: the off-CPU edges). */
typedef struct renderer {
	int (*rows)(FILE *, const pp_profile_t *, const pp_report_opts_t *, const pp__row_t *, size_t);
	int (*whole)(FILE *, const pp_profile_t *, const pp_report_opts_t *);
} renderer_t;

static const renderer_t renderers[PP_REPORT_NFORMATS] = {
	[PP_FORMAT_TEXT] = {pp__report_text, NULL},
	[PP_FORMAT_JSON] = {pp__report_json, NULL},
	[PP_FORMAT_PATHS] = {NULL, pp__report_paths},
	[PP_FORMAT_FOLDED] = {pp__report_folded, NULL},
	[PP_FORMAT_DOT] = {pp__report_dot, NULL},
	[PP_FORMAT_HTML] = {pp__report_html, NULL},
	[PP_FORMAT_PPROF] = {pp__report_pprof, NULL},
	[PP_FORMAT_WAITFOR] = {NULL, pp__report_waitfor},
	[PP_FORMAT_FLAT] = {NULL, pp__report_flat},
};

const pp_report_format_info_t pp__report_formats[PP_REPORT_NFORMATS] = {
	[PP_FORMAT_TEXT] = {"text", "for reading (the default)"},
	[PP_FORMAT_JSON] = {"json", "complete data with a versioned schema"},
	[PP_FORMAT_PATHS] = {"paths", "the canonical listing: one 'count|root>...>leaf' line per "
				      "path, sorted bytewise by names (--top and --sort do not apply)"},
	[PP_FORMAT_FOLDED] = {"folded", "'root;...;leaf value' lines for flame graph tools"},
	[PP_FORMAT_DOT] = {"dot", "the path tree for Graphviz"},
	[PP_FORMAT_HTML] = {"html", "one self-contained interactive page"},
	[PP_FORMAT_PPROF] = {"pprof", "gzipped profile.proto for go tool pprof and profiling "
				      "backends"},
	[PP_FORMAT_WAITFOR] = {"waitfor", "the off-CPU wait-for graph for Graphviz (blocked path "
					  "-> waker; a profile of run --offcpu; --min-count and "
					  "--min-time filter its edges)"},
	[PP_FORMAT_FLAT] = {"flat", "one line per function: self and inclusive time over all its "
				    "calling contexts, calls; by self time (--top cuts); '(N% gate)' "
				    "marks one whose measured time was mostly the gates' own cost"},
};

const char *pp__report_format_list(char *buf, size_t n)
{
	buf[0] = '\0';
	for (int i = 0; i < PP_REPORT_NFORMATS; i++) {
		size_t len = strlen(buf);
		snprintf(buf + len, n - len, "%s'%s'",
			 i == 0 ? "" : i == PP_REPORT_NFORMATS - 1 ? " or " : ", ",
			 pp__report_formats[i].name);
	}
	return buf;
}

/* A summary wrapped to 78 columns under its name. */
void pp__report_format_help(FILE *out, int indent)
{
	for (int i = 0; i < PP_REPORT_NFORMATS; i++) {
		const char *s = pp__report_formats[i].summary;
		int col = fprintf(out, "%*s%-9s", indent, "", pp__report_formats[i].name);
		while (*s) {
			size_t room = 78 - (size_t)col, n = strlen(s);
			if (n > room) {
				n = room;
				while (n > 0 && s[n] != ' ')
					n--;
				if (n == 0)
					n = room;
			}
			fprintf(out, "%.*s\n", (int)n, s);
			s += n;
			while (*s == ' ')
				s++;
			if (*s)
				col = fprintf(out, "%*s", indent + 9, "");
		}
	}
}

int pp__report(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o)
{
	static const pp_report_opts_t defaults;
	pp__row_t *rows = NULL;
	int rc = 0;

	if (!o)
		o = &defaults;
	const renderer_t *r = &renderers[o->format < PP_REPORT_NFORMATS ? o->format : 0];
	if (r->whole) {
		rc = r->whole(out, p, o);
	} else {
		long n = pp__report_select(p, o, &rows);
		if (n < 0) {
			errno = ENOMEM;
			return -1;
		}
		rc = r->rows(out, p, o, rows, (size_t)n);
		free(rows);
	}
	if (rc < 0) {
		errno = ENOMEM;
		return -1;
	}
	if (fflush(out) != 0 || ferror(out))
		return -1;
	return 0;
}

int pp__report_format_parse(const char *s, pp_report_format_t *f)
{
	for (int i = 0; i < PP_REPORT_NFORMATS; i++)
		if (!strcmp(s, pp__report_formats[i].name)) {
			*f = (pp_report_format_t)i;
			return 0;
		}
	return -1;
}

int pp__report_sort_parse(const char *s, pp_report_sort_t *sort)
{
	if (!strcmp(s, "count"))
		*sort = PP_SORT_COUNT;
	else if (!strcmp(s, "time"))
		*sort = PP_SORT_TIME;
	else
		return -1;
	return 0;
}

int pp__report_value_parse(const char *s, pp_report_value_t *v)
{
	if (!strcmp(s, "count"))
		*v = PP_VALUE_COUNT;
	else if (!strcmp(s, "time"))
		*v = PP_VALUE_TIME;
	else if (!strcmp(s, "leaf"))
		*v = PP_VALUE_LEAF;
	else
		return -1;
	return 0;
}
