/* patchprobe: a cyg-built program whose two tiny functions a budget
 * stops, and which then shows its own code (tests/patch/patch.sh): helper
 * returns a value (its exit hook is a call), mix returns nothing (GCC's
 * exit hook is then a tail jump). Two threads call each 3 million times
 * while the runtime patches their hook calls out; each thread's result
 * must equal an ungated copy's (no call lost or misrun while the bytes
 * changed). After the work (and a pause of a few throttling rounds) it
 * prints the bytes of helper, mix, batch and main, one line each: "NAME
 * HEX...", the functions' sizes given as arguments by the test (from nm),
 * so the test compares them with the file's bytes. The sites the test
 * expects patched follow; every loop runs until they are (see patched()).
 * One more thread has a call of tick open the whole time, entered before
 * the others start (it waits for them to end and a pause of several
 * rounds) while they call tick a million times: tick is stopped, but its
 * exit hook may not be patched out before that call has left through it
 * (the test finds its one call of 30 ms or more in the profile, and no
 * unmatched exit).
 * Built through raii (-DPATHPROF_RAII, every function gated by
 * PP_GATE_FN), the sites are its gates' entries, which it finds in its own
 * table (pathprof/raii.h, runtime/raii_patch.c): each of helper's, mix's
 * and tick's must become a jump (e9); it prints them all, "entry NAME OFF"
 * (OFF from the function's start), for the test to check against the file.
 * usage: patchprobe HELPER_SIZE MIX_SIZE BATCH_SIZE MAIN_SIZE TICK_SIZE [NAME:OFF:BYTE:KIND...] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef PATHPROF_RAII
#include <pathprof/raii.h>
#define GATE() PP_GATE_FN()
#else
#define GATE() ((void)0)
#endif

#ifdef __clang__
#define NOT_GATED __attribute__((no_instrument_function, xray_never_instrument))
#else
#define NOT_GATED __attribute__((no_instrument_function))
#endif

/* The functions a budget stops, and batch: in the program, or with
 * -DPROBE_LIB in a shared library of their own (whose hook calls go
 * through its PLT) that the program built with -DPROBE_MAIN uses. */
uint64_t helper(uint64_t x);
void mix(uint64_t *acc, uint64_t x);
void tick(uint64_t *acc, int wait);
uint64_t batch(uint64_t from, int n);
extern volatile int release_tick, tick_waits;
#ifdef PP__RAII_PATCHABLE
/* The bounds of the raii table of the module that holds helper. */
void probe_table(const int32_t **from, const int32_t **to);
#endif

#ifndef PROBE_MAIN
__attribute__((noinline)) uint64_t helper(uint64_t x)
{
	GATE();
	for (int i = 0; i < 8; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) void mix(uint64_t *acc, uint64_t x)
{
	GATE();
	*acc = (*acc ^ x) * 0x9e3779b97f4a7c15ull;
}

volatile int release_tick, tick_waits;

#ifdef PP__RAII_PATCHABLE
void probe_table(const int32_t **from, const int32_t **to)
{
	*from = __start_pp_raii_patch;
	*to = __stop_pp_raii_patch;
}
#endif

__attribute__((noinline)) void tick(uint64_t *acc, int wait)
{
	GATE();
	if (wait)
		tick_waits = 1;
	while (wait && !release_tick)
		;
	++*acc;
}

__attribute__((noinline)) uint64_t batch(uint64_t from, int n)
{
	GATE();
	uint64_t s = 0;
	for (int i = 0; i < n; i++)
		mix(&s, helper(from + (uint64_t)i));
	return s;
}
#endif

#ifndef PROBE_LIB
static void *long_tick(void *arg)
{
	tick(arg, 1);
	return NULL;
}

/* The sites the test expects patched (arguments NAME:OFFSET:BYTE:KIND,
 * KIND e for an entry hook's call, x for an exit's): the threads keep
 * calling until theirs show the new byte, so a loaded machine, where the
 * throttling thread runs late, waits rather than fails. */
typedef struct { const unsigned char *fn; long off; unsigned byte; char kind; } site_t;
static site_t sites[64];
static int nsites;
static double deadline;

NOT_GATED static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Are the sites of fn (of kind, 0: any) all patched? Past the deadline,
 * yes: the test then reports what is missing. */
NOT_GATED static int patched(const void *fn, char kind)
{
	if (now_s() > deadline)
		return 1;
	for (int i = 0; i < nsites; i++)
		if (sites[i].fn == fn && (!kind || sites[i].kind == kind) &&
		    *(volatile const unsigned char *)(sites[i].fn + sites[i].off) != sites[i].byte)
			return 0;
	return 1;
}

static void *many_ticks(void *arg)
{
	for (int i = 0; i < 1000000 || !patched((const void *)tick, 'e'); i++)
		tick(arg, 0);
	return NULL;
}

NOT_GATED __attribute__((noinline)) static uint64_t helper_plain(uint64_t x)
{
	for (int i = 0; i < 8; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/* r[0] the first argument, r[1] the result, r[2] the batches run */
static void *worker(void *arg)
{
	uint64_t *r = arg, s = 0, b = 0;
	for (; b < 30 || !patched((const void *)helper, 0) || !patched((const void *)mix, 0); b++)
		s ^= batch(r[0] + b * 100000, 100000);
	r[1] = s;
	r[2] = b;
	return NULL;
}

NOT_GATED static void show(const char *name, const void *at, long size)
{
	printf("%s", name);
	for (long i = 0; i < size; i++)
		printf(" %02x", ((const unsigned char *)at)[i]);
	printf("\n");
}

int main(int argc, char **argv);

/* The function a name stands for (those of the sites), or NULL. */
NOT_GATED static const void *function_named(const char *name)
{
	return !strcmp(name, "helper") ? (const void *)helper :
	       !strcmp(name, "mix")    ? (const void *)mix :
	       !strcmp(name, "tick")   ? (const void *)tick :
	       !strcmp(name, "batch")  ? (const void *)batch :
	       !strcmp(name, "main")   ? (const void *)main : NULL;
}

#ifdef PP__RAII_PATCHABLE
/* The raii gates' entries, from the program's own table and the one of
 * the module holding helper (the same, or the library's): "entry NAME OFF"
 * each, printed, and helper's, mix's and tick's awaited as jumps. The
 * program's table also holds the runtime's own gates (the raii archive's,
 * which measure the gate's cost): not ours, skipped. */
NOT_GATED static int raii_table(const int32_t *from, const int32_t *to, int print)
{
	for (const int32_t *e = from; e && e + 2 <= to; e += 2) {
		const unsigned char *code = (const unsigned char *)e + e[0];
		const pp_site_t *site = (const pp_site_t *)(const void *)((const char *)&e[1] + e[1]);
		const void *fn = function_named(site->name);
		if (!fn) {
			if (strncmp(site->name, "pp__", 4))
				return -1;
			continue;
		}
		long off = (long)(code - (const unsigned char *)fn);
		if (print)
			printf("entry %s %ld\n", site->name, off);
		else if (strcmp(site->name, "batch") && strcmp(site->name, "main") && nsites < 64)
			sites[nsites++] = (site_t){ fn, off, 0xe9, 'e' };
	}
	return 0;
}

NOT_GATED static int raii_sites(int print)
{
	const int32_t *from, *to;
	probe_table(&from, &to);
	if (raii_table(__start_pp_raii_patch, __stop_pp_raii_patch, print) != 0)
		return -1;
	return from == __start_pp_raii_patch ? 0 : raii_table(from, to, print);
}
#endif

int main(int argc, char **argv)
{
	GATE();
	if (argc < 6)
		return 2;
	for (int i = 6; i < argc && nsites < 64; i++) {
		char name[32], kind;
		long off;
		unsigned byte;
		if (sscanf(argv[i], "%31[a-z]:%ld:%x:%c", name, &off, &byte, &kind) != 4)
			return 2;
		const void *fn = function_named(name);
		if (!fn || fn == (const void *)batch || fn == (const void *)main)
			return 2;
		sites[nsites++] = (site_t){ fn, off, byte, kind };
	}
#ifdef PP__RAII_PATCHABLE
	if (raii_sites(0) != 0)
		return 2;
#endif
	deadline = now_s() + 60;
	uint64_t r[2][3] = { { 1, 0, 0 }, { 7000000000ull, 0, 0 } }, ticks[2] = { 0, 0 };
	struct timespec pause = { 0, 30 * 1000000 }, ms = { 0, 1000000 };
	pthread_t t[2], lt, mt;
	pthread_create(&lt, NULL, long_tick, &ticks[0]);
	/* the long call is entered (and gated) before tick can be stopped */
	while (!tick_waits)
		nanosleep(&ms, NULL);
	pthread_create(&mt, NULL, many_ticks, &ticks[1]);
	for (int k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, worker, r[k]);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	pthread_join(mt, NULL);
	nanosleep(&pause, NULL);
	release_tick = 1;
	pthread_join(lt, NULL);
	if (ticks[0] != 1 || ticks[1] < 1000000) {
		printf("ticks %llu %llu\n", (unsigned long long)ticks[0], (unsigned long long)ticks[1]);
		return 1;
	}
	for (int k = 0; k < 2; k++) {
		uint64_t want = 0;
		for (uint64_t b = 0; b < r[k][2]; b++) {
			uint64_t s = 0;
			for (uint64_t i = 0; i < 100000; i++)
				s = (s ^ helper_plain(r[k][0] + b * 100000 + i)) * 0x9e3779b97f4a7c15ull;
			want ^= s;
		}
		if (r[k][1] != want) {
			printf("thread %d: %llx, expected %llx\n", k, (unsigned long long)r[k][1],
			       (unsigned long long)want);
			return 1;
		}
	}
	/* tick's exit is patched once its open call has left */
	while (!patched((const void *)tick, 'x'))
		nanosleep(&ms, NULL);
	nanosleep(&pause, NULL);
	show("helper", (const void *)helper, atol(argv[1]));
	show("mix", (const void *)mix, atol(argv[2]));
	show("tick", (const void *)tick, atol(argv[5]));
	show("batch", (const void *)batch, atol(argv[3]));
	show("main", (const void *)main, atol(argv[4]));
#ifdef PP__RAII_PATCHABLE
	raii_sites(1);
#endif
	return 0;
}
#endif
