/* The program of the tests/safety scripts, one mode each: main > calls >
 * leaf runs a known number of times, then the mode ends the process in the
 * way under test.
 *   prog exec K        K*10 leaf calls, then execs itself with K-1 (K > 1)
 *   prog fork N        N children each run 7 leaf calls and _exit(0); the
 *                      parent runs 3 and exits
 *   prog hold MS       5 leaf calls, sleeps MS ms, exits (several at once
 *                      share one PATHPROF_OUT)
 *   prog SOURCE SIG    1000 leaf calls, then gated calls until signal SIG
 *                      ends it: SOURCE wait (prints "ready" and waits for
 *                      a terminal, kill or tgkill from outside), sigqueue,
 *                      tgkill (at its own thread), timer (a POSIX timer)
 *                      or cpu (the kernel's SIGXCPU at RLIMIT_CPU)
 *   prog daemon-loop|daemon-range LOG
 *                      closes every descriptor it did not open (by a loop
 *                      or close_range), opens LOG, writes one line, then
 *                      runs 100000 leaf calls on a new thread
 *   prog daemon-dlopen LOG LIB
 *                      closes every descriptor from 3 up, opens LOG, writes
 *                      "hello", dlopens the gated LIB (tests/modules/libg.c)
 *                      and runs g_run(100) from it, then writes "again"; 5
 *                      when that write failed (the runtime's resolver,
 *                      reopened for the new library, closed the number LOG
 *                      got back)
 *   prog daemon-storm LOG
 *                      a thread closes every descriptor from 3 up, then
 *                      appends one byte to LOG, over and over, while main
 *                      meets calls, leaf and worker for the first time, each
 *                      after 100 ms (the runtime names them meanwhile); 5
 *                      when a write failed or LOG lost a byte */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../modules/gate.h"

static volatile unsigned sink;

G_FN static void leaf(unsigned i)
{
	GATE("leaf");
	sink += i;
}

G_FN static void calls(unsigned n)
{
	GATE("calls");
	for (unsigned i = 0; i < n; i++)
		leaf(i);
}

G_FN static void *worker(void *arg)
{
	GATE("worker");
	calls(100000);
	return arg;
}

/* Arrange for signal sig to come from source; 0, or -1 for no such source. */
static int send_later(const char *source, int sig)
{
	if (!strcmp(source, "wait")) {
		printf("ready\n");
		fflush(stdout);
	} else if (!strcmp(source, "sigqueue")) {
		union sigval v = {.sival_int = 7};
		sigqueue(getpid(), sig, v);
	} else if (!strcmp(source, "tgkill")) {
		syscall(SYS_tgkill, (long)getpid(), (long)syscall(SYS_gettid), (long)sig);
	} else if (!strcmp(source, "timer")) {
		struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = sig};
		timer_t t;
		struct itimerspec in = {.it_value = {0, 50 * 1000000L}};
		if (timer_create(CLOCK_MONOTONIC, &ev, &t) != 0 || timer_settime(t, 0, &in, NULL) != 0)
			return -1;
	} else if (!strcmp(source, "cpu")) {
		struct rlimit r = {.rlim_cur = 1, .rlim_max = RLIM_INFINITY};
		if (setrlimit(RLIMIT_CPU, &r) != 0)
			return -1;
	} else {
		return -1;
	}
	return 0;
}

static int daemon_start(const char *how, const char *log_path)
{
	if (!strcmp(how, "daemon-range"))
		close_range(3, ~0U, 0);
	else
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (log < 0 || write(log, "hello\n", 6) != 6)
		return 3;
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 4;
	return 0;
}

static int daemon_dlopen(const char *log_path, const char *lib)
{
	close_range(3, ~0U, 0);
	int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (log < 0 || write(log, "hello\n", 6) != 6)
		return 3;
	void *h = dlopen(lib, RTLD_NOW);
	void (*run)(int) = NULL;
	void *sym = h ? dlsym(h, "g_run") : NULL;
	if (!sym)
		return 4;
	memcpy(&run, &sym, sizeof run);
	run(100);
	if (write(log, "again\n", 6) != 6)
		return 5;
	return close(log) == 0 ? 0 : 5;
}

static int storm_stop;

/* The storm's writes that succeeded, or -1 at the first that failed: a
 * descriptor the runtime closed (or wrote) under the program. */
static void *storm(void *path)
{
	long n = 0;
	while (!__atomic_load_n(&storm_stop, __ATOMIC_ACQUIRE)) {
		close_range(3, ~0U, 0);
		int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, "x", 1) != 1)
			return (void *)-1L;
		n++;
		close(fd);
	}
	return (void *)n;
}

static int daemon_storm(const char *log_path)
{
	pthread_t t;
	struct timespec pause = {0, 100 * 1000000L};
	unlink(log_path);
	if (pthread_create(&t, NULL, storm, (void *)log_path) != 0)
		return 4;
	nanosleep(&pause, NULL);
	calls(1);
	nanosleep(&pause, NULL);
	worker(NULL);
	nanosleep(&pause, NULL);
	__atomic_store_n(&storm_stop, 1, __ATOMIC_RELEASE);
	void *got;
	if (pthread_join(t, &got) != 0)
		return 4;
	struct stat st;
	long n = (long)got;
	return n > 0 && stat(log_path, &st) == 0 && st.st_size == n ? 0 : 5;
}

G_FN int main(int argc, char **argv)
{
	GATE("main");
	if (argc == 4 && !strcmp(argv[1], "daemon-dlopen"))
		return daemon_dlopen(argv[2], argv[3]);
	if (argc != 3)
		return 2;
	const char *mode = argv[1];
	long k = atol(argv[2]);
	if (!strcmp(mode, "exec")) {
		calls((unsigned)k * 10);
		if (k > 1) {
			char next[32];
			snprintf(next, sizeof next, "%ld", k - 1);
			execl("/proc/self/exe", argv[0], "exec", next, (char *)NULL);
			return 3;
		}
		return 0;
	}
	if (!strcmp(mode, "fork")) {
		for (long i = 0; i < k; i++) {
			pid_t p = fork();
			if (p == 0) {
				calls(7);
				_exit(0);
			}
			int st;
			if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
				return 4;
		}
		calls(3);
		return 0;
	}
	if (!strcmp(mode, "hold")) {
		calls(5);
		struct timespec t = {k / 1000, (k % 1000) * 1000000L};
		nanosleep(&t, NULL);
		return 0;
	}
	if (!strcmp(mode, "daemon-storm"))
		return daemon_storm(argv[2]);
	if (!strncmp(mode, "daemon-", 7))
		return daemon_start(mode, argv[2]);
	calls(1000);
	if (send_later(mode, (int)k) != 0)
		return 2;
	/* Up to 20 s of gated calls: the signal ends the process long before. */
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		calls(100000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec < 20);
	printf("still running\n");
	return 0;
}
