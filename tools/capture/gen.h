/* `pathprof capture gen`'s pieces (gen.c drives them): the spec file
 * (gen_spec.c), the kind of every parameter decided from the header's
 * types and the spec (gen_classify.c), and the shim written from them
 * (gen_emit.c). docs/guides/capture.md. */
#ifndef PP_CAPTURE_GEN_H
#define PP_CAPTURE_GEN_H

#include <clang-c/Index.h>
#include <stdint.h>
#include <stdio.h>

#include "capture_format.h"

/* ---- the spec file: one rule a line ---- */
enum spec_what { SPEC_FREE, SPEC_IN, SPEC_OUT, SPEC_CALLBACK, SPEC_OPAQUE, SPEC_STRINGS, SPEC_OUTSTR,
		 SPEC_TAIL, SPEC_RETBUF, SPEC_REF, SPEC_INOUT };
typedef struct spec_rule {
	int what;
	/* fn: a function, or FUNCTION/CALLBACK for a callback's parameters;
	 * retbuf: param is the length's function */
	char fn[192], param[64], len[64], filled[64];
	int line, used;
} spec_rule_t;

typedef struct spec {
	spec_rule_t *rules;
	size_t n;
	const char *path;
} spec_t;

int spec_read(const char *path, spec_t *sp);
/* The rule for fn's parameter param (marked used), or NULL. */
spec_rule_t *spec_find(spec_t *sp, const char *fn, const char *param);
/* fn's retbuf rule, or NULL. */
spec_rule_t *spec_retbuf(spec_t *sp, const char *fn);

/* ---- a function, or a callback's signature ---- */
typedef struct fn fn_t;
typedef struct param {
	char *name, *type; /* spelled as declared (type: canonical for a callback's) */
	int kind;
	uint32_t aux, filled, size;
	uint32_t elem_shift;    /* a buffer: log2 of its element's size */
	char len[64], fill[64]; /* the C expressions of a buffer's length */
	fn_t *cb;               /* PP_CAP_CALLBACK: its signature */
} param_t;

struct fn {
	char *name, *ret_type, *why; /* a callback: "FUNCTION/PARAM" */
	int ret_kind;
	uint32_t ret_size;
	char *len_fn; /* PP_CAP_BUF_RET: the length's function */
	int len_kind;
	uint32_t len_size;
	int nparams;
	param_t p[PP_CAP_MAX_PARAMS];
};

char *whyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *str_of(CXString s);

/* Decide the kinds of function c's parameters and return value into f
 * (f->name set); f->why says why it cannot be recorded. tu: where a
 * retbuf's length function is looked up. */
void classify(CXTranslationUnit tu, CXCursor c, fn_t *f, spec_t *sp);
void fn_free(fn_t *f);

/* The shim's definition of f: f itself (a preloaded shim), or wrap:
 * __wrap_f calling __real_f (a static library linked with -Wl,--wrap=f). */
void emit_fn(FILE *o, const fn_t *f, int wrap);

/* Compare the signatures the trace recorded with fns (classified from
 * the header to replay against): CLI_OK, or CLI_FAIL after a line per
 * difference (gen_check.c). */
int gen_check(const char *trace, const fn_t *fns, size_t nfns);

#endif
