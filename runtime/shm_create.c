/* Creating the live segment's object under its name (shm.c does the rest):
 * what another process left under that name, killed, crashed, kept or an
 * earlier image of this one, is told from a live writer's by when its
 * process started, and set aside rather than deleted when it holds counts
 * nobody wrote to a profile; another user's object is left alone. Apart
 * from shm.c because it is the one part that deals with other processes'
 * objects. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "proc_start.h"
#include "runtime.h"
#include "shm.h"

uint64_t pp__shm_boot_ns;

/* What an existing object under our name is, left over from a run that
 * crashed, was killed or was kept. */
enum left {
	LEFT_TAKEN,   /* stays: its writer is alive (this image's own included), or
		       * it is not a segment */
	LEFT_DONE,    /* may go: its writer exited and wrote its profile */
	LEFT_COUNTS,  /* a dead writer's counts nobody wrote to a profile (marked
		       * running or detached: killed, for `pathprof recover`) */
	LEFT_EARLIER, /* the same, of an earlier image of this process: an exec
		       * pathprof did not see (exits.c removes it at one it sees) */
};

static enum left left_over(const char *object, uint64_t *their_start)
{
	int fd = shm_open(object, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return errno == ENOENT ? LEFT_DONE : LEFT_TAKEN;
	pp__shm_hdr_t h;
	ssize_t n = pread(fd, &h, sizeof h, 0);
	close(fd);
	if (n != (ssize_t)sizeof h || memcmp(h.magic, PP__SHM_MAGIC, 8))
		return LEFT_TAKEN;
	if (h.pid == pp__g.pid && h.start_boot_ns == pp__shm_boot_ns)
		return LEFT_TAKEN;
	*their_start = h.start_boot_ns;
	/* Under this pid, alive means begun since this process started (exec
	 * keeps the pid and the start): an earlier image. Begun before, it is
	 * a dead process's whose pid the kernel handed on (CI once took that
	 * for an exec). */
	int alive = pp__shm_writer_alive(h.pid, h.start_boot_ns);
	if (alive && h.pid != pp__g.pid)
		return LEFT_TAKEN;
	if (h.state == PP__SHM_EXITED)
		return LEFT_DONE;
	return alive ? LEFT_EARLIER : LEFT_COUNTS;
}

/* Moves a dead writer's segment out of the way under OBJECT.left-START
 * (its own start: unique to it), where `pathprof recover --list` finds it,
 * rather than delete counts a kill left for `pathprof recover`. 0 when
 * moved; -1 when it could not be (errno), then the caller removes it. */
static int set_aside(const char *object, uint64_t their_start, char *aside, size_t n)
{
	char from[320], to[360];
	snprintf(aside, n, "%.220s.left-%llu", object, (unsigned long long)their_start);
	snprintf(from, sizeof from, "/dev/shm%s", object);
	snprintf(to, sizeof to, "/dev/shm%s", aside);
	return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int pp__shm_make_room(const char *object, const char *why_it_matters)
{
	uint64_t their_start = 0;
	enum left left = left_over(object, &their_start);
	if (left == LEFT_TAKEN) {
		pp__warn("%s: a segment of that name exists and its writer is alive (or it is "
			 "not a pathprof segment)%s",
			 object, why_it_matters);
		return -1;
	}
	char aside[256];
	int moved = left != LEFT_DONE && set_aside(object, their_start, aside, sizeof aside) == 0;
	if (left == LEFT_EARLIER)
		pp__warn("%s: an earlier image of this process left its segment (an exec pathprof "
			 "did not see); %s%s%s",
			 object, moved ? "its counts are kept as " : "replacing it", moved ? aside : "",
			 moved ? " ('pathprof recover --force' reads them)" : "");
	if (!moved)
		shm_unlink(object);
	return 0;
}

/* Another user's object under our name (squatted, or a name shared across
 * users): not ours to replace or to fail on. Its owner, or 0 when the name
 * is free or ours. */
static uid_t foreign_owner(const char *object)
{
	char path[320];
	struct stat st;
	snprintf(path, sizeof path, "/dev/shm%s", object);
	if (stat(path, &st) != 0 || st.st_uid == geteuid())
		return 0;
	return st.st_uid ? st.st_uid : (uid_t)-1;
}

int pp__shm_create(char *object, size_t n, size_t size)
{
	uid_t other = foreign_owner(object);
	if (other) {
		char taken[300];
		snprintf(taken, sizeof taken, "%s", object);
		snprintf(object, n, "%.280s.u%u", taken, (unsigned)geteuid());
		pp__warn("%s: the name is taken by another user (uid %u); exporting as %s", taken,
			 other == (uid_t)-1 ? 0u : (unsigned)other, object);
	}
	struct timespec boot;
	if (!pp__shm_boot_ns && clock_gettime(CLOCK_BOOTTIME, &boot) == 0)
		pp__shm_boot_ns = (uint64_t)boot.tv_sec * 1000000000ull + (uint64_t)boot.tv_nsec;
	int fd = shm_open(object, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {
		if (pp__shm_make_room(object, "; the live view is off") != 0)
			return -1;
		fd = shm_open(object, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	}
	if (fd < 0) {
		pp__warn("%s: cannot create the segment: %s; the live view is off", object,
			 strerror(errno));
		return -1;
	}
	if (ftruncate(fd, (off_t)size) != 0) {
		pp__warn("%s: cannot size the segment to %zu bytes: %s; the live view is off",
			 object, size, strerror(errno));
		shm_unlink(object);
		close(fd);
		return -1;
	}
	return fd;
}
