/* The HTML page of a diff: the report's page in its A/B mode, for
 * `pathprof diff --format html`. The verdicts come from diff itself (passed
 * as its JSON), so the page colours exactly what the text and JSON say. */
#ifndef PP_REPORT_HTML_H
#define PP_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "profile.h"

/* Write the page comparing profile a (baseline) with b, given diff's JSON
 * output (docs/trace.md) of the same pair. Returns 0, or -1 out of memory
 * (errno set); the caller checks write errors on out. */
int pp__report_html_diff(FILE *out, const pp_profile_t *a, const pp_profile_t *b,
			 const char *diff_json, size_t len);

#endif
