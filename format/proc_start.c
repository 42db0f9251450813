/* /proc/PID/stat's state and starttime (see proc_start.h). Plain open and
 * read, no stdio: the runtime calls it inside the profiled program. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_start.h"

/* The state letter and the start in CLOCK_BOOTTIME nanoseconds, rounded
 * down to the kernel's clock tick (exec keeps it). -1 when /proc/PID/stat
 * cannot be opened (errno: ENOENT when the process is gone or /proc is not
 * mounted) or parsed (EINVAL). */
static int proc_start(uint64_t pid, char *state, uint64_t *start_boot_ns)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%llu/stat", (unsigned long long)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	errno = EINVAL;
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* the command name may hold spaces and ')': fields count from the last
	 * ')', which ends the second; the state is the third, starttime (clock
	 * ticks since boot) the 22nd */
	const char *p = strrchr(buf, ')');
	long hz = sysconf(_SC_CLK_TCK);
	if (!p || p[1] != ' ' || !p[2] || hz <= 0)
		return -1;
	*state = p[2];
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -1;
	unsigned long long ticks = strtoull(p + 1, NULL, 10), h = (unsigned long long)hz;
	*start_boot_ns = ticks / h * 1000000000ull + ticks % h * (1000000000ull / h);
	return 0;
}

int pp__shm_writer_alive(uint64_t pid, uint64_t start_boot_ns)
{
	if (!pid || pid > 0x7fffffff)
		return 0;
	char state;
	uint64_t start;
	if (proc_start(pid, &state, &start) != 0) {
		if (errno == EINVAL)
			return 1; /* a stat line this cannot parse: trust the pid */
		return kill((pid_t)pid, 0) == 0 || errno == EPERM; /* gone, or no /proc */
	}
	if (state == 'Z' || state == 'X' || state == 'x')
		return 0;
	return !start_boot_ns || start <= start_boot_ns;
}
