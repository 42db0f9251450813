/* Where the profile goes: the configured name (PATHPROF_OUT, %p, a forked
 * child's .PID) and its claim at the first write (out_claim.h). Apart from
 * the dump, which collects and writes what goes there. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_high.h"
#include "file_kind.h"
#include "out_claim.h"
#include "runtime.h"

/* PATHPROF_OUT with "%p" replaced by the pid; a forked child writing to an
 * explicit name without %p gets ".<pid>" appended so it never overwrites its
 * parent's profile. */
void pp__out_path(const char *path, char *buf, size_t n)
{
	if (path) {
		snprintf(buf, n, "%s", path);
		return;
	}
	if (!pp__g.out[0]) {
		snprintf(buf, n, "%s.%llu.pathprof", program_invocation_short_name,
			 (unsigned long long)pp__g.pid);
		return;
	}
	const char *pct = strstr(pp__g.out, "%p");
	if (pct)
		snprintf(buf, n, "%.*s%llu%s", (int)(pct - pp__g.out), pp__g.out,
			 (unsigned long long)pp__g.pid, pct + 2);
	else if (pp__g.pid != pp__g.first_pid)
		snprintf(buf, n, "%s.%llu", pp__g.out, (unsigned long long)pp__g.pid);
	else
		snprintf(buf, n, "%s", pp__g.out);
}

/* Who wrote the profile at file: its META's pid and start. -1 when it is
 * not a profile this runtime can read the start of. */
static int written_by(const char *file, uint64_t *pid, uint64_t *start)
{
	uint8_t b[8192];
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, b, sizeof b);
	close(fd);
	uint32_t u32;
	if (n < 16 || memcmp(b, "PATHPROF", 8))
		return -1;
	memcpy(&u32, b + 12, 4); /* header_len; then META's type, flags, length */
	size_t at = (size_t)u32 + 16;
	for (int s = 0; s < 2; s++) { /* frontend, command: u32 length, bytes */
		if (at + 4 > (size_t)n)
			return -1;
		memcpy(&u32, b + at, 4);
		at += 4 + (size_t)u32;
	}
	if (at + 16 > (size_t)n)
		return -1;
	memcpy(pid, b + at, 8);
	memcpy(start, b + at + 8, 8);
	return 0;
}

enum { FREE = 0, TAKEN_PROFILE = 1, TAKEN_OTHER = 2 };

/* Must the file at file not be replaced? TAKEN_OTHER: it holds something
 * that is not a profile, which a profile renamed over it would destroy
 * (only an empty file, a profile, or what is not a regular file, such as
 * /dev/null, is written at). TAKEN_PROFILE: a profile that is not this
 * image's, written during this run by another process (several given one
 * PATHPROF_OUT), or one of an earlier image of this process (exec keeps the
 * pid and so the default name). A profile of an earlier run is replaced,
 * as any output file is. */
static int taken(const char *file)
{
	struct stat st;
	uint64_t pid = 0, start = 0;
	if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
		return FREE;
	enum pp__file_kind kind = pp__file_kind(file);
	if (kind != PP__FILE_NONE && kind != PP__FILE_PROFILE)
		return TAKEN_OTHER;
	int known = written_by(file, &pid, &start) == 0;
	if (known && pid == pp__g.pid && start == pp__g.start_ns)
		return FREE; /* this image's own, an earlier pp_dump */
	if (known && pid == pp__g.pid)
		return TAKEN_PROFILE;
	uint64_t mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
	return mtime >= pp__g.start_ns ? TAKEN_PROFILE : FREE;
}

/* The configured output, claimed at the first write: if taken, NAME.1,
 * NAME.2, ... and one line says so; later writes go to the same file. The
 * claim holds an exclusive flock on the file at the name until the profile
 * is renamed over it, so processes ending together (20 children of one
 * shell) each find the others' claims: an empty file created during this
 * run counts as taken. Returns the locked descriptor, or -1 (no claim: the
 * name is not a regular file, or cannot be opened; the write says why). */
static char claimed[4200];
static uint64_t claimed_by;

int pp__out_claim(char *file, size_t n, int *created_out)
{
	*created_out = 0;
	if (claimed_by == pp__g.pid && claimed[0]) {
		snprintf(file, n, "%s", claimed);
		return -1;
	}
	char want[sizeof claimed];
	snprintf(want, sizeof want, "%s", file);
	int why = FREE; /* what the configured name held */
	for (unsigned k = 0; k < 1000; k++) {
		if (k)
			snprintf(file, n, "%.4150s.%u", want, k);
		int created = 1;
		int fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno == EEXIST) {
			created = 0;
			fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		}
		/* held in the program's table while the dump runs: where its
		 * lowest-free opens do not reach, so our close is never theirs */
		fd = pp__fd_high(fd);
		struct stat mine, now;
		if (fd < 0 || fstat(fd, &mine) != 0 || !S_ISREG(mine.st_mode)) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
			;
		/* a claimer before us renamed its profile over the name: taken */
		int t = created ? FREE : taken(file);
		if (stat(file, &now) != 0 || now.st_ino != mine.st_ino || now.st_dev != mine.st_dev || t) {
			if (!k)
				why = t ? t : TAKEN_PROFILE;
			close(fd);
			continue;
		}
		if (strcmp(want, file) && why == TAKEN_OTHER)
			pp__warn("%s is not a pathprof profile, and is left as it was; this profile "
				 "goes to %s",
				 want, file);
		else if (strcmp(want, file))
			pp__warn("%s holds the profile of another process written during this run (or "
				 "of an earlier image of this one); this profile goes to %s",
				 want, file);
		snprintf(claimed, sizeof claimed, "%s", file);
		claimed_by = pp__g.pid;
		*created_out = created;
		return fd;
	}
	snprintf(file, n, "%s", want);
	return -1;
}

const char *pp__out_claimed(void)
{
	return claimed;
}
