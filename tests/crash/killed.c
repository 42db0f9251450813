/* Three threads run spin_a / spin_b / spin_c > step > leaf until the process
 * is killed. After every completed leaf a thread stores how many it has
 * completed into a shared file mapping, which outlives a SIGKILL: the
 * recovered profile must hold, per thread, that number or one more (the
 * leaf that returned before the store). Once each thread has done 2000 and
 * 300 ms have passed (the runtime names new keys every 50 ms), "ready PID"
 * is printed; then, by argv[1]: wait to be killed (wait), SIGKILL itself after
 * argv[3] ms (kill), or _exit(3) after argv[3] ms (exit).
 * usage: killed MODE PROGRESS-FILE [MS] */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "../modules/gate.h"

#ifdef __clang__
#define NOT_GATED __attribute__((no_instrument_function, xray_never_instrument))
#else
#define NOT_GATED __attribute__((no_instrument_function))
#endif

static volatile uint64_t *progress; /* [3], in the shared file */
static volatile unsigned sink;

G_FN static void leaf(unsigned i)
{
	GATE("leaf");
	sink += i;
}

G_FN static void step(unsigned i)
{
	GATE("step");
	leaf(i);
}

#define SPIN(fn, slot)                                          \
	G_FN static void fn(void)                               \
	{                                                       \
		GATE(#fn);                                      \
		for (uint64_t n = 1;; n++) {                    \
			step((unsigned)n);                      \
			__atomic_store_n(&progress[slot], n, __ATOMIC_RELEASE); \
		}                                               \
	}
SPIN(spin_a, 0)
SPIN(spin_b, 1)
SPIN(spin_c, 2)

NOT_GATED static void *thread_main(void *arg)
{
	uintptr_t i = (uintptr_t)arg;
	if (i == 0)
		spin_a();
	else if (i == 1)
		spin_b();
	else
		spin_c();
	return NULL;
}

NOT_GATED static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

NOT_GATED int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 4096) != 0)
		return 2;
	progress = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (progress == MAP_FAILED)
		return 2;
	pthread_t t[3];
	for (uintptr_t i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)i);
	sleep_ms(300);
	for (int i = 0; i < 3; i++)
		while (__atomic_load_n(&progress[i], __ATOMIC_ACQUIRE) < 2000)
			sleep_ms(1);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	long ms = argc > 3 ? strtol(argv[3], NULL, 10) : 0;
	if (!strcmp(argv[1], "kill")) {
		sleep_ms(ms);
		raise(SIGKILL);
	} else if (!strcmp(argv[1], "exit")) {
		sleep_ms(ms);
		_exit(3);
	}
	for (;;)
		pause();
}
