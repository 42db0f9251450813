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
/* [entry, exit, tail], read by the trampolines' assembly */
pp__xray_sled_handler_t pp__xray_tramp_handler[3] __attribute__((visibility("hidden"))) = {
	AS_SLED(no_handler), AS_SLED(no_handler), AS_SLED(no_handler)};
static int own; /* pathprof's trampolines are in */

int pp__xray_use_handler(pp__xray_handler_t h)
{
	pp__xray_sled_handler_t k[3];
	if (!own || !h || !pp__xray_lean_kinds(h, k))
		k[0] = k[1] = k[2] = AS_SLED(h ? h : no_handler);
	/* x86 makes the stores seen in this order, all before the caller's
	 * next ones (arm.c marks ids after choosing the handler) */
	for (int i = 0; i < 3; i++)
		__atomic_store_n(&pp__xray_tramp_handler[i], k[i], __ATOMIC_RELEASE);
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
 * neither XRay's trampolines nor these (C code that never uses them).
 * Stack: a called trampoline starts at 16n (the function's entry at
 * 16n+8, then the sled's call), the exit's at 16n+8; each call to the
 * handler is made at 16n. Instructions a sled (handler not counted):
 * entry 37, tail 39, exit 15, plus the jump from XRay's trampoline. */
/* The argument registers, saved at and restored from 0(%rsp) to 0xb8 */
#define SAVE_ARGS                                                              \
	"	movups %xmm0, 0x00(%rsp)\n	movups %xmm1, 0x10(%rsp)\n"            \
	"	movups %xmm2, 0x20(%rsp)\n	movups %xmm3, 0x30(%rsp)\n"            \
	"	movups %xmm4, 0x40(%rsp)\n	movups %xmm5, 0x50(%rsp)\n"            \
	"	movups %xmm6, 0x60(%rsp)\n	movups %xmm7, 0x70(%rsp)\n"            \
	"	mov %rdi, 0x80(%rsp)\n	mov %rsi, 0x88(%rsp)\n"                    \
	"	mov %rdx, 0x90(%rsp)\n	mov %rcx, 0x98(%rsp)\n"                    \
	"	mov %r8, 0xa0(%rsp)\n	mov %r9, 0xa8(%rsp)\n	mov %rax, 0xb0(%rsp)\n"
#define RESTORE_ARGS                                                           \
	"	movups 0x00(%rsp), %xmm0\n	movups 0x10(%rsp), %xmm1\n"            \
	"	movups 0x20(%rsp), %xmm2\n	movups 0x30(%rsp), %xmm3\n"            \
	"	movups 0x40(%rsp), %xmm4\n	movups 0x50(%rsp), %xmm5\n"            \
	"	movups 0x60(%rsp), %xmm6\n	movups 0x70(%rsp), %xmm7\n"            \
	"	mov 0x80(%rsp), %rdi\n	mov 0x88(%rsp), %rsi\n"                    \
	"	mov 0x90(%rsp), %rdx\n	mov 0x98(%rsp), %rcx\n"                    \
	"	mov 0xa0(%rsp), %r8\n	mov 0xa8(%rsp), %r9\n	mov 0xb0(%rsp), %rax\n"
/* A trampoline: its name, what it saves and restores besides the
 * arguments, the sled's kind (the handler's second argument and its index
 * in pp__xray_tramp_handler) */
#define ARGS_TRAMPOLINE(name, save, restore, kind)                             \
	".p2align 4\n"                                                         \
	".type " name ", @function\n" name ":\n"                              \
	"	sub $0xc0, %rsp\n" SAVE_ARGS save                                \
	"	mov %r10d, %edi\n	mov $" #kind ", %esi\n"                       \
	"	lea 0xc8(%rsp), %rdx\n"                                          \
	"	call *pp__xray_tramp_handler+8*" #kind "(%rip)\n"                \
	RESTORE_ARGS restore                                                    \
	"	add $0xc0, %rsp\n	ret\n"                                        \
	".size " name ", .-" name "\n"

__asm__(".text\n"
	ARGS_TRAMPOLINE("pp__xray_tramp_entry", "", "", 0)
	ARGS_TRAMPOLINE("pp__xray_tramp_tail", "	mov %r11, 0xb8(%rsp)\n",
			"	mov 0xb8(%rsp), %r11\n", 2)
	".p2align 4\n"
	".type pp__xray_tramp_exit, @function\n"
	"pp__xray_tramp_exit:\n"
	"	sub $0x38, %rsp\n"
	"	movups %xmm0, 0x00(%rsp)\n"
	"	movups %xmm1, 0x10(%rsp)\n"
	"	mov %rax, 0x20(%rsp)\n"
	"	mov %rdx, 0x28(%rsp)\n"
	"	mov %r10d, %edi\n"
	"	mov $1, %esi\n"
	"	lea 0x38(%rsp), %rdx\n"
	"	call *pp__xray_tramp_handler+8(%rip)\n"
	"	movups 0x00(%rsp), %xmm0\n"
	"	movups 0x10(%rsp), %xmm1\n"
	"	mov 0x20(%rsp), %rax\n"
	"	mov 0x28(%rsp), %rdx\n"
	"	add $0x38, %rsp\n"
	"	ret\n"
	".size pp__xray_tramp_exit, .-pp__xray_tramp_exit\n"
	".previous\n");

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
