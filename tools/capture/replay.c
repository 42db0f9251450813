/* `pathprof capture replay`: a captured trace's calls made again, in the
 * recorded order, against a build of the library (dlopen), through libffi
 * from the signatures the trace carries. Handles are mapped from the
 * recorded ids to this run's pointers; every return value and out
 * parameter is checked against the recording, and the first difference
 * stops the replay with the call, thread, function and both values (exit
 * 3; --keep-going counts them all). The functions --time selects are timed
 * per call (CLOCK_MONOTONIC around the call alone) and reported per entry
 * point with a TOTAL. docs/guides/capture.md. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <ffi.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture_cli.h"
#include "capture_format.h"
#include "glob.h"
#include "input.h"
#include "report.h"

typedef struct rfn {
	pp_cap_sig_t sig;
	char name[PP_CAP_NAME_MAX];
	void *addr;
	ffi_cif cif;
	ffi_type *types[PP_CAP_MAX_PARAMS];
	int timed;
	size_t end; /* where its FUNC record ends in the trace */
	uint64_t calls, *ns;
	size_t nns, capns;
} rfn_t;

typedef union value {
	int8_t i8; int16_t i16; int32_t i32; int64_t i64;
	uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
	float f; double d; void *p;
} value_t;

typedef struct rp {
	const char *path;
	const uint8_t *b;
	size_t n, pos;
	rfn_t **fns; /* each its own allocation: a cif points into its rfn_t */
	size_t nfns;
	void **handles; /* id -> this run's pointer; NULL: none live */
	size_t nhandles;
	uint64_t call, tid, diverged;
	int keep_going, bad; /* bad: the trace is damaged at pos */
	char why[512];
} rp_t;

static int damaged(rp_t *r, const char *what)
{
	if (!r->bad)
		snprintf(r->why, sizeof r->why, "%s: damaged at byte %zu: %s", r->path, r->pos, what);
	r->bad = 1;
	return -1;
}

static int get_var(rp_t *r, uint64_t *v)
{
	uint64_t x = 0;
	for (int s = 0; s < 64; s += 7) {
		if (r->pos >= r->n)
			return damaged(r, "a number runs past the end");
		uint8_t c = r->b[r->pos++];
		x |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return damaged(r, "a number longer than 64 bits");
}

/* A present byte and, when set, a length and that many bytes (in place). */
static int get_bytes(rp_t *r, int *present, const uint8_t **p, uint64_t *len)
{
	if (r->pos >= r->n)
		return damaged(r, "a value runs past the end");
	uint8_t c = r->b[r->pos++];
	if (c > 1)
		return damaged(r, "a presence byte that is neither 0 nor 1");
	*present = c;
	*len = 0;
	*p = NULL;
	if (!c)
		return 0;
	if (get_var(r, len) != 0)
		return -1;
	if (*len > r->n - r->pos)
		return damaged(r, "a string or buffer runs past the end");
	*p = r->b + r->pos;
	r->pos += *len;
	return 0;
}

static ffi_type *ffi_of(int kind, uint32_t size)
{
	switch (kind) {
	case PP_CAP_SINT:
		return size == 1 ? &ffi_type_sint8 : size == 2 ? &ffi_type_sint16
		       : size == 4 ? &ffi_type_sint32 : size == 8 ? &ffi_type_sint64 : NULL;
	case PP_CAP_UINT:
		return size == 1 ? &ffi_type_uint8 : size == 2 ? &ffi_type_uint16
		       : size == 4 ? &ffi_type_uint32 : size == 8 ? &ffi_type_uint64 : NULL;
	case PP_CAP_FLOAT:
		return size == 4 ? &ffi_type_float : size == 8 ? &ffi_type_double : NULL;
	case PP_CAP_VOID:
		return &ffi_type_void;
	case PP_CAP_STR: case PP_CAP_HANDLE: case PP_CAP_HANDLE_OUT: case PP_CAP_BUF_IN:
	case PP_CAP_BUF_OUT: case PP_CAP_HANDLE_FREE:
		return &ffi_type_pointer;
	}
	return NULL;
}

/* A FUNC record: the signature, its symbol in lib and its libffi
 * description; again (a --repeat pass): only read past it. */
static int read_func(rp_t *r, void *lib, const char *times, int again)
{
	uint64_t fn, len, np;
	size_t at = r->pos;
	if (get_var(r, &fn) != 0 || get_var(r, &len) != 0)
		return -1;
	if (again) {
		/* the first pass read it whole: skip to where it read it to */
		r->pos = at;
		rfn_t *f = fn && fn <= r->nfns ? r->fns[fn - 1] : NULL;
		if (!f)
			return damaged(r, "functions out of order");
		r->pos = f->end;
		return 0;
	}
	if (fn != r->nfns + 1)
		return damaged(r, "functions out of order");
	if (len == 0 || len >= PP_CAP_NAME_MAX || len > r->n - r->pos)
		return damaged(r, "a function name of a bad length");
	rfn_t **g = realloc(r->fns, (r->nfns + 1) * sizeof *g);
	if (!g)
		return damaged(r, "out of memory");
	r->fns = g;
	rfn_t *f = calloc(1, sizeof *f);
	if (!f)
		return damaged(r, "out of memory");
	r->fns[r->nfns++] = f;
	memcpy(f->name, r->b + r->pos, len);
	f->name[len] = 0;
	r->pos += len;
	f->sig.name = f->name;
	if (r->pos + 2 > r->n)
		return damaged(r, "a signature runs past the end");
	f->sig.ret = r->b[r->pos++];
	f->sig.ret_aux = r->b[r->pos++];
	if (get_var(r, &np) != 0)
		return -1;
	if (np > PP_CAP_MAX_PARAMS)
		return damaged(r, "more parameters than a signature holds");
	f->sig.nparams = (uint8_t)np;
	for (uint64_t i = 0; i < np; i++) {
		uint64_t aux, filled;
		if (r->pos >= r->n)
			return damaged(r, "a signature runs past the end");
		f->sig.kind[i] = r->b[r->pos++];
		if (get_var(r, &aux) != 0 || get_var(r, &filled) != 0)
			return -1;
		f->sig.aux[i] = (uint32_t)aux;
		f->sig.filled[i] = (uint32_t)filled;
		f->types[i] = ffi_of(f->sig.kind[i], (uint32_t)aux);
		if (!f->types[i])
			return damaged(r, "a parameter of an unknown kind or size");
	}
	ffi_type *rt = ffi_of(f->sig.ret, f->sig.ret_aux);
	if (!rt)
		return damaged(r, "a return value of an unknown kind or size");
	f->end = r->pos;
	f->addr = dlsym(lib, f->name);
	if (!f->addr) {
		snprintf(r->why, sizeof r->why, "%s: the library has no function %s, which the trace calls",
			 r->path, f->name);
		r->bad = 2;
		return -1;
	}
	if (ffi_prep_cif(&f->cif, FFI_DEFAULT_ABI, f->sig.nparams, rt, f->types) != FFI_OK)
		return damaged(r, "libffi refused a signature");
	f->timed = pp__select_name(times, ',', f->name);
	return 0;
}

static int diverge(rp_t *r, const rfn_t *f, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int diverge(rp_t *r, const rfn_t *f, const char *fmt, ...)
{
	char what[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	r->diverged++;
	cli_error("capture replay: call %llu (thread %llu, %s): %s", (unsigned long long)r->call,
		  (unsigned long long)r->tid, f->name, what);
	return r->keep_going ? 0 : -1;
}

static int handle_slot(rp_t *r, uint64_t id)
{
	if (id < r->nhandles)
		return 0;
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

/* What the recorded id id should now stand for: ptr (new, or the same). */
static int bind_handle(rp_t *r, const rfn_t *f, uint64_t id, void *ptr, const char *what)
{
	if (!id)
		return ptr ? diverge(r, f, "%s: NULL recorded, %p replayed", what, ptr) : 0;
	if (!ptr)
		return diverge(r, f, "%s: handle %llu recorded, NULL replayed", what, (unsigned long long)id);
	if (handle_slot(r, id) != 0)
		return -1;
	r->handles[id] = ptr;
	return 0;
}

static int is_int(int k) { return k == PP_CAP_SINT || k == PP_CAP_UINT; }

static uint64_t as_u64(int kind, uint32_t size, const value_t *v)
{
	if (kind == PP_CAP_SINT)
		return (uint64_t)(size == 1 ? v->i8 : size == 2 ? v->i16 : size == 4 ? v->i32 : v->i64);
	return size == 1 ? v->u8 : size == 2 ? v->u16 : size == 4 ? v->u32 : v->u64;
}

static int replay_call(rp_t *r, rfn_t *f)
{
	value_t v[PP_CAP_MAX_PARAMS];
	void *argp[PP_CAP_MAX_PARAMS], *slots[PP_CAP_MAX_PARAMS], *bufs[PP_CAP_MAX_PARAMS];
	uint64_t freed[PP_CAP_MAX_PARAMS];
	int nfreed = 0, rc = 0;
	const pp_cap_sig_t *s = &f->sig;
	memset(bufs, 0, sizeof bufs);
	for (int i = 0; i < s->nparams; i++) {
		uint64_t x, len;
		int present;
		const uint8_t *p;
		argp[i] = &v[i];
		v[i].u64 = 0;
		switch (s->kind[i]) {
		case PP_CAP_SINT: case PP_CAP_UINT: case PP_CAP_FLOAT:
			if (get_var(r, &x) != 0)
				return -1;
			if (s->kind[i] == PP_CAP_FLOAT) {
				double d;
				memcpy(&d, &x, sizeof d);
				if (s->aux[i] == 4)
					v[i].f = (float)d;
				else
					v[i].d = d;
			} else {
				int64_t sx = s->kind[i] == PP_CAP_SINT ? pp__cap_unzigzag(x) : (int64_t)x;
				switch (s->aux[i]) {
				case 1: v[i].i8 = (int8_t)sx; break;
				case 2: v[i].i16 = (int16_t)sx; break;
				case 4: v[i].i32 = (int32_t)sx; break;
				default: v[i].i64 = sx;
				}
			}
			break;
		case PP_CAP_STR: case PP_CAP_BUF_IN:
			if (get_bytes(r, &present, &p, &len) != 0)
				return -1;
			if (present) {
				/* a copy: the callee may keep reading it; strings NUL-terminated */
				bufs[i] = malloc(len + 1);
				if (!bufs[i])
					return -1;
				memcpy(bufs[i], p, len);
				((char *)bufs[i])[len] = 0;
			}
			v[i].p = bufs[i];
			break;
		case PP_CAP_HANDLE: case PP_CAP_HANDLE_FREE:
			if (get_var(r, &x) != 0)
				return -1;
			if (x && (x >= r->nhandles || !r->handles[x])) {
				snprintf(r->why, sizeof r->why, "%s: call %llu (%s) uses handle %llu, which no "
					 "replayed call returned or which was freed", r->path,
					 (unsigned long long)r->call, f->name, (unsigned long long)x);
				r->bad = 2;
				return -1;
			}
			v[i].p = x ? r->handles[x] : NULL;
			if (s->kind[i] == PP_CAP_HANDLE_FREE && x)
				freed[nfreed++] = x;
			break;
		case PP_CAP_HANDLE_OUT: case PP_CAP_BUF_OUT:
			if (r->pos >= r->n)
				return damaged(r, "a value runs past the end");
			present = r->b[r->pos++];
			if (present > 1)
				return damaged(r, "a presence byte that is neither 0 nor 1");
			slots[i] = NULL;
			v[i].p = present ? &slots[i] : NULL;
			break;
		}
	}
	/* out buffers, now that their capacities are known */
	for (int i = 0; i < s->nparams; i++)
		if (s->kind[i] == PP_CAP_BUF_OUT && v[i].p) {
			uint32_t a = s->aux[i];
			uint64_t cap = a >= PP_CAP_AUX_CONST ? a - PP_CAP_AUX_CONST
				       : a < s->nparams && is_int(s->kind[a]) ? as_u64(s->kind[a], s->aux[a], &v[a]) : 0;
			if (cap > (1u << 30))
				return damaged(r, "an out buffer of more than 1 GiB");
			bufs[i] = calloc(1, cap ? cap : 1);
			if (!bufs[i])
				return -1;
			v[i].p = bufs[i];
			slots[i] = (void *)(uintptr_t)cap; /* an out buffer's slot keeps its capacity */
		}
	union { ffi_arg a; ffi_sarg s; double d; float f; void *p; uint64_t u; } ret = { 0 };
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ffi_call(&f->cif, FFI_FN(f->addr), &ret, argp);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	f->calls++;
	if (f->timed) {
		if (f->nns == f->capns) {
			size_t n = f->capns ? f->capns * 2 : 256;
			uint64_t *g = realloc(f->ns, n * sizeof *g);
			if (!g)
				return -1;
			f->ns = g;
			f->capns = n;
		}
		f->ns[f->nns++] = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	}
	/* the return value */
	uint64_t rx = 0, rlen;
	int present;
	const uint8_t *rp;
	value_t rv = { .u64 = 0 };
	switch (s->ret) {
	case PP_CAP_SINT: case PP_CAP_UINT: {
		if (get_var(r, &rx) != 0)
			return -1;
		uint64_t got;
		if (s->ret == PP_CAP_SINT) {
			int64_t g = s->ret_aux == 1 ? (int8_t)ret.s : s->ret_aux == 2 ? (int16_t)ret.s
				    : s->ret_aux == 4 ? (int32_t)ret.s : (int64_t)ret.s;
			rv.i64 = g;
			got = (uint64_t)g;
			if (pp__cap_unzigzag(rx) != g)
				rc = diverge(r, f, "returned %lld, recorded %lld", (long long)g,
					     (long long)pp__cap_unzigzag(rx));
		} else {
			got = s->ret_aux == 8 ? (uint64_t)ret.a : (uint64_t)ret.a & ((1ull << (8 * s->ret_aux)) - 1);
			rv.u64 = got;
			if (got != rx)
				rc = diverge(r, f, "returned %llu, recorded %llu", (unsigned long long)got,
					     (unsigned long long)rx);
		}
		(void)got;
		break;
	}
	case PP_CAP_FLOAT: {
		if (get_var(r, &rx) != 0)
			return -1;
		double d = s->ret_aux == 4 ? (double)ret.f : ret.d, want;
		memcpy(&want, &rx, sizeof want);
		if (memcmp(&d, &want, sizeof d))
			rc = diverge(r, f, "returned %.17g, recorded %.17g", d, want);
		break;
	}
	case PP_CAP_STR:
		if (get_bytes(r, &present, &rp, &rlen) != 0)
			return -1;
		if (present != (ret.p != NULL) ||
		    (present && (strlen(ret.p) != rlen || memcmp(ret.p, rp, rlen))))
			rc = diverge(r, f, "returned \"%.60s\", recorded \"%.*s\"", ret.p ? (char *)ret.p : "(null)",
				     (int)(rlen > 60 ? 60 : rlen), present ? (const char *)rp : "(null)");
		break;
	case PP_CAP_HANDLE:
		if (get_var(r, &rx) != 0)
			return -1;
		rc = bind_handle(r, f, rx, ret.p, "returned handle");
		break;
	}
	/* out parameters */
	for (int i = 0; i < s->nparams && rc == 0; i++) {
		if (s->kind[i] == PP_CAP_HANDLE_OUT) {
			uint64_t id;
			if (get_var(r, &id) != 0)
				return -1;
			rc = bind_handle(r, f, id, v[i].p ? slots[i] : NULL, "out handle");
		} else if (s->kind[i] == PP_CAP_BUF_OUT) {
			if (get_bytes(r, &present, &rp, &rlen) != 0)
				return -1;
			uint64_t cap = (uint64_t)(uintptr_t)slots[i];
			uint32_t fl = s->filled[i];
			uint64_t n = fl == PP_CAP_AUX_RETURN ? rv.u64
				     : fl >= PP_CAP_AUX_CONST ? fl - PP_CAP_AUX_CONST
				     : fl < s->nparams && is_int(s->kind[fl]) ? as_u64(s->kind[fl], s->aux[fl], &v[fl]) : 0;
			if (n > cap)
				n = cap;
			if (present != (bufs[i] != NULL) || (present && (n != rlen || memcmp(bufs[i], rp, rlen))))
				rc = diverge(r, f, "parameter %d: %llu bytes written, %llu recorded%s", i + 1,
					     (unsigned long long)n, (unsigned long long)rlen,
					     n == rlen ? ", not the same bytes" : "");
		}
	}
	for (int i = 0; i < nfreed; i++)
		r->handles[freed[i]] = NULL;
	for (int i = 0; i < s->nparams; i++)
		free(bufs[i]);
	return rc;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *v, size_t n, double p)
{
	size_t k = (size_t)(p / 100 * (double)n + 0.999999);
	return n ? v[k ? k - 1 : 0] : 0;
}

static void print_table(FILE *o, rp_t *r, int json, const char *lib)
{
	uint64_t tcalls = 0, tns = 0;
	if (json)
		fprintf(o, "{\n  \"library\": \"%s\",\n  \"calls\": %llu,\n  \"divergences\": %llu,\n  \"functions\": [",
			lib, (unsigned long long)r->call, (unsigned long long)r->diverged);
	else
		fprintf(o, "%-32s %10s %14s %10s %10s %10s  (ns)\n", "function", "calls", "total", "mean", "p50",
			"p99");
	for (size_t i = 0; i < r->nfns; i++) {
		rfn_t *f = r->fns[i];
		uint64_t sum = 0;
		qsort(f->ns, f->nns, sizeof *f->ns, by_u64);
		for (size_t k = 0; k < f->nns; k++)
			sum += f->ns[k];
		if (f->timed) {
			tcalls += f->calls;
			tns += sum;
		}
		if (json) {
			fprintf(o, "%s\n    {\"function\": ", i ? "," : "");
			pp__report_json_str(o, f->name);
			fprintf(o, ", \"calls\": %llu", (unsigned long long)f->calls);
			if (f->timed)
				fprintf(o, ", \"total_ns\": %llu, \"mean_ns\": %llu, \"p50_ns\": %llu, \"p99_ns\": %llu",
					(unsigned long long)sum, (unsigned long long)(f->nns ? sum / f->nns : 0),
					(unsigned long long)pct(f->ns, f->nns, 50), (unsigned long long)pct(f->ns, f->nns, 99));
			fputc('}', o);
		} else if (f->timed) {
			fprintf(o, "%-32s %10llu %14llu %10llu %10llu %10llu\n", f->name, (unsigned long long)f->calls,
				(unsigned long long)sum, (unsigned long long)(f->nns ? sum / f->nns : 0),
				(unsigned long long)pct(f->ns, f->nns, 50), (unsigned long long)pct(f->ns, f->nns, 99));
		} else {
			fprintf(o, "%-32s %10llu %14s\n", f->name, (unsigned long long)f->calls, "(untimed)");
		}
	}
	if (json)
		fprintf(o, "\n  ],\n  \"total\": {\"calls\": %llu, \"total_ns\": %llu}\n}\n",
			(unsigned long long)tcalls, (unsigned long long)tns);
	else
		fprintf(o, "%-32s %10llu %14llu\n", "TOTAL", (unsigned long long)tcalls, (unsigned long long)tns);
}

static const char help_text[] =
	"usage: pathprof capture replay TRACE --lib LIBRARY.so [options]\n"
	"\n"
	"Make the calls a program made into a library, recorded in TRACE\n"
	"(PATHPROF_CAPTURE with a shim of 'pathprof capture gen'), again against\n"
	"LIBRARY, in the recorded order, and check every return value and out\n"
	"parameter against the recording. Prints, per function, its calls and\n"
	"(for the functions --time selects) the time of its calls: total, mean,\n"
	"p50, p99 in ns, and a TOTAL.\n"
	"\n"
	"options:\n"
	"  --lib FILE       the build of the library to call (dlopen)\n"
	"  --time GLOBS     the functions to time (default: all)\n"
	"  --repeat N       replay the whole trace N times (default 1)\n"
	"  --keep-going     count differences instead of stopping at the first\n"
	"  --format FMT     'text' (default) or 'json'\n"
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
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	const char *libpath = NULL, *times = "*", *outpath = NULL;
	uint64_t repeat = 1;
	int json = 0, keep = 0, c;
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
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				cli_error("capture replay: --format: '%s' is not 'text' or 'json'", optarg);
				return CLI_USAGE;
			}
			json = optarg[0] == 'j';
			break;
		case 'o': outpath = optarg; break;
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
	const char *path = argv[optind];
	pp__input_t in;
	if (pp__input_open(&in, path, PP_CAP_MAGIC, 8, err, sizeof err) != 0) {
		cli_error("capture replay: %s", err);
		return CLI_FAIL;
	}
	void *lib = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		cli_error("capture replay: %s", dlerror());
		pp__input_close(&in);
		return CLI_FAIL;
	}
	rp_t r = { .path = path, .b = in.data, .n = in.size, .keep_going = keep };
	int status = CLI_OK, ended = 0;
	for (uint64_t pass = 0; pass < repeat && status == CLI_OK; pass++) {
		r.pos = 8;
		r.call = 0;
		ended = 0;
		for (size_t i = 0; i < r.nhandles; i++)
			r.handles[i] = NULL;
		while (r.pos < r.n && !ended) {
			uint8_t type = r.b[r.pos++];
			uint64_t seq, fn, calls;
			if (type == PP_CAP_FUNC) {
				if (read_func(&r, lib, times, pass > 0) != 0)
					break;
			} else if (type == PP_CAP_CALL) {
				if (get_var(&r, &seq) != 0 || get_var(&r, &r.tid) != 0 || get_var(&r, &fn) != 0)
					break;
				if (fn == 0 || fn > r.nfns) {
					damaged(&r, "a call of a function not declared before it");
					break;
				}
				r.call++;
				if (replay_call(&r, r.fns[fn - 1]) != 0) {
					if (!r.bad) {
						status = 3;
						goto out;
					}
					break;
				}
			} else if (type == PP_CAP_END) {
				if (get_var(&r, &calls) != 0)
					break;
				if (calls != r.call) {
					damaged(&r, "the END record counts other calls than the trace holds");
					break;
				}
				ended = 1;
			} else {
				r.pos--;
				damaged(&r, "an unknown record type");
				break;
			}
		}
		if (r.bad == 1 && strstr(r.why, "past the end")) {
			cli_error("capture replay: %s: cut inside the record after call %llu (the program "
				  "did not finish writing it); the calls before it were replayed", path,
				  (unsigned long long)r.call);
			status = CLI_FAIL;
		} else if (r.bad) {
			cli_error("capture replay: %s (%llu calls replayed)", r.why, (unsigned long long)r.call);
			status = CLI_FAIL;
		} else if (!ended) {
			cli_error("capture replay: %s: cut after call %llu (no END record: the program did not "
				  "exit normally); the calls before it were replayed", path,
				  (unsigned long long)r.call);
			status = CLI_FAIL;
		}
	}
out:;
	FILE *o = cli_output_open(outpath);
	if (o) {
		print_table(o, &r, json, libpath);
		int rc = cli_output_close(o, outpath);
		if (status == CLI_OK)
			status = rc;
	}
	if (status == CLI_OK && r.diverged)
		status = 3;
	for (size_t i = 0; i < r.nfns; i++) {
		free(r.fns[i]->ns);
		free(r.fns[i]);
	}
	free(r.fns);
	free(r.handles);
	pp__input_close(&in);
	return status;
}
