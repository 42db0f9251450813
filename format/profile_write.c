/* The profile writer: validates, then emits the file field by field
 * (docs/reference/file-format.md), replacing a regular file atomically so a crash never
 * leaves half a profile under its final name. */
#include "fd_high.h"
#include "file_kind.h"
#include "profile_impl.h"
#include "crc32.h"
#include "path_ids.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Each section body is rendered once into memory (f == NULL), which gives
 * its length for the prefix in front of it, then written whole: no seeking,
 * so a pipe works as a target too. Rendering it twice instead (once only to
 * count) cost the exit dump of SQLite's profile 7 ms of its 28: every
 * path's id recomputed and every histogram encoded two times. */
struct out {
	FILE *f;
	uint8_t *buf; /* f == NULL: the body so far, cap bytes allocated */
	size_t cap;
	uint64_t n;
	int err;
	uint32_t crc; /* of the section being written */
};

static void put(struct out *o, const void *b, size_t n)
{
	if (!n || o->err)
		return;
	if (!o->f) {
		if (o->n + n > o->cap) {
			size_t cap = o->cap ? o->cap : 4096;
			while (cap < o->n + n)
				cap *= 2;
			uint8_t *m = realloc(o->buf, cap);
			if (!m) {
				o->err = ENOMEM;
				return;
			}
			o->buf = m;
			o->cap = cap;
		}
		memcpy(o->buf + o->n, b, n);
		o->n += n;
		return;
	}
	o->n += n;
	o->crc = pp__crc32(b, n, o->crc);
	if (fwrite(b, 1, n, o->f) != n)
		o->err = errno ? errno : EIO;
}

/* A number of n bytes, little-endian whatever the host, the slow way: into
 * a file, or a body's buffer that must grow first. */
static void put_le_slow(struct out *o, uint64_t v, size_t n)
{
	uint8_t b[8];
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(o, b, n);
}

/* A number of n bytes (4 or 8, a constant where it is inlined): into a
 * body's buffer with room, one store. A profile's nodes are mostly numbers
 * (SQLite's exit dump: 127 000 of them; through the general put 8.6 M
 * instructions of the writer's 25.6 M, and called out of line with the
 * width unknown, 6.7 M of the dump's 51.5 M, #29). */
static inline __attribute__((always_inline)) void put_le(struct out *o, uint64_t v, size_t n)
{
	if (__builtin_expect(!o->f && !o->err && o->n + n <= o->cap, 1)) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		memcpy(o->buf + o->n, &v, n);
#else
		for (size_t i = 0; i < n; i++)
			o->buf[o->n + i] = (uint8_t)(v >> (8 * i));
#endif
		o->n += n;
		return;
	}
	put_le_slow(o, v, n);
}

static inline __attribute__((always_inline)) void put_u32(struct out *o, uint32_t v)
{
	put_le(o, v, 4);
}

static inline __attribute__((always_inline)) void put_u64(struct out *o, uint64_t v)
{
	put_le(o, v, 8);
}

static void put_str(struct out *o, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n > UINT32_MAX) {
		o->err = EOVERFLOW;
		return;
	}
	put_u32(o, (uint32_t)n);
	put(o, s, n);
}

struct wctx {
	const pp_profile_t *p;
	pp__ids_t *ids; /* the ids written are derived from the names */
};

static void body_meta(struct out *o, const struct wctx *w)
{
	const pp_profile_t *p = w->p;
	uint64_t bits;
	memcpy(&bits, &p->ticks_per_ns, sizeof bits);
	put_str(o, p->frontend);
	put_str(o, p->command);
	put_u64(o, p->pid);
	put_u64(o, p->start_ns);
	put_u64(o, p->end_ns);
	put_u64(o, bits);
	put_u32(o, p->timing);
	put_u32(o, p->sample_n);
	put_u64(o, p->events);
	put_u64(o, p->records);
	put_u64(o, p->drops_table);
	put_u64(o, p->drops_depth);
	put_u64(o, p->unmatched);
	put_u64(o, p->threads);
	put_u64(o, p->drops_time);
	put_u64(o, p->drops_signal);
	put_u64(o, p->unprofiled_frames);
	put_u64(o, p->unprofiled_threads);
}

static void body_names(struct out *o, const struct wctx *w)
{
	const pp_profile_t *p = w->p;
	put_u32(o, p->nnames);
	for (uint32_t i = 0; i < p->nnames; i++) {
		put_str(o, p->names[i].name);
		put_str(o, p->names[i].file);
		put_u32(o, p->names[i].line);
	}
}

static void put_names(struct out *o, const struct wctx *w, const pp_ppath_t *pp)
{
	put_u64(o, w->p->ids_from_names ? pp->id : pp__ids_get(w->ids, w->p->names, pp->names, pp->depth));
	put_u32(o, pp->depth);
	for (uint32_t k = 0; k < pp->depth; k++)
		put_u32(o, pp->names[k]);
}

static void body_paths(struct out *o, const struct wctx *w)
{
	const pp_profile_t *p = w->p;
	put_u32(o, p->npaths);
	for (uint32_t i = 0; i < p->npaths && !o->err; i++) {
		put_names(o, w, &p->paths[i]);
		put_u64(o, p->paths[i].count);
	}
}

static void put_seg(struct out *o, const pp_seg_t *s)
{
	put_u64(o, s->count);
	put_u64(o, s->sum);
	put_u64(o, s->min);
	put_u64(o, s->max);
	put_u32(o, s->nbins);
	for (uint32_t j = 0; j < s->nbins; j++) {
		put_u32(o, s->bins[j].bucket);
		put_u64(o, s->bins[j].count);
	}
}

static void body_nodes(struct out *o, const struct wctx *w)
{
	const pp_profile_t *p = w->p;
	put_u32(o, p->nnodes);
	for (uint32_t i = 0; i < p->nnodes && !o->err; i++) {
		const pp_pnode_t *n = &p->nodes[i];
		put_names(o, w, n);
		put_u64(o, n->self);
		put_seg(o, &n->incl);
	}
}

static void body_offcpu(struct out *o, const struct wctx *w)
{
	const pp_profile_t *p = w->p;
	put_u32(o, p->noffcpu);
	for (uint32_t i = 0; i < p->noffcpu && !o->err; i++) {
		const pp_offcpu_t *e = &p->offcpu[i];
		put_names(o, w, &e->blocked);
		put_names(o, w, &e->waker);
		put_u32(o, e->reason);
		put_u32(o, e->waker_kind);
		put_seg(o, &e->time);
		put_str(o, e->kstack);
	}
}

/* Optional (not REQUIRED): a reader that predates it still reads the file. */
static void body_crash(struct out *o, const struct wctx *w)
{
	put_u32(o, w->p->crash_signal);
	put_u64(o, w->p->crash_tid);
}

static void body_recovered(struct out *o, const struct wctx *w)
{
	put_u32(o, w->p->recovered_signal);
	put_u32(o, w->p->recovered_raw_keys);
}

static void body_process(struct out *o, const struct wctx *w)
{
	put_str(o, w->p->service);
	put_str(o, w->p->host);
	put_str(o, w->p->build_id);
}

static void body_gatecost(struct out *o, const struct wctx *w)
{
	uint64_t in, out;
	memcpy(&in, &w->p->gate_in, sizeof in);
	memcpy(&out, &w->p->gate_out, sizeof out);
	put_u64(o, in);
	put_u64(o, out);
}

static void body_ownwork(struct out *o, const struct wctx *w)
{
	put_u64(o, w->p->own_ticks);
	put_u64(o, w->p->own_n);
}

static void body_select(struct out *o, const struct wctx *w)
{
	put_str(o, w->p->selection);
	put_str(o, w->p->roots);
	put_u64(o, w->p->outside_roots);
}

static void body_throttle(struct out *o, const struct wctx *w)
{
	uint64_t b;
	memcpy(&b, &w->p->budget, sizeof b);
	put_u64(o, b);
	put_u32(o, w->p->nthrottled);
	for (uint32_t i = 0; i < w->p->nthrottled; i++) {
		const pp_throttled_t *e = &w->p->throttled[i];
		put_u32(o, e->name);
		put_u64(o, e->calls);
		put_u64(o, e->incl);
		put_u64(o, e->at_ns);
	}
	put_u32(o, w->p->patched_sites);
	put_u32(o, w->p->refused_sites);
}

/* The nodes with time in calls a burst window cut: index, ticks. */
static void body_open(struct out *o, const struct wctx *w)
{
	const pp_profile_t *p = w->p;
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->nnodes; i++)
		n += p->nodes[i].open != 0;
	put_u32(o, n);
	for (uint32_t i = 0; i < p->nnodes; i++) {
		if (!p->nodes[i].open)
			continue;
		put_u32(o, i);
		put_u64(o, p->nodes[i].open);
	}
	put_u64(o, p->windows);
}

static int any_open(const pp_profile_t *p)
{
	for (uint32_t i = 0; i < p->nnodes; i++)
		if (p->nodes[i].open)
			return 1;
	return 0;
}

static void body_cpu(struct out *o, const struct wctx *w)
{
	put_u64(o, w->p->cpu_ns);
	put_u64(o, w->p->nvcsw);
	put_u64(o, w->p->nivcsw);
}

static void section(struct out *o, uint32_t type, uint32_t flags,
		    void (*body)(struct out *, const struct wctx *), const struct wctx *w)
{
	struct out b = { 0 };
	if (body)
		body(&b, w);
	if (b.err) {
		free(b.buf);
		if (!o->err)
			o->err = b.err;
		return;
	}
	o->crc = 0;
	put_u32(o, type);
	put_u32(o, flags);
	put_u64(o, b.n);
	put(o, b.buf, b.n);
	free(b.buf);
	/* the section's checksum: its header and payload (version 3) */
	put_u32(o, o->crc);
}

static void write_all(struct out *o, const struct wctx *w)
{
	put(o, PP_PROFILE_MAGIC, 8);
	put_u32(o, PP_PROFILE_VERSION);
	put_u32(o, HEADER_LEN);
	section(o, SEC_META, SEC_REQUIRED, body_meta, w);
	section(o, SEC_NAMES, SEC_REQUIRED, body_names, w);
	section(o, SEC_PATHS, SEC_REQUIRED, body_paths, w);
	section(o, SEC_NODES, SEC_REQUIRED, body_nodes, w);
	if (w->p->crash_signal)
		section(o, SEC_CRASH, 0, body_crash, w);
	if (w->p->recovered)
		section(o, SEC_RECOVERED, 0, body_recovered, w);
	if (w->p->service)
		section(o, SEC_PROCESS, 0, body_process, w);
	if (w->p->noffcpu)
		section(o, SEC_OFFCPU, 0, body_offcpu, w);
	/* measured times only: a compensated profile keeps what was measured
	 * and its calibration, so the tool never writes a compensated file */
	if ((w->p->gate_in > 0 || w->p->gate_out > 0) && !w->p->compensated)
		section(o, SEC_GATECOST, 0, body_gatecost, w);
	if (w->p->has_cpu)
		section(o, SEC_CPU, 0, body_cpu, w);
	if (w->p->own_n)
		section(o, SEC_OWNWORK, 0, body_ownwork, w);
	if (w->p->selection)
		section(o, SEC_SELECT, 0, body_select, w);
	/* also for a selection's patched hook calls alone (no budget) */
	if (w->p->budget != 0 || w->p->nthrottled || w->p->patched_sites || w->p->refused_sites)
		section(o, SEC_THROTTLE, 0, body_throttle, w);
	if (any_open(w->p) || w->p->windows)
		section(o, SEC_OPEN, 0, body_open, w);
	section(o, SEC_END, SEC_REQUIRED, NULL, w);
}

int pp__profile_write(const pp_profile_t *p, const char *path, char *err, size_t errlen)
{
	char msg[256];
	const char **scratch = malloc(MAX_DEPTH * sizeof *scratch);
	if (!scratch)
		return pp__profile_fail_io(err, errlen, path, "cannot write", ENOMEM);
	if (pp__profile_check(p, 0, scratch, msg, sizeof msg)) {
		free(scratch);
		if (err && errlen)
			snprintf(err, errlen, "%s: refusing to write an invalid profile: %s", path, msg);
		return -1;
	}

	/* A regular file is replaced atomically (temporary + rename) so a crash
	 * never leaves half a profile under the final name; anything else (a
	 * pipe, /dev/stdout) must be written in place, never renamed over. */
	struct stat st;
	int exists = stat(path, &st) == 0;
	int direct = exists && !S_ISREG(st.st_mode);
	/* Only a profile, or an empty file, is replaced: a path that names
	 * the program, a source file or a trace by mistake loses nothing. */
	enum pp__file_kind kind = exists && S_ISREG(st.st_mode) ? pp__file_kind(path) : PP__FILE_NONE;
	if (kind != PP__FILE_NONE && kind != PP__FILE_PROFILE) {
		free(scratch);
		if (err && errlen)
			snprintf(err, errlen, "%s: not a pathprof profile, and left as it was: name another file",
				 path);
		return -1;
	}
	size_t tlen = strlen(path) + 48;
	char *tmp = malloc(tlen);
	FILE *f = NULL;
	int e = 0;
	if (!tmp) {
		e = ENOMEM;
	} else if (direct) {
		f = fopen(path, "wb");
		e = errno;
	} else {
		/* the temporary's name is short and in the same directory: a
		 * suffix on the final name would fail for a last component of
		 * 245-255 bytes (#27) */
		const char *slash = strrchr(path, '/');
		int dlen = slash ? (int)(slash - path + 1) : 0;
		for (unsigned n = 0; n < 100; n++) {
			snprintf(tmp, tlen, "%.*s.pathprof-tmp.%ld.%u", dlen, path, (long)getpid(), n);
			int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
			if (fd < 0) {
				e = errno;
				if (e == EEXIST)
					continue;
				break;
			}
			/* the exit dump writes from inside the program: a thread of
			 * it that closes everything makes our writes fail, and the
			 * files it opens then never get our number */
			fd = pp__fd_high(fd);
			f = fdopen(fd, "wb");
			if (!f) {
				e = errno;
				close(fd);
				unlink(tmp);
			}
			break;
		}
	}
	if (!f) {
		free(tmp);
		free(scratch);
		return pp__profile_fail_io(err, errlen, path, direct ? "cannot open" : "cannot create temporary file", e);
	}

	pp__ids_t ids = { 0 };
	struct wctx w = { p, &ids };
	struct out o = { .f = f };
	write_all(&o, &w);
	if (!o.err && fflush(f))
		o.err = errno;
	/* fsync so the rename cannot reach the disk before the data does */
	if (!o.err && !direct && fsync(fileno(f)) && errno != EINVAL)
		o.err = errno;
	if (fclose(f) && !o.err)
		o.err = errno ? errno : EIO;
	if (!o.err && !direct && rename(tmp, path))
		o.err = errno;
	if (o.err && !direct)
		unlink(tmp);
	free(tmp);
	free(scratch);
	pp__ids_free(&ids);
	if (o.err)
		return pp__profile_fail_io(err, errlen, path, "cannot write", o.err);
	return 0;
}

