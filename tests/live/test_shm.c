/* Reader of live segments against good and damaged input. The test exports
 * its own profile, checks the snapshot's exact counts and a name the
 * naming thread published as the exit dump takes it, then copies the
 * segment into new objects with one field broken each (magic, version,
 * sizes, a pointer outside what was handed out, a list that loops) and
 * checks that opening or reading each gives one clear error, never a crash.
 * Built with the runtime's sources under ASan/UBSan when available. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <pathprof/live.h>
#include <pathprof/raii.h>
#include "../runtime/check.h"
#include "profile.h"
#include "shm.h"
#include "shm_read.h"
#include "slab.h"

/* tests/live/live_test.py patches these header offsets directly. */
_Static_assert(offsetof(pp__shm_hdr_t, version) == 8, "version offset");
_Static_assert(offsetof(pp__shm_hdr_t, arena_size) == 40, "arena_size offset");
_Static_assert(offsetof(pp__shm_hdr_t, used) == 48, "used offset");
_Static_assert(offsetof(pp__shm_hdr_t, slabs) == 104, "slabs offset");

static volatile int sink;
static int leaf_line; /* where leaf's gate is */

__attribute__((noinline)) static void leaf(void)
{
	PP_GATE("leaf"); leaf_line = __LINE__;
	sink++;
}

__attribute__((noinline)) static void root(void)
{
	PP_ROOT();
	PP_GATE("root");
	leaf();
	leaf();
}

static char good[64], bad[64], stale[2][64], aside[2][96];

/* What this test puts in /dev/shm goes when it ends, a failed check
 * included (CHECK exits): no stale segment a later reader could find. */
static void remove_own(void)
{
	shm_unlink(bad);
	for (int i = 0; i < 2; i++) {
		shm_unlink(stale[i]);
		if (aside[i][0])
			shm_unlink(aside[i]);
	}
}

/* What a process killed by SIGKILL leaves: a segment still marked running
 * that names a pid, here this test's own, as a reused pid would, and that
 * began exporting long before this process started. Only its header. */
static void write_stale_at(const char *object, uint32_t state, uint64_t start_boot_ns);
static void write_stale(const char *object, uint32_t state)
{
	write_stale_at(object, state, 1);
}

static void write_stale_at(const char *object, uint32_t state, uint64_t start_boot_ns)
{
	pp__shm_hdr_t h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, PP__SHM_MAGIC, 8);
	h.version = PP__SHM_VERSION;
	h.pid = (uint64_t)getpid();
	h.state = state;
	h.start_boot_ns = start_boot_ns;
	shm_unlink(object);
	int fd = shm_open(object, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK(pwrite(fd, &h, sizeof h, 0) == (ssize_t)sizeof h);
	close(fd);
}

/* What pp__shm_create wrote to stderr creating OBJECT ("" for nothing);
 * the object must be created. */
static const char *create_said(const char *object)
{
	static char said[1024];
	char name[64];
	snprintf(name, sizeof name, "%s", object);
	fflush(stderr);
	int saved = dup(2);
	FILE *f = tmpfile();
	CHECK(saved >= 0 && f);
	CHECK(dup2(fileno(f), 2) == 2);
	int fd = pp__shm_create(name, sizeof name, 4096);
	fflush(stderr);
	CHECK(dup2(saved, 2) == 2);
	close(saved);
	CHECK(fd >= 0);
	close(fd);
	CHECK_EQ_STR(name, object);
	rewind(f);
	size_t n = fread(said, 1, sizeof said - 1, f);
	said[n] = 0;
	fclose(f);
	return said;
}

static const pp_ppath_t *path_of(const pp_profile_t *p, const char *a, const char *b)
{
	for (uint32_t i = 0; i < p->npaths; i++) {
		const pp_ppath_t *q = &p->paths[i];
		if (q->depth == 2 && !strcmp(p->names[q->names[0]].name, a) &&
		    !strcmp(p->names[q->names[1]].name, b))
			return q;
	}
	return NULL;
}

/* A copy of the good segment's used bytes; edited, then written as bad. */
static char *img;
static size_t img_used, img_size;

static void write_bad(size_t object_size)
{
	shm_unlink(bad);
	int fd = shm_open(bad, O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(fd >= 0);
	CHECK(ftruncate(fd, (off_t)object_size) == 0);
	size_t n = img_used < object_size ? img_used : object_size;
	CHECK(pwrite(fd, img, n, 0) == (ssize_t)n);
	close(fd);
}

/* A reader copies the segment while the writer's naming thread may be
 * publishing into it: in production they are two processes, which TSan never
 * sees; here they share one, so the copy is hidden from TSan on purpose. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#endif
#ifdef UNDER_TSAN
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
#else
static void __tsan_ignore_thread_begin(void) {}
static void __tsan_ignore_thread_end(void) {}
#endif

/* The copy holds img_used bytes and says so: the naming thread may still
 * take arena bytes for itself (the gate-cost measure's scratch slab), and a
 * copied header counting those would put "beyond used" inside it (a CI
 * failure: "slab beyond used" read as a bad magic). */
static void fresh(void)
{
	__tsan_ignore_thread_begin();
	memcpy(img, pp__arena.base, img_used);
	__tsan_ignore_thread_end();
	((pp__shm_hdr_t *)(void *)img)->used = img_used;
}

static pp__shm_hdr_t *H(void)
{
	return (pp__shm_hdr_t *)img;
}

/* Opening (or, when it opens, reading) bad must fail with a message
 * containing want. */
static void expect_error(const char *what, size_t object_size, const char *want)
{
	write_bad(object_size);
	pp__shm_view_t v;
	pp_profile_t p;
	pp__shm_stats_t st;
	char err[512] = "";
	int rc = pp__shm_open(&v, bad + 1, err, sizeof err);
	if (rc == 0) {
		rc = pp__shm_snapshot(&v, &p, &st, err, sizeof err);
		if (rc == 0)
			pp__profile_free(&p);
		pp__shm_close(&v);
	}
	if (rc == 0 || !strstr(err, want)) {
		fprintf(stderr, "%s: expected an error with '%s', got rc %d '%s'\n", what, want, rc, err);
		exit(1);
	}
	CHECK(!strchr(err, '\n'));
	printf("ok %-28s %s\n", what, err);
}

/* pp__shm_named gives up at once (0) while a naming pass holds the
 * namer's lock (the exit dump then resolves the key itself), and a pass
 * holds it past publishing its last name, as long as the namer thread is
 * kept off the CPU: a published name is asked for again until no pass is
 * in the way. */
static int named_when_free(uint64_t key, const char **name, const char **file, uint32_t *line)
{
	for (int tries = 0; tries < 2000; tries++) {
		if (pp__shm_named(key, name, file, line))
			return 1;
		struct timespec d = {0, 1000000};
		nanosleep(&d, NULL);
	}
	return 0;
}

static uint64_t off_of(const void *p)
{
	return (uint64_t)((const char *)p - pp__arena.base);
}

int main(void)
{
	snprintf(good, sizeof good, "/pp-shmtest-%d", (int)getpid());
	snprintf(bad, sizeof bad, "/pp-shmtest-bad-%d", (int)getpid());
	for (int i = 0; i < 2; i++)
		snprintf(stale[i], sizeof stale[i], "/pp-shmtest-stale%d-%d", i, (int)getpid());
	atexit(remove_own);
	/* One stale segment of this pid before this process's, one after:
	 * finding by pid must not depend on /dev/shm's listing order. */
	write_stale(stale[0], PP__SHM_RUNNING);
	pp_disable_exit_dump();
	pp_set_timing(PP_TIMING_ON, 1);
	CHECK(pp_shm_export(good + 1, 0) == 0);
	CHECK(pp_shm_export(good + 1, 0) == -1); /* once only */
	for (int i = 0; i < 1000; i++)
		root();

	/* The good segment: wait for the namer, then exact counts. */
	pp__shm_view_t v;
	pp_profile_t p;
	pp__shm_stats_t st;
	char err[512];
	CHECK(pp__shm_open(&v, good + 1, err, sizeof err) == 0);
	for (int tries = 0;; tries++) {
		CHECK(pp__shm_snapshot(&v, &p, &st, err, sizeof err) == 0);
		if (st.unnamed_records == 0 && p.npaths == 1)
			break;
		pp__profile_free(&p);
		CHECK(tries < 200);
		struct timespec d = {0, 10000000};
		nanosleep(&d, NULL);
	}
	const pp_ppath_t *q = path_of(&p, "root", "leaf");
	CHECK(q);
	CHECK_EQ_U64(q->count, 2000);
	const pp_pnode_t *leaf = pp__profile_node(&p, q->id);
	CHECK(leaf);
	CHECK_EQ_U64(leaf->incl.count, 2000);
	CHECK(leaf->self <= leaf->incl.sum);
	CHECK_EQ_U64(p.events, 1000);
	CHECK_EQ_U64(p.records, 2000);
	CHECK_EQ_U64(p.threads, 1);
	CHECK_EQ_U64(st.threads_live, 1);
	CHECK(st.alive && !st.exited);
	pp__profile_free(&p);
	/* The names the naming thread published, which the exit dump takes
	 * rather than resolve again: leaf's, from its site. */
	const pp__path_t *two = pp__slab_first()->head;
	while (two && two->depth != 2)
		two = two->next;
	CHECK(two);
	const char *name, *file;
	uint32_t line;
	CHECK(named_when_free(two->keys[1], &name, &file, &line) == 1);
	CHECK_EQ_STR(name, "leaf");
	CHECK(strstr(file, "test_shm.c") != NULL);
	CHECK_EQ_U64(line, leaf_line);
	CHECK(pp__shm_named(two->keys[0] + 1, &name, &file, &line) == 0); /* never published */
	/* The pid finds the same segment, not the stale ones a killed
	 * process given this pid before left. */
	write_stale(stale[1], PP__SHM_RUNNING);
	char pid[32];
	pp__shm_view_t v2;
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	CHECK(pp__shm_open(&v2, pid, err, sizeof err) == 0);
	CHECK_EQ_STR(v2.object, good);
	pp__shm_close(&v2);
	for (int i = 0; i < 2; i++)
		shm_unlink(stale[i]);
	pp__shm_close(&v);

	/* Creating a segment over one left under this pid, marked running:
	 * the counts in it are set aside under NAME.left-START, where
	 * `pathprof recover --list` finds them; silently when it began before
	 * this process (a killed process's whose pid was reused; CI once saw
	 * the exec warning for that), with one line when it began since (an
	 * earlier image of this process: an exec unseen). One that exited is
	 * replaced. */
	struct timespec now;
	CHECK(clock_gettime(CLOCK_BOOTTIME, &now) == 0);
	uint64_t since = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	snprintf(aside[0], sizeof aside[0], "%s.left-1", stale[0]);
	snprintf(aside[1], sizeof aside[1], "%s.left-%llu", stale[1], (unsigned long long)since);
	write_stale_at(stale[0], PP__SHM_RUNNING, 1);
	write_stale_at(stale[1], PP__SHM_RUNNING, since);
	CHECK_EQ_STR(create_said(stale[0]), "");
	char want[512];
	snprintf(want, sizeof want,
		 "pathprof: %s: an earlier image of this process left its segment (an exec "
		 "pathprof did not see); its counts are kept as %s ('pathprof recover --force' "
		 "reads them)\n",
		 stale[1], aside[1]);
	CHECK_EQ_STR(create_said(stale[1]), want);
	for (int i = 0; i < 2; i++) {
		pp__shm_hdr_t lh;
		int lfd = shm_open(aside[i], O_RDONLY, 0);
		CHECK(lfd >= 0 && pread(lfd, &lh, sizeof lh, 0) == (ssize_t)sizeof lh);
		close(lfd);
		CHECK_EQ_U64(lh.start_boot_ns, i ? since : 1);
		CHECK_EQ_U64(lh.state, PP__SHM_RUNNING);
		shm_unlink(aside[i]);
		shm_unlink(stale[i]);
	}
	/* exited: nothing unwritten, replaced in place */
	write_stale_at(stale[0], PP__SHM_EXITED, 1);
	CHECK_EQ_STR(create_said(stale[0]), "");
	CHECK(shm_unlink(aside[0]) != 0 && errno == ENOENT);
	shm_unlink(stale[0]);

	img_used = __atomic_load_n(&pp__arena.hdr->used, __ATOMIC_ACQUIRE);
	img_size = pp__arena.size;
	img = malloc(img_used);
	CHECK(img);
	fresh();
	/* An unchanged copy reads fine: the checks below fail for their
	 * own reason only. */
	write_bad(img_size);
	CHECK(pp__shm_open(&v, bad + 1, err, sizeof err) == 0);
	CHECK(pp__shm_snapshot(&v, &p, &st, err, sizeof err) == 0);
	CHECK_EQ_U64(path_of(&p, "root", "leaf")->count, 2000);
	pp__profile_free(&p);
	pp__shm_close(&v);

	pp__slab_t *s = pp__slab_first();
	while (s && !s->head)
		s = s->next_all;
	CHECK(s);
	pp__path_t *rp = s->head;
	pp__segrt_t *g = (pp__segrt_t *)rp->seg;
	CHECK(g);
	uint32_t row = 0;
	while (row < PP_HIST_ROWS && !g->rows[row])
		row++;
	CHECK(row < PP_HIST_ROWS);

	fresh();
	H()->magic[0] ^= 1;
	expect_error("bad magic", img_size, "bad magic");
	fresh();
	H()->version = 99;
	expect_error("wrong version", img_size, "layout version 99");
	fresh();
	H()->path_size++;
	expect_error("wrong path size", img_size, "path size");
	fresh();
	expect_error("truncated below a header", 100, "truncated: 100 bytes");
	fresh();
	expect_error("truncated arena", 65536, "truncated: the header says");
	fresh();
	H()->used = img_size + 4096;
	expect_error("used beyond the mapping", img_size, "outside the");
	fresh();
	H()->used = 0;
	expect_error("used below the header", img_size, "outside the");
	fresh();
	H()->base += 8;
	expect_error("unaligned base", img_size, "not page-aligned");
	fresh();
	H()->slabs = H()->base + img_used + 4096;
	expect_error("slab beyond used", img_size, "lies outside");
	fresh();
	H()->slabs = H()->base - 4096;
	expect_error("slab below the arena", img_size, "lies outside");
	fresh();
	H()->slabs = H()->base + 16;
	expect_error("slab in the header", img_size, "lies outside");
	fresh();
	((pp__slab_t *)(img + off_of(s)))->pub.magic = 0;
	expect_error("slab magic", img_size, "bad magic");
	fresh();
	((pp__slab_t *)(img + off_of(s)))->next_all = s;
	expect_error("slab list loop", img_size, "loops");
	fresh();
	((pp__path_t *)(img + off_of(rp)))->next = rp;
	expect_error("path list loop", img_size, "loops");
	fresh();
	((pp__path_t *)(img + off_of(rp)))->depth = 0;
	expect_error("path depth 0", img_size, "bad depth");
	fresh();
	((pp__path_t *)(img + off_of(rp)))->depth = 0xffffffffu;
	expect_error("path depth huge", img_size, "bad depth");
	fresh();
	((pp__path_t *)(img + off_of(rp)))->depth = (uint32_t)((img_used - off_of(rp)) / 8);
	expect_error("path keys past used", img_size, "runs past");
	fresh();
	((pp__slab_t *)(img + off_of(s)))->head = (pp__path_t *)(pp__arena.base + img_used);
	expect_error("path beyond used", img_size, "lies outside");
	fresh();
	((pp__path_t *)(img + off_of(rp)))->seg = (struct pp__seg *)(pp__arena.base + img_used - 64);
	expect_error("timing beyond used", img_size, "timing of path");
	fresh();
	((pp__segrt_t *)(img + off_of(g)))->rows[row] = (uint32_t)(img_used >> 7);
	expect_error("histogram row beyond used", img_size, "histogram row");
	fresh();
	H()->names = img_used + 8;
	expect_error("name record beyond used", img_size, "name record");
	fresh();
	pp__shm_name_t *nr = (pp__shm_name_t *)(img + H()->names);
	nr->name_len = 0x7fffffff;
	expect_error("name length huge", img_size, "damaged");
	fresh();
	nr = (pp__shm_name_t *)(img + H()->names);
	nr->next = H()->names;
	expect_error("name list loop", img_size, "loops");

	shm_unlink(bad);
	free(img);
	return 0;
}
