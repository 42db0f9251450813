/* What `pathprof capture replay` keeps (replay.c), shared with its table
 * (replay_table.c). */
#ifndef PP_CAPTURE_REPLAY_H
#define PP_CAPTURE_REPLAY_H

#include <ffi.h>
#include <pthread.h>
#include <stdio.h>

#include "capture_trace.h"
#include "input.h"

struct rp;
struct rfn;

/* A callback parameter's stand-in: a libffi closure that checks each
 * invocation the library makes against the recording and returns what the
 * program's function returned (replay.c, on_callback). */
typedef struct cbk {
	struct rp *r;
	struct rfn *f;
	int param;
	ffi_cif cif;
	ffi_type *types[PP_CAP_MAX_PARAMS];
	ffi_closure *closure;
	void *code;
} cbk_t;

typedef struct rfn {
	const pp__cap_fn_t *f;
	void *addr;
	ffi_cif cif;
	ffi_type *types[PP_CAP_MAX_PARAMS];
	int timed;
	uint64_t calls, *ns;
	size_t nns, capns;
	void *len_addr; /* PP_CAP_BUF_RET: the length's function */
	ffi_cif len_cif;
	cbk_t *cb[PP_CAP_MAX_PARAMS];
} rfn_t;

typedef union value {
	int8_t i8; int16_t i16; int32_t i32; int64_t i64;
	uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
	float f; double d; void *p;
} value_t;

typedef struct rp {
	/* (struct rp: cbk_t points back) */
	pp__cap_reader_t rd;
	rfn_t **fns; /* each its own allocation: a cif points into its rfn_t */
	size_t nf;   /* of them */
	uint64_t replayed;
	void **handles; /* id -> this run's pointer; NULL: none live */
	size_t nhandles;
	uint64_t diverged;
	int keep_going;
	char why[512]; /* a replay that cannot go on (not a difference) */
	/* threads: one replay thread per recorded thread; the handles, the
	 * times and the messages are shared under lock, and a thread that
	 * needs a handle another has yet to create waits for it */
	int threaded, stop;
	int running, waiting;
	pthread_mutex_t lock;
	pthread_cond_t bound;
} rp_t;

/* The call a replay thread is making, for the callbacks' stand-ins
 * (replay_callback.c): where its next recorded invocation is, how many
 * were made, a difference found inside one (pp__cap_diverge's result). */
typedef struct cur {
	rp_t *r;
	const pp__cap_rec_t *c;
	const char *fn;
	size_t pos;
	uint64_t made;
	int status;
} cur_t;
extern __thread cur_t *pp__cap_cur;

/* The function the reader just declared: its symbol in lib, its cif,
 * whether --time selects it (replay.c). 0, or -1 (why). */
int pp__cap_add_func(rp_t *r, void *lib, const char *times);
/* Call c of f made again and checked: 0, 3 at a difference (unless
 * --keep-going), -1 when the replay cannot go on (why). */
int pp__cap_replay_call(rp_t *r, rfn_t *f, const pp__cap_rec_t *c);
/* libffi's type for a kind of the given size (replay.c). */
ffi_type *pp__cap_ffi_of(int kind, uint32_t size);
/* Say a difference of call c (one line), count it; 3, or 0 under
 * --keep-going (replay.c). */
int pp__cap_diverge(rp_t *r, const pp__cap_rec_t *c, const char *fn, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A C string against a recorded one (NULL for absent). */
int pp__cap_same_str(const char *got, const pp__cap_val_t *want);
/* The integer of kind and size at p, as the trace records it (a signed
 * one sign-extended). */
uint64_t pp__cap_int_at(const void *p, int kind, uint32_t size);
/* The value of kind and size at arg (a scalar, a string, a string array)
 * against its recording: 0 when equal (replay_callback.c). */
int pp__cap_arg_differs(int kind, uint32_t size, const void *arg, const pp__cap_val_t *want);
/* f's callback parameter param: its stand-in closure. 0, or -1 (why). */
int pp__cap_add_callback(rp_t *r, rfn_t *f, int param);

/* Where a call's record starts, its thread, and its place in the trace. */
typedef struct call_at {
	size_t pos;
	uint64_t tid;
	size_t order;
} call_at_t;

/* A trace loaded for replay against one library (replay.c). */
typedef struct pp__cap_replay {
	rp_t r;
	pp__input_t in;
	void *lib;
	call_at_t *ats;
	size_t nats;
	int opened, loaded;
	char end_msg[700]; /* a damaged or cut end, said after the calls */
} pp__cap_replay_t;

/* Open path and lib, resolve the trace's functions and index its calls
 * (--time, --keep-going, --serial as the command's; deepbind: the library
 * resolves its own symbols first, so a cyg build's hooks are its own and
 * not the C library's empty ones); a pass replays every call once. CLI_OK, CLI_FAIL (said), 3 at a difference. */
int pp__cap_replay_load(pp__cap_replay_t *x, const char *path, const char *libpath, const char *times,
			int keep, int serial, int deepbind);
int pp__cap_replay_pass(pp__cap_replay_t *x);
void pp__cap_replay_free(pp__cap_replay_t *x);

/* The per-function table and TOTAL, text or JSON, of the first nfns
 * functions. */
void pp__cap_print_table(FILE *o, rp_t *r, size_t nfns, int json, const char *lib);

#endif
