/* The runtime's one error sink. The runtime never aborts and never prints on
 * the hot path; slow paths and start-up report here, one line each. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "own_thread.h"
#include "runtime.h"

void pp__warn(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	/* the runtime's own threads have their own descriptor table */
	int fd = pp__own_thread_stderr();
	if (fd == -2) {
		fprintf(stderr, "pathprof: %s\n", line);
		return;
	}
	char out[sizeof line + 16];
	int n = snprintf(out, sizeof out, "pathprof: %s\n", line);
	if (fd >= 0 && n > 0 && write(fd, out, (size_t)n) < 0) {
		/* nowhere left to say it */
	}
	pp__own_thread_stderr_done(fd);
}
