/* Fuzz target: the PATHPROF_* start-up variables (pp__env_load and the
 * parsers behind it). The input is NUL-separated values for the variables
 * below in order; missing ones are unset. Oracles: every value lands in its
 * documented range, a well-formed value is taken exactly, anything refused
 * leaves the default, and nothing reads past a value. PATHPROF_TRACE is left
 * out: it only stores a path, and arming the recorder would change the
 * process the fuzzer runs in. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/pathprof.h>
#include "settings.h"
#include "fuzz.h"
#include "runtime.h"
#include "shm.h"
#include "slab.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { V_TIMING, V_OUT, V_DEPTH, V_PATHS, V_ARENA, V_SHM, V_KEEP, NVARS };
static const char *const vars[NVARS] = {
	"PATHPROF_TIMING", "PATHPROF_OUT", "PATHPROF_DEPTH", "PATHPROF_PATHS",
	"PATHPROF_ARENA_MB", "PATHPROF_SHM", "PATHPROF_SHM_KEEP",
};

static pp__config_t config0;
static char out0[sizeof pp__g.out];
static pp__mode_t mode0;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsetenv("PATHPROF_TRACE");
	for (int i = 0; i < NVARS; i++)
		unsetenv(vars[i]);
	pp__init();
	config0 = pp__config;
	memcpy(out0, pp__g.out, sizeof out0);
	mode0 = pp__mode;
	return 0;
}

/* Plain decimal digits only, at most 20 of them, value in [lo, hi]. */
static int strict_number(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	size_t n = strlen(s);
	if (n == 0 || n > 19 || strspn(s, "0123456789") != n)
		return 0;
	*v = strtoull(s, NULL, 10);
	return *v >= lo && *v <= hi;
}

static void check_number(const char *var, const char *s, uint64_t got, uint64_t def, uint64_t lo,
			 uint64_t hi)
{
	uint64_t v;
	if (got != def && (got < lo || got > hi))
		fz_fail("%s=%s gave %llu, outside %llu..%llu", var, s ? s : "(unset)",
			(unsigned long long)got, (unsigned long long)lo, (unsigned long long)hi);
	if (s && strict_number(s, lo, hi, &v) && got != v)
		fz_fail("%s=%s gave %llu", var, s, (unsigned long long)got);
	if ((!s || !*s) && got != def)
		fz_fail("%s unset gave %llu, not the default %llu", var, (unsigned long long)got,
			(unsigned long long)def);
}

/* pp__parse_timing alone: "off", "on", "sample:N" (1 <= N < 2^31),
 * "burst" and "burst:N" (1 <= N <= 1000) must parse exactly; whatever it
 * accepts must be a valid mode. */
static void check_timing(const char *s)
{
	uint32_t mode = 99, n = 0;
	uint64_t v = 16;
	int ok = pp__parse_timing(s, &mode, &n) == 0;
	int sample = !strncmp(s, "sample:", 7) && strict_number(s + 7, 1, 0x7fffffff, &v);
	int burst = !strcmp(s, "burst") || (!strncmp(s, "burst:", 6) && strict_number(s + 6, 1, 1000, &v));
	int strict = !strcmp(s, "off") || !strcmp(s, "on") || sample || burst;
	if (strict && !ok)
		fz_fail("PATHPROF_TIMING=%s refused", s);
	if (!ok)
		return;
	if (mode > PP_TIMING_BURST || (mode == PP_TIMING_SAMPLE && (n < 2 || n > 0x7fffffff)) ||
	    (mode == PP_TIMING_BURST && (n < 2 || n > 1000)))
		fz_fail("PATHPROF_TIMING=%s gave mode %u, n %u", s, mode, n);
	if ((sample || burst) && n != v)
		fz_fail("PATHPROF_TIMING=%s gave n %u", s, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = 0;
	const char *val[NVARS] = { 0 };
	char *w = buf;
	for (int i = 0; i < NVARS && w <= buf + size; i++, w += strlen(w) + 1)
		val[i] = w;
	for (int i = 0; i < NVARS; i++) {
		if (val[i])
			setenv(vars[i], val[i], 1);
		else
			unsetenv(vars[i]);
	}

	pp__config = config0;
	memcpy(pp__g.out, out0, sizeof out0);
	pp_set_timing(mode0.timing, mode0.sample_n);
	if (val[V_TIMING])
		check_timing(val[V_TIMING]);
	pp__env_load();

	if (pp__mode.timing > PP_TIMING_BURST || pp__mode.sample_n == 0)
		fz_fail("timing mode %u, sample %u", pp__mode.timing, pp__mode.sample_n);
	if (!memchr(pp__g.out, 0, sizeof pp__g.out))
		fz_fail("PATHPROF_OUT left unterminated");
	const char *o = val[V_OUT];
	if (o && *o && strlen(o) < sizeof pp__g.out ? strcmp(pp__g.out, o) : strcmp(pp__g.out, out0))
		fz_fail("PATHPROF_OUT=%s gave '%s'", o, pp__g.out);
	check_number(vars[V_DEPTH], val[V_DEPTH], pp__config.depth, config0.depth, 2, 4096);
	check_number(vars[V_PATHS], val[V_PATHS], pp__config.paths, config0.paths, 16, 1u << 26);
	check_number(vars[V_ARENA], val[V_ARENA], pp__config.arena_mb, config0.arena_mb, 16, 1u << 22);

	const char *shm = val[V_SHM];
	if (!memchr(pp__config.shm, 0, sizeof pp__config.shm))
		fz_fail("PATHPROF_SHM left unterminated");
	/* unset: the default segment; empty or "off": none; a bad name: none */
	const char *want = !shm ? "pathprof.%p"
			   : *shm && strcmp(shm, "off") && pp__shm_name_ok(shm) ? shm : config0.shm;
	if (strcmp(pp__config.shm, want))
		fz_fail("PATHPROF_SHM=%s gave '%s', expected '%s'", shm ? shm : "(unset)",
			pp__config.shm, want);
	if (pp__config.shm[0]) {
		char object[300];
		pp__shm_object_name(pp__config.shm, object, sizeof object);
		if (object[0] != '/' || strchr(object + 1, '/'))
			fz_fail("PATHPROF_SHM=%s gave the object name '%s'", shm, object);
	}
	if (pp__config.shm_keep != 0 && pp__config.shm_keep != 1)
		fz_fail("PATHPROF_SHM_KEEP=%s gave %d", val[V_KEEP], pp__config.shm_keep);
	free(buf);
	return 0;
}
