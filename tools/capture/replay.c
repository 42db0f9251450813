/* `pathprof capture replay`: a captured trace's calls made again, in the
 * recorded order, against a build of the library (dlopen), through libffi
 * from the signatures the trace carries (read by capture_trace.c). Handles
 * are mapped from the recorded ids to this run's pointers; every return
 * value and out parameter is checked against the recording, and the first
 * difference stops the replay with the call, thread, function and both
 * values (exit 3; --keep-going counts them all). The functions --time
 * selects are timed per call (CLOCK_MONOTONIC around the call alone) and
 * reported per entry point with a TOTAL. docs/guides/capture.md. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ffi.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pathprof/state.h>

#include "capture_cli.h"
#include "capture_trace.h"
#include "glob.h"
#include "input.h"
#include "report.h"

/* What replay keeps per function: its symbol, libffi's description, times. */
#include "replay.h"

ffi_type *pp__cap_ffi_of(int kind, uint32_t size)
{
	switch (kind) {
	case PP_CAP_SINT:
		return size == 1 ? &ffi_type_sint8 : size == 2 ? &ffi_type_sint16
		       : size == 4 ? &ffi_type_sint32 : &ffi_type_sint64;
	case PP_CAP_UINT:
		return size == 1 ? &ffi_type_uint8 : size == 2 ? &ffi_type_uint16
		       : size == 4 ? &ffi_type_uint32 : &ffi_type_uint64;
	case PP_CAP_FLOAT:
		return size == 4 ? &ffi_type_float : &ffi_type_double;
	case PP_CAP_VOID:
		return &ffi_type_void;
	default:
		return &ffi_type_pointer;
	}
}

/* The function the reader just declared: its symbol in lib and its cif. */
int pp__cap_add_func(rp_t *r, void *lib, const char *times)
{
	size_t i = r->rd.nfns - 1;
	rfn_t **g = realloc(r->fns, r->rd.nfns * sizeof *g);
	if (!g)
		return -1;
	r->fns = g;
	rfn_t *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	r->fns[i] = f;
	r->nf = i + 1;
	f->f = r->rd.fns[i];
	const pp_cap_sig_t *s = &f->f->sig;
	for (int k = 0; k < s->nparams; k++)
		f->types[k] = pp__cap_ffi_of(s->kind[k], s->aux[k]);
	f->addr = dlsym(lib, f->f->name);
	if (!f->addr) {
		snprintf(r->why, sizeof r->why, "%s: the library has no function %s, which the trace calls",
			 r->rd.path, f->f->name);
		return -1;
	}
	if (ffi_prep_cif(&f->cif, FFI_DEFAULT_ABI, s->nparams, pp__cap_ffi_of(s->ret, s->ret_aux), f->types) != FFI_OK) {
		snprintf(r->why, sizeof r->why, "%s: libffi cannot call %s", r->rd.path, f->f->name);
		return -1;
	}
	if (s->ret == PP_CAP_BUF_RET) {
		f->len_addr = dlsym(lib, s->len_fn);
		if (!f->len_addr || ffi_prep_cif(&f->len_cif, FFI_DEFAULT_ABI, s->nparams,
						  pp__cap_ffi_of(s->len_kind, s->len_size), f->types) != FFI_OK) {
			snprintf(r->why, sizeof r->why, "%s: the library has no function %s, which gives %s's "
				 "length", r->rd.path, s->len_fn, f->f->name);
			return -1;
		}
	}
	for (int k = 0; k < s->nparams; k++)
		if (s->kind[k] == PP_CAP_CALLBACK && pp__cap_add_callback(r, f, k) != 0)
			return -1;
	f->timed = pp__select_name(times, ',', f->f->name);
	return 0;
}

int pp__cap_diverge(rp_t *r, const pp__cap_rec_t *c, const char *fn, const char *fmt, ...)
{
	char what[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&r->lock);
	r->diverged++;
	cli_error("capture replay: call %llu (thread %llu, %s): %s", (unsigned long long)c->seq,
		  (unsigned long long)c->tid, fn, what);
	if (!r->keep_going)
		r->stop = 1;
	pthread_mutex_unlock(&r->lock);
	return r->keep_going ? 0 : 3;
}

static int handle_slot(rp_t *r, uint64_t id)
{
	if (id < r->nhandles)
		return 0;
	if (id > (1u << 28))
		return -1;
	size_t n = r->nhandles ? r->nhandles : 64;
	while (n <= id)
		n *= 2;
	void **h = realloc(r->handles, n * sizeof *h);
	if (!h)
		return -1;
	memset(h + r->nhandles, 0, (n - r->nhandles) * sizeof *h);
	r->handles = h;
	r->nhandles = n;
	return 0;
}

/* The recorded handle id now stands for ptr (new, or the same again). */
static int bind_handle(rp_t *r, const pp__cap_rec_t *c, const char *fn, uint64_t id, void *ptr,
		       const char *what)
{
	if (!id)
		return ptr ? pp__cap_diverge(r, c, fn, "%s: NULL recorded, %p replayed", what, ptr) : 0;
	if (!ptr)
		return pp__cap_diverge(r, c, fn, "%s: handle %llu recorded, NULL replayed", what, (unsigned long long)id);
	pthread_mutex_lock(&r->lock);
	int rc = handle_slot(r, id);
	if (rc == 0)
		r->handles[id] = ptr;
	else
		snprintf(r->why, sizeof r->why, "%s: a handle id too large (%llu)", r->rd.path,
			 (unsigned long long)id);
	pthread_cond_broadcast(&r->bound);
	pthread_mutex_unlock(&r->lock);
	return rc;
}

/* This run's pointer for the recorded handle id, or NULL when there is
 * none. Replaying threads, one may wait for another to create it; when
 * every thread still running waits, none ever will. */
static void *handle_of(rp_t *r, uint64_t id)
{
	pthread_mutex_lock(&r->lock);
	while (!(id < r->nhandles && r->handles[id]) && r->threaded && !r->stop &&
	       r->waiting + 1 < r->running) {
		r->waiting++;
		pthread_cond_wait(&r->bound, &r->lock);
		r->waiting--;
	}
	void *p = id < r->nhandles ? r->handles[id] : NULL;
	pthread_mutex_unlock(&r->lock);
	return p;
}

static int is_int(int k)
{
	return k == PP_CAP_SINT || k == PP_CAP_UINT;
}

/* A length a signature names: a parameter's value, a constant, the return,
 * the value a ref points to: before the call as recorded (refs NULL), or
 * as this call left it in refs (a filled length). */
static uint64_t length(const pp_cap_sig_t *s, uint32_t a, const pp__cap_rec_t *c, uint64_t ret,
		       const value_t *refs)
{
	if (a == PP_CAP_AUX_RETURN)
		return ret;
	if (a >= PP_CAP_AUX_CONST)
		return a - PP_CAP_AUX_CONST;
	int k = a < s->nparams ? s->kind[a] : PP_CAP_VOID;
	if (k == PP_CAP_REF && is_int((int)s->filled[a]) && c->in[a].present)
		k = (int)s->filled[a];
	else if (!is_int(k))
		return 0;
	uint64_t v = refs && s->kind[a] == PP_CAP_REF ? pp__cap_int_at(&refs[a], k, s->aux[a]) : c->in[a].u;
	uint32_t sz = s->aux[a];
	return sz == 8 ? v : v & ((1ull << (8 * sz)) - 1);
}

/* A scalar's recorded value u into an argument of its kind and size. */
static void set_scalar(value_t *v, int kind, uint32_t size, uint64_t u)
{
	v->u64 = 0;
	if (kind == PP_CAP_FLOAT) {
		double d;
		memcpy(&d, &u, sizeof d);
		if (size == 4)
			v->f = (float)d;
		else
			v->d = d;
		return;
	}
	switch (size) {
	case 1: v->u8 = (uint8_t)u; break;
	case 2: v->u16 = (uint16_t)u; break;
	case 4: v->u32 = (uint32_t)u; break;
	default: v->u64 = u;
	}
}

/* A scalar of kind and size as the trace records it (an integer sign- or
 * zero-extended, a float as its double's bits), from this call's v. */
static uint64_t recorded_of(const value_t *v, int kind, uint32_t size)
{
	if (kind != PP_CAP_FLOAT)
		return pp__cap_int_at(v, kind, size);
	double d = size == 4 ? (double)v->f : v->d;
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

/* Such a value as text, for a difference's line. */
static void scalar_text(char *b, size_t n, int kind, uint32_t size, uint64_t u)
{
	double d;
	memcpy(&d, &u, sizeof d);
	if (kind == PP_CAP_FLOAT)
		snprintf(b, n, "%.*g", size == 4 ? 9 : 17, d);
	else if (kind == PP_CAP_SINT)
		snprintf(b, n, "%lld", (long long)u);
	else
		snprintf(b, n, "%llu", (unsigned long long)u);
}

/* The call c of function f, made again and checked. 0, 3 at a difference
 * (unless --keep-going), -1 when the replay cannot go on (why). */
int pp__cap_replay_call(rp_t *r, rfn_t *f, const pp__cap_rec_t *c)
{
	const pp_cap_sig_t *s = &f->f->sig;
	const char *fn = f->f->name;
	static char opaque; /* what an opaque pointer that was not NULL becomes */
	value_t v[PP_CAP_MAX_PARAMS], refs[PP_CAP_MAX_PARAMS];
	void *argp[PP_CAP_MAX_PARAMS], *slots[PP_CAP_MAX_PARAMS], *bufs[PP_CAP_MAX_PARAMS];
	cur_t now = { .r = r, .c = c, .fn = fn, .pos = c->inv_pos };
	uint64_t caps[PP_CAP_MAX_PARAMS], freed[PP_CAP_MAX_PARAMS];
	int nfreed = 0, rc = 0;
	memset(bufs, 0, sizeof bufs);
	for (int i = 0; i < s->nparams; i++) {
		const pp__cap_val_t *x = &c->in[i];
		argp[i] = &v[i];
		v[i].u64 = 0;
		switch (s->kind[i]) {
		case PP_CAP_SINT: case PP_CAP_UINT: case PP_CAP_FLOAT:
			set_scalar(&v[i], s->kind[i], s->aux[i], x->u);
			break;
		case PP_CAP_REF:
			/* the value it points to lives in refs[i] */
			set_scalar(&refs[i], (int)s->filled[i], s->aux[i], x->u);
			v[i].p = x->present ? &refs[i] : NULL;
			break;
		case PP_CAP_STR: case PP_CAP_BUF_IN: case PP_CAP_BUF_INOUT:
			if (x->present) {
				/* a copy: the callee may keep it; strings NUL-terminated */
				if (!(bufs[i] = malloc(x->len + 1)))
					goto oom;
				memcpy(bufs[i], x->bytes, x->len);
				((char *)bufs[i])[x->len] = 0;
			}
			v[i].p = bufs[i];
			break;
		case PP_CAP_HANDLE: case PP_CAP_HANDLE_FREE:
			v[i].p = x->u ? handle_of(r, x->u) : NULL;
			if (x->u && !v[i].p) {
				pthread_mutex_lock(&r->lock);
				snprintf(r->why, sizeof r->why, "%s: call %llu (%s) uses handle %llu, which no "
					 "replayed call returned or which was freed", r->rd.path,
					 (unsigned long long)c->seq, fn, (unsigned long long)x->u);
				pthread_mutex_unlock(&r->lock);
				rc = -1;
				goto done;
			}
			if (s->kind[i] == PP_CAP_HANDLE_FREE && x->u)
				freed[nfreed++] = x->u;
			break;
		case PP_CAP_HANDLE_OUT:
			slots[i] = NULL;
			v[i].p = x->present ? &slots[i] : NULL;
			break;
		case PP_CAP_BUF_OUT:
			v[i].p = NULL;
			break;
		case PP_CAP_STR_OUT: case PP_CAP_TAIL_OUT:
			slots[i] = NULL;
			v[i].p = x->present ? &slots[i] : NULL;
			break;
		case PP_CAP_OPAQUE:
			v[i].p = x->present ? &opaque : NULL;
			break;
		case PP_CAP_CALLBACK:
			v[i].p = x->present ? f->cb[i]->code : NULL;
			break;
		case PP_CAP_STRV:
			if (x->present) {
				/* the pointers, then the strings, in one block */
				char **a = malloc((x->u + 1) * sizeof *a + x->len + x->u);
				if (!(bufs[i] = a))
					goto oom;
				char *sp = (char *)(a + x->u + 1);
				const uint8_t *p = x->bytes;
				for (uint64_t k = 0; k < x->u; k++) {
					pp__cap_val_t one;
					pp__cap_strv_next(&p, &one);
					a[k] = one.present ? sp : NULL;
					if (one.present) {
						memcpy(sp, one.bytes, one.len);
						sp[one.len] = 0;
						sp += one.len + 1;
					}
				}
				a[x->u] = NULL;
			}
			v[i].p = bufs[i];
			break;
		}
	}
	/* out buffers, now that their capacities are known (in elements:
	 * elem_shift makes them bytes) */
	for (int i = 0; i < s->nparams; i++)
		if (s->kind[i] == PP_CAP_BUF_OUT && c->in[i].present) {
			caps[i] = length(s, s->aux[i], c, 0, NULL);
			caps[i] = caps[i] > (1u << 30) ? caps[i] : caps[i] << f->f->elem_shift[i];
			if (caps[i] > (1u << 30)) {
				snprintf(r->why, sizeof r->why, "%s: call %llu (%s): an out buffer of more than 1 GiB",
					 r->rd.path, (unsigned long long)c->seq, fn);
				rc = -1;
				goto done;
			}
			if (!(bufs[i] = calloc(1, caps[i] ? caps[i] : 1)))
				goto oom;
			v[i].p = bufs[i];
		}
	union { ffi_arg a; ffi_sarg s; double d; float f; void *p; } ret = { 0 };
	struct timespec t0, t1;
	pp__cap_cur = &now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ffi_call(&f->cif, FFI_FN(f->addr), &ret, argp);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pp__cap_cur = NULL;
	pthread_mutex_lock(&r->lock);
	f->calls++;
	if (f->timed) {
		if (f->nns == f->capns) {
			size_t n = f->capns ? f->capns * 2 : 256;
			uint64_t *g = realloc(f->ns, n * sizeof *g);
			if (!g) {
				pthread_mutex_unlock(&r->lock);
				goto oom;
			}
			f->ns = g;
			f->capns = n;
		}
		f->ns[f->nns++] = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	}
	pthread_mutex_unlock(&r->lock);
	/* the return value */
	uint64_t got = 0;
	switch (s->ret) {
	case PP_CAP_SINT: {
		int64_t g = s->ret_aux == 1 ? (int8_t)ret.s : s->ret_aux == 2 ? (int16_t)ret.s
			    : s->ret_aux == 4 ? (int32_t)ret.s : (int64_t)ret.s;
		got = (uint64_t)g;
		if (got != c->ret.u)
			rc = pp__cap_diverge(r, c, fn, "returned %lld, recorded %lld", (long long)g, (long long)c->ret.u);
		break;
	}
	case PP_CAP_UINT:
		got = s->ret_aux == 8 ? (uint64_t)ret.a : (uint64_t)ret.a & ((1ull << (8 * s->ret_aux)) - 1);
		if (got != c->ret.u)
			rc = pp__cap_diverge(r, c, fn, "returned %llu, recorded %llu", (unsigned long long)got,
				     (unsigned long long)c->ret.u);
		break;
	case PP_CAP_FLOAT: {
		double d = s->ret_aux == 4 ? (double)ret.f : ret.d, want;
		memcpy(&want, &c->ret.u, sizeof want);
		if (memcmp(&d, &want, sizeof d))
			rc = pp__cap_diverge(r, c, fn, "returned %.17g, recorded %.17g", d, want);
		break;
	}
	case PP_CAP_STR:
		if (c->ret.present != (ret.p != NULL) ||
		    (ret.p && (strlen(ret.p) != c->ret.len || memcmp(ret.p, c->ret.bytes, c->ret.len))))
			rc = pp__cap_diverge(r, c, fn, "returned \"%.60s\", recorded \"%.*s\"",
				     ret.p ? (char *)ret.p : "(null)", (int)(c->ret.len > 60 ? 60 : c->ret.len),
				     c->ret.present ? (const char *)c->ret.bytes : "(null)");
		break;
	case PP_CAP_HANDLE:
		rc = bind_handle(r, c, fn, c->ret.u, ret.p, "returned handle");
		break;
	case PP_CAP_BUF_RET: {
		union { ffi_arg a; ffi_sarg s; } n = { 0 };
		if (ret.p)
			ffi_call(&f->len_cif, FFI_FN(f->len_addr), &n, argp);
		uint64_t len = !ret.p ? 0 : s->len_size == 8 ? (uint64_t)n.a
			       : (uint64_t)n.a & ((1ull << (8 * s->len_size)) - 1);
		if (c->ret.present != (ret.p != NULL) || (ret.p && (len != c->ret.len || memcmp(ret.p, c->ret.bytes, len))))
			rc = pp__cap_diverge(r, c, fn, "returned %llu bytes%s, recorded %llu", (unsigned long long)len,
				     len == c->ret.len ? " that differ" : "", (unsigned long long)c->ret.len);
		break;
	}
	}
	/* the callbacks: every recorded invocation made, and no difference */
	if (rc == 0 && now.status)
		rc = now.status;
	if (rc == 0 && now.made != c->ninv)
		rc = pp__cap_diverge(r, c, fn, "callbacks invoked %llu times, recorded %llu", (unsigned long long)now.made,
			     (unsigned long long)c->ninv);
	/* out parameters */
	for (int i = 0; i < s->nparams && rc == 0; i++) {
		const pp__cap_val_t *o = &c->out[i];
		if (s->kind[i] == PP_CAP_HANDLE_OUT) {
			rc = bind_handle(r, c, fn, o->u, c->in[i].present ? slots[i] : NULL, "out handle");
		} else if (s->kind[i] == PP_CAP_STR_OUT && c->in[i].present) {
			if (!pp__cap_same_str(slots[i], o))
				rc = pp__cap_diverge(r, c, fn, "parameter %d: wrote \"%.60s\", recorded \"%.*s\"", i + 1,
					     slots[i] ? (char *)slots[i] : "(null)", (int)(o->len > 60 ? 60 : o->len),
					     o->present ? (const char *)o->bytes : "(null)");
		} else if (s->kind[i] == PP_CAP_TAIL_OUT && c->in[i].present) {
			const char *base = bufs[s->aux[i]], *at = slots[i];
			uint64_t off = at && base && at >= base ? (uint64_t)(at - base) + 1 : 0;
			if (off != o->u)
				rc = pp__cap_diverge(r, c, fn, "parameter %d: set to byte %lld of parameter %u, recorded %lld",
					     i + 1, (long long)off - 1, s->aux[i] + 1, (long long)o->u - 1);
		} else if (s->kind[i] == PP_CAP_REF && c->in[i].present &&
			   pp__cap_arg_differs((int)s->filled[i], s->aux[i], &refs[i], o)) {
			int k = (int)s->filled[i];
			char got_s[40], want_s[40];
			scalar_text(got_s, sizeof got_s, k, s->aux[i], recorded_of(&refs[i], k, s->aux[i]));
			scalar_text(want_s, sizeof want_s, k, s->aux[i], o->u);
			rc = pp__cap_diverge(r, c, fn, "parameter %d: set to %s, recorded %s", i + 1, got_s, want_s);
		} else if (s->kind[i] == PP_CAP_BUF_INOUT && c->in[i].present) {
			/* what the call left of the bytes it was given */
			if (o->len != c->in[i].len || memcmp(bufs[i], o->bytes, o->len))
				rc = pp__cap_diverge(r, c, fn, "parameter %d: the %llu bytes it was given are not "
						     "left as recorded", i + 1, (unsigned long long)c->in[i].len);
		} else if (s->kind[i] == PP_CAP_BUF_OUT) {
			uint64_t n = 0;
			if (c->in[i].present) {
				/* elements to bytes, at most the capacity */
				n = length(s, s->filled[i], c, got, refs);
				n = n > caps[i] ? caps[i] : n << f->f->elem_shift[i];
				n = n > caps[i] ? caps[i] : n;
			}
			if (o->present != c->in[i].present || (o->present && (n != o->len || memcmp(bufs[i], o->bytes, n))))
				rc = pp__cap_diverge(r, c, fn, "parameter %d: %llu bytes written, %llu recorded%s", i + 1,
					     (unsigned long long)n, (unsigned long long)o->len,
					     n == o->len ? ", not the same bytes" : "");
		}
	}
	pthread_mutex_lock(&r->lock);
	for (int i = 0; i < nfreed; i++)
		r->handles[freed[i]] = NULL;
	pthread_mutex_unlock(&r->lock);
done:
	for (int i = 0; i < s->nparams; i++)
		free(bufs[i]);
	return rc;
oom:
	snprintf(r->why, sizeof r->why, "out of memory");
	rc = -1;
	goto done;
}

static const char help_text[] =
	"usage: pathprof capture replay TRACE --lib LIBRARY.so [options]\n"
	"\n"
	"Make the calls a program made into a library, recorded in TRACE\n"
	"(PATHPROF_CAPTURE with a shim of 'pathprof capture gen'), again against\n"
	"LIBRARY, each thread's calls in its recorded order, and check every return value and out\n"
	"parameter against the recording. Prints, per function, its calls and\n"
	"(for the functions --time selects) the time of its calls: total, mean,\n"
	"p50, p99 in ns, and a TOTAL.\n"
	"\n"
	"options:\n"
	"  --lib FILE       the build of the library to call (dlopen)\n"
	"  --time GLOBS     the functions to time (default: all)\n"
	"  --repeat N       replay the whole trace N times (default 1)\n"
	"  --keep-going     count differences instead of stopping at the first\n"
	"  --serial         one thread, in the recorded global order (default: one\n"
	"                   replay thread per recorded thread, each in its order)\n"
	"  --format FMT     'text' (default) or 'json'\n"
	"  --profile FILE   the library was built through a pathprof injector: time\n"
	"                   its gates and write their paths to FILE (each entry\n"
	"                   point an event); run with the library's runtime\n"
	"                   preloaded: LD_PRELOAD=.../libpathprof.so.0\n"
	"  -o, --output F   write the table to F\n"
	"  -h, --help       show this help\n"
	"\n"
	"Exit status: 0 the replay matched the recording; 3 it did not (each\n"
	"difference on one line: call, thread, function, replayed and recorded\n"
	"values); 1 an unreadable, damaged or cut trace (what is whole is replayed\n"
	"first), a library without a function the trace calls; 2 bad command line.\n";

int cmd_capture_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "lib", required_argument, NULL, 'l' },    { "time", required_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'r' }, { "keep-going", no_argument, NULL, 'k' },
		{ "format", required_argument, NULL, 'f' }, { "output", required_argument, NULL, 'o' },
		{ "serial", no_argument, NULL, 's' },       { "help", no_argument, NULL, 'h' },
		{ "profile", required_argument, NULL, 'p' }, { NULL, 0, NULL, 0 },
	};
	const char *libpath = NULL, *times = "*", *outpath = NULL, *profile = NULL;
	uint64_t repeat = 1;
	int json = 0, keep = 0, serial = 0, c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'l': libpath = optarg; break;
		case 't': times = optarg; break;
		case 'r':
			if (cli_parse_u64("capture replay: --repeat", optarg, 1000000, &repeat) < 0 || !repeat)
				return CLI_USAGE;
			break;
		case 'k': keep = 1; break;
		case 's': serial = 1; break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				cli_error("capture replay: --format: '%s' is not 'text' or 'json'", optarg);
				return CLI_USAGE;
			}
			json = optarg[0] == 'j';
			break;
		case 'o': outpath = optarg; break;
		case 'p': profile = optarg; break;
		case 'h': return cli_help(help_text);
		default: return cli_bad_option("capture replay", c, argv);
		}
	}
	if (argc - optind != 1 || !libpath) {
		cli_error("capture replay: needs one TRACE and --lib (see 'pathprof capture replay --help')");
		return CLI_USAGE;
	}
	char err[512];
	if (pp__select_check(times, ',', err, sizeof err) != 0) {
		cli_error("capture replay: --time: %s", err);
		return CLI_USAGE;
	}
	/* a gated library: the runtime it links (preloaded, so that its
	 * thread-local state has room) records its gates; this tool's own
	 * copy of the runtime is nobody's host and is not exported */
	int (*dump)(const char *) = NULL;
	if (profile) {
		int (*timing)(enum pp_timing, unsigned) = (int (*)(enum pp_timing, unsigned))dlsym(RTLD_DEFAULT, "pp_set_timing");
		void (*no_exit)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "pp_disable_exit_dump");
		dump = (int (*)(const char *))dlsym(RTLD_DEFAULT, "pp_dump");
		if (!timing || !no_exit || !dump) {
			cli_error("capture replay: --profile: libpathprof is not loaded; run with it preloaded: "
				  "LD_PRELOAD=$(pkg-config --variable=libdir pathprof)/libpathprof.so.0 pathprof "
				  "capture replay ...");
			return CLI_USAGE;
		}
		no_exit();
		timing(PP_TIMING_ON, 0);
	}
	pp__cap_replay_t x;
	int status = pp__cap_replay_load(&x, argv[optind], libpath, times, keep, serial, profile != NULL);
	for (uint64_t pass = 0; pass < repeat && status == CLI_OK; pass++)
		status = pp__cap_replay_pass(&x);
	if (profile && x.loaded && dump(profile) != 0) {
		cli_error("capture replay: --profile: writing %s failed", profile);
		if (status == CLI_OK)
			status = CLI_FAIL;
	}
	if (status == CLI_OK && x.end_msg[0]) {
		cli_error("capture replay: %s", x.end_msg);
		status = CLI_FAIL;
	}
	/* the table, unless the replay stopped before its first call (a
	 * library without a function the trace calls): rows of nothing */
	if (x.loaded && (status == CLI_OK || x.r.replayed)) {
		FILE *o = cli_output_open(outpath);
		if (o) {
			pp__cap_print_table(o, &x.r, x.r.nf, json, libpath);
			int rc = cli_output_close(o, outpath);
			if (status == CLI_OK)
				status = rc;
		}
	}
	if (status == CLI_OK && x.r.diverged)
		status = 3;
	pp__cap_replay_free(&x);
	return status;
}
