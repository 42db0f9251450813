/* Numbers as every output of the tool prints them, defined once: JSON
 * numbers (the report, the diff and top's JSON) and durations for people
 * (the DOT graph's labels, top's columns). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

/* Fixed-point with trailing zeros dropped: stable text for tests, never
 * "nan"/"inf", which JSON cannot carry, and never "-0". */
void pp__report_json_num(FILE *out, double v, int decimals)
{
	char b[64];
	if (!isfinite(v)) {
		fputs("null", out);
		return;
	}
	int len = snprintf(b, sizeof b, "%.*f", decimals, v);
	if (len < 0 || (size_t)len >= sizeof b) {
		fprintf(out, "%.17g", v); /* beyond 1e60: exponent form is still JSON */
		return;
	}
	if (strchr(b, '.')) {
		while (len > 0 && b[len - 1] == '0')
			b[--len] = 0;
		if (len > 0 && b[len - 1] == '.')
			b[--len] = 0;
	}
	fputs(strcmp(b, "-0") ? b : "0", out);
}

const char *pp__report_duration(double ns, int compact, char *buf, size_t n)
{
	static const struct { double scale; const char *unit; } units[] = {
		{ 1, "ns" }, { 1e3, "us" }, { 1e6, "ms" }, { 1e9, "s" },
	};
	double a = fabs(ns);
	if (a < 0.5)
		ns = a = 0; /* no "-0 ns" for a change that rounds to nothing */
	size_t u = 0;
	while (u + 1 < sizeof units / sizeof units[0] && a >= units[u + 1].scale)
		u++;
	int decimals = u == 0 ? 0 : compact && u < 3 ? 1 : 2;
	snprintf(buf, n, "%.*f%s%s", decimals, ns / units[u].scale, compact ? "" : " ", units[u].unit);
	return buf;
}
