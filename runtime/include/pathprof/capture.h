/* The API capture's side in the program (libpathprof-capture,
 * docs/guides/capture.md): what the shims `pathprof capture gen` writes
 * call. A shim forwards every call to the library; when PATHPROF_CAPTURE
 * names a file it also records the call's arguments, return value and out
 * parameters, by the kinds its signature gives, for `pathprof capture
 * replay`. Unset, a call costs the test of pp_capture_on. */
#ifndef PATHPROF_CAPTURE_H
#define PATHPROF_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PP_CAP_MAX_PARAMS 16

/* What a parameter or return value is, and so how it is recorded. */
enum pp_cap_kind {
	PP_CAP_VOID = 0,        /* return only */
	PP_CAP_SINT = 1,        /* signed integer or enum; aux: its size in bytes */
	PP_CAP_UINT = 2,        /* unsigned integer; aux: its size */
	PP_CAP_FLOAT = 3,       /* float or double; aux: its size */
	PP_CAP_STR = 4,         /* const char *: the bytes up to its NUL */
	PP_CAP_HANDLE = 5,      /* pointer to an incomplete struct: an id */
	PP_CAP_HANDLE_OUT = 6,  /* T ** for such a T: the id of what the call wrote */
	PP_CAP_BUF_IN = 7,      /* bytes the callee reads; aux: their length */
	PP_CAP_BUF_OUT = 8,     /* bytes the callee writes; aux: the capacity,
				 * filled: how many it wrote */
	PP_CAP_HANDLE_FREE = 9, /* a handle the call ends (spec: free) */
};
/* aux and filled name a parameter by index, or: */
#define PP_CAP_AUX_RETURN 0xffffu  /* the return value */
#define PP_CAP_AUX_CONST 0x10000u  /* + n: the constant n */

/* One function's signature, as the shim and the trace carry it. */
typedef struct pp_cap_sig {
	const char *name;
	uint8_t ret, ret_aux; /* kind and size of the return value */
	uint8_t nparams;
	uint8_t kind[PP_CAP_MAX_PARAMS];
	uint32_t aux[PP_CAP_MAX_PARAMS];
	uint32_t filled[PP_CAP_MAX_PARAMS];
	int fn; /* the recorder's index, 0 until its first call */
} pp_cap_sig_t;

/* 1 while recording (PATHPROF_CAPTURE was set at start-up). */
extern int pp_capture_on;

typedef struct pp_cap_call pp_cap_call_t;

/* f, the library's own definition of name that the shim found with
 * dlsym(RTLD_NEXT) (which must be called from the shim itself: it searches
 * after its caller); exits with one line when there is none, rather than
 * calling NULL. */
void *pp_cap_resolve(void *f, const char *name);

/* A call being recorded, in this thread: begin, one value per parameter
 * in order (before the call), the return value, one per out parameter in
 * order (after it), end. */
pp_cap_call_t *pp_cap_begin(pp_cap_sig_t *sig);
void pp_cap_sint(pp_cap_call_t *c, int64_t v);
void pp_cap_uint(pp_cap_call_t *c, uint64_t v);
void pp_cap_float(pp_cap_call_t *c, double v, int size);
void pp_cap_str(pp_cap_call_t *c, const char *s);
void pp_cap_handle(pp_cap_call_t *c, const void *h);
void pp_cap_new_handle(pp_cap_call_t *c, const void *h);
void pp_cap_free(pp_cap_call_t *c, const void *h);
void pp_cap_present(pp_cap_call_t *c, const void *p);
void pp_cap_buf(pp_cap_call_t *c, const void *p, size_t n);
void pp_cap_end(pp_cap_call_t *c);

#ifdef __cplusplus
}
#endif
#endif
