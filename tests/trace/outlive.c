/* A gated thread still running when main returns: the exit dump freezes the
 * recorder, so the replay of the trace recorded in the same run must equal
 * the profile written at exit, the running thread's paths included. With the
 * argument "nodump" the exit dump is off: the running thread's stream then
 * ends without its end record, and replay must say so and exit 3. */
#include <pthread.h>
#include <string.h>

#include <pathprof/raii.h>

#define NOINL __attribute__((noinline))

static __thread volatile unsigned sink; /* per thread: no data race under TSan */
static unsigned rounds; /* atomically: read by main */

NOINL static void leaf(unsigned i)
{
	PP_GATE("leaf");
	sink += i;
}

NOINL static void mid(unsigned i)
{
	PP_GATE("mid");
	leaf(i);
}

NOINL static void bg(void)
{
	PP_GATE("bg");
	for (unsigned i = 0;; i++) {
		mid(i);
		__atomic_store_n(&rounds, i + 1, __ATOMIC_RELEASE);
	}
}

static void *run_bg(void *arg)
{
	(void)arg;
	bg();
	return NULL;
}

NOINL static void work(unsigned i)
{
	PP_GATE("work");
	sink += i;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "nodump"))
		pp_disable_exit_dump();
	pthread_t t;
	if (pthread_create(&t, NULL, run_bg, NULL) != 0)
		return 1;
	/* Enough rounds that the thread's buffer has been written more than
	 * once and is part-full at exit. */
	while (__atomic_load_n(&rounds, __ATOMIC_ACQUIRE) < 50000)
		;
	for (unsigned i = 0; i < 1000; i++) {
		pp_root();
		work(i);
	}
	return 0; /* bg is still running */
}
