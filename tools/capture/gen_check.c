/* `pathprof capture gen --check TRACE`: has the library's interface
 * changed since the trace was recorded? The header (and spec) of the build
 * to replay against is classified as for a shim, and every function the
 * trace declares is compared with it: parameters, their kinds and sizes,
 * buffer lengths, callbacks, the return value. A trace replayed through a
 * changed signature would pass wrong arguments, which replay itself cannot
 * see in a stripped library. One line a difference, exit 1. */
#include <stdio.h>
#include <string.h>

#include "capture_cli.h"
#include "capture_trace.h"
#include "gen.h"
#include "input.h"

/* "a 4-byte signed integer", "a string", ...: what a kind records. */
static const char *describe(char *buf, size_t n, int k, uint32_t size)
{
	static const char *const names[] = { "nothing", "signed integer", "unsigned integer", "float",
		"string", "handle", "out handle", "input buffer", "output buffer", "freed handle",
		"opaque pointer", "callback", "string array", "out string", "tail", "returned buffer",
		"pointer to one value", "buffer read and written in place" };
	const char *name = k >= 0 && k < (int)(sizeof names / sizeof names[0]) ? names[k] : "unknown kind";
	if ((k >= PP_CAP_SINT && k <= PP_CAP_FLOAT) || k == PP_CAP_REF)
		snprintf(buf, n, "%s %u-byte %s", size == 8 ? "an" : "a", size, name);
	else
		snprintf(buf, n, "%s %s", strchr("aeiou", name[0]) ? "an" : "a", name);
	return buf;
}

/* Say how the recorded signature s (its buffers' element sizes in shift;
 * NULL for a callback's) differs from f (what the header now says); the
 * number of differences. */
static int differ(const char *trace, const char *what, const pp_cap_sig_t *s, const uint8_t *shift,
		  const fn_t *f)
{
	int n = 0;
	if (s->nparams != f->nparams) {
		cli_error("capture gen: %s: %s: the header has %d parameters, the trace recorded %d", trace, what,
			  f->nparams, s->nparams);
		return 1;
	}
	for (int i = 0; i < f->nparams; i++) {
		const param_t *p = &f->p[i];
		if (s->kind[i] != p->kind || s->aux[i] != p->aux || s->filled[i] != p->filled) {
			char now[64], was[64];
			cli_error("capture gen: %s: %s: parameter %d (%s) is now %s, the trace recorded %s%s", trace,
				  what, i + 1, p->name, describe(now, sizeof now, p->kind, p->aux),
				  describe(was, sizeof was, s->kind[i], s->aux[i]),
				  !strcmp(now, was) ? " of another length" : "");
			n++;
		} else if (shift && shift[i] != p->elem_shift) {
			cli_error("capture gen: %s: %s: parameter %d (%s) now holds %u-byte elements, the trace "
				  "recorded %u-byte ones", trace, what, i + 1, p->name, 1u << p->elem_shift,
				  1u << shift[i]);
			n++;
		} else if (p->kind == PP_CAP_CALLBACK && s->cb[i]) {
			char sub[256];
			snprintf(sub, sizeof sub, "%s, callback %s", what, p->name);
			n += differ(trace, sub, s->cb[i], NULL, p->cb);
		}
	}
	if (s->ret != f->ret_kind || (f->ret_kind != PP_CAP_BUF_RET && s->ret_aux != f->ret_size)) {
		char now[64], was[64];
		cli_error("capture gen: %s: %s now returns %s, the trace recorded %s", trace, what,
			  describe(now, sizeof now, f->ret_kind, f->ret_size), describe(was, sizeof was, s->ret, s->ret_aux));
		n++;
	}
	return n;
}

int gen_check(const char *trace, const fn_t *fns, size_t nfns)
{
	char err[512];
	pp__input_t in;
	if (pp__input_open(&in, trace, PP_CAP_MAGIC, 8, err, sizeof err) != 0) {
		cli_error("capture gen: %s", err);
		return CLI_FAIL;
	}
	pp__cap_reader_t r;
	pp__cap_rec_t rec;
	pp__cap_open(&r, trace, in.data, in.size);
	int t, diffs = 0;
	while ((t = pp__cap_next(&r, &rec)) > 0)
		;
	if (t < 0 && !r.nfns) {
		cli_error("capture gen: %s", r.why);
		diffs++;
	}
	for (size_t i = 0; i < r.nfns; i++) {
		const pp_cap_sig_t *s = &r.fns[i]->sig;
		const fn_t *f = NULL;
		for (size_t k = 0; k < nfns && !f; k++)
			if (!strcmp(fns[k].name, s->name))
				f = &fns[k];
		if (!f) {
			cli_error("capture gen: %s: %s: the header does not declare it", trace, s->name);
			diffs++;
		} else if (f->why) {
			cli_error("capture gen: %s: %s: it can no longer be recorded: %s", trace, s->name, f->why);
			diffs++;
		} else {
			diffs += differ(trace, s->name, s, r.fns[i]->elem_shift, f);
		}
	}
	if (!diffs)
		fprintf(stderr, "pathprof: capture gen: %s: the %zu functions it calls have the signatures it "
				"recorded\n", trace, r.nfns);
	pp__cap_close(&r);
	pp__input_close(&in);
	return diffs ? CLI_FAIL : CLI_OK;
}
