/* Control flow that escapes gates, and overload, through raii or cyg (gated
 * with examples/feed/gate.h) with GCC and Clang at -O0 and -O2. Each mode
 * prints the listing it expects (count|path) and '#name value' lines for the
 * profile's counters; run.sh compares them with the written profile. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pathprof/pathprof.h>

#include "../../examples/feed/gate.h"
#define NOINL __attribute__((noinline))
#define N 1000

static volatile unsigned sink;
static jmp_buf jb;

NOINL static void leaf(void) { GATE(); sink++; }
NOINL static void other(void) { GATE(); sink += 2; }
NOINL static void jump(int v) { GATE(); if (v >= 0) longjmp(jb, 1); sink++; }
NOINL static void deep(int v) { GATE(); char pad[64]; memset(pad, v, sizeof pad); sink += pad[3]; jump(v); }
NOINL static void work(int v) { GATE(); char pad[256]; memset(pad, v, sizeof pad); __asm__ volatile("" : : "r"(pad) : "memory"); sink += pad[5]; deep(v); }
NOINL static void recover(void) { GATE(); char pad[16]; memset(pad, 1, sizeof pad); sink += pad[9]; }

/* Does the runtime see this program's longjmps (runtime/host/longjmp.c)?
 * Only on x86-64 glibc, and not under a sanitizer, whose runtime defines
 * longjmp ahead of pathprof's (the scripts/sanitize.sh builds compile
 * these programs with it). */
#if !defined(__x86_64__) || !defined(__GLIBC__)
#define JUMPS_SEEN 0
#elif defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define JUMPS_SEEN 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define JUMPS_SEEN 0
#endif
#endif
#ifndef JUMPS_SEEN
#define JUMPS_SEEN 1
#endif

/* longjmp out of two or three gated frames, then a sibling of the dead ones
 * and a child of the surviving parent. recover's frame is kept smaller than
 * the dead chain's: a sibling whose frame reaches below the dead frames is
 * the cyg gap of docs/internals/control-flow.md, which depends on frame layout (it
 * differs between compilers, levels and sanitizers), so it is documented
 * rather than pinned by a test that would pass or fail by accident.
 * Where the runtime sees the jump it closes the three frames it leaves
 * there, as exits (jump's path counted); elsewhere the next gates drop
 * them, each an unmatched exit. */
NOINL static void lj_round(int i)
{
	GATE();
	if (setjmp(jb) == 0)
		work(i);
	else if (i & 1)
		recover();
	else
		leaf();
	other();
}

PP_NOINSTR static void mode_longjmp(void)
{
	for (int i = 0; i < N; i++)
		lj_round(i);
	printf("%d|lj_round>leaf\n%d|lj_round>other\n%d|lj_round>recover\n", N / 2, N, N / 2);
	if (JUMPS_SEEN)
		printf("%d|lj_round>work>deep>jump\n", N);
	printf("#unmatched %d\n#events %d\n", JUMPS_SEEN ? 0 : 3 * N, N);
}

/* exit() three gates deep: the profile is still written, completed paths exact. */
NOINL static void bye(int i) { GATE(); if (i == N) { fflush(stdout); exit(0); } leaf(); }
NOINL static void outer(int i) { GATE(); bye(i); }
PP_NOINSTR static void mode_exit(void)
{
	printf("%d|outer>bye>leaf\n#unmatched 0\n#events %d\n", N, N + 1);
	for (int i = 0; i <= N; i++)
		outer(i);
}

/* A 20 us timer signal whose handler runs two nested gates on an
 * alternate stack, firing during gated loops: every tick counted, nothing
 * booked as a drop once the thread is registered and the paths were seen. */
static volatile unsigned ticks;
NOINL static void tick_leaf(void) { GATE(); sink++; }
NOINL static void tick(void) { GATE(); tick_leaf(); }
PP_NOINSTR static void on_tick(int sig)
{
	(void)sig;
	pp_signal_state_t s = pp_signal_begin();
	tick();
	pp_signal_end(&s);
	ticks++;
}
static char altstack[1 << 16];
PP_NOINSTR static uint64_t mono_ns(void);
NOINL static void busy(int i) { GATE(); if (i & 1) leaf(); else other(); for (int k = 0; k < 50; k++) sink++; }
PP_NOINSTR static void mode_signal(void)
{
	const int n = 2000000;
	uint64_t t0 = mono_ns();
	/* First sight of a path is the one step a handler may not interleave
	 * with (it is dropped and counted then): see every path once first. */
	busy(0);
	busy(1);
	on_tick(0);
	stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
	sigaltstack(&ss, NULL);
	struct sigaction sa = {.sa_handler = on_tick, .sa_flags = SA_ONSTACK};
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 20}, {0, 20}};
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < n; i++)
		busy(i);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("%d|busy>leaf\n%d|busy>other\n%u|tick>tick_leaf\n", n / 2 + 1, n / 2 + 1, ticks);
	/* events is not checked: at -O0 its increment is a load and a store, and
	 * a handler event landing between them is lost (docs/internals/control-flow.md). */
	printf("#unmatched 0\n#drops_table 0\n#drops_depth 0\n#drops_signal 0\n");
	/* every event timed, the handler's amid the loop's: self times add up
	 * to the roots' and none is above the run (a burst window's cut calls
	 * hold self time outside their calls' inclusive sums) */
	const char *timing = getenv("PATHPROF_TIMING");
	if (timing && !strcmp(timing, "on"))
		printf("~run %llu\n", (unsigned long long)(mono_ns() - t0));
	fprintf(stderr, "signal: %u ticks\n", ticks);
}

/* pthread_exit and cancellation from three gates deep. */
NOINL static void quit(int how) { GATE(); if (how == 1) pthread_exit(NULL); for (;;) pthread_testcancel(); }
NOINL static void mid(int how) { GATE(); quit(how); }
PP_NOINSTR static void *thr(void *arg)
{
	for (int i = 0; i < N; i++)
		outer(i);
	mid((int)(long)arg);
	return NULL;
}
PP_NOINSTR static void mode_thread_end(void)
{
	for (long how = 1; how <= 2; how++) {
		pthread_t t;
		pthread_create(&t, NULL, thr, (void *)how);
		if (how == 2)
			pthread_cancel(t);
		pthread_join(t, NULL);
	}
	for (int i = 0; i < N; i++)
		outer(i);
	printf("%d|outer>bye>leaf\n#events %d\n", 3 * N, 3 * N + 2);
}

/* 10 000 threads created and ended. */
PP_NOINSTR static void *one(void *arg) { (void)arg; leaf(); return NULL; }
PP_NOINSTR static void mode_threads(void)
{
	for (int i = 0; i < 10000; i++) {
		pthread_t t;
		pthread_create(&t, NULL, one, NULL);
		pthread_join(t, NULL);
	}
	printf("10000|leaf\n#threads 10000\n#events 10000\n");
}

/* Recursion 100 000 deep, beyond the default bound of 256, on a big stack. */
NOINL static int rec(int n) { GATE(); return n ? rec(n - 1) + 1 : (int)sink; }
PP_NOINSTR static void *deep_thr(void *arg) { (void)arg; rec(99999); rec(9); return NULL; }
PP_NOINSTR static void mode_recursion(void)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 512u << 20); /* ASan at -O0: 2.6 KiB a frame */
	pthread_t t;
	pthread_create(&t, &a, deep_thr, NULL);
	pthread_join(t, NULL);
	printf("1|rec>rec>rec>rec>rec>rec>rec>rec>rec>rec\n#drops_depth %d\n#unmatched 0\n", 100000 - 256);
}

/* More distinct paths than PATHPROF_PATHS=16 holds: depths 1..40. */
PP_NOINSTR static void mode_table(void)
{
	int paths = 0;
	for (int r = 0; r < 3; r++)
		for (int d = 0; d < 40; d++)
			rec(d);
	for (int d = 0; d < 16; d++, paths++) {
		printf("3|rec");
		for (int k = 0; k < d; k++)
			printf(">rec");
		printf("\n");
	}
	printf("#drops_table %d\n#records %d\n", 3 * (40 - paths), 120);
}

/* fork() while three threads fill their tables (PATHPROF_PATHS=16, 40
 * paths each) and the forking thread's own table is full: every child starts
 * with room and counts exactly ('@' lines: each child's listing). Then a new
 * thread takes over an exited thread's slab, whose table was full: its new
 * path is counted too. The fillers neither start nor end while a child is
 * forked: a thread exiting frees its TLS blocks, and a child forked while
 * another thread held the allocator's lock hangs in the sanitizers' exit-time
 * leak check (their runtimes before LLVM 18 take no lock at fork). */
NOINL static void fk_b(void) { GATE(); sink++; }
NOINL static void fk_a(void) { GATE(); fk_b(); }
#define FORK_ROUNDS 200
#define FORK_CHILDREN 40
static int fillers_started, forks_done;
PP_NOINSTR static void *filler(void *arg)
{
	(void)arg;
	rec(0);
	__atomic_add_fetch(&fillers_started, 1, __ATOMIC_ACQ_REL);
	for (int r = 0; r < FORK_ROUNDS; r++)
		for (int d = r ? 0 : 1; d < 40; d++)
			rec(d);
	while (!__atomic_load_n(&forks_done, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;
}
PP_NOINSTR static void *fk_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < N; i++)
		fk_a();
	return NULL;
}
PP_NOINSTR static void mode_fork(void)
{
	for (int d = 0; d < 40; d++)
		rec(d);
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, filler, NULL);
	while (__atomic_load_n(&fillers_started, __ATOMIC_ACQUIRE) < 3)
		usleep(100);
	for (int c = 0; c < FORK_CHILDREN; c++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			for (int i = 0; i < N; i++)
				fk_a();
			exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	__atomic_store_n(&forks_done, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	pthread_t late;
	pthread_create(&late, NULL, fk_thread, NULL);
	pthread_join(late, NULL);
	for (int d = 0; d < 16; d++) {
		printf("%d|rec", 3 * FORK_ROUNDS + 1);
		for (int k = 0; k < d; k++)
			printf(">rec");
		printf("\n");
	}
	printf("%d|fk_a>fk_b\n", N);
	printf("@%d|fk_a>fk_b\n%%children %d\n", N, FORK_CHILDREN);
	printf("#drops_table %d\n", (3 * FORK_ROUNDS + 1) * 24);
}

/* Not an event loop: main -> rounds -> work -> {t_a spins 200 us, t_b
 * spins 100 us}, 100 rounds, one event for the whole run (the program's
 * shape that printed durations longer than the run under the first timing
 * model). '~' lines give each node's calls and the nanoseconds its spins
 * really took (inclusive and self), and the run's wall time: run.sh checks
 * the profile against them within 2%, self times summing exactly to the
 * root's inclusive time, and no duration above the run. */
PP_NOINSTR static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static uint64_t spun_a, spun_b;
PP_NOINSTR static uint64_t spin(uint64_t ns)
{
	uint64_t t0 = mono_ns(), t;
	while ((t = mono_ns()) - t0 < ns)
		;
	return t - t0;
}
NOINL static void t_a(void) { GATE(); spun_a += spin(200000); }
NOINL static void t_b(void) { GATE(); spun_b += spin(100000); }
NOINL static void t_work(void) { GATE(); t_a(); t_b(); }
NOINL static void t_rounds(int n) { GATE(); for (int i = 0; i < n; i++) t_work(); }
NOINL static void t_main(void) { GATE(); t_rounds(100); }
PP_NOINSTR static void mode_timing(void)
{
	uint64_t t0 = mono_ns();
	t_main();
	uint64_t run = mono_ns() - t0;
	printf("100|t_main>t_rounds>t_work>t_a\n100|t_main>t_rounds>t_work>t_b\n");
	printf("#events 1\n#unmatched 0\n");
	printf("~run %llu\n", (unsigned long long)run);
	printf("~t_main>t_rounds>t_work>t_a 100 %llu %llu\n", (unsigned long long)spun_a,
	       (unsigned long long)spun_a);
	printf("~t_main>t_rounds>t_work>t_b 100 %llu %llu\n", (unsigned long long)spun_b,
	       (unsigned long long)spun_b);
	printf("~t_main>t_rounds>t_work 100 %llu -\n", (unsigned long long)(spun_a + spun_b));
}

/* 300 live threads in a 16 MiB arena: those that get no slab run
 * unprofiled, counted under their own name, with one warning for all; every
 * thread's gate is either recorded or counted ('+' lines sum JSON fields,
 * '!' waives the listing, whose split depends on the slab size). */
static pthread_barrier_t arena_bar;
PP_NOINSTR static void *arena_thr(void *arg) { (void)arg; leaf(); pthread_barrier_wait(&arena_bar); return NULL; }
PP_NOINSTR static void mode_arena(void)
{
	enum { T = 300 };
	pthread_t t[T];
	pthread_barrier_init(&arena_bar, NULL, T + 1);
	for (int i = 0; i < T; i++)
		pthread_create(&t[i], NULL, arena_thr, NULL);
	pthread_barrier_wait(&arena_bar);
	for (int i = 0; i < T; i++)
		pthread_join(t[i], NULL);
	/* records counts leaf returns dropped for want of memory too: a thread
	 * that got a slab but no room for its path lands there */
	printf("!any-listing\n+records+unprofiled_frames %d\n+threads+unprofiled_threads %d\n", T, T);
	printf("#drops_depth 0\n");
}

PP_NOINSTR int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	if (!strcmp(m, "longjmp")) mode_longjmp();
	else if (!strcmp(m, "exit")) mode_exit();
	else if (!strcmp(m, "signal")) mode_signal();
	else if (!strcmp(m, "thread-end")) mode_thread_end();
	else if (!strcmp(m, "threads")) mode_threads();
	else if (!strcmp(m, "recursion")) mode_recursion();
	else if (!strcmp(m, "table")) mode_table();
	else if (!strcmp(m, "fork")) mode_fork();
	else if (!strcmp(m, "arena")) mode_arena();
	else if (!strcmp(m, "timing")) mode_timing();
	else { fprintf(stderr, "ctl: unknown mode %s\n", m); return 2; }
	return 0;
}
