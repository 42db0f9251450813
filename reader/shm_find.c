/* Finding live segments in /dev/shm without reading them whole: the one of
 * a pid, the running profiled processes of this user (`pathprof top`
 * without a target), the ones dead processes left (`pathprof recover
 * --list`), and whether a segment's writer still runs. Split
 * from shm_read.c, which reads a segment once it is found. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shm.h"
#include "shm_read.h"

/* The segment of a pid: glibc keeps POSIX shm objects in /dev/shm, so look
 * there for one whose header names the pid. Pids are reused, and a process
 * killed by SIGKILL leaves its segment behind, so several may name it: the
 * one whose writer still runs wins, then one still marked running (a crash's
 * last counts), then the latest to start. -2 when none was found but the
 * default name pathprof.PID exists and cannot be read (another user's). */
int pp__shm_find_by_pid(uint64_t pid, char *object, size_t n)
{
	char dflt[64];
	int denied = 0;
	snprintf(dflt, sizeof dflt, "pathprof.%llu", (unsigned long long)pid);
	DIR *d = opendir("/dev/shm");
	if (!d)
		return -1;
	int found = 0, best_rank = 0;
	uint64_t best_start = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			denied |= errno == EACCES && !strcmp(e->d_name, dflt);
			continue;
		}
		pp__shm_hdr_t h;
		struct stat st;
		int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
			 pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
			 !memcmp(h.magic, PP__SHM_MAGIC, 8) && h.pid == pid;
		close(fd);
		if (!ok)
			continue;
		int running = h.state == PP__SHM_RUNNING;
		int rank = running && pp__shm_writer_alive(h.pid, h.start_boot_ns) ? 2 : running;
		if (!found || rank > best_rank || (rank == best_rank && h.start_boot_ns > best_start)) {
			snprintf(object, n, "/%s", e->d_name);
			found = 1;
			best_rank = rank;
			best_start = h.start_boot_ns;
		}
	}
	closedir(d);
	return found ? 0 : denied ? -2 : -1;
}

static int by_pid(const void *a, const void *b)
{
	uint64_t x = ((const pp__shm_live_t *)a)->pid, y = ((const pp__shm_live_t *)b)->pid;
	return x < y ? -1 : x > y;
}

long pp__shm_list(pp__shm_live_t **out, int which)
{
	*out = NULL;
	DIR *d = opendir("/dev/shm");
	if (!d)
		return -1;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		pp__shm_hdr_t h;
		struct stat st;
		int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
			 (st.st_uid == geteuid() || geteuid() == 0) &&
			 pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
			 !memcmp(h.magic, PP__SHM_MAGIC, 8) && h.version == PP__SHM_VERSION;
		close(fd);
		if (ok && which == PP__SHM_LIST_LIVE)
			ok = h.state == PP__SHM_RUNNING && pp__shm_writer_alive(h.pid, h.start_boot_ns);
		else if (ok)
			ok = (h.state == PP__SHM_RUNNING || h.state == PP__SHM_DETACHED) &&
			     !pp__shm_writer_alive(h.pid, h.start_boot_ns);
		if (!ok)
			continue;
		if (n == cap) {
			pp__shm_live_t *g = realloc(*out, (cap = cap ? cap * 2 : 8) * sizeof **out);
			if (!g)
				break;
			*out = g;
		}
		pp__shm_live_t *l = &(*out)[n++];
		l->pid = h.pid;
		snprintf(l->object, sizeof l->object, "/%s", e->d_name);
		memcpy(l->program, h.program, sizeof l->program);
		l->program[sizeof l->program - 1] = '\0';
		l->start_ns = h.start_ns;
	}
	closedir(d);
	if (n)
		qsort(*out, n, sizeof **out, by_pid);
	return (long)n;
}
