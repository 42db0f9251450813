/* The spec of `pathprof capture gen`: what a header's types cannot say,
 * one rule a line ('#' starts a comment), each bad line one error naming
 * the file and line (docs/guides/capture.md, "The spec"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_cli.h"
#include "gen.h"

static const struct {
	const char *word;
	int what, words;
	const char *usage;
} rules[] = {
	{ "free", SPEC_FREE, 3, "FUNCTION PARAMETER" },
	{ "in", SPEC_IN, 4, "FUNCTION PARAMETER LENGTH" },
	{ "out", SPEC_OUT, 5, "FUNCTION PARAMETER CAPACITY FILLED" },
	{ "callback", SPEC_CALLBACK, 3, "FUNCTION PARAMETER" },
	{ "opaque", SPEC_OPAQUE, 3, "FUNCTION[/CALLBACK] PARAMETER" },
	{ "strings", SPEC_STRINGS, 4, "FUNCTION[/CALLBACK] PARAMETER COUNT" },
	{ "outstr", SPEC_OUTSTR, 3, "FUNCTION PARAMETER" },
	{ "tail", SPEC_TAIL, 4, "FUNCTION PARAMETER STRING" },
	{ "retbuf", SPEC_RETBUF, 3, "FUNCTION LENGTH_FUNCTION" },
	{ "ref", SPEC_REF, 3, "FUNCTION PARAMETER" },
	{ "inout", SPEC_INOUT, 4, "FUNCTION PARAMETER LENGTH" },
};
#define NRULES (sizeof rules / sizeof rules[0])

int spec_read(const char *path, spec_t *sp)
{
	sp->path = path;
	FILE *f = fopen(path, "r");
	if (!f) {
		cli_error("capture gen: %s: %s", path, strerror(errno));
		return -1;
	}
	char line[512];
	int no = 0, rc = 0;
	while (rc == 0 && fgets(line, sizeof line, f)) {
		no++;
		char *h = strchr(line, '#');
		if (h)
			*h = 0;
		char w[6][192];
		int n = sscanf(line, "%191s %191s %191s %191s %191s %191s", w[0], w[1], w[2], w[3], w[4], w[5]);
		if (n <= 0)
			continue;
		size_t k = 0;
		while (k < NRULES && strcmp(rules[k].word, w[0]))
			k++;
		if (k == NRULES) {
			cli_error("capture gen: %s:%d: '%s' is not one of free, in, out, callback, opaque, "
				  "strings, outstr, tail, retbuf, ref, inout", path, no, w[0]);
			rc = -1;
			break;
		}
		if (n != rules[k].words) {
			cli_error("capture gen: %s:%d: '%s' takes %d words (%s), not %d", path, no, w[0],
				  rules[k].words - 1, rules[k].usage, n - 1);
			rc = -1;
			break;
		}
		spec_rule_t r = { .line = no, .what = rules[k].what };
		if (strlen(w[1]) >= sizeof r.fn || strlen(w[2]) >= sizeof r.param ||
		    (n > 3 && strlen(w[3]) >= sizeof r.len) || (n > 4 && strlen(w[4]) >= sizeof r.filled)) {
			cli_error("capture gen: %s:%d: a name is too long", path, no);
			rc = -1;
			break;
		}
		strcpy(r.fn, w[1]);
		strcpy(r.param, w[2]);
		if (n > 3)
			strcpy(r.len, w[3]);
		if (n > 4)
			strcpy(r.filled, w[4]);
		spec_rule_t *g = realloc(sp->rules, (sp->n + 1) * sizeof *g);
		if (!g) {
			cli_error("capture gen: out of memory");
			rc = -1;
			break;
		}
		sp->rules = g;
		sp->rules[sp->n++] = r;
	}
	fclose(f);
	return rc;
}

spec_rule_t *spec_find(spec_t *sp, const char *fn, const char *param)
{
	for (size_t i = 0; i < sp->n; i++)
		if (sp->rules[i].what != SPEC_RETBUF && !strcmp(sp->rules[i].fn, fn) &&
		    !strcmp(sp->rules[i].param, param)) {
			sp->rules[i].used = 1;
			return &sp->rules[i];
		}
	return NULL;
}

spec_rule_t *spec_retbuf(spec_t *sp, const char *fn)
{
	for (size_t i = 0; i < sp->n; i++)
		if (sp->rules[i].what == SPEC_RETBUF && !strcmp(sp->rules[i].fn, fn)) {
			sp->rules[i].used = 1;
			return &sp->rules[i];
		}
	return NULL;
}
