/* The shim `pathprof capture gen` writes: per function, its signature for
 * the recorder and a definition of the same name that forwards to the
 * library's (dlsym RTLD_NEXT) and, while recording, records the call by the
 * kinds gen_classify.c decided. A callback the library calls during the
 * call is passed a trampoline that records each invocation (arguments and
 * return) into the call's record and calls the program's function. */
#include <stdio.h>
#include <string.h>

#include "gen.h"

/* A signature's name as a C identifier ("f/cb" -> "f__cb"). */
static void ident(char *out, size_t n, const char *name)
{
	size_t k = 0;
	for (; *name && k + 2 < n; name++) {
		if (*name == '/') {
			out[k++] = '_';
			out[k++] = '_';
		} else {
			out[k++] = *name;
		}
	}
	out[k] = 0;
}

static void emit_sig(FILE *o, const fn_t *f)
{
	char id[256], cid[256];
	ident(id, sizeof id, f->name);
	fprintf(o, "\nstatic pp_cap_sig_t sig_%s = {\n\t.name = \"%s\", .ret = %d, .ret_aux = %u, .nparams = %d,\n",
		id, f->name, f->ret_kind, f->ret_size, f->nparams);
	if (f->nparams) {
		fputs("\t.kind = {", o);
		for (int i = 0; i < f->nparams; i++)
			fprintf(o, "%s%u", i ? ", " : "",
				(unsigned)f->p[i].kind | f->p[i].elem_shift << PP_CAP_KIND_BITS);
		fputs("},\n\t.aux = {", o);
		for (int i = 0; i < f->nparams; i++)
			fprintf(o, "%s%uu", i ? ", " : "", f->p[i].aux);
		fputs("},\n\t.filled = {", o);
		for (int i = 0; i < f->nparams; i++)
			fprintf(o, "%s%uu", i ? ", " : "", f->p[i].filled);
		fputs("},\n", o);
	}
	for (int i = 0; i < f->nparams; i++)
		if (f->p[i].cb) {
			ident(cid, sizeof cid, f->p[i].cb->name);
			fprintf(o, "\t.cb[%d] = &sig_%s,\n", i, cid);
		}
	if (f->ret_kind == PP_CAP_BUF_RET)
		fprintf(o, "\t.len_fn = \"%s\", .len_kind = %d, .len_size = %u,\n", f->len_fn, f->len_kind,
			f->len_size);
	fputs("};\n", o);
}

/* Record the scalar of kind k (size n) the C expression v gives. */
static void emit_scalar(FILE *o, int k, uint32_t n, const char *v)
{
	switch (k) {
	case PP_CAP_SINT: fprintf(o, "pp_cap_sint(c, (int64_t)%s);\n", v); break;
	case PP_CAP_UINT: fprintf(o, "pp_cap_uint(c, (uint64_t)%s);\n", v); break;
	case PP_CAP_FLOAT: fprintf(o, "pp_cap_float(c, (double)%s, %u);\n", v, n); break;
	}
}

/* A ref: NULL or not, and the value it points to (before the call and
 * again after it). */
static void emit_ref(FILE *o, const param_t *p)
{
	char v[80];
	snprintf(v, sizeof v, "*%s", p->name);
	fprintf(o, "\tpp_cap_present(c, (const void *)%s);\n\tif (%s)\n\t\t", p->name, p->name);
	emit_scalar(o, (int)p->filled, p->size, v);
}

/* A buffer's length in bytes: its length in elements (the C expression
 * len) times the element's size. */
static void emit_bytes(FILE *o, const param_t *p, const char *len)
{
	if (p->elem_shift)
		fprintf(o, "(size_t)(%s) * %uu", len, 1u << p->elem_shift);
	else
		fprintf(o, "(size_t)(%s)", len);
}

/* Record parameter p (value before the call). */
static void emit_in(FILE *o, const param_t *p)
{
	switch (p->kind) {
	case PP_CAP_SINT: case PP_CAP_UINT: case PP_CAP_FLOAT:
		fputc('\t', o);
		emit_scalar(o, p->kind, p->size, p->name);
		break;
	case PP_CAP_REF: emit_ref(o, p); break;
	case PP_CAP_STR: fprintf(o, "\tpp_cap_str(c, (const char *)%s);\n", p->name); break;
	case PP_CAP_HANDLE: fprintf(o, "\tpp_cap_handle(c, %s);\n", p->name); break;
	case PP_CAP_HANDLE_FREE: fprintf(o, "\tpp_cap_free(c, %s);\n", p->name); break;
	case PP_CAP_BUF_IN: case PP_CAP_BUF_INOUT:
		fprintf(o, "\tpp_cap_buf(c, %s, ", p->name);
		emit_bytes(o, p, p->len);
		fputs(");\n", o);
		break;
	case PP_CAP_STRV:
		fprintf(o, "\tpp_cap_strv(c, (char *const *)%s, (int64_t)(%s));\n", p->name, p->len);
		break;
	case PP_CAP_CALLBACK:
		fprintf(o, "\tpp_cap_present(c, (const void *)(uintptr_t)%s);\n", p->name);
		break;
	default: /* out handles, buffers, strings and tails; opaque pointers */
		fprintf(o, "\tpp_cap_present(c, (const void *)%s);\n", p->name);
	}
}

/* Record a return value r of kind k (size n). */
static void emit_ret(FILE *o, const fn_t *f, const char *args)
{
	switch (f->ret_kind) {
	case PP_CAP_SINT: case PP_CAP_UINT: case PP_CAP_FLOAT:
		fputc('\t', o);
		emit_scalar(o, f->ret_kind, f->ret_size, "r");
		break;
	case PP_CAP_STR: fputs("\tpp_cap_str(c, (const char *)r);\n", o); break;
	case PP_CAP_HANDLE: fputs("\tpp_cap_new_handle(c, r);\n", o); break;
	case PP_CAP_BUF_RET:
		/* the length function is called like the function: inside a
		 * recorded call, the shim forwards it unrecorded */
		fprintf(o, "\tpp_cap_buf(c, (const void *)r, r ? (size_t)%s(%s) : 0);\n", f->len_fn, args);
		break;
	}
}

static void param_list(FILE *o, const fn_t *f, int names)
{
	for (int i = 0; i < f->nparams; i++) {
		/* a function pointer's spelling has no room for a name after it */
		if (names && strstr(f->p[i].type, "(*"))
			fprintf(o, "%s__typeof__(%s) %s", i ? ", " : "", f->p[i].type, f->p[i].name);
		else
			fprintf(o, "%s%s%s%s", i ? ", " : "", f->p[i].type, names ? " " : "", names ? f->p[i].name : "");
	}
	if (!f->nparams)
		fputs("void", o);
}

/* The trampoline of callback parameter p of f (the p-th). */
static void emit_trampoline(FILE *o, const fn_t *f, int i)
{
	const fn_t *cb = f->p[i].cb;
	char id[256];
	ident(id, sizeof id, cb->name);
	emit_sig(o, cb);
	fprintf(o, "static __thread __typeof__(%s) user_%s;\nstatic __thread pp_cap_call_t *call_%s;\n\n",
		f->p[i].type, id, id);
	fprintf(o, "static %s tramp_%s(", cb->ret_type, id);
	param_list(o, cb, 1);
	fprintf(o, ")\n{\n\tpp_cap_call_t *c = call_%s;\n\tpp_cap_invoke(c, %d);\n", id, i);
	char args[1024] = "";
	for (int k = 0; k < cb->nparams; k++) {
		emit_in(o, &cb->p[k]);
		strncat(args, k ? ", " : "", sizeof args - strlen(args) - 1);
		strncat(args, cb->p[k].name, sizeof args - strlen(args) - 1);
	}
	if (cb->ret_kind == PP_CAP_VOID) {
		fprintf(o, "\tuser_%s(%s);\n}\n", id, args);
		return;
	}
	fprintf(o, "\t%s r = user_%s(%s);\n", cb->ret_type, id, args);
	emit_ret(o, cb, args);
	fputs("\treturn r;\n}\n", o);
}

void emit_fn(FILE *o, const fn_t *f, int wrap)
{
	char id[256], cid[256];
	ident(id, sizeof id, f->name);
	int ncb = 0;
	for (int i = 0; i < f->nparams; i++)
		if (f->p[i].cb) {
			emit_trampoline(o, f, i);
			ncb++;
		}
	emit_sig(o, f);
	/* the definition, with the header's types: the function itself,
	 * finding the library's after it (preload), or the linker's
	 * __wrap_ of it, calling its __real_ (a static library, --wrap) */
	if (wrap) {
		fprintf(o, "\nextern %s __real_%s(", f->ret_type, f->name);
		param_list(o, f, 1);
		fprintf(o, ");\n%s __wrap_%s(", f->ret_type, f->name);
		param_list(o, f, 1);
		fprintf(o, ")\n{\n\t%s (*const real)(", f->ret_type);
		param_list(o, f, 0);
		fprintf(o, ") = __real_%s;\n", f->name);
	} else {
		fprintf(o, "\n%s %s(", f->ret_type, f->name);
		param_list(o, f, 1);
		fprintf(o, ")\n{\n\tstatic %s (*real)(", f->ret_type);
		param_list(o, f, 0);
		fprintf(o, ");\n\tif (!real)\n\t\treal = (%s (*)(", f->ret_type);
		param_list(o, f, 0);
		fprintf(o, "))pp_cap_resolve(dlsym(RTLD_NEXT, \"%s\"), \"%s\");\n", f->name, f->name);
	}
	char args[2048] = "", targs[2048] = "";
	for (int i = 0; i < f->nparams; i++) {
		char a[320];
		strncat(args, i ? ", " : "", sizeof args - strlen(args) - 1);
		strncat(args, f->p[i].name, sizeof args - strlen(args) - 1);
		if (f->p[i].cb) {
			ident(cid, sizeof cid, f->p[i].cb->name);
			snprintf(a, sizeof a, "%s%s ? tramp_%s : NULL", i ? ", " : "", f->p[i].name, cid);
		} else {
			snprintf(a, sizeof a, "%s%s", i ? ", " : "", f->p[i].name);
		}
		strncat(targs, a, sizeof targs - strlen(targs) - 1);
	}
	int v = f->ret_kind == PP_CAP_VOID;
	fprintf(o, "\tpp_cap_call_t *c = __builtin_expect(!pp_capture_on, 1) ? NULL : pp_cap_begin(&sig_%s);\n"
		   "\tif (!c)\n\t\t%sreal(%s);\n", id, v ? "" : "return ", args);
	if (v)
		fputs("\tif (!c)\n\t\treturn;\n", o);
	for (int i = 0; i < f->nparams; i++)
		emit_in(o, &f->p[i]);
	/* an out buffer's capacity, an inout one's length, in bytes, as the
	 * caller offered them (a ref holds another length once the call has
	 * written it) */
	for (int i = 0; i < f->nparams; i++)
		if (f->p[i].kind == PP_CAP_BUF_OUT || f->p[i].kind == PP_CAP_BUF_INOUT) {
			fprintf(o, "\tsize_t cap_%d = ", i);
			emit_bytes(o, &f->p[i], f->p[i].len);
			fputs(";\n", o);
		}
	for (int i = 0; i < f->nparams; i++)
		if (f->p[i].cb) {
			ident(cid, sizeof cid, f->p[i].cb->name);
			fprintf(o, "\tuser_%s = %s;\n\tcall_%s = c;\n", cid, f->p[i].name, cid);
		}
	if (v)
		fprintf(o, "\treal(%s);\n", targs);
	else
		fprintf(o, "\t%s r = real(%s);\n", f->ret_type, targs);
	if (ncb)
		fputs("\tpp_cap_invoked(c);\n", o);
	emit_ret(o, f, args);
	for (int i = 0; i < f->nparams; i++) {
		const param_t *p = &f->p[i];
		if (p->kind == PP_CAP_HANDLE_OUT)
			fprintf(o, "\tpp_cap_new_handle(c, %s ? (const void *)*%s : NULL);\n", p->name, p->name);
		else if (p->kind == PP_CAP_BUF_OUT) {
			fputs("\t{\n\t\tsize_t n = ", o);
			emit_bytes(o, p, p->fill);
			fprintf(o, ";\n\t\tpp_cap_buf(c, %s, n < cap_%d ? n : cap_%d);\n\t}\n", p->name, i, i);
		} else if (p->kind == PP_CAP_BUF_INOUT)
			fprintf(o, "\tpp_cap_buf(c, %s, cap_%d);\n", p->name, i);
		else if (p->kind == PP_CAP_REF)
			emit_ref(o, p);
		else if (p->kind == PP_CAP_STR_OUT)
			fprintf(o, "\tif (%s)\n\t\tpp_cap_str(c, *%s);\n", p->name, p->name);
		else if (p->kind == PP_CAP_TAIL_OUT)
			fprintf(o, "\tif (%s)\n\t\tpp_cap_tail(c, %s, *%s);\n", p->name, p->len, p->name);
	}
	fprintf(o, "\tpp_cap_end(c);\n%s}\n", v ? "" : "\treturn r;\n");
}
