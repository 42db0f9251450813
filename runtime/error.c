/* The runtime's one error sink. The runtime never aborts and never prints on
 * the hot path; slow paths and start-up report here, one line each. */
#include <stdarg.h>
#include <stdio.h>

#include "runtime.h"

void pp__warn(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "pathprof: %s\n", line);
}
