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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_cli.h"
#include "gen.h"
#include "glob.h"

typedef struct walk {
	const char *globs;
	spec_t *spec;
	const char *specpath;
	CXTranslationUnit tu;
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
	classify(w->tu, c, f, w->spec);
	return CXChildVisit_Continue;
}

static const char help_text[] =
	"usage: pathprof capture gen --header FILE.h --functions GLOBS [--spec FILE]\n"
	"                            [--wrap FLAGS_FILE] -o SHIM.c [-- CLANG_ARGS...]\n"
	"       pathprof capture gen --header FILE.h [--spec FILE] --check TRACE\n"
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
	"                       in FUNCTION PARAM LENGTH       it reads LENGTH elements\n"
	"                       out FUNCTION PARAM CAP FILLED  it writes up to CAP elements,\n"
	"                                                      FILLED of them ('return',\n"
	"                                                      'capacity', a parameter)\n"
	"                       callback FUNCTION PARAM        a function the library calls\n"
	"                                                      only during the call\n"
	"                       opaque FUNCTION PARAM          a pointer passed on untouched\n"
	"                       strings FUNCTION PARAM COUNT   COUNT strings (char **)\n"
	"                       outstr FUNCTION PARAM          a string the call writes\n"
	"                       tail FUNCTION PARAM STRING     set to a point in STRING\n"
	"                       retbuf FUNCTION LENGTH_FN      returns LENGTH_FN(same\n"
	"                                                      arguments) bytes\n"
	"                       ref FUNCTION PARAM             one integer or float it reads\n"
	"                                                      or writes (a size_t *len)\n"
	"                       inout FUNCTION PARAM LENGTH    it reads LENGTH elements and\n"
	"                                                      may change them in place\n"
	"                     (LENGTH, CAP, COUNT: an integer parameter or a number;\n"
	"                     LENGTH, CAP, FILLED count elements of the type PARAM\n"
	"                     points to (bytes for void and char) and may name a\n"
	"                     ref: its value before the call, after it for FILLED;\n"
	"                     a callback's parameters: FUNCTION/PARAM p0, p1, ...)\n"
	"  -o FILE            where to write the shim\n"
	"  --wrap FLAGS_FILE  for a static library: write __wrap_ functions calling\n"
	"                     __real_ ones, and into FLAGS_FILE the linker flags\n"
	"                     (-Wl,--wrap=f ...) to build the program with:\n"
	"                       cc prog.c shim.c libX.a $(cat FLAGS_FILE) \\\n"
	"                          $(pkg-config --cflags --libs pathprof-capture)\n"
	"  --check TRACE      write nothing: compare the signatures TRACE recorded\n"
	"                     with FILE.h (and the spec) as they are now, one line\n"
	"                     a difference, exit 1 when any (a changed interface)\n"
	"  -h, --help         show this help\n"
	"\n"
	"A selected function that cannot be recorded faithfully (a pointer or a\n"
	"function pointer the spec does not explain, a struct by value, varargs)\n"
	"is refused with its name and why; exit 1. docs/guides/capture.md.\n";

int cmd_capture_gen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "header", required_argument, NULL, 'H' }, { "functions", required_argument, NULL, 'f' },
		{ "spec", required_argument, NULL, 's' },   { "output", required_argument, NULL, 'o' },
		{ "wrap", required_argument, NULL, 'w' },   { "help", no_argument, NULL, 'h' },
		{ "check", required_argument, NULL, 'c' },  { NULL, 0, NULL, 0 },
	};
	const char *header = NULL, *globs = NULL, *specpath = NULL, *outpath = NULL, *wrap_flags = NULL;
	const char *check = NULL;
	int wrap = 0;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'H': header = optarg; break;
		case 'f': globs = optarg; break;
		case 's': specpath = optarg; break;
		case 'o': outpath = optarg; break;
		case 'w':
			wrap = 1;
			wrap_flags = optarg;
			break;
		case 'c': check = optarg; break;
		case 'h': return cli_help(help_text);
		default: return cli_bad_option("capture gen", c, argv);
		}
	}
	if (check && !globs)
		globs = "*"; /* the trace says which functions */
	if (!header || !globs || (!outpath && !check)) {
		cli_error("capture gen: needs --header, --functions and -o (see 'pathprof capture gen --help')");
		return CLI_USAGE;
	}
	char err[256];
	if (pp__select_check(globs, ',', err, sizeof err) != 0) {
		cli_error("capture gen: --functions: %s", err);
		return CLI_USAGE;
	}
	spec_t spec = { .path = NULL };
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
	w.tu = tu;
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
	w.tu = tu;
	clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &w);
	if (w.failed) {
		cli_error("capture gen: out of memory");
		goto done;
	}
	if (check) {
		rc = gen_check(check, w.fns, w.n);
		goto done;
	}
	if (!w.n) {
		cli_error("capture gen: %s: no function matches '%s'", header, globs);
		goto done;
	}
	for (size_t i = 0; i < spec.n; i++) {
		char fn[192];
		snprintf(fn, sizeof fn, "%s", spec.rules[i].fn);
		char *slash = strchr(fn, '/'); /* a callback's parameter: its function */
		if (slash)
			*slash = 0;
		/* a refused function's parameters after the one refused were
		 * never looked up: its refusal is what to say */
		int refused = 0;
		for (size_t k = 0; k < w.n; k++)
			refused |= w.fns[k].why && !strcmp(w.fns[k].name, fn);
		if (!spec.rules[i].used && !refused && pp__select_name(globs, ',', fn)) {
			cli_error("capture gen: %s:%d: %s has no parameter '%s'%s", w.specpath, spec.rules[i].line,
				  spec.rules[i].fn, spec.rules[i].param,
				  slash ? " (or the function does not take that callback)" : "");
			goto done;
		}
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
	fprintf(o, "/* Capture shim for %s, written by 'pathprof capture gen'; do not edit.\n", header);
	if (wrap) {
		fputs(" * Link it into the program with the static library and these flags:\n *  ", o);
		for (size_t i = 0; i < w.n; i++)
			fprintf(o, " -Wl,--wrap=%s", w.fns[i].name);
		fputs("\n * then PATHPROF_CAPTURE=trace ./program */\n", o);
	} else {
		fputs(" * Preload it: LD_PRELOAD=shim.so PATHPROF_CAPTURE=trace ./program */\n", o);
	}
	fprintf(o, "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdint.h>\n#include <stddef.h>\n"
		   "#include <pathprof/capture.h>\n"
		   "#include \"%s\"\n",
		base ? base + 1 : header);
	for (size_t i = 0; i < w.n; i++)
		emit_fn(o, &w.fns[i], wrap);
	if (wrap_flags) {
		FILE *wf = cli_output_open(wrap_flags);
		if (!wf) {
			cli_output_close(o, outpath);
			rc = CLI_FAIL;
			goto done;
		}
		for (size_t i = 0; i < w.n; i++)
			fprintf(wf, "%s-Wl,--wrap=%s", i ? " " : "", w.fns[i].name);
		fputc('\n', wf);
		if (cli_output_close(wf, wrap_flags) != CLI_OK) {
			cli_output_close(o, outpath);
			rc = CLI_FAIL;
			goto done;
		}
	}
	rc = cli_output_close(o, outpath);
	if (rc == CLI_OK)
		fprintf(stderr, "pathprof: capture gen: %zu functions in %s\n", w.n, outpath);
done:
	for (size_t i = 0; i < w.n; i++)
		fn_free(&w.fns[i]);
	free(w.fns);
	free(spec.rules);
	if (tu)
		clang_disposeTranslationUnit(tu);
	clang_disposeIndex(idx);
	return rc;
}
