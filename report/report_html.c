/* HTML: one self-contained page (inline style and script, no network, a
 * Content-Security-Policy that forbids any fetch) showing the selected paths
 * as an icicle, per-segment tables and histograms, and a sortable path table.
 * The page, its CSS and its JS are files under report/html/, embedded at
 * build time; the data is the JSON export, so the page reads the documented
 * schema. A diff gives the page both profiles and diff's own verdicts.
 * Names only ever reach the page inside a JSON block with '<' escaped, and
 * the script shows them through textContent. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_html.h"
#include "report_html_assets.h"
#include "report_impl.h"

/* JSON text into an HTML <script> element: "</script>" or "<!--" inside a
 * string would end or confuse the element, so every '<' becomes \u003c,
 * which JSON.parse reads back as '<'. '<' only occurs inside strings. */
static void put_script_json(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '<')
			fputs("\\u003c", out);
		else
			fputc(s[i], out);
	}
}

/* Per shown path, the ids of its prefixes (the DOT node ids), so the page
 * names icicle frames as the graph names its nodes. */
static int put_ids(FILE *out, const pp_profile_t *p, const pp__row_t *rows, size_t n)
{
	uint32_t maxd = 1;
	for (size_t i = 0; i < n; i++)
		if (rows[i].path->depth > maxd)
			maxd = rows[i].path->depth;
	uint64_t *ids = malloc(maxd * sizeof *ids);
	if (!ids)
		return -1;
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		if (pp__report_prefix_ids(p, rows[i].path, ids) < 0) {
			free(ids);
			return -1;
		}
		fputs(i ? ",\n[" : "\n[", out);
		for (uint32_t d = 0; d < rows[i].path->depth; d++)
			fprintf(out, "%s\"p%016llx\"", d ? "," : "", (unsigned long long)ids[d]);
		fputc(']', out);
	}
	fputs("]", out);
	free(ids);
	return 0;
}

/* Writes the page up to the next marker and returns what follows it. */
static const char *upto(FILE *out, const char *page, const char *marker)
{
	const char *m = strstr(page, marker);
	if (!m)
		m = page + strlen(page); /* a page without the marker: build error, caught by tests */
	fwrite(page, 1, (size_t)(m - page), out);
	return *m ? m + strlen(marker) : m;
}

/* One profile's blocks: the JSON export of the rows o selects, then their
 * prefix ids. rows/n are that selection, in the export's order. */
static int put_profile(FILE *out, const char **page, const char *data_marker,
		       const char *ids_marker, const pp_profile_t *p, const pp_report_opts_t *o,
		       const pp__row_t *rows, size_t n)
{
	char *json = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&json, &len);
	if (!mem)
		return -1;
	pp_report_opts_t jo = *o;
	jo.format = PP_FORMAT_JSON;
	/* the page's data is the JSON export of the same rows */
	int rc = pp__report_json(mem, p, &jo, rows, n);
	if (fclose(mem) != 0 || rc < 0) {
		free(json);
		errno = ENOMEM;
		return -1;
	}
	*page = upto(out, *page, data_marker);
	put_script_json(out, json, len);
	free(json);
	*page = upto(out, *page, ids_marker);
	return put_ids(out, p, rows, n);
}

/* Paths a page carries at most (html_budget.c): a 10 000-path page loads in
 * about 1.4 s in headless Chromium on this project's 2-core test machine. */
#define HTML_MAX_PATHS 10000

int pp__report_html(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o,
		    const pp__row_t *rows, size_t n)
{
	pp_profile_t q;
	pp__row_t *qrows = NULL;
	long qn = 0;
	int budget = n > HTML_MAX_PATHS;
	if (budget) {
		if (pp__html_budget(p, rows, n, HTML_MAX_PATHS, &q) != 0) {
			errno = ENOMEM;
			return -1;
		}
		pp_report_opts_t all = *o;
		all.top = 0; /* the reduced profile: every one of its paths */
		qn = pp__report_select(&q, &all, &qrows);
		if (qn < 0) {
			pp__html_budget_free(&q, HTML_MAX_PATHS);
			errno = ENOMEM;
			return -1;
		}
	}
	const char *page = upto(out, pp__html_page, "/*PP:CSS*/");
	fputs(pp__html_css, out);
	int rc = budget ? put_profile(out, &page, "/*PP:DATA*/", "/*PP:IDS*/", &q, o, qrows, (size_t)qn)
			: put_profile(out, &page, "/*PP:DATA*/", "/*PP:IDS*/", p, o, rows, n);
	if (budget) {
		free(qrows);
		pp__html_budget_free(&q, HTML_MAX_PATHS);
	}
	if (rc < 0)
		return -1;
	/* No baseline and no diff: the page stays a plain report. */
	page = upto(out, page, "/*PP:DATA_A*/");
	fputs("null", out);
	page = upto(out, page, "/*PP:IDS_A*/");
	fputs("null", out);
	page = upto(out, page, "/*PP:DIFF*/");
	fputs("null", out);
	page = upto(out, page, "/*PP:BUDGET*/");
	if (budget)
		fprintf(out, "{\"kept\": %d, \"paths\": %zu}", HTML_MAX_PATHS, n);
	else
		fputs("null", out);
	page = upto(out, page, "/*PP:JS*/");
	fputs(pp__html_js, out);
	fputs(page, out);
	return 0;
}

int pp__report_html_diff(FILE *out, const pp_profile_t *a, const pp_profile_t *b,
			 const char *diff_json, size_t len)
{
	/* Every path of both sides: the page shows those diff lists. */
	static const pp_report_opts_t all = { .format = PP_FORMAT_HTML };
	pp__row_t *ra = NULL, *rb = NULL;
	long na = pp__report_select(a, &all, &ra), nb = pp__report_select(b, &all, &rb);
	int rc = -1;
	if (na < 0 || nb < 0) {
		errno = ENOMEM;
		goto done;
	}
	const char *page = upto(out, pp__html_page, "/*PP:CSS*/");
	fputs(pp__html_css, out);
	if (put_profile(out, &page, "/*PP:DATA*/", "/*PP:IDS*/", b, &all, rb, (size_t)nb) < 0 ||
	    put_profile(out, &page, "/*PP:DATA_A*/", "/*PP:IDS_A*/", a, &all, ra, (size_t)na) < 0)
		goto done;
	page = upto(out, page, "/*PP:DIFF*/");
	put_script_json(out, diff_json, len);
	page = upto(out, page, "/*PP:BUDGET*/");
	fputs("null", out);
	page = upto(out, page, "/*PP:JS*/");
	fputs(pp__html_js, out);
	fputs(page, out);
	rc = 0;
done:
	free(ra);
	free(rb);
	return rc;
}
