/* The report's dispatch (report.h): the --format, --sort and --value words,
 * and pp__report(), which selects the rows once and hands them to the
 * format's renderer. Only the tool's commands call it; formats never do. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

int pp__report(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o)
{
	static const pp_report_opts_t defaults;
	pp__row_t *rows = NULL;
	int rc = 0;

	if (!o)
		o = &defaults;
	if (o->format == PP_FORMAT_PATHS) {
		rc = pp__report_paths(out, p, o);
	} else if (o->format == PP_FORMAT_WAITFOR) {
		rc = pp__report_waitfor(out, p, o);
	} else {
		long n = pp__report_select(p, o, &rows);
		if (n < 0) {
			errno = ENOMEM;
			return -1;
		}
		switch (o->format) {
		case PP_FORMAT_JSON: rc = pp__report_json(out, p, o, rows, (size_t)n); break;
		case PP_FORMAT_FOLDED: rc = pp__report_folded(out, p, o, rows, (size_t)n); break;
		case PP_FORMAT_DOT: rc = pp__report_dot(out, p, o, rows, (size_t)n); break;
		case PP_FORMAT_HTML: rc = pp__report_html(out, p, o, rows, (size_t)n); break;
		case PP_FORMAT_PPROF: rc = pp__report_pprof(out, p, o, rows, (size_t)n); break;
		default: rc = pp__report_text(out, p, o, rows, (size_t)n); break;
		}
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

const char *const pp__report_format_words[PP_REPORT_NFORMATS] = {
	"text", "json", "paths", "folded", "dot", "html", "pprof", "waitfor",
};

int pp__report_format_parse(const char *s, pp_report_format_t *f)
{
	for (int i = 0; i < PP_REPORT_NFORMATS; i++)
		if (!strcmp(s, pp__report_format_words[i])) {
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
