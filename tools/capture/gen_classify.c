/* How `pathprof capture gen` records each argument: decided from the
 * header's canonical types (libclang), with the spec for what types cannot
 * say, and refused, with the reason, when neither decides it. A callback's
 * own parameters are decided the same way, under the name
 * FUNCTION/PARAMETER in the spec. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

char *str_of(CXString s)
{
	char *r = strdup(clang_getCString(s));
	clang_disposeString(s);
	return r;
}

char *whyf(const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s ? s : strdup("out of memory");
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

/* A pointer to a pointer to char (char **, const char **). */
static int is_char_pp(CXType toc)
{
	return toc.kind == CXType_Pointer && is_char(clang_getPointeeType(toc));
}

static int param_index(const fn_t *f, const char *name)
{
	for (int i = 0; i < f->nparams; i++)
		if (!strcmp(f->p[i].name, name))
			return i;
	return -1;
}

/* A length of the spec: an integer parameter (its name in C, its index), a
 * ref to an integer (the value it points to: the shim reads it before the
 * call for a length or capacity, after it for a filled length) or a
 * number; "return" for a filled length. -1 when it is none of these. */
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
	if (i >= 0 && f->p[i].kind == PP_CAP_REF && f->p[i].filled != PP_CAP_FLOAT) {
		snprintf(expr, n, "(%s ? *%s : 0)", f->p[i].name, f->p[i].name);
		*aux = (uint32_t)i;
		return 0;
	}
	if (i < 0 || (f->p[i].kind != PP_CAP_UINT && f->p[i].kind != PP_CAP_SINT))
		return -1;
	snprintf(expr, n, "%s", f->p[i].name);
	*aux = (uint32_t)i;
	return 0;
}

static void callback_sig(fn_t *f, param_t *p, CXType proto, spec_t *sp);

/* The first field of struct t (or of a struct or array in it) that is a
 * pointer, or NULL: bytes a capture records of such a struct would hold
 * this run's addresses, which replay cannot give back. */
typedef struct ptr_field {
	char *name;
} ptr_field_t;

static enum CXVisitorResult find_ptr_field(CXCursor c, CXClientData data);

static char *pointer_field(CXType t)
{
	t = clang_getCanonicalType(t);
	while (t.kind == CXType_ConstantArray)
		t = clang_getCanonicalType(clang_getArrayElementType(t));
	if (t.kind != CXType_Record)
		return NULL;
	ptr_field_t w = { NULL };
	clang_Type_visitFields(t, find_ptr_field, &w);
	return w.name;
}

static enum CXVisitorResult find_ptr_field(CXCursor c, CXClientData data)
{
	ptr_field_t *w = data;
	CXType ft = clang_getCanonicalType(clang_getCursorType(c));
	if (ft.kind == CXType_Pointer || ft.kind == CXType_BlockPointer) {
		w->name = str_of(clang_getCursorSpelling(c));
		return CXVisit_Break;
	}
	char *inner = pointer_field(ft);
	if (inner) {
		char *outer = str_of(clang_getCursorSpelling(c));
		w->name = whyf("%s.%s", outer, inner);
		free(outer);
		free(inner);
		return CXVisit_Break;
	}
	return CXVisit_Continue;
}

/* A buffer's element: void and the char types are bytes; another type
 * counts in its own size, a power of two up to 128 (the kind byte's three
 * bits). -1 for what has no size (an incomplete struct) or another. */
static int elem_shift(CXType toc)
{
	if (toc.kind == CXType_Void)
		return 0;
	long long n = clang_Type_getSizeOf(toc);
	for (int s = 0; s < 8; s++)
		if (n == 1ll << s)
			return s;
	return -1;
}

/* Parameter i of f, declared as decl; in_cb: f is a callback's signature. */
static void classify_param(fn_t *f, int i, CXType decl, spec_t *sp, int in_cb)
{
	param_t *p = &f->p[i];
	const char *sf = sp->path ? sp->path : "spec";
	CXType t = clang_getCanonicalType(decl);
	int k = scalar_kind(t);
	spec_rule_t *r = spec_find(sp, f->name, p->name);
	if (k >= 0) {
		p->kind = k;
		p->size = (uint32_t)clang_Type_getSizeOf(t);
		p->aux = p->size;
		if (r)
			f->why = whyf("%s:%d: parameter %s is a %s, not a pointer", sf, r->line, p->name, p->type);
		return;
	}
	if (t.kind != CXType_Pointer) {
		f->why = whyf("parameter %s is a %s, which is not recorded (a struct or union passed by "
			      "value)", p->name, p->type);
		return;
	}
	CXType to = clang_getPointeeType(t), toc = clang_getCanonicalType(to);
	int fnptr = toc.kind == CXType_FunctionProto || toc.kind == CXType_FunctionNoProto;
	if (r && in_cb && r->what != SPEC_OPAQUE && r->what != SPEC_STRINGS) {
		f->why = whyf("%s:%d: a callback's parameter is recorded by type, or as 'opaque' or "
			      "'strings'", sf, r->line);
		return;
	}
	if (r) {
		switch (r->what) {
		case SPEC_FREE:
			if (!is_incomplete_record(to))
				f->why = whyf("%s:%d: parameter %s is a %s, not a handle (a pointer to an "
					      "incomplete struct)", sf, r->line, p->name, p->type);
			p->kind = PP_CAP_HANDLE_FREE;
			return;
		case SPEC_IN: case SPEC_OUT: case SPEC_INOUT: {
			p->kind = r->what == SPEC_IN ? PP_CAP_BUF_IN : r->what == SPEC_OUT ? PP_CAP_BUF_OUT
											 : PP_CAP_BUF_INOUT;
			int e = elem_shift(toc);
			p->elem_shift = e < 0 ? 0 : (uint32_t)e;
			char *pf = pointer_field(toc);
			if (r->what != SPEC_IN && clang_isConstQualifiedType(to))
				f->why = whyf("%s:%d: parameter %s is a %s: const, so the call cannot write it", sf,
					      r->line, p->name, p->type);
			else if (pf)
				f->why = whyf("%s:%d: parameter %s is a %s: its elements hold a pointer (%s), "
					      "whose address a replay cannot give back", sf, r->line, p->name,
					      p->type, pf);
			else if (e < 0)
				f->why = whyf("%s:%d: parameter %s is a %s: its elements have no size that is a "
					      "power of two up to 128 bytes", sf, r->line, p->name, p->type);
			free(pf);
			return;
		}
		case SPEC_CALLBACK:
			if (!fnptr || toc.kind != CXType_FunctionProto)
				f->why = whyf("%s:%d: parameter %s is a %s, not a function with a prototype", sf,
					      r->line, p->name, p->type);
			else
				callback_sig(f, p, toc, sp);
			return;
		case SPEC_OPAQUE:
			p->kind = PP_CAP_OPAQUE;
			return;
		case SPEC_REF:
			p->kind = PP_CAP_REF;
			p->filled = (uint32_t)scalar_kind(toc);
			p->size = p->aux = (uint32_t)clang_Type_getSizeOf(toc);
			if (scalar_kind(toc) < 0)
				f->why = whyf("%s:%d: parameter %s is a %s, not a pointer to an integer or a "
					      "float", sf, r->line, p->name, p->type);
			return;
		case SPEC_STRINGS: case SPEC_OUTSTR: case SPEC_TAIL:
			if (!is_char_pp(toc)) {
				f->why = whyf("%s:%d: parameter %s is a %s, not a pointer to a char pointer", sf,
					      r->line, p->name, p->type);
				return;
			}
			if (r->what == SPEC_OUTSTR && clang_isConstQualifiedType(to))
				f->why = whyf("%s:%d: parameter %s is a %s: const, so the call cannot write it", sf,
					      r->line, p->name, p->type);
			p->kind = r->what == SPEC_STRINGS ? PP_CAP_STRV
				  : r->what == SPEC_OUTSTR ? PP_CAP_STR_OUT : PP_CAP_TAIL_OUT;
			return;
		}
	}
	if (is_incomplete_record(to)) {
		p->kind = PP_CAP_HANDLE;
	} else if (!in_cb && toc.kind == CXType_Pointer && is_incomplete_record(clang_getPointeeType(toc)) &&
		   !clang_isConstQualifiedType(to)) {
		p->kind = PP_CAP_HANDLE_OUT;
	} else if (is_char(to) && clang_isConstQualifiedType(to)) {
		p->kind = PP_CAP_STR;
	} else if (fnptr) {
		f->why = whyf("parameter %s is a function pointer (%s): if the library calls it only during "
			      "the call, say 'callback %s %s'", p->name, p->type, f->name, p->name);
	} else if (toc.kind == CXType_Record) {
		char *pf = pointer_field(toc);
		if (pf)
			f->why = whyf("parameter %s is a %s: a struct holding pointers (%s), whose addresses "
				      "a replay cannot give back; leave %s out of --functions", p->name, p->type,
				      pf, f->name);
		else if (clang_isConstQualifiedType(to))
			f->why = whyf("parameter %s is a %s: say in the spec how many structs the call reads "
				      "there ('in %s %s 1' for one)", p->name, p->type, f->name, p->name);
		else
			f->why = whyf("parameter %s is a %s: say in the spec how many structs it points to "
				      "('in %s %s 1' for one the call reads, 'out %s %s 1 1' for one it fills, "
				      "'inout %s %s 1' for one it reads and changes)", p->name, p->type, f->name,
				      p->name, f->name, p->name, f->name, p->name);
		free(pf);
	} else if (scalar_kind(toc) >= 0 && !is_char(toc)) {
		/* one value or an array of them: only the spec can say */
		f->why = whyf("parameter %s is a %s: say in the spec what it points to ('ref %s %s' for "
			      "one value the call reads or writes; for an array, 'in %s %s LENGTH', 'out %s %s "
			      "CAPACITY FILLED' or 'inout %s %s LENGTH')", p->name, p->type, f->name, p->name,
			      f->name, p->name, f->name, p->name, f->name, p->name);
	} else {
		f->why = whyf("parameter %s is a %s: say in the spec what it points to ('in %s %s LENGTH', "
			      "'out %s %s CAPACITY FILLED', 'opaque %s %s', ...)", p->name, p->type, f->name,
			      p->name, f->name, p->name, f->name, p->name);
	}
}

/* The lengths buffers, string arrays and tails name, now that every
 * parameter's kind is known. */
static void lengths(fn_t *f, spec_t *sp)
{
	const char *sf = sp->path ? sp->path : "spec";
	for (int i = 0; i < f->nparams && !f->why; i++) {
		param_t *p = &f->p[i];
		if (p->kind != PP_CAP_BUF_IN && p->kind != PP_CAP_BUF_OUT && p->kind != PP_CAP_BUF_INOUT &&
		    p->kind != PP_CAP_STRV && p->kind != PP_CAP_TAIL_OUT)
			continue;
		spec_rule_t *r = spec_find(sp, f->name, p->name);
		if (p->kind == PP_CAP_TAIL_OUT) {
			int s = param_index(f, r->len);
			if (s < 0 || f->p[s].kind != PP_CAP_STR)
				f->why = whyf("%s:%d: '%s' is not a string parameter of %s", sf, r->line, r->len,
					      f->name);
			else
				p->aux = (uint32_t)s;
			snprintf(p->len, sizeof p->len, "%s", r->len);
			continue;
		}
		if (length_of(f, r->len, 0, p->len, sizeof p->len, &p->aux) != 0) {
			f->why = whyf("%s:%d: '%s' is not a number or an integer parameter or ref of %s", sf,
				      r->line, r->len, f->name);
			break;
		}
		if (p->kind == PP_CAP_BUF_OUT) {
			const char *w = !strcmp(r->filled, "capacity") ? r->len : r->filled;
			if (length_of(f, w, 1, p->fill, sizeof p->fill, &p->filled) != 0)
				f->why = whyf("%s:%d: '%s' is not 'return', 'capacity', a number or an integer "
					      "parameter or ref of %s", sf, r->line, r->filled, f->name);
		}
	}
}

/* A callback parameter's own signature, from its prototype. */
static void callback_sig(fn_t *f, param_t *p, CXType proto, spec_t *sp)
{
	p->kind = PP_CAP_CALLBACK;
	fn_t *cb = calloc(1, sizeof *cb);
	if (!cb) {
		f->why = whyf("out of memory");
		return;
	}
	p->cb = cb;
	cb->name = whyf("%s/%s", f->name, p->name);
	if (clang_isFunctionTypeVariadic(proto)) {
		f->why = whyf("callback %s is variadic", p->name);
		return;
	}
	int n = clang_getNumArgTypes(proto);
	if (n < 0 || n > PP_CAP_MAX_PARAMS) {
		f->why = whyf("callback %s has %d parameters", p->name, n);
		return;
	}
	cb->nparams = n;
	for (int j = 0; j < n; j++) {
		cb->p[j].name = whyf("p%d", j);
		cb->p[j].type = str_of(clang_getTypeSpelling(clang_getArgType(proto, (unsigned)j)));
	}
	for (int j = 0; j < n && !cb->why; j++)
		classify_param(cb, j, clang_getArgType(proto, (unsigned)j), sp, 1);
	lengths(cb, sp);
	CXType rt = clang_getCanonicalType(clang_getResultType(proto));
	cb->ret_type = str_of(clang_getTypeSpelling(clang_getResultType(proto)));
	int k = scalar_kind(rt);
	if (rt.kind == CXType_Void) {
		cb->ret_kind = PP_CAP_VOID;
	} else if (k >= 0) {
		cb->ret_kind = k;
		cb->ret_size = (uint32_t)clang_Type_getSizeOf(rt);
	} else if (!cb->why) {
		cb->why = whyf("it returns a %s", cb->ret_type);
	}
	if (cb->why)
		f->why = whyf("callback %s: %s", p->name, cb->why);
}

/* ---- a retbuf's length function, looked up in the header ---- */
typedef struct find {
	const char *name;
	CXCursor c;
	int found;
} find_t;

static enum CXChildVisitResult find_fn(CXCursor c, CXCursor parent, CXClientData data)
{
	(void)parent;
	find_t *w = data;
	if (clang_getCursorKind(c) == CXCursor_FunctionDecl) {
		CXString s = clang_getCursorSpelling(c);
		if (!strcmp(clang_getCString(s), w->name)) {
			w->c = c;
			w->found = 1;
		}
		clang_disposeString(s);
	}
	return w->found ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* f returns a pointer: the spec's retbuf names the function that gives its
 * length from the same arguments. */
static void retbuf(CXTranslationUnit tu, CXCursor c, fn_t *f, spec_rule_t *r, spec_t *sp)
{
	const char *sf = sp->path ? sp->path : "spec";
	find_t w = { .name = r->param };
	clang_visitChildren(clang_getTranslationUnitCursor(tu), find_fn, &w);
	if (!w.found) {
		f->why = whyf("%s:%d: the header declares no function %s", sf, r->line, r->param);
		return;
	}
	int n = clang_Cursor_getNumArguments(w.c);
	int same = n == clang_Cursor_getNumArguments(c);
	for (int i = 0; same && i < n; i++)
		same = clang_equalTypes(
			clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(w.c, (unsigned)i))),
			clang_getCanonicalType(clang_getCursorType(clang_Cursor_getArgument(c, (unsigned)i))));
	CXType lt = clang_getCanonicalType(clang_getResultType(clang_getCursorType(w.c)));
	int k = scalar_kind(lt);
	if (!same || (k != PP_CAP_SINT && k != PP_CAP_UINT)) {
		f->why = whyf("%s:%d: %s does not take %s's parameters and return an integer", sf, r->line,
			      r->param, f->name);
		return;
	}
	f->ret_kind = PP_CAP_BUF_RET;
	f->len_fn = strdup(r->param);
	f->len_kind = k;
	f->len_size = (uint32_t)clang_Type_getSizeOf(lt);
}

void classify(CXTranslationUnit tu, CXCursor c, fn_t *f, spec_t *sp)
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
	for (int i = 0; i < n && !f->why; i++)
		classify_param(f, i, clang_getCursorType(clang_Cursor_getArgument(c, (unsigned)i)), sp, 0);
	lengths(f, sp);
	CXType rt = clang_getCanonicalType(clang_getResultType(ft));
	f->ret_type = str_of(clang_getTypeSpelling(clang_getResultType(ft)));
	spec_rule_t *rb = spec_retbuf(sp, f->name);
	if (f->why)
		return;
	int k = scalar_kind(rt);
	if (rb) {
		CXType rto = clang_getCanonicalType(clang_getPointeeType(rt));
		if (rt.kind != CXType_Pointer)
			f->why = whyf("%s:%d: %s returns a %s, not a pointer", sp->path ? sp->path : "spec",
				      rb->line, f->name, f->ret_type);
		else if (elem_shift(rto) != 0)
			f->why = whyf("%s:%d: %s returns a %s: a retbuf's length counts bytes, so it must "
				      "point to void or a char type", sp->path ? sp->path : "spec", rb->line,
				      f->name, f->ret_type);
		else
			retbuf(tu, c, f, rb, sp);
	} else if (rt.kind == CXType_Void) {
		f->ret_kind = PP_CAP_VOID;
	} else if (k >= 0) {
		f->ret_kind = k;
		f->ret_size = (uint32_t)clang_Type_getSizeOf(rt);
	} else if (rt.kind == CXType_Pointer && is_incomplete_record(clang_getPointeeType(rt))) {
		f->ret_kind = PP_CAP_HANDLE;
	} else if (rt.kind == CXType_Pointer && is_char(clang_getPointeeType(rt))) {
		f->ret_kind = PP_CAP_STR;
	} else {
		f->why = whyf("it returns a %s, which is not recorded (a buffer: 'retbuf %s "
			      "LENGTH_FUNCTION')", f->ret_type, f->name);
		return;
	}
	for (int i = 0; i < n; i++)
		if (f->p[i].kind == PP_CAP_BUF_OUT && f->p[i].filled == PP_CAP_AUX_RETURN &&
		    f->ret_kind != PP_CAP_UINT && f->ret_kind != PP_CAP_SINT)
			f->why = whyf("parameter %s's filled length is the return value, which is a %s",
				      f->p[i].name, f->ret_type);
}

void fn_free(fn_t *f)
{
	for (int k = 0; k < f->nparams; k++) {
		free(f->p[k].name);
		free(f->p[k].type);
		if (f->p[k].cb) {
			fn_free(f->p[k].cb);
			free(f->p[k].cb);
		}
	}
	free(f->name);
	free(f->ret_type);
	free(f->why);
	free(f->len_fn);
}
