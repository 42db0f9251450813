/* The trace recorder: every gate event of a recorded thread is appended to a
 * buffer of its own, allocated when the thread registers, and the buffer goes
 * to the file as one checksummed chunk when it fills, when the thread ends, at
 * exit and in pp_dump(). Chunks are whole write()s to a file opened with
 * O_APPEND, so threads never lock each other and nothing already written is
 * ever rewritten: a killed process loses at most each thread's open chunk.
 * At the exit dump the recorder freezes: every thread's buffer is flushed
 * with its end record and nothing more is recorded or counted, so the
 * replay of the trace is the profile written then, threads still running
 * included (docs/guides/trace.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pathprof/frontend.h>
#include <pathprof/trace.h>
#include "file_kind.h"
#include "map.h"
#include "runtime.h"
#include "slab.h"
#include "thread_state.h"
#include "recorder.h"
#include "crc32.h"

/* 64 KiB a thread: ~20000 events between writes at ~3 bytes an event. */
#define BUF_BYTES (64u * 1024u)
/* The longest event a thread writes (START: op and four 10-byte varints). */
#define EVENT_MAX 48u
#define STRING_MAX 16000u

struct pp__trace_buf {
	uint8_t *data; /* chunk header, then payload */
	uint32_t len;  /* payload bytes */
	uint32_t nevents;
	uint64_t stream, seq;
	uint64_t key, ticks; /* delta bases, reset at each chunk */
	uint32_t busy, rounds;
	uint32_t late; /* still inside the recorder when the freeze waited */
	uint64_t unrecorded;
	struct pp__trace_buf *next, **prevp; /* the live buffers, under lock */
};

int pp__trace_armed;
static int stopped;
static int frozen; /* the exit dump froze recording (pp__trace_freeze) */
static struct pp__trace_buf *live; /* buffers of threads not yet gone, under lock */
static int fd = -1;
/* The file fd was opened on. A program may close every descriptor it did
 * not open itself (daemons do) and reuse the number for a file of its own:
 * before each write the descriptor is checked to be still this file, or
 * recording stops without touching it (#27). */
static dev_t fd_dev;
static ino_t fd_ino;
static char path_fmt[4096], file_name[4200];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t streams; /* thread streams handed out */
static uint64_t chunks; /* chunks written, for the end record */
static struct pp__trace_buf proc; /* stream 0, under lock */
static pp__map_t named;           /* key -> its id in the trace (NAME record written), under lock */
static uint32_t nids;             /* ids handed out, under lock */
static pthread_mutex_t res_lock = PTHREAD_MUTEX_INITIALIZER; /* live_res */
static pthread_key_t gone_key;
static int gone_key_ok;

static void put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint8_t *put_var(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint64_t zigzag(uint64_t now, uint64_t before)
{
	int64_t d = (int64_t)(now - before);
	return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

static void stop(const char *why)
{
	if (!__atomic_exchange_n(&stopped, 1, __ATOMIC_ACQ_REL))
		pp__warn("trace %s: %s; recording stopped", file_name, why);
}

/* Is fd still the trace file? If not, forget the number: it is the
 * program's now, and is neither written nor closed. */
static int still_ours(void)
{
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == fd_dev && st.st_ino == fd_ino)
		return 1;
	__atomic_store_n(&fd, -1, __ATOMIC_RELAXED);
	stop("the program closed the trace's file descriptor");
	return 0;
}

static int write_all(const uint8_t *p, size_t n)
{
	if (!still_ours())
		return -1;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			stop(w < 0 ? strerror(errno) : "short write");
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void flush(struct pp__trace_buf *b)
{
	if (!b->nevents)
		return;
	if (!__atomic_load_n(&stopped, __ATOMIC_ACQUIRE)) {
		int saved = errno;
		uint8_t *h = b->data;
		put_u32(h, PP_CHUNK_MAGIC);
		put_u32(h + 4, b->len);
		put_u64(h + 8, b->stream);
		put_u64(h + 16, b->seq);
		put_u32(h + 24, b->nevents);
		uint32_t crc = pp__crc32(h + 4, 24, 0);
		put_u32(h + 28, pp__crc32(h + PP_CHUNK_HEADER, b->len, crc));
		if (write_all(h, PP_CHUNK_HEADER + b->len) == 0)
			__atomic_fetch_add(&chunks, 1, __ATOMIC_RELAXED);
		errno = saved;
	}
	b->seq++;
	b->len = b->nevents = 0;
	b->key = b->ticks = 0;
}

/* Room for n more payload bytes, flushing first when needed. */
static uint8_t *room(struct pp__trace_buf *b, uint32_t n)
{
	if (PP_CHUNK_HEADER + b->len + n > BUF_BYTES)
		flush(b);
	return b->data + PP_CHUNK_HEADER + b->len;
}

static void done(struct pp__trace_buf *b, uint8_t *end)
{
	b->len = (uint32_t)(end - (b->data + PP_CHUNK_HEADER));
	b->nevents++;
}

/* busy is set before frozen is read, and the freezer sets frozen before it
 * reads busy (both sequentially consistent): either the thread sees the
 * freeze, or the freezer waits until its event is in the buffer. */
int pp__trace_begin(struct pp__trace_buf *b)
{
	if (b->busy) {
		b->unrecorded++;
		return 0;
	}
	__atomic_store_n(&b->busy, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&frozen, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&b->busy, 0, __ATOMIC_RELEASE);
		return -1;
	}
	return 1;
}

void pp__trace_end(struct pp__trace_buf *b)
{
	__atomic_store_n(&b->busy, 0, __ATOMIC_RELEASE);
}

void pp__trace_put(struct pp__trace_buf *b, int op, uint64_t key, uint64_t ticks)
{
	uint8_t *p = room(b, EVENT_MAX);
	*p++ = (uint8_t)op;
	if (op == PP_EV_ENTER || op == PP_EV_ENTER_T) {
		p = put_var(p, zigzag(key, b->key));
		b->key = key;
	}
	if (op == PP_EV_ENTER_T || op == PP_EV_LEAVE_T) {
		p = put_var(p, zigzag(ticks, b->ticks));
		b->ticks = ticks;
	}
	done(b, p);
}

int pp__trace_stopped(void)
{
	return __atomic_load_n(&stopped, __ATOMIC_RELAXED);
}

static int buf_init(struct pp__trace_buf *b, uint64_t stream)
{
	memset(b, 0, sizeof *b);
	b->data = malloc(BUF_BYTES);
	b->stream = stream;
	return b->data ? 0 : -1;
}

static void thread_gone(void *arg);

static void after_fork_child(void)
{
	/* The child shares the parent's file: it records nothing, and its
	 * threads drop their copied buffers at their next gate. */
	stopped = 1;
	pp__trace_armed = 0;
	struct stat st;
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == fd_dev && st.st_ino == fd_ino)
		close(fd);
	fd = -1;
	pthread_mutex_init(&lock, NULL);
}

static void flush_self(void)
{
	struct pp__trace_buf *b = pp__tls.trace;
	if (b && !b->busy && pp__trace_begin(b) == 1) {
		flush(b);
		pp__trace_end(b);
	}
}

/* A thread's last record: the events it could not record. */
static void put_end(struct pp__trace_buf *b)
{
	uint8_t *p = room(b, EVENT_MAX);
	*p++ = PP_EV_END;
	p = put_var(p, b->unrecorded);
	done(b, p);
}

void pp__trace_freeze(void)
{
	if (__atomic_load_n(&fd, __ATOMIC_RELAXED) < 0)
		return;
	/* From here the list does not change: attach refuses, and a thread
	 * that ends leaves its buffer to us. */
	pthread_mutex_lock(&lock);
	int again = frozen;
	__atomic_store_n(&frozen, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&lock);
	if (again)
		return;
	/* A thread inside the recorder finishes its event (its first sight
	 * of a key may need the lock, so it is not held while waiting). One
	 * that does not within a second keeps its open chunk and its stream
	 * has no end record: replay says which thread lost what. */
	uint64_t late = 0;
	for (struct pp__trace_buf *b = live; b; b = b->next) {
		struct timespec t0, now;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		/* Once busy is seen clear the owner cannot record again (it
		 * sees the freeze), though it still sets busy for an instant
		 * at each gate to find that out: judge by the wait alone. */
		while (__atomic_load_n(&b->busy, __ATOMIC_SEQ_CST)) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - t0.tv_sec > 1) {
				late++;
				b->late = 1; /* its owner still writes it: not flushed below */
				break;
			}
			sched_yield();
		}
	}
	pthread_mutex_lock(&lock);
	for (struct pp__trace_buf *b = live; b; b = b->next) {
		if (b->late)
			continue;
		put_end(b);
		flush(b);
	}
	pthread_mutex_unlock(&lock);
	if (late)
		pp__warn("trace %s: %llu thread(s) stayed inside the recorder at exit; their last "
			 "events are not in the trace",
			 file_name, (unsigned long long)late);
}

/* Create the file and its first chunk (the configuration replay needs before
 * any event). Called under lock. */
/* Open name for writing with an exclusive lock held for the life of the
 * process, then empty it; -1 with errno EWOULDBLOCK when a live process holds
 * the lock, EEXIST when it is a regular file holding something other than a
 * trace (the program itself, a source file, a profile), which emptying would
 * destroy: either file is left untouched. */
static int open_locked(const char *name)
{
	int f = open(name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (f < 0)
		return -1;
	struct stat st;
	enum pp__file_kind kind = PP__FILE_NONE;
	/* read through a name of its own: this one may be write-only */
	if (flock(f, LOCK_EX | LOCK_NB) != 0 || fstat(f, &st) != 0 ||
	    ((kind = pp__file_kind(name)) != PP__FILE_NONE && kind != PP__FILE_TRACE) || ftruncate(f, 0) != 0) {
		if (kind != PP__FILE_NONE && kind != PP__FILE_TRACE)
			errno = EEXIST;
		int e = errno == EINTR ? EWOULDBLOCK : errno;
		close(f);
		errno = e;
		return -1;
	}
	fd_dev = st.st_dev;
	fd_ino = st.st_ino;
	return f;
}

static int open_file(void)
{
	if (fd >= 0)
		return 0;
	if (stopped)
		return -1;
	const char *pct = strstr(path_fmt, "%p");
	if (pct)
		snprintf(file_name, sizeof file_name, "%.*s%llu%s", (int)(pct - path_fmt), path_fmt,
			 (unsigned long long)pp__g.pid, pct + 2);
	else
		snprintf(file_name, sizeof file_name, "%s", path_fmt);
	if (!proc.data && buf_init(&proc, 0) != 0) {
		pp__warn("trace %s: out of memory; not recording", file_name);
		return -1;
	}
	fd = open_locked(file_name);
	for (unsigned k = 1; fd < 0 && errno == EEXIST && k < 1000; k++) {
		/* not a trace there: left as it is, and this one beside it */
		char want[sizeof file_name];
		snprintf(want, sizeof want, "%s", file_name);
		if (k > 1)
			*strrchr(want, '.') = 0;
		snprintf(file_name, sizeof file_name, "%.*s.%u", (int)(sizeof file_name - 12), want, k);
		fd = open_locked(file_name);
		if (fd >= 0)
			pp__warn("trace %s is not a pathprof trace, and is left as it was; recording to %s",
				 want, file_name);
	}
	if (fd < 0 && errno == EWOULDBLOCK) {
		/* Another live process records into this name: one writer per
		 * file, so this one takes a name of its own. */
		char taken[sizeof file_name];
		snprintf(taken, sizeof taken, "%s", file_name);
		snprintf(file_name, sizeof file_name, "%.*s.%llu", (int)(sizeof file_name - 24), taken,
			 (unsigned long long)pp__g.pid);
		pp__warn("trace %s: being written by another process; recording to %s", taken,
			 file_name);
		fd = open_locked(file_name);
	}
	if (fd < 0) {
		pp__warn("trace %s: cannot create: %s; not recording", file_name, strerror(errno));
		stopped = 1;
		return -1;
	}
	uint8_t h[PP_TRACE_HEADER];
	memcpy(h, PP_TRACE_MAGIC, 8);
	put_u32(h + 8, PP_TRACE_VERSION);
	put_u32(h + 12, PP_TRACE_HEADER);
	if (write_all(h, sizeof h) != 0)
		return -1;
	uint8_t *p = room(&proc, EVENT_MAX);
	*p++ = PP_EV_CONFIG;
	p = put_var(p, pp__g.pid);
	p = put_var(p, pp__g.start_ns);
	p = put_var(p, pp__config.depth);
	p = put_var(p, pp__config.paths);
	done(&proc, p);
	flush(&proc);
	gone_key_ok = pthread_key_create(&gone_key, thread_gone) == 0;
	pthread_atfork(NULL, NULL, after_fork_child);
	return 0;
}

/* Destructors run after the atexit handlers registered once the program
 * started (the exit dump, usually), so the end record is the file's last
 * thread chunk after a normal exit: a reader that finds it, and every chunk
 * it counts, knows nothing was cut. */
__attribute__((destructor)) PP_NOINSTR static void at_exit(void)
{
	if (__atomic_load_n(&fd, __ATOMIC_RELAXED) < 0)
		return;
	/* An exit dump hooked from a constructor (PATHPROF_OUT set) runs
	 * after the destructors: freeze here, and it takes the profile from
	 * the frozen slabs. Without an exit dump, the exiting thread's stream
	 * still ends with its end record; the others' were cut. */
	if (__atomic_load_n(&pp__g.exit_dump, __ATOMIC_ACQUIRE))
		pp__trace_freeze();
	pthread_mutex_lock(&lock);
	if (fd >= 0) {
		struct pp__trace_buf *b = pp__tls.trace;
		if (b && !frozen && !b->busy) {
			put_end(b);
			flush(b);
		}
		uint8_t *p = room(&proc, EVENT_MAX);
		*p++ = PP_EV_CLOSE;
		p = put_var(p, __atomic_load_n(&chunks, __ATOMIC_RELAXED));
		done(&proc, p);
		flush(&proc);
	}
	pthread_mutex_unlock(&lock);
}

void pp__trace_arm(const char *path)
{
	if (strlen(path) >= sizeof path_fmt) {
		pp__warn("PATHPROF_TRACE is longer than %zu bytes; not recording", sizeof path_fmt - 1);
		return;
	}
	strcpy(path_fmt, path);
	__atomic_store_n(&pp__trace_armed, 1, __ATOMIC_RELEASE);
}

int pp__tracing(void)
{
	return __atomic_load_n(&pp__trace_armed, __ATOMIC_ACQUIRE);
}

int pp__trace_attach(pp__tls_t *t, int fe)
{
	struct pp__trace_buf *b = calloc(1, sizeof *b);
	pthread_mutex_lock(&lock);
	int rc = frozen ? -1 : open_file();
	uint64_t stream = rc == 0 ? ++streams : 0;
	if (rc == 0 && b && buf_init(b, stream) == 0) {
		b->next = live;
		b->prevp = &live;
		if (live)
			live->prevp = &b->next;
		live = b;
	} else if (rc == 0) {
		rc = -2;
	}
	pthread_mutex_unlock(&lock);
	if (rc != 0) {
		if (b)
			free(b->data);
		free(b);
		if (rc == -2)
			pp__warn("trace %s: out of memory; a thread runs unrecorded", file_name);
		return -1;
	}
	/* Which slab the thread got, and how many threads had it before: a
	 * replay hands the same slab to the same threads in the same order. */
	pp__slab_t *s = (pp__slab_t *)t->slab;
	uint8_t *p = room(b, EVENT_MAX);
	*p++ = PP_EV_START;
	p = put_var(p, (uint64_t)gettid());
	p = put_var(p, pp__arena_ref(s));
	p = put_var(p, s->uses);
	p = put_var(p, (uint64_t)fe);
	done(b, p);
	if (gone_key_ok)
		pthread_setspecific(gone_key, b);
	t->trace = b;
	PP__LIMIT_SET(t->limit, 0);
	PP__LIMIT_SET(t->elimit, 0);
	PP__LIMIT_SET(t->tlimit, 0);
	return 0;
}

/* Thread exit. The slab's own destructor may run after this one and gated
 * code in other destructors may run in between, so while the thread is still
 * live this asks to be called again in the next round. */
static void thread_gone(void *arg)
{
	struct pp__trace_buf *b = arg;
	pp__tls_t *t = &pp__tls;
	if (t->trace == b && pp__gate_live(t) && b->rounds++ < 2) {
		pthread_setspecific(gone_key, b);
		return;
	}
	if (t->trace == b)
		pp__gate_untrace(t);
	pthread_mutex_lock(&lock);
	int keep = frozen; /* the freeze wrote its end record */
	if (!keep) {
		*b->prevp = b->next;
		if (b->next)
			b->next->prevp = b->prevp;
	}
	pthread_mutex_unlock(&lock);
	if (keep)
		return;
	put_end(b);
	flush(b);
	free(b->data);
	free(b);
}

static uint8_t *put_str(uint8_t *p, const char *s)
{
	size_t n = strlen(s ? s : "");
	if (n > STRING_MAX)
		n = STRING_MAX;
	p = put_var(p, n);
	memcpy(p, s, n);
	return p + n;
}

/* The key's id, with its NAME record written the first time; under lock.
 * 0 when out of memory (the key then goes unnamed). */
static uint32_t intern(int fe, uint64_t key, const char *name, const char *file, uint32_t line)
{
	uint32_t id;
	if (pp__map_get(&named, key, &id))
		return id;
	id = nids + 1;
	if (pp__map_put(&named, key, id) != 0)
		return 0;
	nids = id;
	uint8_t *p = room(&proc, 2 * STRING_MAX + 64);
	*p++ = PP_EV_NAME;
	p = put_var(p, id);
	p = put_var(p, (uint64_t)fe);
	p = put_var(p, line);
	p = put_str(p, name);
	p = put_str(p, file);
	done(&proc, p);
	return id;
}

void pp__trace_name(int fe, uint64_t key, const char *name, const char *file, uint32_t line)
{
	if (__atomic_load_n(&fd, __ATOMIC_RELAXED) < 0)
		return;
	pthread_mutex_lock(&lock);
	if (fd >= 0)
		intern(fe, key, name, file, line);
	pthread_mutex_unlock(&lock);
}

/* Keys this thread knows the ids of: most recorded entries then skip the
 * lock. Direct-mapped; a miss only costs the locked lookup. */
#define SEEN_SLOTS 256u
static __thread uint64_t seen_keys[SEEN_SLOTS];
static __thread uint32_t seen_ids[SEEN_SLOTS];
static pp__live_resolver_t live_res; /* under res_lock: names keys at first sight */

uint64_t pp__trace_first_sight(int fe, uint64_t key)
{
	uint32_t h = (uint32_t)(key ^ (key >> 12)) & (SEEN_SLOTS - 1);
	if (seen_keys[h] == key + 1)
		return seen_ids[h];
	uint32_t id;
	pthread_mutex_lock(&lock);
	int known = pp__map_get(&named, key, &id);
	pthread_mutex_unlock(&lock);
	if (!known) {
		const char *file = "";
		uint32_t line = 0;
		/* resolve outside the trace lock: the symbolizer can take a while */
		pthread_mutex_lock(&res_lock);
		const char *n = pp__resolve_live(&live_res, fe, key, &file, &line);
		char stand_in[64];
		if (!n) {
			snprintf(stand_in, sizeof stand_in, "%s:0x%llx", pp__frontend_name(fe),
				 (unsigned long long)key);
			n = stand_in;
		}
		pthread_mutex_lock(&lock);
		id = fd >= 0 ? intern(fe, key, n, file, line) : 0;
		if (fd >= 0)
			flush(&proc); /* in the file now: a kill cannot take it */
		pthread_mutex_unlock(&lock);
		pthread_mutex_unlock(&res_lock);
	}
	if (id) {
		seen_keys[h] = key + 1;
		seen_ids[h] = id;
	}
	return id;
}

void pp__trace_dumped(const pp_profile_t *pr)
{
	if (__atomic_load_n(&fd, __ATOMIC_RELAXED) < 0)
		return;
	pthread_mutex_lock(&lock);
	if (fd >= 0) {
		uint64_t bits;
		memcpy(&bits, &pr->ticks_per_ns, sizeof bits);
		uint8_t *p = room(&proc, 2 * STRING_MAX + 128);
		*p++ = PP_EV_META;
		p = put_var(p, pr->pid);
		p = put_var(p, pr->start_ns);
		p = put_var(p, pr->end_ns);
		p = put_var(p, bits);
		p = put_var(p, pr->timing);
		p = put_var(p, pr->sample_n);
		p = put_var(p, pr->threads);
		p = put_var(p, __atomic_load_n(&pp__g.skipped, __ATOMIC_RELAXED));
		p = put_str(p, pr->frontend);
		p = put_str(p, pr->command);
		done(&proc, p);
		if (pr->service) {
			p = room(&proc, 256); /* three strings of at most 63 bytes */
			*p++ = PP_EV_PROCESS;
			p = put_str(p, pr->service);
			p = put_str(p, pr->host);
			p = put_str(p, pr->build_id);
			done(&proc, p);
		}
		if (pr->selection) {
			p = room(&proc, 2 * STRING_MAX + 16);
			*p++ = PP_EV_SELECT;
			p = put_str(p, pr->selection);
			p = put_str(p, pr->roots ? pr->roots : "");
			done(&proc, p);
		}
		if (pr->has_cpu) {
			p = room(&proc, 40);
			*p++ = PP_EV_CPU;
			p = put_var(p, pr->cpu_ns);
			p = put_var(p, pr->nvcsw);
			p = put_var(p, pr->nivcsw);
			done(&proc, p);
		}
		if (pr->gate_in > 0 || pr->gate_out > 0) {
			uint64_t in, out;
			memcpy(&in, &pr->gate_in, sizeof in);
			memcpy(&out, &pr->gate_out, sizeof out);
			p = room(&proc, 32);
			*p++ = PP_EV_GATECOST;
			p = put_var(p, in);
			p = put_var(p, out);
			done(&proc, p);
		}
		flush(&proc);
	}
	pthread_mutex_unlock(&lock);
	flush_self();
}

int pp__trace_open(const char *path)
{
	if (__atomic_load_n(&pp__trace_armed, __ATOMIC_ACQUIRE)) {
		pp__warn("pp_trace_open(%s): already recording to %s", path,
			 file_name[0] ? file_name : path_fmt);
		return -1;
	}
	pp__trace_arm(path);
	pthread_mutex_lock(&lock);
	int rc = open_file();
	pthread_mutex_unlock(&lock);
	if (rc != 0)
		return -1;
	pp__tls_t *t = &pp__tls;
	if (pp__gate_live(t) && !t->trace) {
		if (PP__DS_DEPTH(t->dstate) || t->excess)
			pp__warn("pp_trace_open: called inside a gate; this thread is not recorded");
		else
			pp__trace_attach(t, __atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED));
	}
	return 0;
}

void pp_trace_flush(void)
{
	flush_self();
}
