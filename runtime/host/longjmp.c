/* longjmp and its kin, interposed (glibc, x86-64). A longjmp leaves every
 * frame between it and its setjmp without their exits. The next gate would
 * drop them when it lies above them, their paths lost, and a function the
 * setjmp caller calls next, with a frame at least as large as theirs, ran
 * its cyg hook at or below their positions and nested under them
 * (docs/internals/control-flow.md, "The gap"). Here, before the jump,
 * every frame below the stack pointer the setjmp saved is closed, as its
 * exit would have closed it (gate_resync.c, pp__unwound_to).
 * glibc keeps that stack pointer in the jmp_buf mangled with the thread's
 * pointer guard (rotated left 17 bits after an exclusive or with the guard
 * at %fs:0x30, as its own longjmp undoes it). A value that does not lie
 * above the current stack pointer, within 1 GiB, is not taken: the jump
 * then happens as before, and the next gate sorts the frames out.
 * Weak, so that a sanitizer's interceptors, linked into the program
 * statically, keep theirs (gcc's libasan, linked first, defines longjmp
 * before this object is needed: the link takes its own, and the gap stays
 * open under sanitizers). The real functions are looked up at load,
 * not at the jump: a signal handler may siglongjmp, and dlsym is not
 * async-signal-safe. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime.h"

typedef void (*jump_fn)(struct __jmp_buf_tag *, int);

enum { J_LONGJMP, J__LONGJMP, J_SIGLONGJMP, J_CHK, J_N };
static const char *const jump_names[J_N] = { "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk" };
static jump_fn jumps[J_N];

__attribute__((constructor)) PP_NOINSTR static void jumps_resolve(void)
{
	for (int i = 0; i < J_N; i++)
		__atomic_store_n(&jumps[i], (jump_fn)dlsym(RTLD_NEXT, jump_names[i]), __ATOMIC_RELEASE);
}

/* The setjmp's stack pointer, or 0 when it cannot be read. */
static PP_NOINSTR uint64_t target_sp(struct __jmp_buf_tag *env)
{
#if defined(__x86_64__) && defined(__GLIBC__)
	uint64_t guard, here, v = (uint64_t)env->__jmpbuf[6];
	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	__asm__("mov %%rsp, %0" : "=r"(here));
	uint64_t sp = ((v >> 17) | (v << 47)) ^ guard;
	return sp > here && sp - here < (1ull << 30) ? sp : 0;
#else
	(void)env;
	return 0;
#endif
}

static PP_NOINSTR __attribute__((noreturn)) void jump(int which, struct __jmp_buf_tag *env, int val)
{
	uint64_t sp = target_sp(env);
	if (sp)
		pp__unwound_to(sp);
	jump_fn fn = __atomic_load_n(&jumps[which], __ATOMIC_ACQUIRE);
	if (!fn) /* called before the constructor ran */
		fn = (jump_fn)dlsym(RTLD_NEXT, jump_names[which]);
	if (!fn) {
		fprintf(stderr, "pathprof: %s: not found in the C library\n", jump_names[which]);
		abort();
	}
	fn(env, val);
	__builtin_unreachable();
}

#define PP__JUMP(name, which)                                                                \
	void name(struct __jmp_buf_tag env[1], int val) __attribute__((noreturn));            \
	PP_EXPORT PP_NOINSTR __attribute__((weak, noreturn)) void name(struct __jmp_buf_tag env[1], int val) \
	{                                                                                     \
		jump(which, env, val);                                                        \
	}
PP__JUMP(longjmp, J_LONGJMP)
PP__JUMP(_longjmp, J__LONGJMP)
PP__JUMP(siglongjmp, J_SIGLONGJMP)
PP__JUMP(__longjmp_chk, J_CHK)
