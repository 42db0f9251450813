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
	PP_CAP_BUF_IN = 7,      /* elements the callee reads; aux: how many */
	PP_CAP_BUF_OUT = 8,     /* elements the callee writes; aux: the capacity,
				 * filled: how many it wrote */
	PP_CAP_HANDLE_FREE = 9, /* a handle the call ends (spec: free) */
	PP_CAP_OPAQUE = 10,     /* a pointer the library passes on untouched (a
				 * callback's user data; spec: opaque): NULL or not */
	PP_CAP_CALLBACK = 11,   /* a function the library calls during the call
				 * (spec: callback): its invocations, with their
				 * arguments and returns; cb[i] is its signature */
	PP_CAP_STRV = 12,       /* char **: aux strings (aux: the count's
				 * parameter), each possibly NULL (spec: strings) */
	PP_CAP_STR_OUT = 13,    /* char **: the string the call writes there
				 * (spec: outstr) */
	PP_CAP_TAIL_OUT = 14,   /* const char **: set to a point in the string
				 * parameter aux (spec: tail) */
	PP_CAP_BUF_RET = 15,    /* return only: bytes whose length the function
				 * len_fn returns for the same arguments (spec:
				 * retbuf) */
	PP_CAP_REF = 16,        /* a pointer to one integer or float the callee
				 * reads and may write (a size_t *len; spec:
				 * ref); aux: its size, filled: its kind
				 * (PP_CAP_SINT, UINT or FLOAT): NULL or its
				 * value before the call, and again after it */
	PP_CAP_BUF_INOUT = 17,  /* elements the callee reads and may change in
				 * place (spec: inout); aux: how many: their
				 * bytes before the call and after it */
};
/* A buffer's kind byte (PP_CAP_BUF_IN, OUT, INOUT) carries in bits 5-7
 * the log2 of its element's size: its lengths count elements of the type
 * it points to (bytes for void and char); the trace holds their bytes. */
#define PP_CAP_KIND_BITS 5u
#define PP_CAP_KIND(k) ((unsigned)(k) & ((1u << PP_CAP_KIND_BITS) - 1u))
#define PP_CAP_ELEM_SHIFT(k) ((unsigned)(k) >> PP_CAP_KIND_BITS)
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
	/* a callback parameter's signature (NULL for the others); a
	 * callback's own parameters are scalars, strings, string arrays,
	 * handles and opaque pointers */
	const struct pp_cap_sig *cb[PP_CAP_MAX_PARAMS];
	const char *len_fn; /* ret PP_CAP_BUF_RET: the length's function, */
	uint8_t len_kind, len_size; /* its integer kind and size */
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
 * order (after it), end. A signature with callbacks puts their
 * invocations between the parameters and the return value: each opened by
 * pp_cap_invoke (the callback's parameter), its arguments and its return
 * value in the callback's own kinds; pp_cap_invoked closes the list.
 * begin returns NULL for a call made inside a call being recorded (the
 * library calling its own API, a callback calling it): the shim then only
 * forwards it. */
pp_cap_call_t *pp_cap_begin(pp_cap_sig_t *sig);
void pp_cap_invoke(pp_cap_call_t *c, int param);
void pp_cap_invoked(pp_cap_call_t *c);
void pp_cap_strv(pp_cap_call_t *c, char *const *v, int64_t n);
void pp_cap_tail(pp_cap_call_t *c, const char *base, const char *at);
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
