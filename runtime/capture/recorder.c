/* The API capture's recorder (libpathprof-capture): the shims that
 * `pathprof capture gen` writes call it to record each call into a C
 * library, one record per call, into the file PATHPROF_CAPTURE names ("%p":
 * the pid). A call's record is built in its thread's own buffer and written
 * whole under one lock, so records never interleave and each thread's calls
 * keep their order; the file is written through a 64 KiB buffer flushed when
 * full and at exit, where an END record marks the trace complete. Handles
 * (pointers to a library's opaque structs) are recorded as ids: a pointer
 * the library hands out gets the next id, a call the spec marks as freeing
 * one ends it, and an address the library hands out again afterwards is a
 * new id. The format: format/capture_format.h. Unset, nothing here runs. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture_format.h"
#include "file_kind.h"

int pp_capture_on;

struct pp_cap_call {
	pp_cap_sig_t *sig;
	uint8_t *buf;
	size_t len, cap;
	const void *freed; /* a handle this call ends */
	int failed;        /* out of memory: the record is dropped, counted */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;
static uint8_t out[1 << 16];
static size_t out_len;
static uint64_t seq, dropped;
static int nfuncs;
static __thread pp_cap_call_t call;
/* a call of this thread is being recorded: calls made inside it (the
 * library calling its own API through the shim, a callback calling it)
 * are forwarded unrecorded */
static __thread int inside;
/* the thread's kernel id, read once (a system call on every record cost
 * more than the rest of it); a forked child's one thread reads its own */
static __thread uint64_t tid;

static void tid_after_fork(void)
{
	tid = 0;
}
/* frees a thread's record buffer when the thread ends */
static pthread_key_t buf_key;
static pthread_once_t buf_once = PTHREAD_ONCE_INIT;

static void buf_free(void *b)
{
	free(b);
}

static void buf_key_make(void)
{
	pthread_key_create(&buf_key, buf_free);
}

/* ---- handles: address -> id, open addressing, under `lock` ---- */
struct slot {
	const void *ptr;
	uint64_t id;
};
static struct slot *slots;
static size_t nslots, used; /* used counts tombstones too */
static uint64_t next_id = 1;
#define TOMB ((const void *)1)

static size_t slot_of(const void *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 20) & (nslots - 1);
}

static struct slot *find(const void *p)
{
	if (!nslots)
		return NULL;
	for (size_t i = slot_of(p), n = 0; n < nslots; i = (i + 1) & (nslots - 1), n++) {
		if (slots[i].ptr == p)
			return &slots[i];
		if (!slots[i].ptr)
			return NULL;
	}
	return NULL;
}

static int grow(void)
{
	size_t n = nslots ? nslots * 2 : 1024;
	struct slot *s = calloc(n, sizeof *s), *old = slots;
	if (!s)
		return -1;
	size_t oldn = nslots;
	slots = s;
	nslots = n;
	used = 0;
	for (size_t i = 0; i < oldn; i++)
		if (old[i].ptr && old[i].ptr != TOMB) {
			size_t j = slot_of(old[i].ptr);
			while (slots[j].ptr)
				j = (j + 1) & (nslots - 1);
			slots[j] = old[i];
			used++;
		}
	free(old);
	return 0;
}

/* The id of p: its live one, or (new) the next one. 0 for NULL. */
static uint64_t id_of(const void *p)
{
	if (!p)
		return 0;
	struct slot *s = find(p);
	if (s)
		return s->id;
	if ((used + 1) * 2 > nslots && grow() != 0)
		return 0;
	size_t i = slot_of(p);
	while (slots[i].ptr && slots[i].ptr != TOMB)
		i = (i + 1) & (nslots - 1);
	if (!slots[i].ptr)
		used++;
	slots[i] = (struct slot){ p, next_id };
	return next_id++;
}

static void end_of(const void *p)
{
	struct slot *s = p ? find(p) : NULL;
	if (s)
		s->ptr = TOMB;
}

/* ---- the file ---- */
static void flush_out(void)
{
	size_t off = 0;
	while (fd >= 0 && off < out_len) {
		ssize_t w = write(fd, out + off, out_len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			fprintf(stderr, "pathprof: capture: writing the trace failed (%s); recording stops\n",
				strerror(errno));
			close(fd);
			fd = -1;
			pp_capture_on = 0;
			break;
		}
		off += (size_t)w;
	}
	out_len = 0;
}

static void emit(const uint8_t *p, size_t n)
{
	while (n) {
		if (out_len == sizeof out)
			flush_out();
		size_t k = sizeof out - out_len < n ? sizeof out - out_len : n;
		memcpy(out + out_len, p, k);
		out_len += k;
		p += k;
		n -= k;
	}
}

static void emit_str(const char *s)
{
	uint8_t b[10];
	size_t n = strlen(s);
	emit(b, (size_t)(pp__cap_put_var(b, n) - b));
	emit((const uint8_t *)s, n);
}

/* A signature's kinds: return kind and size, then each parameter's kind,
 * aux and filled, a callback's own signature after its parameter. */
static void emit_kinds(const pp_cap_sig_t *sig)
{
	uint8_t b[16 + 3 * 11 * PP_CAP_MAX_PARAMS], *p = b;
	*p++ = sig->ret;
	*p++ = sig->ret_aux;
	p = pp__cap_put_var(p, sig->nparams);
	emit(b, (size_t)(p - b));
	for (int i = 0; i < sig->nparams; i++) {
		p = b;
		*p++ = sig->kind[i];
		p = pp__cap_put_var(p, sig->aux[i]);
		p = pp__cap_put_var(p, sig->filled[i]);
		emit(b, (size_t)(p - b));
		if (sig->kind[i] == PP_CAP_CALLBACK)
			emit_kinds(sig->cb[i]);
	}
	if (sig->ret == PP_CAP_BUF_RET) {
		emit_str(sig->len_fn);
		uint8_t k[2] = { sig->len_kind, sig->len_size };
		emit(k, 2);
	}
}

/* The signature, before the function's first call. Under `lock`. */
static void emit_func(pp_cap_sig_t *sig)
{
	uint8_t b[16], *p = b;
	sig->fn = ++nfuncs;
	*p++ = PP_CAP_FUNC;
	p = pp__cap_put_var(p, (uint64_t)sig->fn);
	emit(b, (size_t)(p - b));
	emit_str(sig->name);
	emit_kinds(sig);
}

static void at_exit(void)
{
	pthread_mutex_lock(&lock);
	if (fd >= 0) {
		uint8_t b[12], *p = b;
		*p++ = PP_CAP_END;
		p = pp__cap_put_var(p, seq);
		emit(b, (size_t)(p - b));
		flush_out();
		close(fd);
		fd = -1;
		if (dropped)
			fprintf(stderr, "pathprof: capture: %llu calls not recorded (out of memory)\n",
				(unsigned long long)dropped);
	}
	pp_capture_on = 0;
	pthread_mutex_unlock(&lock);
}

/* Open the capture file at path, emptied, unless it is a regular file that
 * holds something else (the program, a source file, a profile): that one
 * is left as it was and path becomes NAME.1, NAME.2, ... (one line says
 * so), as the runtime does with its profile and trace. */
static int open_capture(char *path, size_t size)
{
	char want[4096];
	snprintf(want, sizeof want, "%s", path);
	for (unsigned k = 0; k < 1000; k++) {
		if (k)
			snprintf(path, size, "%.4080s.%u", want, k);
		int f = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (f < 0)
			return -1;
		/* read through a name of its own: this one may be write-only */
		enum pp__file_kind kind = pp__file_kind(path);
		if (kind != PP__FILE_NONE && kind != PP__FILE_CAPTURE) {
			close(f);
			continue;
		}
		if (kind == PP__FILE_CAPTURE && ftruncate(f, 0) != 0) {
			int e = errno;
			close(f);
			errno = e;
			return -1;
		}
		if (k)
			fprintf(stderr, "pathprof: capture: %s is not a pathprof capture, and is left as it "
				"was; recording to %s\n", want, path);
		return f;
	}
	errno = EEXIST;
	return -1;
}

__attribute__((constructor)) static void start(void)
{
	const char *f = getenv("PATHPROF_CAPTURE");
	if (!f || !*f)
		return;
	char path[4096];
	size_t n = 0;
	for (const char *s = f; *s && n + 24 < sizeof path; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			n += (size_t)snprintf(path + n, sizeof path - n, "%d", (int)getpid());
			s++;
		} else {
			path[n++] = *s;
		}
	}
	path[n] = 0;
	fd = open_capture(path, sizeof path);
	if (fd < 0) {
		fprintf(stderr, "pathprof: capture: cannot write %s: %s; not recording\n", path,
			strerror(errno));
		return;
	}
	emit((const uint8_t *)PP_CAP_MAGIC, 8);
	pthread_atfork(NULL, NULL, tid_after_fork);
	atexit(at_exit);
	pp_capture_on = 1;
}

void *pp_cap_resolve(void *f, const char *name)
{
	if (!f) {
		fprintf(stderr, "pathprof: capture: no function %s after the shim (is the library "
			"loaded, and the shim preloaded before it?)\n", name);
		_exit(127);
	}
	return f;
}

/* ---- building one call's record ---- */
static void room(pp_cap_call_t *c, size_t n)
{
	if (c->len + n <= c->cap || c->failed)
		return;
	size_t cap = c->cap ? c->cap : 256;
	while (cap < c->len + n)
		cap *= 2;
	uint8_t *b = realloc(c->buf, cap);
	if (!b) {
		c->failed = 1;
		return;
	}
	if (!c->buf) {
		pthread_once(&buf_once, buf_key_make);
		pthread_setspecific(buf_key, b);
	} else if (b != c->buf) {
		pthread_setspecific(buf_key, b);
	}
	c->buf = b;
	c->cap = cap;
}

static void put_var(pp_cap_call_t *c, uint64_t v)
{
	room(c, 10);
	if (!c->failed)
		c->len = (size_t)(pp__cap_put_var(c->buf + c->len, v) - c->buf);
}

static void put_bytes(pp_cap_call_t *c, const void *p, size_t n)
{
	put_var(c, n);
	room(c, n);
	if (!c->failed && n) {
		memcpy(c->buf + c->len, p, n);
		c->len += n;
	}
}

pp_cap_call_t *pp_cap_begin(pp_cap_sig_t *sig)
{
	if (inside)
		return NULL;
	inside = 1;
	pp_cap_call_t *c = &call;
	c->sig = sig;
	c->len = 0;
	c->freed = NULL;
	c->failed = 0;
	return c;
}

void pp_cap_sint(pp_cap_call_t *c, int64_t v) { put_var(c, pp__cap_zigzag(v)); }
void pp_cap_uint(pp_cap_call_t *c, uint64_t v) { put_var(c, v); }

void pp_cap_float(pp_cap_call_t *c, double v, int size)
{
	uint64_t bits;
	(void)size; /* a float is recorded as the double it converts to exactly */
	memcpy(&bits, &v, sizeof bits);
	put_var(c, bits);
}

void pp_cap_present(pp_cap_call_t *c, const void *p)
{
	room(c, 1);
	if (!c->failed)
		c->buf[c->len++] = p != NULL;
}

void pp_cap_str(pp_cap_call_t *c, const char *s)
{
	pp_cap_present(c, s);
	if (s)
		put_bytes(c, s, strlen(s));
}

void pp_cap_buf(pp_cap_call_t *c, const void *p, size_t n)
{
	pp_cap_present(c, p);
	if (p)
		put_bytes(c, p, n);
}

void pp_cap_handle(pp_cap_call_t *c, const void *h)
{
	pthread_mutex_lock(&lock);
	uint64_t id = id_of(h);
	pthread_mutex_unlock(&lock);
	put_var(c, id);
}

void pp_cap_new_handle(pp_cap_call_t *c, const void *h)
{
	pp_cap_handle(c, h);
}

void pp_cap_free(pp_cap_call_t *c, const void *h)
{
	pp_cap_handle(c, h);
	c->freed = h;
}

void pp_cap_invoke(pp_cap_call_t *c, int param)
{
	put_var(c, (uint64_t)param + 1);
}

void pp_cap_invoked(pp_cap_call_t *c)
{
	put_var(c, 0);
}

void pp_cap_strv(pp_cap_call_t *c, char *const *v, int64_t n)
{
	pp_cap_present(c, v);
	if (!v)
		return;
	if (n < 0)
		n = 0;
	put_var(c, (uint64_t)n);
	for (int64_t i = 0; i < n; i++)
		pp_cap_str(c, v[i]);
}

void pp_cap_tail(pp_cap_call_t *c, const char *base, const char *at)
{
	put_var(c, at && base && at >= base ? (uint64_t)(at - base) + 1 : 0);
}

void pp_cap_end(pp_cap_call_t *c)
{
	uint8_t b[40], *p = b;
	inside = 0;
	pthread_mutex_lock(&lock);
	if (c->freed)
		end_of(c->freed);
	if (fd < 0 || c->failed) {
		dropped += c->failed;
		pthread_mutex_unlock(&lock);
		return;
	}
	if (!c->sig->fn)
		emit_func(c->sig);
	*p++ = PP_CAP_CALL;
	p = pp__cap_put_var(p, ++seq);
	if (!tid)
		tid = (uint64_t)syscall(SYS_gettid);
	p = pp__cap_put_var(p, tid);
	p = pp__cap_put_var(p, (uint64_t)c->sig->fn);
	emit(b, (size_t)(p - b));
	emit(c->buf, c->len);
	pthread_mutex_unlock(&lock);
}
