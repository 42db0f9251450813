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
#include "map.h"

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

#define HTML_MAX_PATHS PP__HTML_MAX_PATHS

/* The rest of the page from its budget block on: the budget note (NULL:
 * none), the script, and what follows it. */
static void finish_page(FILE *out, const char *page, const char *budget_json)
{
	page = upto(out, page, "/*PP:BUDGET*/");
	fputs(budget_json ? budget_json : "null", out);
	page = upto(out, page, "/*PP:JS*/");
	fputs(pp__html_js, out);
	fputs(page, out);
}

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
	char note[96];
	snprintf(note, sizeof note, "{\"kept\": %d, \"paths\": %zu}", HTML_MAX_PATHS, n);
	finish_page(out, page, budget ? note : NULL);
	return 0;
}

/* One side of a diff page above the budget: the paths the diff lists
 * first (listed), then the side's heaviest up to the budget, the rest in
 * "(other)" paths (html_budget.c). *keep gets how many q shares with p. */
static long diff_side(const pp_profile_t *p, const pp__row_t *rows, size_t n,
		      const pp__map_t *listed, pp_profile_t *q, pp__row_t **qrows, size_t *keep)
{
	pp__row_t *order = malloc((n ? n : 1) * sizeof *order);
	if (!order)
		return -1;
	size_t k = 0;
	uint32_t v;
	for (size_t i = 0; i < n; i++)
		if (pp__map_get(listed, rows[i].path->id, &v))
			order[k++] = rows[i];
	size_t first = k;
	for (size_t i = 0; i < n; i++)
		if (!pp__map_get(listed, rows[i].path->id, &v))
			order[k++] = rows[i];
	*keep = first > HTML_MAX_PATHS ? first : HTML_MAX_PATHS;
	int rc = pp__html_budget(p, order, n, *keep, q);
	free(order);
	if (rc != 0)
		return -1;
	static const pp_report_opts_t all = { .format = PP_FORMAT_HTML };
	long qn = pp__report_select(q, &all, qrows);
	if (qn < 0)
		pp__html_budget_free(q, (uint32_t)(*keep < n ? *keep : n));
	return qn;
}

int pp__report_html_diff(FILE *out, const pp_profile_t *a, const pp_profile_t *b,
			 const char *diff_json, size_t len, const uint64_t *ids, size_t nids,
			 size_t npaths)
{
	/* Every path of both sides: the page shows those diff lists. */
	static const pp_report_opts_t all = { .format = PP_FORMAT_HTML };
	const pp_profile_t *side[2] = {a, b};
	pp__row_t *rows[2] = {NULL, NULL}, *qrows[2] = {NULL, NULL};
	long n[2] = {0, 0}, qn[2] = {0, 0};
	pp_profile_t q[2];
	size_t keep[2] = {0, 0};
	pp__map_t listed = {0};
	int budget = 0, budgeted[2] = {0, 0}, rc = -1;
	for (int s = 0; s < 2; s++) {
		n[s] = pp__report_select(side[s], &all, &rows[s]);
		if (n[s] < 0)
			goto done;
		budget |= n[s] > HTML_MAX_PATHS;
	}
	if (budget) {
		for (size_t i = 0; i < nids; i++)
			if (pp__map_put(&listed, ids[i], 1) != 0)
				goto done;
		for (int s = 0; s < 2; s++) {
			qn[s] = diff_side(side[s], rows[s], (size_t)n[s], &listed, &q[s], &qrows[s],
					  &keep[s]);
			if (qn[s] < 0)
				goto done;
			budgeted[s] = 1;
		}
	}
	const char *page = upto(out, pp__html_page, "/*PP:CSS*/");
	fputs(pp__html_css, out);
	if (put_profile(out, &page, "/*PP:DATA*/", "/*PP:IDS*/", budget ? &q[1] : b, &all,
			budget ? qrows[1] : rows[1], (size_t)(budget ? qn[1] : n[1])) < 0 ||
	    put_profile(out, &page, "/*PP:DATA_A*/", "/*PP:IDS_A*/", budget ? &q[0] : a, &all,
			budget ? qrows[0] : rows[0], (size_t)(budget ? qn[0] : n[0])) < 0)
		goto done;
	page = upto(out, page, "/*PP:DIFF*/");
	put_script_json(out, diff_json, len);
	char note[96];
	snprintf(note, sizeof note, "{\"kept\": %zu, \"paths\": %zu, \"diff\": true}", nids, npaths);
	finish_page(out, page, budget ? note : NULL);
	rc = 0;
done:
	for (int s = 0; s < 2; s++) {
		if (!budgeted[s])
			continue;
		free(qrows[s]);
		pp__html_budget_free(&q[s], (uint32_t)(keep[s] < (size_t)n[s] ? keep[s] : (size_t)n[s]));
	}
	pp__map_free(&listed);
	free(rows[0]);
	free(rows[1]);
	if (rc != 0)
		errno = ENOMEM;
	return rc;
}
