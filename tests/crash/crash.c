/* Dies after N calls of main > mid > leaf, in the way argv[1] names: segv
 * (a store through NULL), abort, bus (a read past the end of a truncated
 * file mapping), fpe (an integer division by zero), overflow (unbounded
 * recursion: the handler runs on the runtime's alternate stack), or
 * handler (a SIGSEGV
 * with the program's own handler installed: it says so on stdout, then
 * restores the default action and raises the signal again), term (raises
 * SIGTERM, whose action is the default) or term-ignored (ignores SIGTERM,
 * raises it, and exits 0).
 * usage: crash MODE N */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "../modules/gate.h"

static volatile unsigned sink;

G_FN static void leaf(unsigned i)
{
	GATE("leaf");
	sink += i;
}

G_FN static void mid(unsigned i)
{
	GATE("mid");
	leaf(i);
}

static void on_segv(int sig)
{
	static const char msg[] = "own handler ran\n";
	ssize_t r = write(1, msg, sizeof msg - 1);
	(void)r;
	signal(sig, SIG_DFL);
	raise(sig);
}

/* UBSan would stop at the division first: the trap is what is tested. Not
 * gated: GCC may run the exit hook before the division. */
#ifdef __clang__
#define NOT_GATED __attribute__((no_instrument_function, xray_never_instrument))
#else
#define NOT_GATED __attribute__((no_instrument_function))
#endif
__attribute__((noinline, no_sanitize("undefined"))) NOT_GATED static int divide(int a, int b)
{
	return a / b;
}

G_FN static unsigned deep(unsigned d)
{
	volatile char pad[4096];
	pad[0] = (char)d;
	return deep(d + 1) + (unsigned)pad[0];
}

G_FN static int boom(const char *mode)
{
	GATE("boom");
	if (!strcmp(mode, "segv") || !strcmp(mode, "handler")) {
		*(volatile char *)(uintptr_t)sink = 1; /* sink is small: an unmapped page */
	} else if (!strcmp(mode, "abort")) {
		abort();
	} else if (!strcmp(mode, "bus")) {
		char name[] = "/tmp/pp-crash-bus.XXXXXX";
		int fd = mkstemp(name);
		if (fd < 0 || ftruncate(fd, 4096) != 0)
			return 2;
		volatile char *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
		unlink(name);
		if (m == MAP_FAILED)
			return 2;
		return m[4096]; /* the second page lies past the end of the file */
	} else if (!strcmp(mode, "overflow")) {
		return (int)deep(0);
	} else if (!strcmp(mode, "term")) {
		raise(SIGTERM);
		return 4;
	} else if (!strcmp(mode, "term-ignored")) {
		signal(SIGTERM, SIG_IGN);
		raise(SIGTERM);
		return 0;
	} else if (!strcmp(mode, "fpe")) {
		volatile int zero = 0, num = 7; /* volatile: no constant folding */
		int q = divide(num, zero); /* not a tail call: that would leave boom first */
		sink += (unsigned)q;
		return q;
	}
	return 3;
}

G_FN int main(int argc, char **argv)
{
	GATE("main");
	if (argc != 3)
		return 2;
	if (!strcmp(argv[1], "handler")) {
		struct sigaction a;
		memset(&a, 0, sizeof a);
		a.sa_handler = on_segv;
		sigaction(SIGSEGV, &a, NULL);
	}
	unsigned n = (unsigned)strtoul(argv[2], NULL, 10);
	for (unsigned i = 0; i < n; i++)
		mid(i & 1);
	return boom(argv[1]);
}
