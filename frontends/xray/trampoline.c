/* pathprof's own trampolines between XRay's patched sleds and the handler.
 * XRay's (compiler-rt) save every register a C function may clobber and
 * also those it must keep (rbp, r10 to r15, the flags): 57 instructions an
 * entry, 21 an exit, before the handler runs (bench/tailinstr.sh). These
 * save only what is live at the sled and a C handler may clobber, and call
 * pathprof's handler with no test. XRay still builds and patches the
 * sleds; at the first arming, while no sled is patched, the first bytes of
 * each of XRay's three trampolines become a jump to the one here
 * (docs/reference/xray.md, "Trampolines"; PATHPROF_XRAY_TRAMPOLINES=xray
 * keeps XRay's). x86-64 only, as the shim's calibration is. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pathprof/compiler.h>
#include "runtime.h"
#include "shim.h"
#include "vector_safe.h"
#include "xray_abi.h"

/* Called by the trampolines, never NULL: the no-op while no handler is
 * set (a sled may still run briefly after the handler is removed), so
 * they test nothing. */
static PP_NOINLINE PP_NOINSTR void no_handler(int32_t fid, int type)
{
	(void)fid;
	(void)type;
}
/* A handler of XRay's type, as the trampolines call it (through void
 * (*)(void): the one cast between function types C compilers take
 * silently; see pp__xray_sled_handler_t) */
#define AS_SLED(h) ((pp__xray_sled_handler_t)(void (*)(void))(h))
/* The trampolines keep no vector register (vector_safe.h): they call a
 * lean handler of each kind directly, or, for any handler that may use
 * them (the full shim, calibration, a sanitizer build's), one of the
 * keeping_* adapters below, which keep xmm0-7 around a call to the one
 * in pp__xray_keep_handler. Each [entry, exit, tail], read by the
 * assembly. */
void pp__xray_keeping_entry(void) __attribute__((visibility("hidden")));
void pp__xray_keeping_exit(void) __attribute__((visibility("hidden")));
void pp__xray_keeping_tail(void) __attribute__((visibility("hidden")));
pp__xray_sled_handler_t pp__xray_tramp_handler[3] __attribute__((visibility("hidden"))) = {
	AS_SLED(pp__xray_keeping_entry), AS_SLED(pp__xray_keeping_exit), AS_SLED(pp__xray_keeping_tail)};
pp__xray_sled_handler_t pp__xray_keep_handler[3] __attribute__((visibility("hidden"))) = {
	AS_SLED(no_handler), AS_SLED(no_handler), AS_SLED(no_handler)};
static int own; /* pathprof's trampolines are in */

int pp__xray_use_handler(pp__xray_handler_t h)
{
	static const pp__xray_sled_handler_t keeping[3] = {
		AS_SLED(pp__xray_keeping_entry), AS_SLED(pp__xray_keeping_exit),
		AS_SLED(pp__xray_keeping_tail)};
	pp__xray_sled_handler_t k[3];
	int lean = own && h && pp__xray_lean_kinds(h, k);
	if (!lean)
		k[0] = k[1] = k[2] = AS_SLED(h ? h : no_handler);
	/* x86 makes the stores seen in this order, all before the caller's
	 * next ones (arm.c marks ids after choosing the handler): an adapter
	 * in the trampolines' table calls the new handler already */
	for (int i = 0; i < 3; i++)
		__atomic_store_n(&pp__xray_keep_handler[i], k[i], __ATOMIC_RELEASE);
	for (int i = 0; i < 3; i++)
		__atomic_store_n(&pp__xray_tramp_handler[i], lean && PP__XRAY_GENERAL_REGS ? k[i] : keeping[i],
				 __ATOMIC_RELEASE);
	return h ? __xray_set_handler(h) : __xray_remove_handler();
}

#if defined(__x86_64__)
/* The sled has put the function id in r10d. At a function's entry the
 * arguments are live: rdi, rsi, rdx, rcx, r8, r9, rax (the vector count of
 * a variadic call) and xmm0-7; r11 is not (scratch, no argument). At a
 * tail sled, just before the jump, the same, and the jump's target may be
 * in r11. At an exit sled (the function's ret, now a jump here): the
 * return value, rax, rdx, xmm0 and xmm1; this ret returns to the caller.
 * The handler is C: it keeps rbx, rbp and r12-r15 itself and leaves the
 * direction flag clear; x87 and the upper halves of ymm are kept by
 * neither XRay's trampolines nor these (C code that never uses them). The
 * vector registers are kept by the handler's side (above). Stack: a
 * called trampoline starts at 16n (the function's entry at 16n+8, then
 * the sled's call), the exit's at 16n+8; each call to the handler is made
 * at 16n. Instructions a sled (handler not counted): entry 20, tail 22,
 * exit 10, plus the jump from XRay's trampoline (37, 39 and 15 when they
 * kept the vector registers themselves, bench/tailinstr.sh). */
/* The integer argument registers, saved at and restored from 0(%rsp) to
 * 0x37 */
#define SAVE_ARGS                                                              \
	"	mov %rdi, 0x00(%rsp)\n	mov %rsi, 0x08(%rsp)\n"                    \
	"	mov %rdx, 0x10(%rsp)\n	mov %rcx, 0x18(%rsp)\n"                    \
	"	mov %r8, 0x20(%rsp)\n	mov %r9, 0x28(%rsp)\n	mov %rax, 0x30(%rsp)\n"
#define RESTORE_ARGS                                                           \
	"	mov 0x00(%rsp), %rdi\n	mov 0x08(%rsp), %rsi\n"                    \
	"	mov 0x10(%rsp), %rdx\n	mov 0x18(%rsp), %rcx\n"                    \
	"	mov 0x20(%rsp), %r8\n	mov 0x28(%rsp), %r9\n	mov 0x30(%rsp), %rax\n"
/* A trampoline: its name, what it saves and restores besides the
 * arguments, the sled's kind (its handler's index in
 * pp__xray_tramp_handler: a handler of that kind, which needs no kind) */
#define ARGS_TRAMPOLINE(name, save, restore, kind)                             \
	".p2align 4\n"                                                         \
	".type " name ", @function\n" name ":\n"                              \
	"	sub $0x40, %rsp\n" SAVE_ARGS save                                \
	"	mov %r10d, %edi\n	lea 0x48(%rsp), %rdx\n"                        \
	"	call *pp__xray_tramp_handler+8*" #kind "(%rip)\n"                \
	RESTORE_ARGS restore                                                    \
	"	add $0x40, %rsp\n	ret\n"                                        \
	".size " name ", .-" name "\n"
/* A function that runs before, then calls target (an operand of call)
 * with the argument and return registers as it found them and keeps
 * xmm0-7 around the call (entered at 16n+8, as any function: the call
 * below is made at 16n) */
#define KEEPING_VECTORS(name, before, target)                                  \
	".p2align 4\n"                                                         \
	".type " name ", @function\n" name ":\n" before                       \
	"	sub $0x88, %rsp\n"                                               \
	"	movups %xmm0, 0x00(%rsp)\n	movups %xmm1, 0x10(%rsp)\n"        \
	"	movups %xmm2, 0x20(%rsp)\n	movups %xmm3, 0x30(%rsp)\n"        \
	"	movups %xmm4, 0x40(%rsp)\n	movups %xmm5, 0x50(%rsp)\n"        \
	"	movups %xmm6, 0x60(%rsp)\n	movups %xmm7, 0x70(%rsp)\n"        \
	"	call " target "\n"                                               \
	"	movups 0x00(%rsp), %xmm0\n	movups 0x10(%rsp), %xmm1\n"        \
	"	movups 0x20(%rsp), %xmm2\n	movups 0x30(%rsp), %xmm3\n"        \
	"	movups 0x40(%rsp), %xmm4\n	movups 0x50(%rsp), %xmm5\n"        \
	"	movups 0x60(%rsp), %xmm6\n	movups 0x70(%rsp), %xmm7\n"        \
	"	add $0x88, %rsp\n	ret\n"                                        \
	".size " name ", .-" name "\n"
/* pp__pop_timed at an exit sled, where xmm0-1 alone are live (lean.c) */
#define KEEPING_RETURN(name, target)                                           \
	".globl " name "\n.hidden " name "\n"                                   \
	".p2align 4\n"                                                         \
	".type " name ", @function\n" name ":\n"                              \
	"	sub $0x28, %rsp\n"                                               \
	"	movups %xmm0, 0x00(%rsp)\n	movups %xmm1, 0x10(%rsp)\n"        \
	"	call " target "\n"                                               \
	"	movups 0x00(%rsp), %xmm0\n	movups 0x10(%rsp), %xmm1\n"        \
	"	add $0x28, %rsp\n	ret\n"                                        \
	".size " name ", .-" name "\n"
/* lean.c's calls out of itself (vector_safe.h) */
#define STUB(real, suffix)                                                     \
	".globl pp__xray_v_" #suffix "\n.hidden pp__xray_v_" #suffix "\n"       \
	KEEPING_VECTORS("pp__xray_v_" #suffix, "", #real "@PLT")

__asm__(".text\n"
	ARGS_TRAMPOLINE("pp__xray_tramp_entry", "", "", 0)
	ARGS_TRAMPOLINE("pp__xray_tramp_tail", "	mov %r11, 0x38(%rsp)\n",
			"	mov 0x38(%rsp), %r11\n", 2)
	".p2align 4\n"
	".type pp__xray_tramp_exit, @function\n"
	"pp__xray_tramp_exit:\n"
	"	sub $0x18, %rsp\n"
	"	mov %rax, 0x00(%rsp)\n"
	"	mov %rdx, 0x08(%rsp)\n"
	"	mov %r10d, %edi\n"
	"	lea 0x18(%rsp), %rdx\n"
	"	call *pp__xray_tramp_handler+8(%rip)\n"
	"	mov 0x00(%rsp), %rax\n"
	"	mov 0x08(%rsp), %rdx\n"
	"	add $0x18, %rsp\n"
	"	ret\n"
	".size pp__xray_tramp_exit, .-pp__xray_tramp_exit\n"
	/* the kind, which the trampolines do not pass, for XRay's type */
	KEEPING_VECTORS("pp__xray_keeping_entry", "	mov $0, %esi\n", "*pp__xray_keep_handler+0(%rip)")
	KEEPING_VECTORS("pp__xray_keeping_exit", "	mov $1, %esi\n", "*pp__xray_keep_handler+8(%rip)")
	KEEPING_VECTORS("pp__xray_keeping_tail", "	mov $2, %esi\n", "*pp__xray_keep_handler+16(%rip)")
	PP__XRAY_VECTOR_SAFE_CALLS(STUB)
	KEEPING_RETURN("pp__xray_v_ret_pop_timed", "pp__pop_timed@PLT")
	".previous\n");
#undef STUB

void pp__xray_tramp_entry(void) __attribute__((visibility("hidden")));
void pp__xray_tramp_tail(void) __attribute__((visibility("hidden")));
void pp__xray_tramp_exit(void) __attribute__((visibility("hidden")));

/* XRay's trampolines (libclang_rt.xray, linked into the program). */
extern void __xray_FunctionEntry(void);
extern void __xray_FunctionExit(void);
extern void __xray_FunctionTailExit(void);

/* Is any sled patched (mov r10d, id: 41 ba; unpatched ones begin with a
 * short jump or a ret)? Then a thread may be inside XRay's trampolines,
 * which are left alone. -1: the map cannot be read. */
static PP_NOINSTR int any_sled_patched(void)
{
	const unsigned char *p, *end;
	if (pp__xray_sleds(&p, &end) != 0)
		return -1;
	for (; p < end; p += PP__XRAY_SLED_BYTES) {
		const unsigned char *at = (const unsigned char *)pp__xray_sled_addr(p, 0);
		if (at[0] == 0x41 && at[1] == 0xba)
			return 1;
	}
	return 0;
}

/* Write "jmp to" over the first five bytes at from. */
static PP_NOINSTR int jump(void (*from)(void), void (*to)(void))
{
	uintptr_t a = (uintptr_t)from;
	intptr_t rel = (intptr_t)((uintptr_t)to - (a + 5));
	if (rel != (int32_t)rel)
		return -1;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = a & ~(uintptr_t)(page - 1), hi = (a + 5 + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
	/* read, write and run: other code on the page may be running */
	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
		return -1;
	unsigned char code[5] = {0xe9};
	int32_t r = (int32_t)rel;
	memcpy(code + 1, &r, sizeof r);
	memcpy((void *)a, code, sizeof code);
	mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC);
	__builtin___clear_cache((char *)a, (char *)a + 5);
	return 0;
}

int pp__xray_own_trampolines(void)
{
	const char *s = getenv("PATHPROF_XRAY_TRAMPOLINES");
	if (s && !strcmp(s, "xray"))
		return 0;
	if (s && *s && strcmp(s, "pathprof"))
		pp__warn("PATHPROF_XRAY_TRAMPOLINES=%s: expected pathprof or xray; using pathprof", s);
	if (any_sled_patched() != 0)
		return 0;
	if (jump(__xray_FunctionEntry, pp__xray_tramp_entry) != 0)
		return 0;
	/* entry first: a failure after it leaves XRay's exits, which work
	 * with these entries as well (each saves what it needs) */
	if (jump(__xray_FunctionExit, pp__xray_tramp_exit) == 0)
		jump(__xray_FunctionTailExit, pp__xray_tramp_tail);
	own = 1;
	return 1;
}
#else
int pp__xray_own_trampolines(void)
{
	return 0;
}
#endif
