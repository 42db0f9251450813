/* The HTML page of a diff: the report's page in its A/B mode, for
 * `pathprof diff --format html`. The verdicts come from diff itself (passed
 * as its JSON), so the page colours exactly what the text and JSON say. */
#ifndef PP_REPORT_HTML_H
#define PP_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "profile.h"

/* Paths a page carries at most: a 10 000-path page loads in about 1.4 s in
 * headless Chromium on this project's 2-core test machine. Above it a
 * report's page keeps the heaviest (html_budget.c), a diff's the paths of
 * largest impact. */
#define PP__HTML_MAX_PATHS 10000

/* Write the page comparing profile a (baseline) with b, given diff's JSON
 * output (docs/guides/trace.md) of the same pair, which lists the paths ids[0..nids)
 * out of npaths compared. When either side has more than PP__HTML_MAX_PATHS
 * paths, each side carries the listed ones, then its heaviest up to the
 * budget, and sums the rest in "(other)" paths; the page says so. Returns
 * 0, or -1 out of memory (errno set); the caller checks write errors on
 * out. */
int pp__report_html_diff(FILE *out, const pp_profile_t *a, const pp_profile_t *b,
			 const char *diff_json, size_t len, const uint64_t *ids, size_t nids,
			 size_t npaths);

#endif
