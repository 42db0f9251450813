/* The writer's side of the live segment: naming and creating the object,
 * filling its header, publishing key names for readers, and removing it at
 * exit. Keys are only addresses or ids inside this process, so a background
 * thread names new keys every NAMER_MS into the segment itself; a reader in
 * another process (or after this one died) needs nothing but the segment. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h> /* glibc 2.32 */
#define PP_HAVE_SINGLE_THREADED 1
#endif
#endif

#include "map.h"
#include "own_thread.h"
#include "runtime.h"
#include "shm.h"
#include "slab.h"
#include "tick_clock.h"

#define NAMER_MS 50
#define NAME_CHUNK (64u * 1024u)
#define NAME_MAX_BYTES 4000u

static pthread_mutex_t namer_lock = PTHREAD_MUTEX_INITIALIZER;
/* Futex word: 1 when the namer should pass now (a new path, or the exit).
 * A futex, not a condition variable: a gate run by a signal handler may
 * nudge, and a futex wake is one async-signal-safe system call. */
static uint32_t nudge;
static pthread_t namer_tid;
static pthread_once_t namer_atfork_once = PTHREAD_ONCE_INIT;
static pp__map_t named;        /* keys already published */
/* The namer's resolver, kept from pass to pass (under namer_lock): opened
 * for each pass that met a new key, it read every module's symbols again,
 * once per new path early in a run (SQLite's selected run: 24.5 M
 * instructions of the namer's thread, #29). */
static pp__live_resolver_t namer_res;
static pp__live_resolver_t abandoned_res __attribute__((used)); /* a forked parent's */
static pp__map_t abandoned_named __attribute__((used)); /* a forked parent's, see after_fork */
/* Where each slab's list of paths began at the end of the last pass that
 * named all of it: paths are only ever put in front, so a pass names those
 * above that point and stops there. Looking every key of every path up on
 * every pass took 3 % of SQLite's samples (1 000 keys, 4 000 paths, a pass
 * every 50 ms). Slab address -> index in seen_head. */
static pp__map_t seen_at;
static pp__path_t **seen_head;
static pp__map_t abandoned_seen_at __attribute__((used));
static pp__path_t **abandoned_seen_head __attribute__((used));
static uint32_t nseen, cap_seen;

static pp__path_t *seen_of(const pp__slab_t *s)
{
	uint32_t i;
	return pp__map_get(&seen_at, (uint64_t)(uintptr_t)s, &i) ? seen_head[i] : NULL;
}

/* Without memory the slab is walked whole next time, as before. */
static void seen_set(const pp__slab_t *s, pp__path_t *head)
{
	uint32_t i;
	if (pp__map_get(&seen_at, (uint64_t)(uintptr_t)s, &i)) {
		seen_head[i] = head;
		return;
	}
	if (nseen == cap_seen) {
		uint32_t cap = cap_seen ? 2 * cap_seen : 64;
		pp__path_t **m = realloc(seen_head, cap * sizeof *m);
		if (!m)
			return;
		seen_head = m;
		cap_seen = cap;
	}
	if (pp__map_put(&seen_at, (uint64_t)(uintptr_t)s, nseen) == 0)
		seen_head[nseen++] = head;
}
static char *nbump, *nend;     /* current chunk of name records */
static char object_name[300];  /* "" when not exporting */
static int keep_at_exit;
static int namer_running, exit_hooked, finished;
/* PATHPROF_NAMER=auto in a program with one thread: no naming thread yet
 * (pp__shm_namer_now starts it). A thread of ours would end glibc's
 * single-threaded ways for the rest of the run: from the first
 * pthread_create on, every stdio call takes its stream's lock and malloc
 * its arena's (Debian 12, glibc 2.36: putc 2.2 -> 14.9 ns, a malloc and
 * free 8.1 -> 13.5 ns), and the profile would show that as the program's
 * own time, where no compensation can take it out: expat's xmlwf spent
 * half its run in putc under pathprof against a tenth without it
 * (bench/README.md). */
static int namer_deferred;
static int stopping; /* the exit asks the namer for its last pass */

int pp__shm_name_ok(const char *s)
{
	if (!s)
		return 0;
	if (*s == '/')
		s++;
	size_t n = strlen(s);
	return n >= 1 && n <= 200 && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* Unset, PATHPROF_SHM exports under this name: the segment is what a
 * process killed without a chance to write its profile leaves for `pathprof
 * recover` (docs/guides/crash.md). Empty or "off" exports nothing. */
#define DEFAULT_SEGMENT "pathprof.%p"

/* A sanitizer's runtime intercepts pthread_create and calls the runtime's
 * (host/threads.c) as its real one: a naming thread started from there
 * would be created inside its interceptor, where TSan ignores thread
 * creation (the thread would run unknown to it). Under one, the naming
 * thread starts with the segment, as PATHPROF_NAMER=on. */
static int sanitized(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	return 1;
#else
	return dlsym(RTLD_DEFAULT, "__tsan_init") || dlsym(RTLD_DEFAULT, "__asan_init") ||
	       dlsym(RTLD_DEFAULT, "__msan_init") || dlsym(RTLD_DEFAULT, "__hwasan_init");
#endif
}

void pp__shm_env_load(void)
{
	/* a process given a service name is one of a fleet, which `pathprof
	 * serve` reads live (docs/guides/fleet.md): its names while it runs */
	const char *svc = getenv("PATHPROF_SERVICE");
	if (sanitized() || (svc && *svc))
		pp__config.namer_on = 1;
	const char *s = getenv("PATHPROF_SHM");
	pp__config.shm_default = !s;
	if (!s)
		s = DEFAULT_SEGMENT;
	if (!strcmp(s, "off"))
		s = "";
	if (*s) {
		if (pp__shm_name_ok(s))
			snprintf(pp__config.shm, sizeof pp__config.shm, "%s", s);
		else
			pp__warn("PATHPROF_SHM=%s: expected a name of 1-200 bytes without '/'; "
				 "the live view is off", s);
	}
	s = getenv("PATHPROF_NAMER");
	if (s && *s) {
		if (!strcmp(s, "on") || !strcmp(s, "auto"))
			pp__config.namer_on |= s[0] == 'o';
		else
			pp__warn("PATHPROF_NAMER=%s: expected auto or on; using auto", s);
	}
	s = getenv("PATHPROF_SHM_KEEP");
	if (s && *s) {
		if (!strcmp(s, "1") || !strcmp(s, "0"))
			pp__config.shm_keep = s[0] == '1';
		else
			pp__warn("PATHPROF_SHM_KEEP=%s: expected 0 or 1; using 0", s);
	}
}

void pp__shm_object_name(const char *name, char *buf, size_t n)
{
	if (*name == '/')
		name++;
	unsigned long long pid = (unsigned long long)pp__g.pid;
	const char *pct = strstr(name, "%p");
	if (pct)
		snprintf(buf, n, "/%.*s%llu%s", (int)(pct - name), name, pid, pct + 2);
	else if (pp__g.pid != pp__g.first_pid)
		snprintf(buf, n, "/%s.%llu", name, pid);
	else
		snprintf(buf, n, "/%s", name);
}

/* ---- names ---- */

/* The record it wrote (NULL: no memory for it). */
static const pp__shm_name_t *publish_name(pp__shm_hdr_t *h, uint64_t key, const char *name,
					  const char *file, uint32_t line)
{
	/* strlen, then the bound: GCC's -Os inlining sees a literal "?" here
	 * and takes strnlen's bound for an overread */
	size_t nl = strlen(name), fl = strlen(file);
	nl = nl < NAME_MAX_BYTES ? nl : NAME_MAX_BYTES;
	fl = fl < NAME_MAX_BYTES ? fl : NAME_MAX_BYTES;
	size_t need = (sizeof(pp__shm_name_t) + nl + fl + 2 + 7) & ~(size_t)7;
	if (!nbump || (size_t)(nend - nbump) < need) {
		nbump = pp__arena_alloc(NAME_CHUNK);
		nend = nbump ? nbump + NAME_CHUNK : NULL;
		if (!nbump)
			return NULL;
	}
	pp__shm_name_t *r = (pp__shm_name_t *)nbump;
	nbump += need;
	r->key = key;
	r->line = line;
	r->name_len = (uint32_t)nl;
	r->file_len = (uint32_t)fl;
	r->pad = 0;
	memcpy(r->text, name, nl);
	r->text[nl] = '\0';
	memcpy(r->text + nl + 1, file, fl);
	r->text[nl + 1 + fl] = '\0';
	r->next = __atomic_load_n(&h->names, __ATOMIC_RELAXED);
	/* Readers follow h->names: the record must be whole first. */
	__atomic_store_n(&h->names, (uint64_t)((char *)r - pp__arena.base), __ATOMIC_RELEASE);
	return r;
}

/* A name record's place in named: its arena offset in 8-byte units (records
 * are 8-aligned, and none lies at 0, under the header); 0 for none. */
static uint32_t record_at(const pp__shm_name_t *r)
{
	size_t off = r ? (size_t)((const char *)r - pp__arena.base) : 0;
	return off >> 3 <= UINT32_MAX ? (uint32_t)(off >> 3) : 0;
}

int pp__shm_named(uint64_t key, const char **name, const char **file, uint32_t *line)
{
	/* Not waited for: a pass holds it for as long as it resolves, and in a
	 * crash's copy (host/crash.c) a thread that no longer exists may hold
	 * it for good. The caller then resolves the key itself. */
	uint32_t at;
	if (pthread_mutex_trylock(&namer_lock) != 0)
		return 0;
	int found = pp__map_get(&named, key, &at) && at;
	pthread_mutex_unlock(&namer_lock);
	if (!found)
		return 0;
	/* written whole before its key was put in named, and never moved */
	const pp__shm_name_t *r = (const void *)(pp__arena.base + ((size_t)at << 3));
	if (r->name_len >= NAME_MAX_BYTES || r->file_len >= NAME_MAX_BYTES)
		return 0; /* cut short for the segment */
	*name = r->text;
	*file = r->text + r->name_len + 1;
	*line = r->line;
	return 1;
}

/* Name every key not yet published and refresh the header's totals. */
/* The fatal-signal handler's copy of the process must not inherit a lock
 * or a malloc arena this thread holds half-way through a pass: at a crash
 * passes are held off (held_off) and the handler waits for the one running
 * (in_pass) to end. Sequentially consistent, both sides store then load. */
static int held_off, in_pass;

static void name_pass_locked(pp__shm_hdr_t *h);

static void name_pass(void)
{
	pp__shm_hdr_t *h = pp__arena.hdr;
	if (!h || finished)
		return;
	__atomic_store_n(&in_pass, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&held_off, __ATOMIC_SEQ_CST))
		name_pass_locked(h);
	__atomic_store_n(&in_pass, 0, __ATOMIC_SEQ_CST);
}

void pp__shm_hold(long max_ms)
{
	__atomic_store_n(&held_off, 1, __ATOMIC_SEQ_CST);
	for (long ms = 0; ms < max_ms && __atomic_load_n(&in_pass, __ATOMIC_SEQ_CST); ms++) {
		struct timespec d = {0, 1000000L};
		nanosleep(&d, NULL);
	}
}

void pp__shm_release(void)
{
	__atomic_store_n(&held_off, 0, __ATOMIC_SEQ_CST);
}

/* The arena could not be backed by the object (slab.c): say so once and
 * mark the segment, so that readers stop following it. */
static int detach_said;

static void notice_detached(pp__shm_hdr_t *h)
{
	if (!__atomic_load_n(&pp__arena.detached, __ATOMIC_ACQUIRE) || detach_said)
		return;
	detach_said = 1;
	__atomic_store_n(&h->state, PP__SHM_DETACHED, __ATOMIC_RELEASE);
	int err = __atomic_load_n(&pp__arena.detach_err, __ATOMIC_RELAXED);
	/* the kernel says EFAULT when a page of a full tmpfs cannot be had */
	pp__warn("%s: /dev/shm cannot hold more of the live segment (%s); the live view stops "
		 "here, counting goes on in private memory",
		 object_name[0] ? object_name : "the live segment",
		 strerror(err == EFAULT ? ENOSPC : err));
}

static void name_pass_locked(pp__shm_hdr_t *h)
{
	notice_detached(h);
	/* alive now: a reader of a killed writer ends its run here at least,
	 * even if the kill lands inside this pass */
	__atomic_store_n(&h->update_ns, pp__run_now_ns(), __ATOMIC_RELEASE);
	int fe = __atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED);
	pp__resolve_live_refresh(&namer_res);
	for (pp__slab_t *s = pp__slab_first(); s; s = s->next_all) {
		pp__path_t *top = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE), *stop = seen_of(s);
		for (pp__path_t *p = top; p && p != stop; p = p->next) {
			for (uint32_t i = 0; i < p->depth; i++) {
				uint32_t dummy;
				if (pp__map_get(&named, p->keys[i], &dummy))
					continue;
				const char *file = "";
				uint32_t line = 0;
				const char *name = pp__resolve_live(&namer_res, fe, p->keys[i], &file, &line);
				if (!name)
					goto totals;
				const pp__shm_name_t *r =
					publish_name(h, p->keys[i], name, file ? file : "", line);
				if (pp__map_put(&named, p->keys[i], record_at(r)) != 0)
					goto totals;
			}
		}
		seen_set(s, top);
	}
totals:
	__atomic_store_n(&h->threads, pp__threads_seen(), __ATOMIC_RELAXED);
	__atomic_store_n(&h->skipped, __atomic_load_n(&pp__g.skipped, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&h->frontend, (uint32_t)fe, __ATOMIC_RELAXED);
	h->timing = pp__mode.timing;
	h->sample_n = pp__mode.sample_n;
	h->ticks_per_ns = pp__clock_ticks_per_ns();
	__atomic_store_n(&h->update_ns, pp__run_now_ns(), __ATOMIC_RELEASE);
}

/* A pass every NAMER_MS, and one at once when a thread records a new path:
 * its names reach the segment within the time a resolve takes, so a kill
 * soon after loses few (docs/guides/crash.md). */
static uint64_t namer_cpu_done; /* what ended naming threads used */

uint64_t pp__shm_namer_cpu_ns(void)
{
	struct timespec t;
	clockid_t c;
	uint64_t ns = __atomic_load_n(&namer_cpu_done, __ATOMIC_ACQUIRE);
	if (namer_running && !finished && pthread_getcpuclockid(namer_tid, &c) == 0 &&
	    clock_gettime(c, &t) == 0)
		ns += (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
	return ns;
}

/* The namer's resolver holds descriptors of the namer's own table
 * (own_thread.c): it is used and closed on whichever thread opened it,
 * the namer or, when there is none, the exit. */
static void namer_res_close(void)
{
	pp__resolver_close(namer_res.r);
	memset(&namer_res, 0, sizeof namer_res);
}

static void *namer_main(void *arg)
{
	pp__shm_hdr_t *h = pp__arena.hdr;
	if (h)
		__atomic_store_n(&h->namer_tid, (uint32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	pthread_mutex_lock(&namer_lock);
	while (!stopping) {
		__atomic_store_n(&nudge, 0, __ATOMIC_RELAXED);
		name_pass();
		pthread_mutex_unlock(&namer_lock);
		/* outside the lock, which a fork takes first (a fork waits
		 * for a measure under way, gate_cost.c) */
		pp__gate_cost_early();
		struct timespec wait = {0, NAMER_MS * 1000000L};
		syscall(SYS_futex, &nudge, FUTEX_WAIT_PRIVATE, 0, &wait, NULL, 0);
		pthread_mutex_lock(&namer_lock);
	}
	name_pass(); /* the exit's: every key seen until now */
	namer_res_close();
	pthread_mutex_unlock(&namer_lock);
	struct timespec t;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0)
		__atomic_add_fetch(&namer_cpu_done, (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec,
				   __ATOMIC_RELEASE);
	return arg;
}

void pp__shm_nudge(void)
{
	if (!__atomic_exchange_n(&nudge, 1, __ATOMIC_RELAXED))
		syscall(SYS_futex, &nudge, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* No naming pass may be half-way at fork(): the child would inherit its
 * locks (the resolver's) held by a thread that does not exist there. */
static void namer_prepare(void)
{
	pthread_mutex_lock(&namer_lock);
}

static void namer_parent(void)
{
	pthread_mutex_unlock(&namer_lock);
}

static void namer_atfork(void)
{
	pthread_atfork(namer_prepare, namer_parent, NULL);
}

void pp__shm_after_fork(void)
{
	pthread_mutex_init(&namer_lock, NULL);
	nudge = 0;
	namer_deferred = 0; /* the child's own export decides again */
	/* The parent's key set may be mid-update: abandon it rather than trust
	 * it, but keep it reachable (a leak checker must not report it). */
	abandoned_named = named;
	memset(&named, 0, sizeof named);
	/* nor its symbolizer: its descriptors' offsets are shared with the
	 * parent's (kept reachable too) */
	abandoned_res = namer_res;
	memset(&namer_res, 0, sizeof namer_res);
	/* the child's slabs are its own: a parent's mark could name an address
	 * its lists reuse (kept reachable, as named) */
	abandoned_seen_at = seen_at;
	abandoned_seen_head = seen_head;
	memset(&seen_at, 0, sizeof seen_at);
	seen_head = NULL;
	nseen = cap_seen = 0;
	nbump = nend = NULL;
	object_name[0] = '\0';
	namer_running = 0;
	pp__shm_boot_ns = 0;
	detach_said = 0;
}

int pp__shm_rename(const char *name, int keep)
{
	char object[300], from[320], to[320];
	pp__shm_object_name(name, object, sizeof object);
	pthread_mutex_lock(&namer_lock);
	int rc = -1;
	if (!object_name[0]) {
		pp__warn("no segment to rename to %s", object);
	} else if (pp__shm_make_room(object, "") == 0) {
		/* glibc keeps POSIX shared memory in /dev/shm: the object is
		 * renamed under the live mapping, nothing is copied or lost */
		snprintf(from, sizeof from, "/dev/shm%s", object_name);
		snprintf(to, sizeof to, "/dev/shm%s", object);
		if (rename(from, to) == 0) {
			snprintf(object_name, sizeof object_name, "%s", object);
			keep_at_exit = keep;
			rc = 0;
		} else {
			pp__warn("cannot rename the segment %s to %s: %s", from, to, strerror(errno));
		}
	}
	pthread_mutex_unlock(&namer_lock);
	return rc;
}

void pp__shm_discard(void)
{
	if (object_name[0] && !keep_at_exit)
		shm_unlink(object_name);
}

/* A normal exit: publish the last names, mark the segment finished, and
 * remove it unless asked to keep it. The namer makes the last pass itself
 * (its resolver is its own) and is joined, so nothing is written into the
 * segment's names after this and no thread of ours is left running while
 * the process tears down. */
static void shm_exit(void)
{
	pthread_mutex_lock(&namer_lock);
	stopping = 1;
	pthread_mutex_unlock(&namer_lock);
	if (namer_running) {
		pp__shm_nudge();
		pthread_join(namer_tid, NULL);
		namer_running = 0;
	}
	pthread_mutex_lock(&namer_lock);
	pp__shm_hdr_t *h = pp__arena.hdr;
	if (h && !finished && object_name[0]) {
		notice_detached(h);
		/* keys other threads met since the namer's last pass, or all of
		 * them when the namer never started */
		name_pass();
		namer_res_close();
		__atomic_store_n(&h->exit_ns, pp__run_now_ns(), __ATOMIC_RELAXED);
		if (!__atomic_load_n(&pp__arena.detached, __ATOMIC_ACQUIRE))
			__atomic_store_n(&h->state, PP__SHM_EXITED, __ATOMIC_RELEASE);
		if (!keep_at_exit)
			shm_unlink(object_name);
	}
	finished = 1;
	pthread_mutex_unlock(&namer_lock);
}

static void program_name(char *buf, size_t n)
{
	snprintf(buf, n, "%s", program_invocation_short_name);
}

static void command_line(char *buf, size_t n)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, buf, n - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (got <= 0) {
		program_name(buf, n);
		return;
	}
	for (ssize_t i = 0; i < got; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	while (got > 0 && buf[got - 1] == ' ')
		got--;
	buf[got] = '\0';
}

/* pp__tls's distance from the thread pointer, the same in every thread. */
/* Under `pathprof run --offcpu` the recorder learns from the header just
 * written where the threads keep their gate state; until it has, a block
 * has no path. The tool passes a pipe (PATHPROF_OFFCPU_ACK, the read end's
 * number) and writes to it once it has read the header: wait for that, up
 * to 2 s, once per process image, so the program's first blocks are
 * attributed too. The variable is removed, so a program this one execs
 * never reads a descriptor number it does not own. */
static void offcpu_wait(void)
{
	static int done;
	const char *s = getenv("PATHPROF_OFFCPU_ACK");
	if (done || !s || !*s)
		return;
	done = 1;
	char *end;
	long fd = strtol(s, &end, 10);
	unsetenv("PATHPROF_OFFCPU_ACK");
	struct stat st;
	if (*end || fd < 3 || fd > 1 << 20 || fstat((int)fd, &st) != 0 || !S_ISFIFO(st.st_mode))
		return;
	struct pollfd p = { .fd = (int)fd, .events = POLLIN };
	while (poll(&p, 1, 2000) < 0 && errno == EINTR)
		;
	close((int)fd);
}

static int64_t tls_offset(void)
{
#if defined(__x86_64__)
	uintptr_t tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp)); /* the TCB points to itself */
	return (int64_t)((uintptr_t)&pp__tls - tp);
#else
	return 0;
#endif
}

void pp__shm_crashed(int sig)
{
	pp__shm_hdr_t *h = pp__arena.hdr;
	if (h)
		__atomic_store_n(&h->crash_signal, (uint32_t)sig, __ATOMIC_RELEASE);
}

void pp__shm_gate_cost(double in, double out)
{
	pp__shm_hdr_t *h = pp__arena.hdr;
	if (h)
		__atomic_store_n(&h->gate_cost, pp__shm_cost_pack(in, out), __ATOMIC_RELEASE);
}


/* Does the process run one thread (glibc's own flag, which it clears at
 * the first pthread_create)? Where it cannot be known, no. */
static int single_threaded(void)
{
#ifdef PP_HAVE_SINGLE_THREADED
	return __libc_single_threaded;
#else
	return 0;
#endif
}

/* The naming thread, joinable: the exit handler stops and joins it. */
static void namer_start(void)
{
	if (pp__own_thread_start(&namer_tid, "namer", namer_main, NULL) == 0)
		namer_running = 1;
	else
		pp__warn("%s: cannot start the naming thread; names appear at exit only", object_name);
}

void pp__shm_start(pp__shm_hdr_t *h, const char *object, int keep)
{
	h->version = PP__SHM_VERSION;
	h->header_size = sizeof *h;
	h->slab_size = sizeof(pp__slab_t);
	h->path_size = sizeof(pp__path_t);
	h->segrt_size = sizeof(pp__segrt_t);
	h->name_size = sizeof(pp__shm_name_t);
	h->hist_rows = PP__CELL_ROWS;
	h->hist_sub = PP_HIST_SUB;
	h->arena_size = pp__arena.size;
	h->base = (uint64_t)(uintptr_t)pp__arena.base;
	h->pid = pp__g.pid;
	h->start_ns = pp__g.start_ns;
	h->update_ns = pp__run_now_ns(); /* alive when it began exporting */
	h->frontend = (uint32_t)__atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED);
	h->timing = pp__mode.timing;
	h->sample_n = pp__mode.sample_n;
	h->state = PP__SHM_RUNNING;
	h->start_boot_ns = pp__shm_boot_ns;
	program_name(h->program, sizeof h->program);
	command_line(h->command, sizeof h->command);
	memcpy(h->service, pp__g.service, sizeof h->service);
	memcpy(h->host, pp__g.host, sizeof h->host);
	memcpy(h->build_id, pp__g.build_id, sizeof h->build_id);
	h->tls_offset = tls_offset();
	h->own_work_at = (uint32_t)offsetof(pp__tls_t, own_work);
	pp__clock_origin(&h->clock0_ns, &h->tick0);
	pp__boot_id(h->boot_id, sizeof h->boot_id);
	pp__shm_modules_publish(h);
	/* The magic goes last: a reader that sees it sees a whole header. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(h->magic, PP__SHM_MAGIC, 8);
	offcpu_wait();

	pthread_mutex_lock(&namer_lock);
	snprintf(object_name, sizeof object_name, "%s", object);
	keep_at_exit = keep;
	finished = 0;
	stopping = 0;
	pthread_mutex_unlock(&namer_lock);
	if (!exit_hooked) {
		exit_hooked = 1;
		atexit(shm_exit);
	}
	pthread_once(&namer_atfork_once, namer_atfork);
	if (!namer_running) {
		if (pp__config.namer_on || !single_threaded())
			namer_start();
		else
			__atomic_store_n(&namer_deferred, 1, __ATOMIC_RELEASE);
	}
}

void pp__shm_namer_now(void)
{
	if (!__atomic_exchange_n(&namer_deferred, 0, __ATOMIC_ACQ_REL))
		return;
	pthread_mutex_lock(&namer_lock);
	int go = !stopping && !finished && object_name[0] && !namer_running;
	pthread_mutex_unlock(&namer_lock);
	if (go)
		namer_start();
}
