/* `pathprof capture gen`: a capture shim for a C library, generated from
 * its header by a real C parser (libclang), never by pattern matching. Each
 * function the --functions globs select gets a definition of the same name
 * that forwards to the library's own (found with dlsym RTLD_NEXT, so the
 * shim is LD_PRELOADed) and, while PATHPROF_CAPTURE is set, records the
 * call through libpathprof-capture. How each argument is recorded follows
 * from its type: integers, enums and floating values by value, `const char
 * *` by its bytes, a pointer to an incomplete struct (an opaque handle) as
 * an id, `T **` of such a T as the id the call writes; a spec file says what
 * types cannot (buffers and their lengths, calls that free a handle). A
 * function whose arguments cannot be recorded faithfully is refused, by
 * name and why: never recorded wrong. docs/guides/capture.md. */
#define _GNU_SOURCE
#include <clang-c/Index.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_cli.h"
#include "capture_format.h"
#include "glob.h"

/* ---- the spec file ---- */
enum { SPEC_FREE, SPEC_IN, SPEC_OUT };
typedef struct spec_rule {
	int what;
	char fn[128], param[64], len[64], filled[64];
	int line, used;
} spec_rule_t;

typedef struct spec {
	spec_rule_t *rules;
	size_t n;
} spec_t;

static int spec_read(const char *path, spec_t *sp)
{
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
		char w[5][128];
		int n = sscanf(line, "%127s %127s %127s %127s %127s", w[0], w[1], w[2], w[3], w[4]);
		if (n <= 0)
			continue;
		spec_rule_t r = { .line = no };
		int want = !strcmp(w[0], "free") ? 3 : !strcmp(w[0], "in") ? 4 : !strcmp(w[0], "out") ? 5 : 0;
		if (!want) {
			cli_error("capture gen: %s:%d: '%s' is not 'free', 'in' or 'out'", path, no, w[0]);
			rc = -1;
			break;
		}
		if (n != want) {
			cli_error("capture gen: %s:%d: '%s' takes %d words (%s), not %d", path, no, w[0], want - 1,
				  want == 3 ? "FUNCTION PARAMETER"
				  : want == 4 ? "FUNCTION PARAMETER LENGTH"
					      : "FUNCTION PARAMETER CAPACITY FILLED",
				  n - 1);
			rc = -1;
			break;
		}
		if (strlen(w[1]) >= sizeof r.fn || strlen(w[2]) >= sizeof r.param ||
		    (n > 3 && strlen(w[3]) >= sizeof r.len) || (n > 4 && strlen(w[4]) >= sizeof r.filled)) {
			cli_error("capture gen: %s:%d: a name is too long", path, no);
			rc = -1;
			break;
		}
		r.what = want == 3 ? SPEC_FREE : want == 4 ? SPEC_IN : SPEC_OUT;
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

static spec_rule_t *spec_find(spec_t *sp, const char *fn, const char *param)
{
	for (size_t i = 0; i < sp->n; i++)
		if (!strcmp(sp->rules[i].fn, fn) && !strcmp(sp->rules[i].param, param)) {
			sp->rules[i].used = 1;
			return &sp->rules[i];
		}
	return NULL;
}

/* ---- one function ---- */
typedef struct param {
	char *name, *type; /* spelled as declared */
	int kind;
	uint32_t aux, filled, size;
	char len[64], fill[64]; /* the C expressions of a buffer's length */
} param_t;

typedef struct fn {
	char *name, *ret_type, *why;
	int ret_kind;
	uint32_t ret_size;
	int nparams;
	param_t p[PP_CAP_MAX_PARAMS];
} fn_t;

static char *str_of(CXString s)
{
	char *r = strdup(clang_getCString(s));
	clang_disposeString(s);
	return r;
}

/* The scalar kind of a canonical type, or -1. */
static int scalar_kind(CXType t)
{
	switch (t.kind) {
	case CXType_Bool: case CXType_Char_U: case CXType_UChar: case CXType_UShort: case CXType_UInt:
	case CXType_ULong: case CXType_ULongLong:
		return PP_CAP_UINT;
	case CXType_Char_S: case CXType_SChar: case CXType_Short: case CXType_Int: case CXType_Long:
	case CXType_LongLong: case CXType_Enum:
		return PP_CAP_SINT;
	case CXType_Float: case CXType_Double:
		return PP_CAP_FLOAT;
	default:
		return -1;
	}
}

static int is_incomplete_record(CXType t)
{
	t = clang_getCanonicalType(t);
	return t.kind == CXType_Record && clang_Type_getSizeOf(t) == CXTypeLayoutError_Incomplete;
}

static int is_char(CXType t)
{
	t = clang_getCanonicalType(t);
	return t.kind == CXType_Char_S || t.kind == CXType_Char_U || t.kind == CXType_SChar ||
	       t.kind == CXType_UChar;
}

/* Find a parameter by name; its index, or -1. */
static int param_index(const fn_t *f, const char *name)
{
	for (int i = 0; i < f->nparams; i++)
		if (!strcmp(f->p[i].name, name))
			return i;
	return -1;
}

static char *whyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *whyf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s ? s : strdup("out of memory");
}

/* A length expression of the spec: a parameter (its name in C, its index)
 * or a number; "return" for a filled length. -1 when it is neither. */
static int length_of(const fn_t *f, const char *w, int allow_return, char *expr, size_t n, uint32_t *aux)
{
	char *end;
	unsigned long v = strtoul(w, &end, 10);
	if (*w && !*end) {
		snprintf(expr, n, "%luu", v);
		*aux = PP_CAP_AUX_CONST + (uint32_t)v;
		return 0;
	}
	if (allow_return && !strcmp(w, "return")) {
		snprintf(expr, n, "r");
		*aux = PP_CAP_AUX_RETURN;
		return 0;
	}
	int i = param_index(f, w);
	if (i < 0 || (f->p[i].kind != PP_CAP_UINT && f->p[i].kind != PP_CAP_SINT))
		return -1;
	snprintf(expr, n, "%s", f->p[i].name);
	*aux = (uint32_t)i;
	return 0;
}

/* Classify every parameter and the return value; f->why says why not. */
static void classify(CXCursor c, fn_t *f, spec_t *sp, const char *specpath)
{
	CXType ft = clang_getCursorType(c);
	if (clang_isFunctionTypeVariadic(ft)) {
		f->why = whyf("it is variadic: its arguments are not in its signature");
		return;
	}
	int n = clang_Cursor_getNumArguments(c);
	if (n > PP_CAP_MAX_PARAMS) {
		f->why = whyf("it has %d parameters, more than %d", n, PP_CAP_MAX_PARAMS);
		return;
	}
	f->nparams = n;
	for (int i = 0; i < n; i++) {
		CXCursor a = clang_Cursor_getArgument(c, (unsigned)i);
		param_t *p = &f->p[i];
		p->name = str_of(clang_getCursorSpelling(a));
		if (!*p->name) {
			free(p->name);
			p->name = whyf("p%d", i);
		}
		p->type = str_of(clang_getTypeSpelling(clang_getCursorType(a)));
	}
	for (int i = 0; i < n && !f->why; i++) {
		param_t *p = &f->p[i];
		CXType t = clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(c, (unsigned)i)));
		int k = scalar_kind(t);
		spec_rule_t *r = spec_find(sp, f->name, p->name);
		if (k >= 0) {
			p->kind = k;
			p->size = (uint32_t)clang_Type_getSizeOf(t);
			p->aux = p->size;
			if (r)
				f->why = whyf("%s:%d: parameter %s is a %s, not a pointer", specpath, r->line, p->name,
					      p->type);
			continue;
		}
		if (t.kind != CXType_Pointer) {
			f->why = whyf("parameter %s is a %s, which is not recorded (a struct or union "
				      "passed by value)", p->name, p->type);
			continue;
		}
		CXType to = clang_getPointeeType(t);
		CXType toc = clang_getCanonicalType(to);
		if (r && r->what == SPEC_FREE) {
			if (!is_incomplete_record(to))
				f->why = whyf("%s:%d: parameter %s is a %s, not a handle (a pointer to an "
					      "incomplete struct)", specpath, r->line, p->name, p->type);
			p->kind = PP_CAP_HANDLE_FREE;
		} else if (r) {
			p->kind = r->what == SPEC_IN ? PP_CAP_BUF_IN : PP_CAP_BUF_OUT;
			if (r->what == SPEC_OUT && clang_isConstQualifiedType(to))
				f->why = whyf("%s:%d: parameter %s is a %s: const, so the call cannot write it",
					      specpath, r->line, p->name, p->type);
		} else if (is_incomplete_record(to)) {
			p->kind = PP_CAP_HANDLE;
		} else if (toc.kind == CXType_Pointer && is_incomplete_record(clang_getPointeeType(toc)) &&
			   !clang_isConstQualifiedType(to)) {
			p->kind = PP_CAP_HANDLE_OUT;
		} else if (is_char(to) && clang_isConstQualifiedType(to)) {
			p->kind = PP_CAP_STR;
		} else if (toc.kind == CXType_FunctionProto || toc.kind == CXType_FunctionNoProto) {
			f->why = whyf("parameter %s is a callback (%s), which is not recorded yet", p->name,
				      p->type);
		} else {
			f->why = whyf("parameter %s is a %s: say in the spec what it points to ('in %s %s "
				      "LENGTH' or 'out %s %s CAPACITY FILLED')", p->name, p->type, f->name, p->name,
				      f->name, p->name);
		}
	}
	/* buffer lengths, now that every parameter's kind is known */
	for (int i = 0; i < n && !f->why; i++) {
		param_t *p = &f->p[i];
		if (p->kind != PP_CAP_BUF_IN && p->kind != PP_CAP_BUF_OUT)
			continue;
		spec_rule_t *r = spec_find(sp, f->name, p->name);
		if (length_of(f, r->len, 0, p->len, sizeof p->len, &p->aux) != 0) {
			f->why = whyf("%s:%d: '%s' is not a number or an integer parameter of %s", specpath,
				      r->line, r->len, f->name);
			break;
		}
		if (p->kind == PP_CAP_BUF_OUT) {
			const char *w = !strcmp(r->filled, "capacity") ? r->len : r->filled;
			if (length_of(f, w, 1, p->fill, sizeof p->fill, &p->filled) != 0) {
				f->why = whyf("%s:%d: '%s' is not 'return', 'capacity', a number or an "
					      "integer parameter of %s", specpath, r->line, r->filled, f->name);
				break;
			}
		}
	}
	CXType rt = clang_getCanonicalType(clang_getResultType(ft));
	f->ret_type = str_of(clang_getTypeSpelling(clang_getResultType(ft)));
	if (f->why)
		return;
	int k = scalar_kind(rt);
	if (rt.kind == CXType_Void) {
		f->ret_kind = PP_CAP_VOID;
	} else if (k >= 0) {
		f->ret_kind = k;
		f->ret_size = (uint32_t)clang_Type_getSizeOf(rt);
	} else if (rt.kind == CXType_Pointer && is_incomplete_record(clang_getPointeeType(rt))) {
		f->ret_kind = PP_CAP_HANDLE;
	} else if (rt.kind == CXType_Pointer && is_char(clang_getPointeeType(rt))) {
		f->ret_kind = PP_CAP_STR;
	} else {
		f->why = whyf("it returns a %s, which is not recorded", f->ret_type);
		return;
	}
	for (int i = 0; i < n; i++)
		if (f->p[i].kind == PP_CAP_BUF_OUT && f->p[i].filled == PP_CAP_AUX_RETURN &&
		    f->ret_kind != PP_CAP_UINT && f->ret_kind != PP_CAP_SINT)
			f->why = whyf("parameter %s's filled length is the return value, which is a %s",
				      f->p[i].name, f->ret_type);
}

/* ---- the shim ---- */
static void emit_fn(FILE *o, const fn_t *f)
{
	fprintf(o, "\nstatic pp_cap_sig_t sig_%s = {\"%s\", %d, %u, %d, {", f->name, f->name, f->ret_kind,
		f->ret_size, f->nparams);
	for (int i = 0; i < f->nparams; i++)
		fprintf(o, "%s%d", i ? ", " : "", f->p[i].kind);
	fputs(f->nparams ? "}, {" : "0}, {", o);
	for (int i = 0; i < f->nparams; i++)
		fprintf(o, "%s%uu", i ? ", " : "", f->p[i].aux);
	fputs(f->nparams ? "}, {" : "0}, {", o);
	for (int i = 0; i < f->nparams; i++)
		fprintf(o, "%s%uu", i ? ", " : "", f->p[i].filled);
	fputs(f->nparams ? "}, 0};\n\n" : "0}, 0};\n\n", o);
	/* the definition, with the header's types */
	fprintf(o, "%s %s(", f->ret_type, f->name);
	for (int i = 0; i < f->nparams; i++)
		fprintf(o, "%s%s %s", i ? ", " : "", f->p[i].type, f->p[i].name);
	fprintf(o, "%s)\n{\n\tstatic %s (*real)(", f->nparams ? "" : "void", f->ret_type);
	for (int i = 0; i < f->nparams; i++)
		fprintf(o, "%s%s", i ? ", " : "", f->p[i].type);
	fprintf(o, "%s);\n\tif (!real)\n\t\treal = (%s (*)(", f->nparams ? "" : "void", f->ret_type);
	for (int i = 0; i < f->nparams; i++)
		fprintf(o, "%s%s", i ? ", " : "", f->p[i].type);
	fprintf(o, "%s))pp_cap_resolve(dlsym(RTLD_NEXT, \"%s\"), \"%s\");\n", f->nparams ? "" : "void",
		f->name, f->name);
	char args[2048] = "";
	for (int i = 0; i < f->nparams; i++) {
		strncat(args, i ? ", " : "", sizeof args - strlen(args) - 1);
		strncat(args, f->p[i].name, sizeof args - strlen(args) - 1);
	}
	int v = f->ret_kind == PP_CAP_VOID;
	fprintf(o, "\tif (__builtin_expect(!pp_capture_on, 1))\n\t\t%sreal(%s);\n", v ? "" : "return ", args);
	if (v)
		fputs("\tif (!pp_capture_on)\n\t\treturn;\n", o);
	fprintf(o, "\tpp_cap_call_t *c = pp_cap_begin(&sig_%s);\n", f->name);
	for (int i = 0; i < f->nparams; i++) {
		const param_t *p = &f->p[i];
		switch (p->kind) {
		case PP_CAP_SINT: fprintf(o, "\tpp_cap_sint(c, (int64_t)%s);\n", p->name); break;
		case PP_CAP_UINT: fprintf(o, "\tpp_cap_uint(c, (uint64_t)%s);\n", p->name); break;
		case PP_CAP_FLOAT: fprintf(o, "\tpp_cap_float(c, (double)%s, %u);\n", p->name, p->size); break;
		case PP_CAP_STR: fprintf(o, "\tpp_cap_str(c, %s);\n", p->name); break;
		case PP_CAP_HANDLE: fprintf(o, "\tpp_cap_handle(c, %s);\n", p->name); break;
		case PP_CAP_HANDLE_FREE: fprintf(o, "\tpp_cap_free(c, %s);\n", p->name); break;
		case PP_CAP_HANDLE_OUT: case PP_CAP_BUF_OUT: fprintf(o, "\tpp_cap_present(c, %s);\n", p->name); break;
		case PP_CAP_BUF_IN: fprintf(o, "\tpp_cap_buf(c, %s, (size_t)(%s));\n", p->name, p->len); break;
		}
	}
	if (v)
		fprintf(o, "\treal(%s);\n", args);
	else
		fprintf(o, "\t%s r = real(%s);\n", f->ret_type, args);
	switch (f->ret_kind) {
	case PP_CAP_SINT: fputs("\tpp_cap_sint(c, (int64_t)r);\n", o); break;
	case PP_CAP_UINT: fputs("\tpp_cap_uint(c, (uint64_t)r);\n", o); break;
	case PP_CAP_FLOAT: fprintf(o, "\tpp_cap_float(c, (double)r, %u);\n", f->ret_size); break;
	case PP_CAP_STR: fputs("\tpp_cap_str(c, (const char *)r);\n", o); break;
	case PP_CAP_HANDLE: fputs("\tpp_cap_new_handle(c, r);\n", o); break;
	}
	for (int i = 0; i < f->nparams; i++) {
		const param_t *p = &f->p[i];
		if (p->kind == PP_CAP_HANDLE_OUT)
			fprintf(o, "\tpp_cap_new_handle(c, %s ? (const void *)*%s : NULL);\n", p->name, p->name);
		else if (p->kind == PP_CAP_BUF_OUT)
			fprintf(o, "\t{\n\t\tsize_t n = (size_t)(%s), cap = (size_t)(%s);\n"
				   "\t\tpp_cap_buf(c, %s, n < cap ? n : cap);\n\t}\n",
				p->fill, p->len, p->name);
	}
	fprintf(o, "\tpp_cap_end(c);\n%s}\n", v ? "" : "\treturn r;\n");
}

typedef struct walk {
	const char *globs;
	spec_t *spec;
	const char *specpath;
	fn_t *fns;
	size_t n, refused;
	int failed;
} walk_t;

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	walk_t *w = data;
	if (clang_getCursorKind(c) != CXCursor_FunctionDecl)
		return CXChildVisit_Continue;
	/* the header's own declarations, not those of what it includes */
	if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)))
		return CXChildVisit_Continue;
	char *name = str_of(clang_getCursorSpelling(c));
	int dup = 0;
	for (size_t i = 0; i < w->n; i++)
		dup |= !strcmp(w->fns[i].name, name);
	if (dup || !pp__select_name(w->globs, ',', name) ||
	    clang_getCursorLinkage(c) != CXLinkage_External ||
	    clang_Cursor_getStorageClass(c) == CX_SC_Static) {
		free(name);
		return CXChildVisit_Continue;
	}
	fn_t *g = realloc(w->fns, (w->n + 1) * sizeof *g);
	if (!g) {
		free(name);
		w->failed = 1;
		return CXChildVisit_Break;
	}
	w->fns = g;
	fn_t *f = &w->fns[w->n++];
	memset(f, 0, sizeof *f);
	f->name = name;
	classify(c, f, w->spec, w->specpath);
	return CXChildVisit_Continue;
}

static const char help_text[] =
	"usage: pathprof capture gen --header FILE.h --functions GLOBS [--spec FILE]\n"
	"                            -o SHIM.c [-- CLANG_ARGS...]\n"
	"\n"
	"Write a capture shim for the functions of FILE.h that GLOBS select (one\n"
	"glob syntax, docs/guides/selection.md). The header is parsed by libclang;\n"
	"CLANG_ARGS (-I, -D) go to it. Build the shim as a shared library and\n"
	"preload it: while PATHPROF_CAPTURE=FILE is set, every call to a selected\n"
	"function is recorded for 'pathprof capture replay'.\n"
	"\n"
	"  cc -shared -fPIC SHIM.c -o shim.so $(pkg-config --cflags --libs pathprof-capture) -ldl\n"
	"\n"
	"options:\n"
	"  --header FILE      the library's header\n"
	"  --functions GLOBS  which functions (comma-separated globs, '!' excludes)\n"
	"  --spec FILE        what types cannot say, one rule a line:\n"
	"                       free FUNCTION PARAM            the call ends the handle\n"
	"                       in FUNCTION PARAM LENGTH       it reads LENGTH bytes\n"
	"                       out FUNCTION PARAM CAP FILLED  it writes up to CAP bytes,\n"
	"                                                      FILLED of them ('return',\n"
	"                                                      'capacity', a parameter)\n"
	"                     (LENGTH, CAP: an integer parameter or a number)\n"
	"  -o FILE            where to write the shim\n"
	"  -h, --help         show this help\n"
	"\n"
	"A selected function that cannot be recorded faithfully (a callback, a\n"
	"pointer the spec does not explain, a struct by value, varargs) is refused\n"
	"with its name and why; exit 1. docs/guides/capture.md.\n";

int cmd_capture_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "header", required_argument, NULL, 'H' }, { "functions", required_argument, NULL, 'f' },
		{ "spec", required_argument, NULL, 's' },   { "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	const char *header = NULL, *globs = NULL, *specpath = NULL, *outpath = NULL;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'H': header = optarg; break;
		case 'f': globs = optarg; break;
		case 's': specpath = optarg; break;
		case 'o': outpath = optarg; break;
		case 'h': return cli_help(help_text);
		default: return cli_bad_option("capture gen", c, argv);
		}
	}
	if (!header || !globs || !outpath) {
		cli_error("capture gen: needs --header, --functions and -o (see 'pathprof capture gen --help')");
		return CLI_USAGE;
	}
	char err[256];
	if (pp__select_check(globs, ',', err, sizeof err) != 0) {
		cli_error("capture gen: --functions: %s", err);
		return CLI_USAGE;
	}
	spec_t spec = { 0 };
	if (specpath && spec_read(specpath, &spec) != 0)
		return CLI_FAIL;
	CXIndex idx = clang_createIndex(0, 0);
	const char *args[64] = { "-xc", "-std=gnu11" };
	int nargs = 2;
	for (int i = optind; i < argc && nargs < 64; i++)
		args[nargs++] = argv[i];
	CXTranslationUnit tu = NULL;
	enum CXErrorCode e = clang_parseTranslationUnit2(idx, header, args, nargs, NULL, 0,
							 CXTranslationUnit_SkipFunctionBodies, &tu);
	int rc = CLI_FAIL;
	walk_t w = { .globs = globs, .spec = &spec, .specpath = specpath ? specpath : "spec" };
	if (e != CXError_Success || !tu) {
		cli_error("capture gen: %s: libclang could not parse it (error %d)", header, (int)e);
		goto done;
	}
	for (unsigned i = 0; i < clang_getNumDiagnostics(tu); i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			CXString s = clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions());
			cli_error("capture gen: %s", clang_getCString(s));
			clang_disposeString(s);
			clang_disposeDiagnostic(d);
			goto done;
		}
		clang_disposeDiagnostic(d);
	}
	clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &w);
	if (w.failed) {
		cli_error("capture gen: out of memory");
		goto done;
	}
	if (!w.n) {
		cli_error("capture gen: %s: no function matches '%s'", header, globs);
		goto done;
	}
	for (size_t i = 0; i < spec.n; i++)
		if (!spec.rules[i].used && pp__select_name(globs, ',', spec.rules[i].fn)) {
			cli_error("capture gen: %s:%d: %s has no parameter '%s'", w.specpath, spec.rules[i].line,
				  spec.rules[i].fn, spec.rules[i].param);
			goto done;
		}
	for (size_t i = 0; i < w.n; i++)
		if (w.fns[i].why) {
			cli_error("capture gen: %s: refused: %s", w.fns[i].name, w.fns[i].why);
			w.refused++;
		}
	if (w.refused) {
		cli_error("capture gen: %zu of %zu functions refused; narrow --functions or explain "
			  "them in the spec", w.refused, w.n);
		goto done;
	}
	FILE *o = cli_output_open(outpath);
	if (!o)
		goto done;
	const char *base = strrchr(header, '/');
	fprintf(o, "/* Capture shim for %s, written by 'pathprof capture gen'; do not edit.\n"
		   " * Preload it: LD_PRELOAD=shim.so PATHPROF_CAPTURE=trace ./program */\n"
		   "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdint.h>\n#include <stddef.h>\n"
		   "#include <pathprof/capture.h>\n"
		   "#include \"%s\"\n",
		header, base ? base + 1 : header);
	for (size_t i = 0; i < w.n; i++)
		emit_fn(o, &w.fns[i]);
	rc = cli_output_close(o, outpath);
	if (rc == CLI_OK)
		fprintf(stderr, "pathprof: capture gen: %zu functions in %s\n", w.n, outpath);
done:
	for (size_t i = 0; i < w.n; i++) {
		for (int k = 0; k < w.fns[i].nparams; k++) {
			free(w.fns[i].p[k].name);
			free(w.fns[i].p[k].type);
		}
		free(w.fns[i].name);
		free(w.fns[i].ret_type);
		free(w.fns[i].why);
	}
	free(w.fns);
	free(spec.rules);
	if (tu)
		clang_disposeTranslationUnit(tu);
	clang_disposeIndex(idx);
	return rc;
}
