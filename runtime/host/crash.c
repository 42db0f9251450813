/* Fatal signals: the profile is written before the process dies of SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL or SIGABRT, then the signal takes its normal course.
 * The same for the signals that end a process by default (SIGTERM, SIGINT,
 * SIGHUP, SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ) while their action is the
 * default: a program that handles or ignores one gets exactly what it set,
 * and an ignored one stays ignored across exec (nohup).
 *
 * Writing a profile needs malloc, stdio and the symbolizer, none of which a
 * crashing thread may call (it may hold their locks). So the handler only
 * makes system calls: it clones the process without a shared address space
 * (a fork that runs no atfork handlers and sends no SIGCHLD), and the copy,
 * a single thread with every slab in its memory, writes the profile with the
 * ordinary dump code and exits. The crashing process waits for it, bounded:
 * if the copy hangs on a lock the crash left held, it is killed and the
 * process dies as it would have, having lost only the profile.
 *
 * The program keeps its own handlers: sigaction() and signal() are
 * interposed for these five signals, so what the program installs is
 * recorded and called after the dump, and what it reads back is what it set.
 * With no handler of its own, the default action is restored and the signal
 * raised again, so the exit status and core dump are the signal's. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "runtime.h"
#include "shm.h"

/* How long the crashing process waits for its copy to write the profile. */
#define WAIT_MS 20000
/* The alternate signal stack a thread gets (a stack overflow runs the
 * handler there: it only makes system calls), and the stack the copy
 * writes the profile on (the dump and the symbolizer need room the crashed
 * stack may not have). */
#define ALT_BYTES (64u << 10)
#define COPY_STACK_BYTES (16u << 20)

static const int fatal[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static const int ending[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ};

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static int armed;             /* our handler is installed */
static struct sigaction prog[NSIG]; /* what the program asked for, per fatal signal */
static int crashing;          /* a thread has claimed the dump */
static int dumped;            /* ... and it is over */

static int is_fatal(int sig)
{
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		if (fatal[i] == sig)
			return 1;
	return 0;
}

static int is_ending(int sig)
{
	for (size_t i = 0; i < sizeof ending / sizeof ending[0]; i++)
		if (ending[i] == sig)
			return 1;
	return 0;
}

static int is_default(const struct sigaction *a)
{
	return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL;
}

static long sys_gettid(void)
{
	return syscall(SYS_gettid);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static void say(const char *s)
{
	ssize_t r = write(2, s, strlen(s));
	(void)r;
}

static PP_NOINSTR void dump_and_exit(void)
{
	int rc = pp__dump(NULL);
	if (rc == 0)
		pp__shm_discard(); /* the profile holds it all now */
	/* straight to the kernel: the copy must not run exits.c's _exit */
	for (;;)
		syscall(SYS_exit_group, rc == 0 ? 0 : 1);
}

/* The copy: one thread, the crashed process's memory, free to call
 * anything. At a signal it moves to a fresh stack first (the crashed one
 * may be overflowed, or the small alternate one); at _exit and exec the
 * caller's stack is an ordinary one and is kept (ASan warns at every
 * swapcontext). */
static PP_NOINSTR void write_in_copy(int sig, long tid)
{
	pp__g.crash_signal = (uint32_t)sig;
	pp__g.crash_tid = sig ? (uint64_t)tid : 0;
	if (!sig)
		dump_and_exit();
	void *stack = mmap(NULL, COPY_STACK_BYTES, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ucontext_t here, there;
	if (stack != MAP_FAILED && getcontext(&there) == 0) {
		there.uc_stack.ss_sp = stack;
		there.uc_stack.ss_size = COPY_STACK_BYTES;
		there.uc_link = NULL;
		makecontext(&there, dump_and_exit, 0);
		swapcontext(&here, &there);
	}
	dump_and_exit();
}

static PP_NOINSTR void copy_and_wait(int sig);

/* Write the profile from a copy of this process and wait for it, bounded
 * (also for _exit and exec, exits.c: the caller may be a signal handler or
 * hold any lock). sig 0: no signal; the profile is not marked crashed. */
PP_NOINSTR void pp__dump_in_copy(int sig)
{
	/* the naming thread out of its pass first: it resolves names with
	 * malloc and the symbolizer, whose locks the copy needs */
	pp__shm_hold(2000);
	copy_and_wait(sig);
	pp__shm_release();
}

static PP_NOINSTR void copy_and_wait(int sig)
{
	long tid = sys_gettid();
	/* fork without glibc's fork(): that one runs atfork handlers and
	 * takes malloc's locks, which the crashed thread may hold. Exit
	 * signal 0: the program's SIGCHLD handler never hears of the copy. */
#if defined(__x86_64__) || defined(__aarch64__) || defined(__i386__)
	long pid = syscall(SYS_clone, 0L, 0L, 0L, 0L, 0L);
#else
	long pid = -1;
	errno = ENOSYS;
#endif
	if (pid == 0)
		write_in_copy(sig, tid);
	if (pid < 0) {
		say("pathprof: no profile written: could not start the process that writes it\n");
		return;
	}
	int st = 0;
	for (long waited = 0;; waited++) {
		long r = waitpid((pid_t)pid, &st, __WALL | WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (waited >= WAIT_MS) {
			kill((pid_t)pid, SIGKILL);
			waitpid((pid_t)pid, &st, __WALL);
			say("pathprof: no profile written: writing it took over 20 s (a lock held "
			    "by the program?)\n");
			return;
		}
		sleep_ms(1);
	}
}

/* What the program asked for, now that the profile is written. */
static PP_NOINSTR void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a = prog[sig];
	/* Only a fault recurs by itself when the handler returns: a signal
	 * the kernel sent for a fault carries a positive si_code below
	 * SI_KERNEL (SEGV_MAPERR, BUS_ADRERR, ...). Everything else was sent
	 * (kill, tgkill, sigqueue, a timer: si_code <= 0) or generated
	 * asynchronously by the kernel (a terminal's ^C and ^\, RLIMIT_CPU:
	 * SI_KERNEL), and an ending signal is never a fault: each of those
	 * must be sent again or it is lost (#27: the first ^C was). */
	int raised = si == NULL || si->si_code <= 0 || si->si_code == SI_KERNEL || is_ending(sig);
	if (a.sa_flags & SA_RESETHAND) {
		memset(&prog[sig], 0, sizeof prog[sig]);
		prog[sig].sa_handler = SIG_DFL;
	}
	if ((a.sa_flags & SA_SIGINFO) && a.sa_sigaction) {
		a.sa_sigaction(sig, si, uc);
		return;
	}
	if (!(a.sa_flags & SA_SIGINFO) && a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN) {
		a.sa_handler(sig);
		return;
	}
	/* An ignored raise is ignored; an ignored fault kills anyway (so the
	 * kernel treats it), as does the default action. */
	if (!(a.sa_flags & SA_SIGINFO) && a.sa_handler == SIG_IGN && raised)
		return;
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	real_sigaction(sig, &dfl, NULL);
	/* A fault recurs when the handler returns; a raised signal must be
	 * sent again (it stays blocked, and is delivered, on return). */
	if (raised)
		syscall(SYS_tgkill, (long)getpid(), sys_gettid(), (long)sig);
}

static PP_NOINSTR void on_fatal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	pp__shm_crashed(sig);
	if (!__atomic_exchange_n(&crashing, 1, __ATOMIC_ACQ_REL)) {
		if (__atomic_load_n(&pp__g.exit_dump, __ATOMIC_ACQUIRE))
			pp__dump_in_copy(sig);
		__atomic_store_n(&dumped, 1, __ATOMIC_RELEASE);
	} else {
		/* another thread crashed first: let it finish the profile */
		for (long w = 0; w < WAIT_MS + 1000 && !__atomic_load_n(&dumped, __ATOMIC_ACQUIRE); w++)
			sleep_ms(1);
	}
	chain(sig, si, uc);
	errno = saved;
}

/* Our action for sig, blocking what the program's own action blocks. */
static void install(int sig, const struct sigaction *like)
{
	struct sigaction a;
	memset(&a, 0, sizeof a);
	a.sa_sigaction = on_fatal;
	a.sa_flags = SA_SIGINFO | SA_ONSTACK | (like ? like->sa_flags & SA_NODEFER : 0);
	if (like)
		a.sa_mask = like->sa_mask;
	else
		sigemptyset(&a.sa_mask);
	real_sigaction(sig, &a, NULL);
}

void pp__crash_thread(void **stackp)
{
	stack_t cur;
	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE) || sigaltstack(NULL, &cur) != 0 ||
	    !(cur.ss_flags & SS_DISABLE))
		return; /* not armed, or the thread has its own */
	if (!*stackp) {
		void *m = mmap(NULL, ALT_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m == MAP_FAILED)
			return;
		*stackp = m;
	}
	stack_t ss = {.ss_sp = *stackp, .ss_size = ALT_BYTES, .ss_flags = 0};
	sigaltstack(&ss, NULL);
}

void pp__crash_arm(void)
{
	real_sigaction = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(
		RTLD_NEXT, "sigaction");
	if (!real_sigaction)
		return;
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
		int sig = fatal[i];
		real_sigaction(sig, NULL, &prog[sig]);
		install(sig, &prog[sig]);
	}
	for (size_t i = 0; i < sizeof ending / sizeof ending[0]; i++) {
		int sig = ending[i];
		real_sigaction(sig, NULL, &prog[sig]);
		if (is_default(&prog[sig]))
			install(sig, &prog[sig]);
	}
	__atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
}

/* A sanitizer's runtime installs its own handlers while it initializes,
 * through the sigaction() below, before its instrumentation may run: the
 * interposers carry none (TSan's function-entry hook crashed there). */
#if defined(__has_attribute)
#if __has_attribute(disable_sanitizer_instrumentation)
#define UNSANITIZED __attribute__((disable_sanitizer_instrumentation))
#endif
#endif
#ifndef UNSANITIZED
#define UNSANITIZED __attribute__((no_sanitize_address, no_sanitize_thread, no_sanitize_undefined))
#endif

/* sigaction() as the program sees it: for the fatal signals, its wish is
 * recorded (and its mask applied to our handler); for the ending ones, our
 * handler stands in for the default action only; everything else passes. */
PP_EXPORT UNSANITIZED int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE) || sig <= 0 || sig >= NSIG ||
	    !(is_fatal(sig) || is_ending(sig))) {
		int (*fn)(int, const struct sigaction *, struct sigaction *) = real_sigaction;
		if (!fn)
			fn = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT,
											 "sigaction");
		if (!fn) {
			errno = ENOSYS;
			return -1;
		}
		return fn(sig, act, old);
	}
	struct sigaction was = prog[sig];
	if (act) {
		prog[sig] = *act;
		if (is_fatal(sig) || is_default(act)) {
			install(sig, act);
		} else if (real_sigaction(sig, act, NULL) != 0) {
			prog[sig] = was;
			return -1;
		}
	}
	if (old)
		*old = was;
	return 0;
}

/* signal() as glibc defines it (BSD semantics: restart, no reset), routed
 * through sigaction() above so the five signals are recorded too. */
PP_EXPORT UNSANITIZED sighandler_t signal(int sig, sighandler_t h)
{
	struct sigaction a, old;
	memset(&a, 0, sizeof a);
	a.sa_handler = h;
	a.sa_flags = SA_RESTART;
	sigemptyset(&a.sa_mask);
	if (sigaction(sig, &a, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}
