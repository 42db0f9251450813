/* Workloads of the off-CPU test, one per way a thread blocks. Each measures
 * on its own how long its blocked thread was off the CPU in the blocking
 * calls (wall time minus the thread's CPU time across them) and how much of
 * that it was runnable, waiting for a CPU (the kernel's run delay), and
 * prints "waited NS runq NS": the recorder's time must lie between the two
 * (sleeping, and sleeping plus every wait for a CPU), so the test compares
 * against times the program saw, not a guess.
 *   mutex [N] contender blocks on a mutex held by holder > hold (20 ms), N
 *            rounds (10)
 *   condvar  consumer waits on a condition variable producer signals
 *   fsync    persist writes 64 KiB and fsyncs, 8 times, then reads it back
 *   tcp      serve_recv blocks in recv() on loopback; send_request feeds it
 *   epoll    tick_wait waits in epoll_wait() on a 10 ms timerfd
 *   preempt  crunch computes for 300 ms of CPU on one CPU it shares with a
 *            hog thread (both pinned): it never blocks, it waits for the
 *            CPU; prints its CPU time too ("cpu NS")
 *   firsts   the same hog beside a walk of 8^5 distinct paths, each timed
 *            exit its node's first: much of its time is the runtime's own
 *            work (a node's timing record, arena pages), which is in no
 *            node's time, so a preemption then is in no node's off-CPU time;
 *            prints the thread's own-work word after it ("own 0": no stale 1
 *            that would put every later block outside any gate)
 * Every workload first runs one gate and sleeps outside gates, so the
 * recorder has found the gate state before the measured part starts. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <pathprof/raii.h>

#define NOINL __attribute__((noinline))

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Off the CPU so far: wall time minus this thread's CPU time. */
static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC) - clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* This thread's voluntary context switches so far: the kernel's count of
 * the times it went to sleep. */
static uint64_t sleeps_now(void)
{
	char line[256];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/thread-self/status", "re");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* This thread's time runnable but waiting for a CPU so far (the kernel's
 * sched_info: /proc/thread-self/schedstat, second field), 0 if unknown. */
static uint64_t runq_ns(void)
{
	unsigned long long cpu = 0, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "re");
	if (f) {
		if (fscanf(f, "%llu %llu", &cpu, &delay) != 2)
			delay = 0;
		fclose(f);
	}
	return delay;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0)
		;
}

static int rounds = 10; /* mutex: argv[2] when given */
static uint64_t waited; /* what the blocked thread measured off the CPU, ns */
static uint64_t runq;   /* ... and of that, runnable but not running */
static uint64_t sleeps; /* times it went to sleep in them (the kernel's count) */

NOINL static void settle(void)
{
	PP_GATE("settle");
}

/* ---- mutex ---- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t go_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cv = PTHREAD_COND_INITIALIZER;
static int held; /* rounds in which holder holds mu */

NOINL static void hold(void)
{
	PP_GATE("hold");
	sleep_ms(20);
}

NOINL static void holder(void)
{
	PP_ROOT();
	PP_GATE("holder");
	pthread_mutex_lock(&mu);
	pthread_mutex_lock(&go_mu);
	held++;
	pthread_cond_signal(&go_cv);
	pthread_mutex_unlock(&go_mu);
	hold();
	pthread_mutex_unlock(&mu); /* wakes contender: from holder */
}

NOINL static void contender(void)
{
	PP_ROOT();
	PP_GATE("contender");
	uint64_t s0 = sleeps_now(), t0 = now_ns(), q0 = runq_ns();
	pthread_mutex_lock(&mu);
	waited += now_ns() - t0;
	runq += runq_ns() - q0;
	sleeps += sleeps_now() - s0;
	pthread_mutex_unlock(&mu);
}

static void *holder_main(void *a)
{
	(void)a;
	for (int i = 0; i < rounds; i++) {
		holder();
		sleep_ms(5);
	}
	return NULL;
}

static void mutex_work(void)
{
	pthread_t t;
	pthread_create(&t, NULL, holder_main, NULL);
	for (int i = 1; i <= rounds; i++) {
		pthread_mutex_lock(&go_mu);
		while (held < i)
			pthread_cond_wait(&go_cv, &go_mu);
		pthread_mutex_unlock(&go_mu);
		contender();
	}
	pthread_join(t, NULL);
}

/* ---- condvar ---- */

static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ccv = PTHREAD_COND_INITIALIZER;
static int ready, taken;

NOINL static void prepare(void)
{
	PP_GATE("prepare");
	sleep_ms(30);
}

NOINL static void producer(void)
{
	PP_ROOT();
	PP_GATE("producer");
	prepare();
	pthread_mutex_lock(&cmu);
	ready++;
	pthread_cond_signal(&ccv); /* wakes consumer: from producer */
	pthread_mutex_unlock(&cmu);
}

NOINL static void consumer(void)
{
	PP_ROOT();
	PP_GATE("consumer");
	pthread_mutex_lock(&cmu);
	uint64_t s0 = sleeps_now(), t0 = now_ns(), q0 = runq_ns();
	while (ready == taken)
		pthread_cond_wait(&ccv, &cmu);
	waited += now_ns() - t0;
	runq += runq_ns() - q0;
	sleeps += sleeps_now() - s0;
	taken++;
	pthread_mutex_unlock(&cmu);
}

static void *producer_main(void *a)
{
	(void)a;
	for (int i = 0; i < rounds; i++) {
		producer();
		/* the consumer is back waiting before the next round */
		for (;;) {
			pthread_mutex_lock(&cmu);
			int done = taken > i;
			pthread_mutex_unlock(&cmu);
			if (done)
				break;
			sleep_ms(1);
		}
	}
	return NULL;
}

static void condvar_work(void)
{
	pthread_t t;
	pthread_create(&t, NULL, producer_main, NULL);
	for (int i = 0; i < rounds; i++)
		consumer();
	pthread_join(t, NULL);
}

/* ---- fsync ---- */

NOINL static void persist(const char *path)
{
	PP_ROOT();
	PP_GATE("persist");
	/* small writes, each made durable: the thread waits on the device,
	 * with little CPU work in the measured calls to be preempted in */
	static char buf[64 << 10];
	memset(buf, 'x', sizeof buf);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	for (int i = 0; i < 8; i++) {
		if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
			exit(1);
		uint64_t s0 = sleeps_now(), t0 = now_ns(), q0 = runq_ns();
		if (fsync(fd) != 0)
			exit(1);
		waited += now_ns() - t0;
	runq += runq_ns() - q0;
	sleeps += sleeps_now() - s0;
	}
	lseek(fd, 0, SEEK_SET);
	while (read(fd, buf, sizeof buf) > 0)
		;
	close(fd);
}

static void fsync_work(const char *dir)
{
	char path[4096];
	/* a new file each round: truncating one still under writeback would
	 * wait for it, outside the measured fsync */
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s/offcpu.%d.data", dir, i);
		persist(path);
		unlink(path);
	}
}

/* ---- tcp ---- */

static int listener, server_fd;

NOINL static void send_request(int fd)
{
	PP_ROOT();
	PP_GATE("send_request");
	sleep_ms(15);
	char req[64] = "request";
	if (send(fd, req, sizeof req, 0) != (ssize_t)sizeof req)
		exit(1);
}

NOINL static void serve_recv(void)
{
	PP_ROOT();
	PP_GATE("serve_recv");
	char buf[64];
	size_t got = 0;
	uint64_t s0 = sleeps_now(), t0 = now_ns(), q0 = runq_ns();
	while (got < sizeof buf) {
		ssize_t r = recv(server_fd, buf + got, sizeof buf - got, 0);
		if (r <= 0)
			exit(1);
		got += (size_t)r;
	}
	waited += now_ns() - t0;
	runq += runq_ns() - q0;
	sleeps += sleeps_now() - s0;
}

static void *client_main(void *a)
{
	int port = *(int *)a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
		exit(1);
	for (int i = 0; i < rounds; i++)
		send_request(fd);
	close(fd);
	return NULL;
}

static void tcp_work(void)
{
	listener = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof sa;
	if (bind(listener, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(listener, 1) != 0 ||
	    getsockname(listener, (struct sockaddr *)&sa, &len) != 0)
		exit(1);
	int port = ntohs(sa.sin_port);
	pthread_t t;
	pthread_create(&t, NULL, client_main, &port);
	server_fd = accept(listener, NULL, NULL);
	for (int i = 0; i < rounds; i++)
		serve_recv();
	pthread_join(t, NULL);
	close(server_fd);
	close(listener);
}

/* ---- epoll ---- */

NOINL static void tick_wait(int ep, int tfd)
{
	PP_ROOT();
	PP_GATE("tick_wait");
	struct epoll_event ev;
	uint64_t s0 = sleeps_now(), t0 = now_ns(), q0 = runq_ns();
	if (epoll_wait(ep, &ev, 1, -1) != 1)
		exit(1);
	waited += now_ns() - t0;
	runq += runq_ns() - q0;
	sleeps += sleeps_now() - s0;
	uint64_t ticks;
	if (read(tfd, &ticks, sizeof ticks) != sizeof ticks)
		exit(1);
}

static void epoll_work(void)
{
	int tfd = timerfd_create(CLOCK_MONOTONIC, 0), ep = epoll_create1(0);
	struct itimerspec its = {.it_interval = {0, 10000000}, .it_value = {0, 10000000}};
	struct epoll_event ev = {.events = EPOLLIN};
	if (tfd < 0 || ep < 0 || timerfd_settime(tfd, 0, &its, NULL) != 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) != 0)
		exit(1);
	for (int i = 0; i < rounds; i++)
		tick_wait(ep, tfd);
	close(ep);
	close(tfd);
}

/* ---- preempt ---- */
static volatile int hog_stop;
static uint64_t crunch_cpu;

static void *hog(void *arg)
{
	(void)arg;
	while (!hog_stop)
		;
	return NULL;
}

NOINL static void crunch(void)
{
	PP_ROOT();
	PP_GATE("crunch");
	uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w0 = clock_ns(CLOCK_MONOTONIC), q0 = runq_ns();
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0 < 300000000u)
		;
	crunch_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	waited = clock_ns(CLOCK_MONOTONIC) - w0 - crunch_cpu;
	runq = runq_ns() - q0;
}

/* ---- firsts ---- */
static void descend(int d);
#define BRANCH(n)                                                              \
	NOINL static void branch##n(int d)                                     \
	{                                                                      \
		PP_GATE("branch" #n);                                          \
		descend(d);                                                    \
	}
BRANCH(0) BRANCH(1) BRANCH(2) BRANCH(3) BRANCH(4) BRANCH(5) BRANCH(6) BRANCH(7)

static void descend(int d)
{
	static void (*const each[8])(int) = {branch0, branch1, branch2, branch3,
					     branch4, branch5, branch6, branch7};
	if (d > 0)
		for (int i = 0; i < 8; i++)
			each[i](d - 1);
}

NOINL static void walk(void)
{
	PP_ROOT();
	PP_GATE("walk");
	descend(5);
}

/* The current thread and a hog, both on CPU 0, around fn. */
static void beside_hog(void (*fn)(void))
{
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof one, &one) != 0)
		exit(1);
	pthread_t t;
	pthread_create(&t, NULL, hog, NULL); /* inherits the affinity */
	sleep_ms(20);
	fn();
	hog_stop = 1;
	pthread_join(t, NULL);
}

static void preempt_work(void)
{
	beside_hog(crunch);
	printf("cpu %llu ", (unsigned long long)crunch_cpu);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: offcpu_work mutex [N]|condvar|fsync DIR|tcp|epoll|preempt|firsts\n");
		return 2;
	}
	settle();
	sleep_ms(200);
	if (!strcmp(argv[1], "mutex")) {
		if (argc == 3)
			rounds = atoi(argv[2]);
		mutex_work();
	}
	else if (!strcmp(argv[1], "condvar"))
		condvar_work();
	else if (!strcmp(argv[1], "fsync") && argc == 3)
		fsync_work(argv[2]);
	else if (!strcmp(argv[1], "tcp"))
		tcp_work();
	else if (!strcmp(argv[1], "epoll"))
		epoll_work();
	else if (!strcmp(argv[1], "preempt"))
		preempt_work();
	else if (!strcmp(argv[1], "firsts")) {
		beside_hog(walk);
		printf("own %u ", pp__tls.own_work);
	}
	else
		return 2;
	printf("waited %llu runq %llu sleeps %llu\n", (unsigned long long)waited,
	       (unsigned long long)runq, (unsigned long long)sleeps);
	return 0;
}
