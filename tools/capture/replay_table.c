/* The replay's table: per entry point its calls and, when timed, the
 * total, mean, p50 and p99 of its calls (exact, from every duration), and a
 * TOTAL; text or JSON (docs/guides/capture.md). */
#include <stdlib.h>

#include "replay.h"
#include "report.h"

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *v, size_t n, double p)
{
	size_t k = (size_t)(p / 100 * (double)n + 0.999999);
	return n ? v[k ? k - 1 : 0] : 0;
}

void pp__cap_print_table(FILE *o, rp_t *r, size_t nfns, int json, const char *lib)
{
	uint64_t tcalls = 0, tns = 0;
	if (json)
		fprintf(o, "{\n  \"library\": \"%s\",\n  \"calls\": %llu,\n  \"divergences\": %llu,\n  \"functions\": [",
			lib, (unsigned long long)r->rd.calls, (unsigned long long)r->diverged);
	else
		fprintf(o, "%-32s %10s %14s %10s %10s %10s  (ns)\n", "function", "calls", "total", "mean", "p50",
			"p99");
	for (size_t i = 0; i < nfns; i++) {
		rfn_t *f = r->fns[i];
		uint64_t sum = 0;
		if (f->nns) /* qsort's pointer must not be NULL, even for 0 elements */
			qsort(f->ns, f->nns, sizeof *f->ns, by_u64);
		for (size_t k = 0; k < f->nns; k++)
			sum += f->ns[k];
		if (f->timed) {
			tcalls += f->calls;
			tns += sum;
		}
		const char *name = f->f->name;
		if (json) {
			fprintf(o, "%s\n    {\"function\": ", i ? "," : "");
			pp__report_json_str(o, name);
			fprintf(o, ", \"calls\": %llu", (unsigned long long)f->calls);
			if (f->timed)
				fprintf(o, ", \"total_ns\": %llu, \"mean_ns\": %llu, \"p50_ns\": %llu, \"p99_ns\": %llu",
					(unsigned long long)sum, (unsigned long long)(f->nns ? sum / f->nns : 0),
					(unsigned long long)pct(f->ns, f->nns, 50), (unsigned long long)pct(f->ns, f->nns, 99));
			fputc('}', o);
		} else if (f->timed) {
			fprintf(o, "%-32s %10llu %14llu %10llu %10llu %10llu\n", name, (unsigned long long)f->calls,
				(unsigned long long)sum, (unsigned long long)(f->nns ? sum / f->nns : 0),
				(unsigned long long)pct(f->ns, f->nns, 50), (unsigned long long)pct(f->ns, f->nns, 99));
		} else {
			fprintf(o, "%-32s %10llu %14s\n", name, (unsigned long long)f->calls, "(untimed)");
		}
	}
	if (json)
		fprintf(o, "\n  ],\n  \"total\": {\"calls\": %llu, \"total_ns\": %llu}\n}\n",
			(unsigned long long)tcalls, (unsigned long long)tns);
	else
		fprintf(o, "%-32s %10llu %14llu\n", "TOTAL", (unsigned long long)tcalls, (unsigned long long)tns);
}
