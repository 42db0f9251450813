/* See fd_high.h. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fd_high.h"

/* 32 numbers below min(soft limit, 1024): under FD_SETSIZE, and a table
 * the kernel need not grow past what a default process may have. */
static int high_base(void)
{
	struct rlimit r;
	rlim_t top = 1024;
	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < top)
		top = r.rlim_cur;
	return top > 64 ? (int)top - 32 : 0;
}

int pp__fd_high(int fd)
{
	static int base = -1;
	int b = __atomic_load_n(&base, __ATOMIC_RELAXED);
	if (b < 0) {
		b = high_base();
		__atomic_store_n(&base, b, __ATOMIC_RELAXED);
	}
	if (fd < 0 || !b || fd >= b)
		return fd;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, b);
	if (high < 0)
		return fd;
	close(fd);
	return high;
}
