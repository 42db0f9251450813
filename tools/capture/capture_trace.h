/* Reading a capture trace (format/capture_format.h) record by record,
 * every field checked against the bytes there are: the signatures of the
 * FUNC records, and each CALL decoded into its values by the kinds of its
 * function's signature. Replay executes the calls, show prints them, the
 * fuzz target only reads; none of them parses the bytes itself. */
#ifndef PP_CAPTURE_TRACE_H
#define PP_CAPTURE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "capture_format.h"

/* One recorded value: an integer (a signed one as its int64 bits), a
 * float's bits, a handle's id, a tail's offset + 1, or a string's or
 * buffer's bytes (in the trace) with present 0 for NULL. A string array:
 * u strings, encoded at bytes (len bytes; pp__cap_strv_next reads them). */
typedef struct pp__cap_val {
	int present;
	uint64_t u;
	const uint8_t *bytes;
	uint64_t len;
} pp__cap_val_t;

typedef struct pp__cap_rec {
	uint64_t seq, tid, fn;                /* fn: 1-based index of its signature */
	pp__cap_val_t in[PP_CAP_MAX_PARAMS];  /* each parameter before the call */
	pp__cap_val_t ret;
	pp__cap_val_t out[PP_CAP_MAX_PARAMS]; /* out handles, buffers, strings, tails after it */
	size_t inv_pos;                       /* where its callbacks' invocations start */
	uint64_t ninv;                        /* ... and how many there are */
} pp__cap_rec_t;

/* One invocation of a callback during a call: which parameter, its
 * arguments and return value in the callback's kinds. */
typedef struct pp__cap_inv {
	int param;
	pp__cap_val_t a[PP_CAP_MAX_PARAMS];
	pp__cap_val_t ret;
} pp__cap_inv_t;

typedef struct pp__cap_fn {
	pp_cap_sig_t sig;
	char name[PP_CAP_NAME_MAX];
	pp_cap_sig_t cbs[PP_CAP_MAX_PARAMS]; /* sig.cb[i] points here */
	char len_fn[PP_CAP_NAME_MAX];
	/* a buffer's element size, log2 (bits 5-7 of its kind byte in the
	 * trace; sig.kind holds the kind alone) */
	uint8_t elem_shift[PP_CAP_MAX_PARAMS];
} pp__cap_fn_t;

typedef struct pp__cap_reader {
	const char *path;
	const uint8_t *b;
	size_t n, pos;
	pp__cap_fn_t **fns; /* each its own allocation: callers keep pointers */
	size_t nfns, seen; /* seen: FUNC records read in this pass */
	uint64_t calls;
	int ended;
	char why[512]; /* set when pp__cap_next returns -1 */
	int cut;       /* ... and the trace ends inside a record */
} pp__cap_reader_t;

/* Start reading the n bytes of path at b (after the magic, which the
 * caller checked); rewind does the same for another pass. */
void pp__cap_open(pp__cap_reader_t *r, const char *path, const uint8_t *b, size_t n);
void pp__cap_rewind(pp__cap_reader_t *r);
void pp__cap_close(pp__cap_reader_t *r);

/* The next record: PP_CAP_FUNC (r->fns grew by one on the first pass),
 * PP_CAP_CALL (rec filled), PP_CAP_END, 0 at the end of the bytes, or -1
 * with why set. */
int pp__cap_next(pp__cap_reader_t *r, pp__cap_rec_t *rec);

/* Does parameter i of a call of s (its values before the call in rec)
 * have a value after the call too: an out handle, buffer, string or tail
 * (a string or tail only when a place for it was passed), a ref, an inout
 * buffer. */
int pp__cap_has_out(const pp_cap_sig_t *s, int i, const pp__cap_rec_t *rec);

/* The invocation at *pos of a call of s (read and checked by pp__cap_next
 * already): 1 and *pos moved past it, 0 at the end of the call's list. */
int pp__cap_next_inv(const pp__cap_reader_t *r, const pp_cap_sig_t *s, size_t *pos, pp__cap_inv_t *inv);

/* The next string of an array's encoding at *p (checked when read): its
 * presence, bytes and length. */
void pp__cap_strv_next(const uint8_t **p, pp__cap_val_t *v);

#endif
