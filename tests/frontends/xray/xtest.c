/* Test program for the XRay front-end, built with clang -fxray-instrument
 * at -O0 and -O2 (tests/frontends/xray/meson.build). Functions named t_* are gated;
 * u_* are never instrumented and stand for foreign code. Each mode exercises
 * one behaviour; check.sh compares the canonical path listing. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pathprof/xray.h>

#define GATED __attribute__((noinline))
#define FOREIGN __attribute__((noinline, xray_never_instrument))
#define HOST __attribute__((xray_never_instrument))

volatile int sink;
static int fail(const char *what, int got);

GATED void t_c(void) { sink++; }
GATED void t_b(void) { sink += 2; }
GATED void t_a(void) { t_c(); sink++; }
GATED void t_work(void) { t_a(); t_b(); /* a tail call at -O2 */ }

/* Tail calls. */
GATED int t_tleaf(int x) { sink += x; return x + 1; }
GATED int t_tmid(int x) { sink++; return t_tleaf(x + 1); }
GATED int t_tchain(int x) { sink++; return t_tmid(x * 2); }
GATED int t_cb(int x) { sink += x; return x; }
FOREIGN int u_foreign(int x) { sink++; return t_cb(x) + 1; }
GATED int t_tforeign(int x) { sink++; return u_foreign(x); }
FOREIGN int u_plain(int x) { sink += x; return x; }
GATED int t_tplain(int x) { sink++; return u_plain(x); }
GATED int t_tind(int (*fp)(int), int x) { sink++; return fp(x); }
GATED int t_odd(int n);
GATED int t_even(int n) { if (n == 0) return 1; return t_odd(n - 1); }
GATED int t_odd(int n) { if (n == 0) return 0; return t_even(n - 1); }

GATED int t_troot(int i)
{
	int r = t_tmid(i);
	r += t_tchain(i);
	for (int k = 0; k < 3; k++)
		r += t_tplain(k);
	r += t_tind(t_tleaf, i);
	for (int k = 0; k < 3; k++)
		r += t_tind(u_plain, k);
	r += t_even(3);
	sink += r;
	return r;
}

/* An indirect tail call into foreign code as the caller's last call: the
 * caller's own exit, at a shallower slot, is the next event and shows
 * that the jumping frame finished (it is counted, not dropped as dead:
 * t_tlast>t_tind once a call, unmatched 0). */
GATED int t_tlast(int i)
{
	int r = t_tind(u_plain, i);
	sink += r;
	return r;
}

/* Armed from inside a gated function: its exit is seen, its entry was not.
 * The exit is ignored (not counted as unmatched) by both shims. */
GATED void t_arm(void)
{
	pp_xray_arm();
	t_a();
}

/* Gated code reached through a tail call into foreign code. */
GATED int t_froot(int i)
{
	int r = t_tforeign(i);
	sink += r;
	return r;
}

/* Recursion and several returns. */
GATED int t_rec(int n)
{
	if (n == 0) {
		t_c();
		return 0;
	}
	int r = t_rec(n - 1);
	sink += r;
	return r + 1;
}

GATED int t_multi(int x)
{
	if (x % 3 == 0)
		return 0;
	if (x % 3 == 1) {
		sink++;
		return 1;
	}
	t_b();
	sink++;
	return 2;
}

/* Disarmed while open: its exit sled is a no-op by the time it returns. */
GATED void t_dis(void)
{
	t_c();
	pp_xray_disarm();
	sink++;
}

/* Registers across the sleds (the trampolines, XRay's or pathprof's,
 * trampoline.c): every argument register at an entry and at a tail jump,
 * a variadic call's vector count, the return registers at an exit
 * (two doubles, two longs), a tail jump through a pointer. */
typedef struct { double re, im; } t_cplx;
typedef struct { long lo, hi; } t_pair;
GATED double t_args(long a, long b, long c, long d, long e, long f, double x0, double x1,
		    double x2, double x3, double x4, double x5, double x6, double x7)
{
	sink++;
	return (double)(a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f) + x0 + 2 * x1 + 3 * x2 +
	       4 * x3 + 5 * x4 + 6 * x5 + 7 * x6 + 8 * x7;
}
GATED double t_targs(long a, long b, long c, long d, long e, long f, double x0, double x1,
		     double x2, double x3, double x4, double x5, double x6, double x7)
{
	sink++;
	return t_args(f, e, d, c, b, a, x7, x6, x5, x4, x3, x2, x1, x0); /* a tail call at -O2 */
}
GATED double t_vsum(int n, ...)
{
	__builtin_va_list ap;
	__builtin_va_start(ap, n);
	double s = 0;
	sink++;
	for (int i = 0; i < n; i++)
		s += __builtin_va_arg(ap, double) * (i + 1);
	__builtin_va_end(ap);
	return s;
}
GATED t_cplx t_cplx_of(double a, double b) { sink++; t_cplx z = {a * 2, b * 3}; return z; }
GATED t_pair t_pair_of(long a, long b) { sink++; t_pair p = {a * 5, b * 7}; return p; }
GATED double t_tptr(double (*fp)(long, long, long, long, long, long, double, double, double,
				  double, double, double, double, double),
		    double x)
{
	sink++;
	return fp(1, 2, 3, 4, 5, 6, x, x, x, x, x, x, x, x); /* an indirect tail call */
}

static HOST int regs(void)
{
	double (*volatile args)(long, long, long, long, long, long, double, double, double, double,
				double, double, double, double) = t_args;
	double (*volatile vsum)(int, ...) = t_vsum;
	if (pp_xray_arm() != 0)
		return 1;
	int bad = 0;
	for (int i = 0; i < 3; i++) {
		bad |= args(1, 2, 3, 4, 5, 6, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5) != 91 + 186;
		bad |= t_targs(1, 2, 3, 4, 5, 6, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5) != 56 + 102;
		bad |= vsum(3, 1.25, 2.5, 4.0) != 1.25 + 5 + 12;
		t_cplx z = t_cplx_of(1.5, 2.5);
		bad |= z.re != 3 || z.im != 7.5;
		t_pair p = t_pair_of(-3, 11);
		bad |= p.lo != -15 || p.hi != 77;
		bad |= t_tptr(args, 1.0) != 91 + 36;
	}
	pp_xray_disarm();
	/* which trampolines ran: XTEST_TRAMPOLINES says which it must be */
	extern void __xray_FunctionEntry(void);
	const char *want = getenv("XTEST_TRAMPOLINES");
	int ours = *(const volatile unsigned char *)(void *)__xray_FunctionEntry == 0xe9;
	if (want && strcmp(want, ours ? "pathprof" : "xray"))
		return fail("trampolines: pathprof's in place", ours);
	return bad ? fail("a value changed across a sled", bad) : 0;
}

static HOST int fail(const char *what, int got)
{
	fprintf(stderr, "xtest: %s (got %d)\n", what, got);
	return 1;
}

static HOST void works(int n)
{
	for (int i = 0; i < n; i++)
		t_work();
}

/* Each thread keeps its own shim stack: tail frames never leak across. */
static HOST void *thread_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++) {
		t_work();
		t_troot(i);
	}
	return NULL;
}

static HOST int threads(void)
{
	pthread_t th[3];
	pp_xray_arm();
	for (int i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, thread_main, NULL) != 0)
			return fail("pthread_create", i);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	pp_xray_disarm();
	return 0;
}

HOST int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int rc;
	if (strcmp(mode, "armcycle") == 0) {
		works(2);
		if ((rc = pp_xray_arm()) != 0)
			return fail("arm", rc);
		works(3);
		if ((rc = pp_xray_disarm()) != 0)
			return fail("disarm", rc);
		works(5);
		if ((rc = pp_xray_arm()) != 0)
			return fail("re-arm", rc);
		works(4);
		pp_xray_disarm();
		works(1);
	} else if (strcmp(mode, "pattern") == 0) {
		if ((rc = pp_xray_arm_pattern("t_[ac]")) != 2)
			return fail("pattern t_[ac] should match 2", rc);
		if ((rc = pp_xray_arm_pattern("no_such_*")) != 0)
			return fail("pattern no_such_* should match 0", rc);
		if ((rc = pp_xray_arm_pattern("")) != -1)
			return fail("empty pattern should fail", rc);
		works(3);
	} else if (strcmp(mode, "plain") == 0) {
		/* Armed, or not, by PATHPROF_XRAY only. */
		works(3);
	} else if (strcmp(mode, "tail") == 0) {
		pp_xray_arm();
		for (int i = 0; i < 4; i++) {
			t_troot(i);
			t_tlast(i);
		}
		pp_xray_disarm();
	} else if (strcmp(mode, "foreign") == 0) {
		pp_xray_arm();
		for (int i = 0; i < 2; i++)
			t_froot(i);
		pp_xray_disarm();
	} else if (strcmp(mode, "recur") == 0) {
		pp_xray_arm();
		for (int i = 0; i < 2; i++)
			t_rec(3);
		for (int x = 0; x < 6; x++)
			t_multi(x);
		pp_xray_disarm();
	} else if (strcmp(mode, "disarm-inside") == 0) {
		pp_xray_arm();
		t_dis();
		pp_xray_arm();
		works(2);
		pp_xray_disarm();
	} else if (strcmp(mode, "arm-inside") == 0) {
		t_arm();
		pp_xray_disarm();
	} else if (strcmp(mode, "regs") == 0) {
		if (regs() != 0)
			return 1;
	} else if (strcmp(mode, "threads") == 0) {
		if (threads() != 0)
			return 1;
	} else {
		return fail("unknown mode", 0);
	}
	return pp_dump(NULL) == 0 ? 0 : 1;
}
