/* The stand-ins for a recorded call's callbacks at replay: a libffi
 * closure per callback parameter that the library calls in place of the
 * program's function; each invocation is checked against the next one the
 * trace recorded for the call being replayed (pp__cap_cur), and gets the
 * return value the program's function returned. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_cli.h"
#include "replay.h"

__thread cur_t *pp__cap_cur;

int pp__cap_same_str(const char *got, const pp__cap_val_t *want)
{
	if (!got || !want->present)
		return !got && !want->present;
	return strlen(got) == want->len && !memcmp(got, want->bytes, want->len);
}

uint64_t pp__cap_int_at(const void *p, int kind, uint32_t size)
{
	switch (size) {
	case 1: return kind == PP_CAP_SINT ? (uint64_t)(int64_t) * (const int8_t *)p : *(const uint8_t *)p;
	case 2: return kind == PP_CAP_SINT ? (uint64_t)(int64_t) * (const int16_t *)p : *(const uint16_t *)p;
	case 4: return kind == PP_CAP_SINT ? (uint64_t)(int64_t) * (const int32_t *)p : *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

/* One argument of an invocation against its recording; 0 when equal. */
int pp__cap_arg_differs(int kind, uint32_t size, const void *arg, const pp__cap_val_t *want)
{
	switch (kind) {
	case PP_CAP_SINT: case PP_CAP_UINT:
		return pp__cap_int_at(arg, kind, size) != want->u;
	case PP_CAP_FLOAT: {
		double d = size == 4 ? (double)*(const float *)arg : *(const double *)arg;
		return memcmp(&d, &want->u, sizeof d) != 0;
	}
	case PP_CAP_STR:
		return !pp__cap_same_str(*(const char *const *)arg, want);
	case PP_CAP_STRV: {
		char *const *v = *(char *const *const *)arg;
		if (!v || !want->present)
			return !v != !want->present;
		const uint8_t *p = want->bytes;
		for (uint64_t i = 0; i < want->u; i++) {
			pp__cap_val_t one;
			pp__cap_strv_next(&p, &one);
			if (!pp__cap_same_str(v[i], &one))
				return 1;
		}
		return 0;
	}
	default: /* handles and opaque pointers: NULL or not */
		return !*(void *const *)arg != !want->present;
	}
}

/* The library calls a callback: check the invocation against the next
 * recorded one and return what the program's function returned. */
static void on_callback(ffi_cif *cif, void *ret, void **args, void *data)
{
	(void)cif;
	cbk_t *k = data;
	cur_t *x = pp__cap_cur;
	const pp_cap_sig_t *cs = k->f->f->sig.cb[k->param];
	memset(ret, 0, sizeof(ffi_arg) > 8 ? sizeof(ffi_arg) : 8);
	if (!x || x->status)
		return;
	pp__cap_inv_t inv;
	if (!pp__cap_next_inv(&x->r->rd, &k->f->f->sig, &x->pos, &inv) || inv.param != k->param) {
		x->status = pp__cap_diverge(x->r, x->c, x->fn, "callback parameter %d invoked %llu times, recorded %llu",
				    k->param + 1, (unsigned long long)x->made + 1, (unsigned long long)x->c->ninv);
		return;
	}
	x->made++;
	for (int i = 0; i < cs->nparams; i++)
		if (pp__cap_arg_differs(cs->kind[i], cs->aux[i], args[i], &inv.a[i])) {
			x->status = pp__cap_diverge(x->r, x->c, x->fn, "callback parameter %d, invocation %llu: "
					    "argument %d differs from the recording", k->param + 1,
					    (unsigned long long)x->made, i + 1);
			return;
		}
	switch (cs->ret) {
	case PP_CAP_SINT: *(ffi_sarg *)ret = (ffi_sarg)(int64_t)inv.ret.u; break;
	case PP_CAP_UINT: *(ffi_arg *)ret = (ffi_arg)inv.ret.u; break;
	case PP_CAP_FLOAT:
		if (cs->ret_aux == 4) {
			double d;
			memcpy(&d, &inv.ret.u, sizeof d);
			*(float *)ret = (float)d;
		} else {
			memcpy(ret, &inv.ret.u, sizeof(double));
		}
		break;
	}
}

int pp__cap_add_callback(rp_t *r, rfn_t *f, int param)
{
	const pp_cap_sig_t *cs = f->f->sig.cb[param];
	cbk_t *k = calloc(1, sizeof *k);
	if (!k)
		return -1;
	f->cb[param] = k;
	k->r = r;
	k->f = f;
	k->param = param;
	for (int j = 0; j < cs->nparams; j++)
		k->types[j] = pp__cap_ffi_of(cs->kind[j], cs->aux[j]);
	if (ffi_prep_cif(&k->cif, FFI_DEFAULT_ABI, cs->nparams, pp__cap_ffi_of(cs->ret, cs->ret_aux), k->types) != FFI_OK ||
	    !(k->closure = ffi_closure_alloc(sizeof(ffi_closure), &k->code)) ||
	    ffi_prep_closure_loc(k->closure, &k->cif, on_callback, k, k->code) != FFI_OK) {
		snprintf(r->why, sizeof r->why, "%s: libffi cannot stand in for %s's callback", r->rd.path,
			 f->f->name);
		return -1;
	}
	return 0;
}

