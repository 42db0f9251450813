/* The capture trace reader (capture_trace.h). It trusts nothing it reads:
 * every length is checked against the bytes that remain, every kind and
 * size against the ones the recorder writes, a call against the functions
 * declared before it; a damaged or cut trace is one message naming the
 * byte, never a read out of bounds (tests/fuzz, target capture). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_trace.h"

void pp__cap_open(pp__cap_reader_t *r, const char *path, const uint8_t *b, size_t n)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	r->b = b;
	r->n = n;
	r->pos = 8;
}

void pp__cap_rewind(pp__cap_reader_t *r)
{
	r->pos = 8;
	r->calls = 0;
	r->seen = 0;
	r->ended = 0;
	r->cut = 0;
	r->why[0] = 0;
}

void pp__cap_close(pp__cap_reader_t *r)
{
	for (size_t i = 0; i < r->nfns; i++)
		free(r->fns[i]);
	free(r->fns);
	r->fns = NULL;
	r->nfns = 0;
}

static int bad(pp__cap_reader_t *r, int cut, const char *what)
{
	if (!r->why[0])
		snprintf(r->why, sizeof r->why, "%s: damaged at byte %zu: %s", r->path, r->pos, what);
	r->cut = cut;
	return -1;
}

static int get_var(pp__cap_reader_t *r, uint64_t *v)
{
	uint64_t x = 0;
	for (int s = 0; s < 64; s += 7) {
		if (r->pos >= r->n)
			return bad(r, 1, "a number runs past the end");
		uint8_t c = r->b[r->pos++];
		x |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return bad(r, 0, "a number longer than 64 bits");
}

static int get_present(pp__cap_reader_t *r, pp__cap_val_t *v)
{
	if (r->pos >= r->n)
		return bad(r, 1, "a value runs past the end");
	uint8_t c = r->b[r->pos++];
	if (c > 1)
		return bad(r, 0, "a presence byte that is neither 0 nor 1");
	v->present = c;
	return 0;
}

static int get_bytes(pp__cap_reader_t *r, pp__cap_val_t *v)
{
	if (get_present(r, v) != 0)
		return -1;
	if (!v->present)
		return 0;
	if (get_var(r, &v->len) != 0)
		return -1;
	if (v->len > r->n - r->pos)
		return bad(r, 1, "a string or buffer runs past the end");
	v->bytes = r->b + r->pos;
	r->pos += v->len;
	return 0;
}

static int size_ok(int kind, uint32_t size)
{
	switch (kind) {
	case PP_CAP_SINT: case PP_CAP_UINT:
		return size == 1 || size == 2 || size == 4 || size == 8;
	case PP_CAP_FLOAT:
		return size == 4 || size == 8;
	default:
		return 1;
	}
}

/* Which kinds a parameter may have: of a function, or of a callback. */
static int param_kind_ok(int k, int in_cb)
{
	if (in_cb)
		return k == PP_CAP_SINT || k == PP_CAP_UINT || k == PP_CAP_FLOAT || k == PP_CAP_STR ||
		       k == PP_CAP_HANDLE || k == PP_CAP_OPAQUE || k == PP_CAP_STRV;
	return (k >= PP_CAP_SINT && k <= PP_CAP_TAIL_OUT) || k == PP_CAP_REF || k == PP_CAP_BUF_INOUT;
}

static int ret_kind_ok(int k, int in_cb)
{
	if (in_cb)
		return k == PP_CAP_VOID || k == PP_CAP_SINT || k == PP_CAP_UINT || k == PP_CAP_FLOAT;
	return (k >= PP_CAP_VOID && k <= PP_CAP_HANDLE && k != PP_CAP_HANDLE_OUT && k != PP_CAP_BUF_IN) ||
	       k == PP_CAP_BUF_RET;
}

static int get_name(pp__cap_reader_t *r, char *out, const char *what)
{
	uint64_t len;
	if (get_var(r, &len) != 0)
		return -1;
	if (len == 0 || len >= PP_CAP_NAME_MAX)
		return bad(r, 0, what);
	if (len > r->n - r->pos)
		return bad(r, 1, "a function name runs past the end");
	memcpy(out, r->b + r->pos, len);
	out[len] = 0;
	if (memchr(out, 0, len))
		return bad(r, 0, "a function name with a NUL byte");
	r->pos += len;
	return 0;
}

/* A signature's kinds (emit_kinds of the recorder); cbs: where a
 * function's callbacks' signatures go, shift its buffers' element sizes
 * (both NULL inside a callback). */
static int read_kinds(pp__cap_reader_t *r, pp_cap_sig_t *sig, pp_cap_sig_t *cbs, uint8_t *shift, char *len_fn)
{
	uint64_t np;
	int in_cb = !cbs;
	if (r->n - r->pos < 2)
		return bad(r, 1, "a signature runs past the end");
	sig->ret = r->b[r->pos++];
	sig->ret_aux = r->b[r->pos++];
	if (get_var(r, &np) != 0)
		return -1;
	if (np > PP_CAP_MAX_PARAMS)
		return bad(r, 0, "more parameters than a signature holds");
	sig->nparams = (uint8_t)np;
	for (uint64_t i = 0; i < np; i++) {
		uint64_t aux, filled;
		if (r->pos >= r->n)
			return bad(r, 1, "a signature runs past the end");
		unsigned raw = r->b[r->pos++];
		sig->kind[i] = (uint8_t)PP_CAP_KIND(raw);
		if (get_var(r, &aux) != 0 || get_var(r, &filled) != 0)
			return -1;
		int buf = sig->kind[i] == PP_CAP_BUF_IN || sig->kind[i] == PP_CAP_BUF_OUT ||
			  sig->kind[i] == PP_CAP_BUF_INOUT;
		if (PP_CAP_ELEM_SHIFT(raw) && !buf)
			return bad(r, 0, "an element size on a parameter that is not a buffer");
		if (shift)
			shift[i] = (uint8_t)PP_CAP_ELEM_SHIFT(raw);
		if (!param_kind_ok(sig->kind[i], in_cb) || !size_ok(sig->kind[i], (uint32_t)aux) ||
		    aux > UINT32_MAX || filled > UINT32_MAX)
			return bad(r, 0, "a parameter of an unknown kind or size");
		/* a ref's filled is the kind it points to */
		if (sig->kind[i] == PP_CAP_REF && ((filled != PP_CAP_SINT && filled != PP_CAP_UINT &&
						    filled != PP_CAP_FLOAT) || !size_ok((int)filled, (uint32_t)aux)))
			return bad(r, 0, "a ref to an unknown kind or size");
		sig->aux[i] = (uint32_t)aux;
		sig->filled[i] = (uint32_t)filled;
		if (sig->kind[i] == PP_CAP_CALLBACK) {
			sig->cb[i] = &cbs[i];
			if (read_kinds(r, &cbs[i], NULL, NULL, NULL) != 0)
				return -1;
		}
	}
	for (uint64_t i = 0; i < np; i++)
		if (sig->kind[i] == PP_CAP_TAIL_OUT && (sig->aux[i] >= np || sig->kind[sig->aux[i]] != PP_CAP_STR))
			return bad(r, 0, "a tail whose string is not a string parameter");
	if (!ret_kind_ok(sig->ret, in_cb) || !size_ok(sig->ret, sig->ret_aux))
		return bad(r, 0, "a return value of an unknown kind or size");
	if (sig->ret == PP_CAP_BUF_RET) {
		if (get_name(r, len_fn, "a length function's name of a bad length") != 0)
			return -1;
		if (r->n - r->pos < 2)
			return bad(r, 1, "a signature runs past the end");
		sig->len_kind = r->b[r->pos++];
		sig->len_size = r->b[r->pos++];
		if ((sig->len_kind != PP_CAP_SINT && sig->len_kind != PP_CAP_UINT) ||
		    !size_ok(sig->len_kind, sig->len_size))
			return bad(r, 0, "a length function of an unknown kind or size");
		sig->len_fn = len_fn;
	}
	return 0;
}

static int read_func(pp__cap_reader_t *r)
{
	uint64_t fn;
	if (get_var(r, &fn) != 0)
		return -1;
	if (fn != r->seen + 1)
		return bad(r, 0, "functions out of order");
	r->seen++;
	int again = fn <= r->nfns; /* a later pass (rewind): declared already */
	pp__cap_fn_t *f = calloc(1, sizeof *f);
	if (!f)
		return bad(r, 0, "out of memory");
	if (get_name(r, f->name, "a function name of a bad length") != 0 ||
	    read_kinds(r, &f->sig, f->cbs, f->elem_shift, f->len_fn) != 0) {
		free(f);
		return -1;
	}
	f->sig.name = f->name;
	if (again) {
		free(f);
		return 0;
	}
	pp__cap_fn_t **g = realloc(r->fns, (r->nfns + 1) * sizeof *g);
	if (!g) {
		free(f);
		return bad(r, 0, "out of memory");
	}
	r->fns = g;
	r->fns[r->nfns++] = f;
	return 0;
}

/* A string array: its count, then each string; the span is kept. */
static int get_strv(pp__cap_reader_t *r, pp__cap_val_t *v)
{
	if (get_present(r, v) != 0)
		return -1;
	if (!v->present)
		return 0;
	if (get_var(r, &v->u) != 0)
		return -1;
	if (v->u > r->n - r->pos)
		return bad(r, 1, "a string array runs past the end");
	size_t start = r->pos;
	for (uint64_t i = 0; i < v->u; i++) {
		pp__cap_val_t s;
		if (get_bytes(r, &s) != 0)
			return -1;
	}
	v->bytes = r->b + start;
	v->len = r->pos - start;
	return 0;
}

/* A value of kind k: before the call (in), or as a return value or out
 * parameter after it. */
static int get_value(pp__cap_reader_t *r, int k, int after, pp__cap_val_t *v)
{
	memset(v, 0, sizeof *v);
	switch (k) {
	case PP_CAP_VOID:
		return 0;
	case PP_CAP_SINT:
		if (get_var(r, &v->u) != 0)
			return -1;
		v->u = (uint64_t)pp__cap_unzigzag(v->u);
		return 0;
	case PP_CAP_UINT: case PP_CAP_FLOAT: case PP_CAP_HANDLE: case PP_CAP_HANDLE_FREE:
		return get_var(r, &v->u);
	case PP_CAP_STR: case PP_CAP_BUF_IN: case PP_CAP_BUF_RET: case PP_CAP_BUF_INOUT:
		return get_bytes(r, v);
	case PP_CAP_HANDLE_OUT:
		return after ? get_var(r, &v->u) : get_present(r, v);
	case PP_CAP_BUF_OUT: case PP_CAP_STR_OUT:
		return after ? get_bytes(r, v) : get_present(r, v);
	case PP_CAP_TAIL_OUT:
		if (after && get_var(r, &v->u) == 0) {
			v->present = 1;
			return 0;
		}
		return after ? -1 : get_present(r, v);
	case PP_CAP_OPAQUE: case PP_CAP_CALLBACK:
		return get_present(r, v);
	case PP_CAP_STRV:
		return get_strv(r, v);
	}
	return bad(r, 0, "a value of an unknown kind");
}

/* A ref's value, before or after the call: NULL, or the scalar of kind
 * sk it points to. */
static int get_ref(pp__cap_reader_t *r, int sk, pp__cap_val_t *v)
{
	pp__cap_val_t x;
	memset(v, 0, sizeof *v);
	if (get_present(r, v) != 0)
		return -1;
	if (!v->present)
		return 0;
	if (get_value(r, sk, 0, &x) != 0)
		return -1;
	v->u = x.u;
	return 0;
}

/* One invocation of a callback of s at r->pos: 1, 0 at the list's end, -1. */
static int get_inv(pp__cap_reader_t *r, const pp_cap_sig_t *s, pp__cap_inv_t *inv)
{
	uint64_t which;
	if (get_var(r, &which) != 0)
		return -1;
	if (!which)
		return 0;
	if (which > s->nparams || s->kind[which - 1] != PP_CAP_CALLBACK)
		return bad(r, 0, "an invocation of a parameter that is not a callback");
	const pp_cap_sig_t *cb = s->cb[which - 1];
	inv->param = (int)which - 1;
	for (int i = 0; i < cb->nparams; i++)
		if (get_value(r, cb->kind[i], 0, &inv->a[i]) != 0)
			return -1;
	return get_value(r, cb->ret, 1, &inv->ret) != 0 ? -1 : 1;
}

static int has_callback(const pp_cap_sig_t *s)
{
	for (int i = 0; i < s->nparams; i++)
		if (s->kind[i] == PP_CAP_CALLBACK)
			return 1;
	return 0;
}

static int read_call(pp__cap_reader_t *r, pp__cap_rec_t *rec)
{
	if (get_var(r, &rec->seq) != 0 || get_var(r, &rec->tid) != 0 || get_var(r, &rec->fn) != 0)
		return -1;
	if (rec->fn == 0 || rec->fn > r->seen)
		return bad(r, 0, "a call of a function not declared before it");
	const pp_cap_sig_t *s = &r->fns[rec->fn - 1]->sig;
	for (int i = 0; i < s->nparams; i++)
		if ((s->kind[i] == PP_CAP_REF ? get_ref(r, (int)s->filled[i], &rec->in[i])
					      : get_value(r, s->kind[i], 0, &rec->in[i])) != 0)
			return -1;
	rec->inv_pos = r->pos;
	rec->ninv = 0;
	if (has_callback(s)) {
		pp__cap_inv_t inv;
		int got;
		while ((got = get_inv(r, s, &inv)) > 0)
			rec->ninv++;
		if (got < 0)
			return -1;
	}
	if (get_value(r, s->ret, 1, &rec->ret) != 0)
		return -1;
	for (int i = 0; i < s->nparams; i++) {
		memset(&rec->out[i], 0, sizeof rec->out[i]);
		if (!pp__cap_has_out(s, i, rec))
			continue;
		if ((s->kind[i] == PP_CAP_REF ? get_ref(r, (int)s->filled[i], &rec->out[i])
					      : get_value(r, s->kind[i], 1, &rec->out[i])) != 0)
			return -1;
	}
	r->calls++;
	return 0;
}

int pp__cap_has_out(const pp_cap_sig_t *s, int i, const pp__cap_rec_t *rec)
{
	int k = s->kind[i];
	return k == PP_CAP_HANDLE_OUT || k == PP_CAP_BUF_OUT || k == PP_CAP_REF || k == PP_CAP_BUF_INOUT ||
	       ((k == PP_CAP_STR_OUT || k == PP_CAP_TAIL_OUT) && rec->in[i].present);
}

int pp__cap_next_inv(const pp__cap_reader_t *r, const pp_cap_sig_t *s, size_t *pos, pp__cap_inv_t *inv)
{
	pp__cap_reader_t c = *r;
	c.pos = *pos;
	int got = get_inv(&c, s, inv);
	*pos = c.pos;
	return got > 0;
}

void pp__cap_strv_next(const uint8_t **p, pp__cap_val_t *v)
{
	pp__cap_reader_t c;
	memset(&c, 0, sizeof c);
	c.b = *p;
	c.n = SIZE_MAX / 2; /* checked when the call was read */
	get_bytes(&c, v);
	*p += c.pos;
}

int pp__cap_next(pp__cap_reader_t *r, pp__cap_rec_t *rec)
{
	if (r->ended || r->pos >= r->n)
		return 0;
	uint8_t type = r->b[r->pos++];
	uint64_t calls;
	switch (type) {
	case PP_CAP_FUNC:
		return read_func(r) ? -1 : PP_CAP_FUNC;
	case PP_CAP_CALL:
		return read_call(r, rec) ? -1 : PP_CAP_CALL;
	case PP_CAP_END:
		if (get_var(r, &calls) != 0)
			return -1;
		if (calls != r->calls)
			return bad(r, 0, "the END record counts other calls than the trace holds");
		r->ended = 1;
		return PP_CAP_END;
	}
	r->pos--;
	return bad(r, 0, "an unknown record type");
}
