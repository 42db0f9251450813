/* patchprobe: a cyg-built program whose two tiny functions a budget
 * stops, and which then shows its own code (tests/patch/patch.sh): helper
 * returns a value (its exit hook is a call), mix returns nothing (GCC's
 * exit hook is then a tail jump). Two threads call each 3 million times
 * while the runtime patches their hook calls out; each thread's result
 * must equal an ungated copy's (no call lost or misrun while the bytes
 * changed). After the work (and a pause of a few throttling rounds) it
 * prints the bytes of helper, mix, batch and main, one line each: "NAME
 * HEX...", the functions' sizes given as arguments by the test (from nm),
 * so the test compares them with the file's bytes.
 * One more thread has a call of tick open the whole time (it waits for
 * the others to end and a pause of several rounds) while they call tick a
 * million times: tick is stopped, but its exit hook may not be patched out
 * before that call has left through it (the test finds its one call of
 * 30 ms or more in the profile, and no unmatched exit).
 * usage: patchprobe HELPER_SIZE MIX_SIZE BATCH_SIZE MAIN_SIZE TICK_SIZE */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOT_GATED __attribute__((no_instrument_function))

/* The functions a budget stops, and batch: in the program, or with
 * -DPROBE_LIB in a shared library of their own (whose hook calls go
 * through its PLT) that the program built with -DPROBE_MAIN uses. */
uint64_t helper(uint64_t x);
void mix(uint64_t *acc, uint64_t x);
void tick(uint64_t *acc, int wait);
uint64_t batch(uint64_t from, int n);
extern volatile int release_tick;

#ifndef PROBE_MAIN
__attribute__((noinline)) uint64_t helper(uint64_t x)
{
	for (int i = 0; i < 8; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

__attribute__((noinline)) void mix(uint64_t *acc, uint64_t x)
{
	*acc = (*acc ^ x) * 0x9e3779b97f4a7c15ull;
}

volatile int release_tick;

__attribute__((noinline)) void tick(uint64_t *acc, int wait)
{
	while (wait && !release_tick)
		;
	++*acc;
}

__attribute__((noinline)) uint64_t batch(uint64_t from, int n)
{
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

static void *many_ticks(void *arg)
{
	for (int i = 0; i < 1000000; i++)
		tick(arg, 0);
	return NULL;
}

NOT_GATED __attribute__((noinline)) static uint64_t helper_plain(uint64_t x)
{
	for (int i = 0; i < 8; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

static void *worker(void *arg)
{
	uint64_t *r = arg, s = 0;
	for (int b = 0; b < 30; b++)
		s ^= batch(r[0] + (uint64_t)b * 100000, 100000);
	r[1] = s;
	return NULL;
}

NOT_GATED static void show(const char *name, const void *at, long size)
{
	printf("%s", name);
	for (long i = 0; i < size; i++)
		printf(" %02x", ((const unsigned char *)at)[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	if (argc != 6)
		return 2;
	uint64_t r[2][2] = { { 1, 0 }, { 7000000, 0 } }, ticks[2] = { 0, 0 };
	struct timespec pause = { 0, 30 * 1000000 };
	pthread_t t[2], lt, mt;
	pthread_create(&lt, NULL, long_tick, &ticks[0]);
	pthread_create(&mt, NULL, many_ticks, &ticks[1]);
	for (int k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, worker, r[k]);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	pthread_join(mt, NULL);
	nanosleep(&pause, NULL);
	release_tick = 1;
	pthread_join(lt, NULL);
	if (ticks[0] != 1 || ticks[1] != 1000000) {
		printf("ticks %llu %llu\n", (unsigned long long)ticks[0], (unsigned long long)ticks[1]);
		return 1;
	}
	for (int k = 0; k < 2; k++) {
		uint64_t want = 0;
		for (int b = 0; b < 30; b++) {
			uint64_t s = 0;
			for (uint64_t i = 0; i < 100000; i++)
				s = (s ^ helper_plain(r[k][0] + (uint64_t)b * 100000 + i)) *
				    0x9e3779b97f4a7c15ull;
			want ^= s;
		}
		if (r[k][1] != want) {
			printf("thread %d: %llx, expected %llx\n", k, (unsigned long long)r[k][1],
			       (unsigned long long)want);
			return 1;
		}
	}
	nanosleep(&pause, NULL);
	show("helper", (const void *)helper, atol(argv[1]));
	show("mix", (const void *)mix, atol(argv[2]));
	show("tick", (const void *)tick, atol(argv[5]));
	show("batch", (const void *)batch, atol(argv[3]));
	show("main", (const void *)main, atol(argv[4]));
	return 0;
}
#endif
