/* The trace reader: loads a trace file, keeps every chunk whose length and
 * checksum hold, and records each stretch of bytes it had to skip (a cut tail,
 * a flipped byte) with its offset, resynchronising on the next chunk that
 * checks out. Every size is validated before use: the bytes are untrusted. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input.h"
#include "trace_read.h"
#include "crc32.h"
#include "file_kind.h"

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

static int get_var(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	uint64_t r = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (p >= end)
			return -1;
		uint8_t b = *p++;
		if (shift == 63 && b > 1)
			return -1;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			*pp = p;
			return 0;
		}
	}
	return -1;
}

static int get_str(const uint8_t **pp, const uint8_t *end, char **out)
{
	uint64_t n;
	if (get_var(pp, end, &n) != 0 || n > (uint64_t)(end - *pp))
		return -1;
	char *s = malloc(n + 1);
	if (!s)
		return -1;
	memcpy(s, *pp, n);
	s[n] = '\0';
	*pp += n;
	*out = s;
	return 0;
}

static uint64_t unzigzag(uint64_t v)
{
	return (v >> 1) ^ (0 - (v & 1));
}

void pp__trace_cursor(pp_trace_cursor_t *c, const pp_trace_chunk_t *ch)
{
	c->p = ch->data;
	c->end = ch->data + ch->len;
	c->key = c->ticks = 0;
}

int pp__trace_next(pp_trace_cursor_t *c, pp_trace_ev_t *ev)
{
	if (c->p >= c->end)
		return 0;
	memset(ev, 0, sizeof *ev);
	ev->op = *c->p++;
	uint64_t v;
	switch (ev->op) {
	case PP_EV_ENTER:
	case PP_EV_ENTER_T:
		if (get_var(&c->p, c->end, &v) != 0)
			return -1;
		c->key += unzigzag(v);
		ev->key = c->key;
		if (ev->op == PP_EV_ENTER)
			return 1;
		__attribute__((fallthrough)); /* the tick delta follows */
	case PP_EV_LEAVE_T:
		if (get_var(&c->p, c->end, &v) != 0)
			return -1;
		c->ticks += unzigzag(v);
		ev->ticks = c->ticks;
		return 1;
	case PP_EV_LEAVE:
	case PP_EV_ROOT:
	case PP_EV_RESET:
		return 1;
	case PP_EV_START:
		for (int i = 0; i < 4; i++)
			if (get_var(&c->p, c->end, &ev->a[i]) != 0)
				return -1;
		return 1;
	case PP_EV_END:
		return get_var(&c->p, c->end, &ev->a[0]) == 0 ? 1 : -1;
	default:
		return -1;
	}
}

static void *grow(void *arr, uint32_t *cap, uint32_t n, size_t size)
{
	if (n < *cap)
		return arr;
	uint32_t c = *cap ? *cap * 2 : 16;
	void *m = realloc(arr, (size_t)c * size);
	if (m)
		*cap = c;
	return m;
}

static int damage(pp_trace_t *tr, uint64_t off, uint64_t len, const char *what)
{
	pp_trace_damage_t *d = grow(tr->damage, &tr->cap_damage, tr->ndamage, sizeof *d);
	if (!d)
		return -1;
	tr->damage = d;
	d += tr->ndamage++;
	d->offset = off;
	d->length = len;
	snprintf(d->what, sizeof d->what, "%s", what);
	tr->bytes_lost += len;
	return 0;
}

static pp_trace_thread_t *thread_of(pp_trace_t *tr, uint64_t stream)
{
	for (uint32_t i = 0; i < tr->nthreads; i++)
		if (tr->threads[i].stream == stream)
			return &tr->threads[i];
	pp_trace_thread_t *t = grow(tr->threads, &tr->cap_threads, tr->nthreads, sizeof *t);
	if (!t)
		return NULL;
	tr->threads = t;
	t += tr->nthreads++;
	memset(t, 0, sizeof *t);
	t->stream = stream;
	return t;
}

/* Process records (stream 0) are decoded as they are met, so the last META
 * wins and names accumulate. */
static int process_chunk(pp_trace_t *tr, const uint8_t *p, const uint8_t *end,
			 uint64_t *close_deficit)
{
	while (p < end) {
		uint8_t op = *p++;
		uint64_t v[8];
		if (op == PP_EV_CONFIG) {
			for (int i = 0; i < 4; i++)
				if (get_var(&p, end, &v[i]) != 0)
					return -1;
			if (tr->has_config && v[0] != tr->pid && !tr->other_pid)
				tr->other_pid = v[0];
			tr->has_config = 1;
			tr->pid = v[0];
			tr->start_ns = v[1];
			tr->depth = v[2];
			tr->paths = v[3];
		} else if (op == PP_EV_NAME) {
			for (int i = 0; i < 3; i++)
				if (get_var(&p, end, &v[i]) != 0)
					return -1;
			pp_trace_name_t *n = grow(tr->names, &tr->cap_names, tr->nnames, sizeof *n);
			if (!n)
				return -1;
			tr->names = n;
			n += tr->nnames;
			memset(n, 0, sizeof *n);
			if (v[1] > 255 || v[2] > UINT32_MAX || get_str(&p, end, &n->name) != 0 ||
			    get_str(&p, end, &n->file) != 0) {
				free(n->name);
				return -1;
			}
			n->key = v[0];
			n->fe = (uint32_t)v[1];
			n->line = (uint32_t)v[2];
			tr->nnames++;
		} else if (op == PP_EV_META) {
			for (int i = 0; i < 8; i++)
				if (get_var(&p, end, &v[i]) != 0)
					return -1;
			char *fe = NULL, *cmd = NULL;
			if (get_str(&p, end, &fe) != 0 || get_str(&p, end, &cmd) != 0) {
				free(fe);
				return -1;
			}
			pp_profile_t *m = &tr->meta;
			free(m->frontend);
			free(m->command);
			m->frontend = fe;
			m->command = cmd;
			m->pid = v[0];
			m->start_ns = v[1];
			m->end_ns = v[2];
			memcpy(&m->ticks_per_ns, &v[3], sizeof m->ticks_per_ns);
			m->timing = (uint32_t)v[4];
			m->sample_n = (uint32_t)v[5];
			m->threads = v[6];
			tr->skipped = v[7];
			tr->has_meta = 1;
		} else if (op == PP_EV_PROCESS) {
			char *s[3] = {NULL, NULL, NULL};
			for (int i = 0; i < 3; i++) {
				if (get_str(&p, end, &s[i]) != 0) {
					free(s[0]);
					free(s[1]);
					return -1;
				}
			}
			pp_profile_t *m = &tr->meta;
			free(m->service);
			free(m->host);
			free(m->build_id);
			m->service = s[0];
			m->host = s[1];
			m->build_id = s[2];
		} else if (op == PP_EV_SELECT) {
			char *s = NULL, *roots = NULL;
			if (get_str(&p, end, &s) != 0)
				return -1;
			if (get_str(&p, end, &roots) != 0) {
				free(s);
				return -1;
			}
			free(tr->meta.selection);
			free(tr->meta.roots);
			tr->meta.selection = s;
			tr->meta.roots = *roots ? roots : NULL;
			if (!*roots)
				free(roots);
		} else if (op == PP_EV_CPU) {
			for (int i = 0; i < 3; i++)
				if (get_var(&p, end, &v[i]) != 0)
					return -1;
			tr->meta.has_cpu = 1;
			tr->meta.cpu_ns = v[0];
			tr->meta.nvcsw = v[1];
			tr->meta.nivcsw = v[2];
		} else if (op == PP_EV_GATECOST) {
			if (get_var(&p, end, &v[0]) != 0 || get_var(&p, end, &v[1]) != 0)
				return -1;
			memcpy(&tr->meta.gate_in, &v[0], sizeof v[0]);
			memcpy(&tr->meta.gate_out, &v[1], sizeof v[1]);
			if (!(tr->meta.gate_in >= 0 && tr->meta.gate_in < 1e9 && tr->meta.gate_out >= 0 &&
			      tr->meta.gate_out < 1e9))
				return -1; /* NaN fails too */
		} else if (op == PP_EV_CLOSE) {
			if (get_var(&p, end, &v[0]) != 0)
				return -1;
			/* Every chunk written before the end record precedes it in
			 * the file (appends): fewer here means some were lost. */
			if (v[0] > tr->chunks_ok)
				*close_deficit = v[0] - tr->chunks_ok;
			tr->closed = 1;
		} else {
			return -1;
		}
	}
	return 0;
}

/* Is there a whole, checksummed chunk at offset o? Its payload length in
 * *len when so. */
static int chunk_ok(const pp_trace_t *tr, uint64_t o, uint32_t *len)
{
	if (tr->size - o < PP_CHUNK_HEADER)
		return 0;
	const uint8_t *h = tr->buf + o;
	uint32_t n = get_u32(h + 4);
	if (get_u32(h) != PP_CHUNK_MAGIC || n > PP_CHUNK_MAX || n > tr->size - o - PP_CHUNK_HEADER)
		return 0;
	uint32_t crc = pp__crc32(h + 4, 24, 0);
	if (pp__crc32(h + PP_CHUNK_HEADER, n, crc) != get_u32(h + 28))
		return 0;
	*len = n;
	return 1;
}

/* Is the chunk at h (payload len) a byte copy of process chunk seq? */
static int same_chunk(const pp_trace_t *tr, const uint64_t *at, uint32_t n, uint64_t seq,
		      const uint8_t *h, uint32_t len)
{
	if (seq >= n)
		return 0;
	const uint8_t *first = tr->buf + at[seq];
	return get_u32(first + 4) == len && !memcmp(first, h, PP_CHUNK_HEADER + len);
}

static int by_seq(const void *a, const void *b)
{
	uint64_t x = ((const pp_trace_chunk_t *)a)->seq, y = ((const pp_trace_chunk_t *)b)->seq;
	return x < y ? -1 : x > y;
}

static int by_stream(const void *a, const void *b)
{
	uint64_t x = ((const pp_trace_thread_t *)a)->stream, y = ((const pp_trace_thread_t *)b)->stream;
	return x < y ? -1 : x > y;
}

static int read_file(pp_trace_t *tr, const char *path, char *err, size_t errlen)
{
	pp__input_t *in = calloc(1, sizeof *in);
	if (!in) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	if (pp__input_open(in, path, PP_TRACE_MAGIC, 8, err, errlen) != 0) {
		free(in);
		return -1;
	}
	tr->input = in;
	tr->buf = in->data;
	tr->size = in->size;
	return 0;
}

static int load(pp_trace_t *tr, const char *path, char *err, size_t errlen);

/* Every refusal frees what was read, so a caller never owns a half-loaded
 * trace. */
int pp__trace_load(pp_trace_t *tr, const char *path, char *err, size_t errlen)
{
	memset(tr, 0, sizeof *tr);
	int rc = load(tr, path, err, errlen);
	if (rc >= 0)
		return rc;
	pp__trace_free(tr);
	memset(tr, 0, sizeof *tr);
	return -1;
}

static int load(pp_trace_t *tr, const char *path, char *err, size_t errlen)
{
	if (read_file(tr, path, err, errlen) != 0)
		return -1;
	if (tr->size == 0) {
		snprintf(err, errlen, "%s: empty file, not a pathprof trace", path);
		return -1;
	}
	if (tr->size < PP_TRACE_HEADER || memcmp(tr->buf, PP_TRACE_MAGIC, 8) != 0) {
		const char *hint = pp__file_kind_hint(pp__head_kind(tr->buf, tr->size), PP__FILE_TRACE);
		snprintf(err, errlen, "%s: %s", path, hint ? hint : "not a pathprof trace (bad magic)");
		return -1;
	}
	uint32_t version = get_u32(tr->buf + 8), hlen = get_u32(tr->buf + 12);
	if (version != PP_TRACE_VERSION) {
		snprintf(err, errlen, "%s: %strace version %u; this pathprof reads version %u", path,
			 version > PP_TRACE_VERSION ? "written by a newer pathprof: " : "", version,
			 PP_TRACE_VERSION);
		return -1;
	}
	if (hlen < PP_TRACE_HEADER || hlen > tr->size) {
		snprintf(err, errlen, "%s: bad header length %u", path, hlen);
		return -1;
	}
	uint64_t o = hlen, proc_seq = 0, close_deficit = 0;
	/* where each process chunk was, by sequence, to tell a copied chunk
	 * (dropped) from another writer's chunk of the same number (refused by
	 * the caller) */
	uint64_t *proc_at = NULL;
	uint32_t nproc = 0, cap_proc = 0;
	while (o < tr->size) {
		uint32_t len;
		if (!chunk_ok(tr, o, &len)) {
			/* Skip to the next offset where a whole chunk checks out. */
			uint64_t n = o + 1;
			while (n < tr->size && !chunk_ok(tr, n, &len))
				n++;
			const char *what = n == tr->size ? (tr->size - o < PP_CHUNK_HEADER ||
								   get_u32(tr->buf + o) == PP_CHUNK_MAGIC
							       ? "cut short (last chunk incomplete)"
							       : "damaged")
							 : "damaged";
			if (damage(tr, o, n - o, what) != 0)
				goto oom;
			o = n;
			continue;
		}
		const uint8_t *h = tr->buf + o;
		uint64_t stream = get_u64(h + 8);
		const uint8_t *data = h + PP_CHUNK_HEADER;
		if (stream == 0) {
			uint64_t seq = get_u64(h + 16);
			if (seq < proc_seq && same_chunk(tr, proc_at, nproc, seq, h, len)) {
				/* a copy of a chunk already read: dropped */
				tr->duplicates++;
				o += PP_CHUNK_HEADER + len;
				continue;
			}
			if (seq == nproc) {
				uint64_t *g = grow(proc_at, &cap_proc, nproc, sizeof *g);
				if (!g)
					goto oom;
				proc_at = g;
				proc_at[nproc++] = o;
			}
			if (seq > proc_seq)
				tr->chunks_missing += seq - proc_seq;
			proc_seq = seq + 1;
			if (process_chunk(tr, data, data + len, &close_deficit) != 0 &&
			    damage(tr, o, PP_CHUNK_HEADER + len, "process records do not decode") != 0)
				goto oom;
		} else {
			pp_trace_thread_t *t = thread_of(tr, stream);
			pp_trace_chunk_t *c = t ? grow(t->chunks, &t->cap, t->nchunks, sizeof *c) : NULL;
			if (!c)
				goto oom;
			t->chunks = c;
			t->chunks[t->nchunks++] =
				(pp_trace_chunk_t){get_u64(h + 16), o, data, len, get_u32(h + 24)};
		}
		tr->chunks_ok++;
		o += PP_CHUNK_HEADER + len;
	}
	/* Threads by stream (registration order); chunks by sequence. A gap in
	 * a thread's sequence is a chunk lost in a damaged stretch. */
	for (uint32_t i = 0; i < tr->nthreads; i++) {
		pp_trace_thread_t *t = &tr->threads[i];
		if (t->nchunks)
			qsort(t->chunks, t->nchunks, sizeof *t->chunks, by_seq);
		/* a (stream, sequence) seen twice is a copied chunk (a file
		 * spliced or appended to itself): the first is kept */
		uint32_t w = 0;
		for (uint32_t j = 0; j < t->nchunks; j++) {
			if (w && t->chunks[j].seq == t->chunks[w - 1].seq) {
				t->duplicates++;
				continue;
			}
			t->chunks[w++] = t->chunks[j];
		}
		t->nchunks = w;
		tr->duplicates += t->duplicates;
		uint64_t want = 0;
		for (uint32_t j = 0; j < t->nchunks; j++) {
			if (t->chunks[j].seq > want)
				t->missing += t->chunks[j].seq - want;
			want = t->chunks[j].seq + 1;
		}
		tr->chunks_missing += t->missing;
	}
	/* Gaps and the end record's count see the same losses two ways. */
	if (close_deficit > tr->chunks_missing)
		tr->chunks_missing = close_deficit;
	if (tr->nthreads)
		qsort(tr->threads, tr->nthreads, sizeof *tr->threads, by_stream);
	free(proc_at);
	return tr->bytes_lost || tr->chunks_missing || tr->duplicates || !tr->closed ? 1 : 0;
oom:
	free(proc_at);
	snprintf(err, errlen, "%s: out of memory", path);
	return -1;
}

void pp__trace_free(pp_trace_t *tr)
{
	for (uint32_t i = 0; i < tr->nnames; i++) {
		free(tr->names[i].name);
		free(tr->names[i].file);
	}
	for (uint32_t i = 0; i < tr->nthreads; i++)
		free(tr->threads[i].chunks);
	free(tr->names);
	free(tr->threads);
	free(tr->damage);
	free(tr->meta.frontend);
	free(tr->meta.command);
	free(tr->meta.service);
	free(tr->meta.host);
	free(tr->meta.build_id);
	free(tr->meta.selection);
	free(tr->meta.roots);
	if (tr->input)
		pp__input_close(tr->input);
	free(tr->input);
	memset(tr, 0, sizeof *tr);
}
