/* namer_probe: whether pathprof runs a thread beside a program
 * (PATHPROF_NAMER, runtime/shm.c, runtime/host/threads.c; tests/live/
 * namer.sh). main gates 1000 calls under a 20 ms spin (a known time for
 * a recovered profile's tick rate); with "thread" a thread of the
 * program's gates 1000 more and is joined. With READY and GO (files), it
 * then creates READY and waits until GO exists, for a reader to look at
 * its segment. It prints glibc's single-threaded flag and the process's
 * thread count at the end of main: with one thread of its own and no
 * thread of pathprof's, "single 1 tasks 1".
 * Built with PROBE_CYG, its functions are gated by -finstrument-functions
 * instead of PP_GATE (the clock and the thread count left out); with
 * PROBE_PLUGIN, by the LLVM pass in its mode "all" (the same two left out).
 * usage: namer_probe one|thread [READY GO] */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <time.h>
#include <unistd.h>

#if defined(PROBE_CYG)
#define GATE(name)
#define UNGATED __attribute__((no_instrument_function))
#elif defined(PROBE_PLUGIN)
#define GATE(name)
#define UNGATED __attribute__((xray_never_instrument))
#else
#include <pathprof/raii.h>
#define GATE(name) PP_GATE(name)
#define UNGATED
#endif

static __attribute__((noinline)) void leaf(void)
{
	GATE("leaf");
	__asm__ volatile("");
}

UNGATED static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ll + t.tv_nsec;
}

static __attribute__((noinline)) void work(int n)
{
	GATE("work");
	long long end = now_ns() + 20000000;
	while (now_ns() < end)
		;
	for (int i = 0; i < n; i++)
		leaf();
}

static void *other(void *arg)
{
	work(1000);
	return arg;
}

UNGATED static int tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	work(1000);
	if (argc > 1 && !strcmp(argv[1], "thread")) {
		pthread_t t;
		if (pthread_create(&t, NULL, other, NULL) != 0 || pthread_join(t, NULL) != 0)
			return 1;
	}
	if (argc > 3) {
		FILE *f = fopen(argv[2], "w");
		if (!f)
			return 1;
		fclose(f);
		for (int i = 0; i < 3000 && access(argv[3], F_OK) != 0; i++)
			usleep(10000);
	}
	printf("single %d tasks %d\n", (int)__libc_single_threaded, tasks());
	return 0;
}
