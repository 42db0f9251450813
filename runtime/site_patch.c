/* Once a budget stopped a cyg function, or PATHPROF_FUNCTIONS left one out
 * (gate_slow.c, pp__enter_selected), its hook calls are patched out of
 * the code, as ftrace turns mcount calls into no-ops and XRay unpatches its
 * sleds (the plugin's calls of pp_plugin_enter/pp_plugin_leave the same
 * way; below, "hook" is either): a stopped cyg gate still cost two hook calls that returned at once
 * (7.5 ns a call of a 5 ns helper, bench/budget.sh); patched, its call
 * costs what the instrumented function's own code does.
 *
 * Which bytes: a stopped key's hook notes where it returns to (the hot
 * side, pp__site_note: a probe of a fixed table). The throttling thread
 * then takes each noted return address and checks, before touching
 * anything, that the instruction ending there is a call of the right hook:
 * `e8 rel32` whose target is the hook (directly, or a PLT entry whose GOT
 * slot holds it), or `ff 15 disp32` whose slot holds it; the hook is known
 * by its symbol name at offset 0. An exit hook reached by a tail jump
 * (`jmp __cyg_profile_func_exit`, GCC's usual epilogue at -O2) returns
 * into the function's caller, so its site is looked for in the function's
 * own bytes (its ELF symbol's extent): a `jmp` to the exit hook that
 * starts a row of the function's call frame information, which makes it an
 * instruction boundary for certain, never a byte inside another
 * instruction. Anything else is refused and left as it is.
 *
 * How: one byte changes, so another thread running the code sees the old
 * instruction or the new one, never a mix, and each new one has the old
 * one's length:
 *   e8 rel32 (call)        -> 3d imm32 (cmp $imm32, %eax: flags only, which
 *                             a call clobbers anyway; the linker's addr32
 *                             call, 67 e8, of a -fno-plt build becomes an
 *                             addr32 cmp, the prefix meaning nothing there)
 *   ff 15 disp32 (call *)  -> 8d 15 disp32 (lea disp32(%rip), %edx: rdx is
 *                             not preserved across a call)
 *   e9 rel32 (tail jump), ff 25 disp32 (tail jump through the GOT)
 *                          -> c3 (ret: where the hook would have returned)
 * The page is made writable for the round's stores (mprotect), only when
 * /proc/self/maps says it is private r-x code; if mprotect fails (a policy
 * forbidding writable code), nothing more is patched and the stopped gates
 * keep returning at once. Nothing is ever patched back: a key once stopped
 * stays stopped.
 *
 * x86-64 only; elsewhere the hooks stay. Runs on the throttling thread,
 * under its ticker's lock, so no fork() copies a half-done patch. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"
#include "site_patch.h"
#include "throttle.h"

#define SITE_BITS 16
#define SITE_SLOTS (1u << SITE_BITS)

/* the noted sites: (return address, key) pairs, open addressing, ra 0
 * empty; a slot's key is stored after its ra is claimed, so the patcher
 * skips a slot whose key is still 0 until the next round */
static uint64_t site_ra[SITE_SLOTS];
static uint64_t site_key[SITE_SLOTS];
static uint8_t site_leave[SITE_SLOTS]; /* PP__SITE_LEAVE, PP__SITE_LEFT_OUT */
static uint8_t site_done[SITE_SLOTS]; /* patcher only: handled */
static uint32_t site_round[SITE_SLOTS]; /* patcher only: the round it was first seen */
static uint32_t nsites, handled;
static uint32_t npatched, nrefused, nleft_out;

static uint32_t slot_of(uint64_t ra, uint64_t key)
{
	return (uint32_t)(((ra ^ (key * 0xff51afd7ed558ccdull)) * 0x9e3779b97f4a7c15ull) >>
			  (64 - SITE_BITS));
}

void pp__site_note(uint64_t ra, uint64_t key, int how)
{
	for (uint32_t i = slot_of(ra, key);; i = (i + 1) & (SITE_SLOTS - 1)) {
		uint64_t r = __atomic_load_n(&site_ra[i], __ATOMIC_ACQUIRE), k;
		if (r == ra) {
			/* its claimer stores the key just after: wait a little for
			 * it (a second slot would note the same site), else leave
			 * the note to the call's next run */
			for (int n = 0; n < 1000 && !(k = __atomic_load_n(&site_key[i], __ATOMIC_ACQUIRE)); n++)
				;
			if (!k || k == key)
				return;
		}
		if (r)
			continue;
		if (__atomic_load_n(&nsites, __ATOMIC_RELAXED) >= SITE_SLOTS / 2)
			return;
		uint64_t zero = 0;
		if (!__atomic_compare_exchange_n(&site_ra[i], &zero, ra, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			i = (i - 1) & (SITE_SLOTS - 1); /* look at this slot again */
			continue;
		}
		site_leave[i] = (uint8_t)how;
		__atomic_store_n(&site_key[i], key, __ATOMIC_RELEASE);
		__atomic_add_fetch(&nsites, 1, __ATOMIC_RELEASE);
		return;
	}
}

void pp__site_patch_counts(uint32_t *patched, uint32_t *refused)
{
	*patched = __atomic_load_n(&npatched, __ATOMIC_ACQUIRE);
	*refused = __atomic_load_n(&nrefused, __ATOMIC_ACQUIRE);
}

uint32_t pp__site_patched_left_out(void)
{
	return __atomic_load_n(&nleft_out, __ATOMIC_ACQUIRE);
}

#if defined(__x86_64__)
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "code_patch.h"
#include "map.h"
#include "slab.h"
#include "symbolize.h"

static pp__symbolizer_t *sym;
static int sym_modules;    /* modules loaded when it was opened */
static pp__map_t scanned;   /* keys whose own code was searched for tail jumps */
static int no_symbols;      /* the symbols could not be read: patch nothing */

static uint32_t rd32(uint64_t a)
{
	uint32_t v;
	memcpy(&v, (const void *)(uintptr_t)a, 4);
	return v;
}

static uint64_t rd64(uint64_t a)
{
	uint64_t v;
	memcpy(&v, (const void *)(uintptr_t)a, 8);
	return v;
}


/* Where a GOT-indirect branch at insn (opcode bytes ff 15/ff 25 and a 32-bit
 * displacement, len bytes in all) reads its target: 0 when unreadable. */
static uint64_t got_target(uint64_t insn, uint64_t len)
{
	uint64_t slot = insn + len + (uint64_t)(int64_t)(int32_t)rd32(insn + len - 4);
	return pp__code_readable(slot, 8) ? rd64(slot) : 0;
}

/* Follow a PLT entry to the function it jumps to: [endbr64] [bnd] jmp
 * *slot(%rip). Anything else is returned as it is. */
static uint64_t through_plt(uint64_t a)
{
	if (!pp__code_readable(a, 16))
		return a;
	uint64_t p = a;
	if (rd32(p) == 0xfa1e0ff3u) /* endbr64 */
		p += 4;
	if (pp__code_byte(p) == 0xf2) /* bnd */
		p++;
	if (pp__code_byte(p) == 0xff && pp__code_byte(p + 1) == 0x25)
		return got_target(p, 6);
	return a;
}

/* 1: the entry hook starts at a, 2: the exit hook; 0 otherwise. */
static int hook_at(uint64_t a)
{
	a = through_plt(a);
	if (!a)
		return 0;
	Dwfl *d = pp__symbolizer_dwfl(sym);
	Dwfl_Module *mod = dwfl_addrmodule(d, a);
	GElf_Off off;
	GElf_Sym s;
	const char *name = mod ? dwfl_module_addrinfo(mod, a, &off, &s, NULL, NULL, NULL) : NULL;
	if (!name || off != 0)
		return 0;
	if (!strcmp(name, "__cyg_profile_func_enter") || !strcmp(name, "pp_plugin_enter"))
		return 1;
	if (!strcmp(name, "__cyg_profile_func_exit") || !strcmp(name, "pp_plugin_leave"))
		return 2;
	return 0;
}

static void count(int ok)
{
	__atomic_add_fetch(ok ? &npatched : &nrefused, 1, __ATOMIC_RELEASE);
}

/* Does a row of the call frame information start at a? Rows start at
 * instruction boundaries only. */
static int row_starts_at(Dwfl_Module *mod, uint64_t a)
{
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi)
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
	Dwarf_Frame *fr;
	if (!cfi || dwarf_cfi_addrframe(cfi, a - bias, &fr) != 0)
		return 0;
	Dwarf_Addr start, end;
	int ok = dwarf_frame_info(fr, &start, &end, NULL) >= 0 && start + bias == a;
	free(fr);
	return ok;
}

/* The exit hook's tail jumps in the function starting at fn: each found
 * is made a ret. Returns how many. */
static int patch_tail_jumps(uint64_t fn)
{
	Dwfl_Module *mod = dwfl_addrmodule(pp__symbolizer_dwfl(sym), fn);
	GElf_Off off;
	GElf_Sym s;
	if (!mod || !dwfl_module_addrinfo(mod, fn, &off, &s, NULL, NULL, NULL) || off != 0 ||
	    s.st_size < 5 || !pp__code_readable(fn, s.st_size))
		return 0;
	int n = 0;
	for (uint64_t p = fn; p + 5 <= fn + s.st_size; p++) {
		uint8_t b = pp__code_byte(p), b1 = pp__code_byte(p + 1);
		uint64_t to;
		if (b == 0xe9)
			to = p + 5 + (uint64_t)(int64_t)(int32_t)rd32(p + 1);
		else if (b == 0xff && b1 == 0x25 && p + 6 <= fn + s.st_size)
			to = got_target(p, 6);
		else
			continue;
		if (to && pp__code_readable(to, 1) && hook_at(to) == 2 && row_starts_at(mod, p) &&
		    pp__code_poke(p, b, 0xc3) == 0)
			n++;
	}
	return n;
}

/* The start of the function holding the code at a (0: none known). */
static uint64_t function_at(uint64_t a)
{
	Dwfl_Module *mod = dwfl_addrmodule(pp__symbolizer_dwfl(sym), a);
	GElf_Off off;
	GElf_Sym s;
	if (!mod || !dwfl_module_addrinfo(mod, a, &off, &s, NULL, NULL, NULL))
		return 0;
	return a - off;
}

/* The function a stopped key gates: cyg's key is its address; the plugin's
 * is a hash of its name, so the function is found from where its entry's
 * call returned to (noted before, patched or not). 0: not yet known. */
static uint64_t function_of(uint64_t key)
{
	if (__atomic_load_n(&pp__g.frontend, __ATOMIC_RELAXED) != PP_FE_PLUGIN)
		return key;
	for (uint32_t i = 0; i < SITE_SLOTS; i++)
		if (site_ra[i] && !(site_leave[i] & PP__SITE_LEAVE) && __atomic_load_n(&site_key[i], __ATOMIC_ACQUIRE) == key)
			return function_at(site_ra[i]);
	return 0;
}

/* The call that returns to ra, if it calls the hook want (1 entry, 2 exit):
 * made harmless. 1 patched, 0 not such a call, -1 could not patch. */
static int patch_call(uint64_t ra, int want)
{
	if (pp__code_readable(ra - 5, 5) && pp__code_byte(ra - 5) == 0xe8) {
		uint64_t to = ra + (uint64_t)(int64_t)(int32_t)rd32(ra - 4);
		if (pp__code_readable(to, 1) && hook_at(to) == want)
			return pp__code_poke(ra - 5, 0xe8, 0x3d) == 0 ? 1 : -1;
	}
	if (pp__code_readable(ra - 6, 6) && pp__code_byte(ra - 6) == 0xff && pp__code_byte(ra - 5) == 0x15) {
		uint64_t to = got_target(ra - 6, 6);
		if (to && hook_at(to) == want)
			return pp__code_poke(ra - 6, 0xff, 0x8d) == 0 ? 1 : -1;
	}
	return 0;
}

/* Handle slot i: 1 done, 0 to look at again next round. A stopped key's
 * exit hook is patched only once no frame of its key is open anywhere,
 * nor can still be pushed (pp__throttle_threads_past): a frame opened
 * before the stop must still meet its exit. A key PATHPROF_FUNCTIONS
 * leaves out never has a frame. */
static int handle(uint32_t i, uint32_t round)
{
	uint64_t ra = site_ra[i], key = site_key[i];
	int leave = site_leave[i] & PP__SITE_LEAVE, left_out = site_leave[i] & PP__SITE_LEFT_OUT;
	if (leave && !left_out &&
	    (round == site_round[i] || !pp__throttle_threads_past() || pp__throttle_key_open(key)))
		return 0;
	int r = patch_call(ra, leave ? 2 : 1);
	if (r == 1 && left_out)
		__atomic_add_fetch(&nleft_out, 1, __ATOMIC_RELEASE);
	if (r == 0 && leave) {
		/* returned into the caller: a tail jump, searched for in the
		 * function's own code once, whatever its callers */
		uint32_t seen;
		if (pp__map_get(&scanned, key, &seen))
			return 1;
		uint64_t fn = function_of(key);
		if (!fn)
			return 0; /* its entry's site is not known yet */
		pp__map_put(&scanned, key, 1);
		int n = patch_tail_jumps(fn);
		for (int k = 0; k < n; k++)
			count(1);
		if (left_out)
			__atomic_add_fetch(&nleft_out, (uint32_t)n, __ATOMIC_RELEASE);
		if (!n)
			count(0);
		return 1;
	}
	count(r == 1);
	return 1;
}

static void patch_pending(void);

void pp__site_patch_pending(void)
{
	if (no_symbols || pp__code_refused() || __atomic_load_n(&nsites, __ATOMIC_ACQUIRE) == handled)
		return;
	pp__modules_hold(); /* no library is unmapped while we read and write code */
	patch_pending();
	pp__modules_release();
}

static void patch_pending(void)
{
	if (pp__code_maps() != 0)
		return;
	int modules = pp__modules_loaded();
	if (sym && sym_modules != modules) {
		/* a library was loaded or unloaded since: report afresh */
		pp__symbolizer_close(sym);
		sym = NULL;
	}
	if (!sym) {
		char err[256];
		if (!(sym = pp__symbolizer_open(err, sizeof err))) {
			no_symbols = 1;
			pp__warn("cannot read this process's symbols (%s); functions a budget stopped "
				 "or a selection left out keep their hook calls", err);
			return;
		}
		sym_modules = modules;
	}
	static uint32_t round;
	round++;
	for (uint32_t i = 0; i < SITE_SLOTS; i++) {
		if (site_done[i] || !__atomic_load_n(&site_ra[i], __ATOMIC_ACQUIRE) ||
		    !__atomic_load_n(&site_key[i], __ATOMIC_ACQUIRE))
			continue;
		if (!site_round[i])
			site_round[i] = round;
		if (handle(i, round)) {
			site_done[i] = 1;
			handled++;
		}
	}
	pp__code_close();
}

void pp__site_patch_end(void)
{
	if (sym)
		pp__symbolizer_close(sym);
	sym = NULL;
	pp__map_free(&scanned);
	pp__code_end();
}
#else
void pp__site_patch_pending(void)
{
}

void pp__site_patch_end(void)
{
}
#endif
