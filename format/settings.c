/* One spelling of a setting everywhere (settings.h). strtoull alone would
 * also take " 5", "+5" and wrap "-1" around; both sides refuse those. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/state.h>
#include "settings.h"

int pp__parse_digits(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	size_t n = strlen(s);
	if (n == 0 || n > 20 || strspn(s, "0123456789") != n)
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, NULL, 10);
	if (errno || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int pp__parse_timing(const char *s, uint32_t *mode, uint32_t *sample_n)
{
	if (!strcmp(s, "off")) {
		*mode = PP_TIMING_OFF;
		return 0;
	}
	if (!strcmp(s, "on")) {
		*mode = PP_TIMING_ON;
		return 0;
	}
	uint64_t n;
	if (!strncmp(s, "sample:", 7) && pp__parse_digits(s + 7, 1, 0x7fffffff, &n) == 0) {
		*mode = n == 1 ? PP_TIMING_ON : PP_TIMING_SAMPLE;
		*sample_n = (uint32_t)n;
		return 0;
	}
	/* burst:N, windows holding 1/N of the time; burst alone: 1/16 */
	if (!strcmp(s, "burst") ||
	    (!strncmp(s, "burst:", 6) && pp__parse_digits(s + 6, 1, 1000, &n) == 0)) {
		if (s[5] != ':')
			n = 16;
		*mode = n == 1 ? PP_TIMING_ON : PP_TIMING_BURST;
		*sample_n = (uint32_t)n;
		return 0;
	}
	return -1;
}

int pp__parse_percent(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end != s && *end == '%')
		end++;
	if (end == s || *end || !(v >= 0 && v <= 100) || strchr(" \t\n", *s))
		return -1;
	*out = v;
	return 0;
}
