/* Declarations shared by the XRay shim's files: the sled handler
 * (handler.c) and its calibration (calibrate.c), the map of instrumented functions that tail-call
 * resolution reads (built by arm.c), and the calibration probes (probe.c). */
#ifndef PP_XRAY_SHIM_H
#define PP_XRAY_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <pathprof/compiler.h>

/* Instrumented functions sorted by entry address, and which ids are armed. */
typedef struct pp__xray_fn {
	uintptr_t addr;
	int32_t id;
} pp__xray_fn_t;

typedef struct pp__xray_map {
	size_t n;                 /* = __xray_max_function_id() */
	pp__xray_fn_t *by_addr;   /* n entries, ascending addr */
	uint8_t *armed;           /* n + 1 flags, indexed by id */
	/* n + 1 entry addresses, indexed by id. XRay's own
	 * __xray_function_address takes a spin lock: called from the handler,
	 * a signal landing inside it left the lock held for the crash dump's
	 * copy of the process, which then hung naming keys (#27); it also cost
	 * about a third of a tail-call gate (#30). */
	uintptr_t *addr;
	/* 2 (n + 1) words, two an id: the last two tail jumps the function
	 * made, PP__XRAY_TAIL_WORD of its address and where it led (what
	 * pp__xray_tail_fid_miss returns), the later first; until it makes
	 * them, the low half of its own entry address, which no tail jump of
	 * it has. Each a word, read and written relaxed, shared by the
	 * threads. A thread's cache alone, keyed by a hash of the jump's
	 * address, put two of a program's jumps in one slot or not as its
	 * code moved with any change to the runtime linked into it
	 * (bench/tailinstr.sh's XRay row 122.6 or 135.6 instructions a gate);
	 * one word an id missed on a function that tail-jumps from two places
	 * in turn (a parser's parse_value: to parse_list or parse_num). */
	uint64_t *tail;
} pp__xray_map_t;
#define PP__XRAY_TAIL_WORD(ip, target) ((uint64_t)(uint32_t)(ip) | (uint64_t)(uint32_t)(target) << 32)

/* Published once (release) by arm.c before the first sled is patched. */
extern pp__xray_map_t *pp__xray_map;

/* Bumped by each disarm: exits of frames open then were never seen. */
extern uint32_t pp__xray_generation;

/* The handler every patched sled calls; with stopping set, the one
 * installed once a budget has stopped an id (arm.c): it ignores the
 * entries of ids not armed, a test the usual handler does not pay. Each comes calibrated or not (pp__xray_calibrate
 * decides, before either is installed), so neither tests that per event,
 * and, once pp__xray_generation is not 0, catching up with a disarm (each
 * thread's first entry since checks its frames): pp_xray_disarm installs
 * that one. */
typedef void (*pp__xray_handler_t)(int32_t fid, int type);
pp__xray_handler_t pp__xray_handler(int stopping) PP_NOINSTR;

/* The lean shim (lean.c): once calibrated, the sleds go straight to the
 * runtime's gate; tails says the program has tail sleds outside the
 * probes (its exits then close the frames that jumped to them). Call
 * before the handler is installed. */
void pp__xray_set_lean(int tails) PP_NOINSTR;

/* Set by an arming after start-up (pp_xray_arm and the like called by the
 * program): functions may then be running whose entries no gate saw, so
 * the lean shim ignores an exit it has no frame for instead of counting
 * it (arm.c sets it, lean.c reads it). */
extern int pp__xray_armed_late __attribute__((visibility("hidden")));

/* The lean handler for this state, NULL when the lean shim is not set. */
pp__xray_handler_t pp__xray_lean_handler(int catching_up, int stopping) PP_NOINSTR;

/* A fixed point of the handler's own frame, from which the sled's stack
 * slot lies at a calibrated offset. GCC gives the canonical frame address
 * without setting up a frame pointer; the frame address would make the
 * handler keep one (two instructions an event, and a register). */
#if defined(__GNUC__) && !defined(__clang__)
#define HANDLER_BASE() ((uintptr_t)__builtin_dwarf_cfa())
#else
#define HANDLER_BASE() ((uintptr_t)__builtin_frame_address(0))
#endif

/* A shim's eight handler variants, prefix_ABC: each gives the sled's
 * event to dispatch(fid, type, HANDLER_BASE(), A, B, C), its three tests
 * constants, compiled in or out (what they are: the shim's dispatch). */
#define PP__XRAY_VARIANT(name, dispatch, a, b, c)                         \
	static PP_NOINLINE void name(int32_t fid, int type)               \
	{                                                                 \
		dispatch(fid, type, HANDLER_BASE(), a, b, c);             \
	}
#define PP__XRAY_VARIANTS(prefix, dispatch)                                                   \
	PP__XRAY_VARIANT(prefix##_000, dispatch, 0, 0, 0)                                     \
	PP__XRAY_VARIANT(prefix##_001, dispatch, 0, 0, 1)                                     \
	PP__XRAY_VARIANT(prefix##_010, dispatch, 0, 1, 0)                                     \
	PP__XRAY_VARIANT(prefix##_011, dispatch, 0, 1, 1)                                     \
	PP__XRAY_VARIANT(prefix##_100, dispatch, 1, 0, 0)                                     \
	PP__XRAY_VARIANT(prefix##_101, dispatch, 1, 0, 1)                                     \
	PP__XRAY_VARIANT(prefix##_110, dispatch, 1, 1, 0)                                     \
	PP__XRAY_VARIANT(prefix##_111, dispatch, 1, 1, 1)                                     \
	/* [C][B][A] */                                                                        \
	static const pp__xray_handler_t prefix##_table[2][2][2] = {                          \
		{ { prefix##_000, prefix##_100 }, { prefix##_010, prefix##_110 } },           \
		{ { prefix##_001, prefix##_101 }, { prefix##_011, prefix##_111 } },           \
	};

/* Sled stack pointer = HANDLER_BASE() + pp__xray_slot_off[kind]. Set once
 * by calibration (calibrate.c), before the handler is installed; with
 * pp__xray_calibrated 0 the offsets are unknown. */
/* hidden: the handler reaches them without the GOT (2 instructions a gate) */
extern intptr_t pp__xray_slot_off[3] __attribute__((visibility("hidden")));
extern int pp__xray_calibrated __attribute__((visibility("hidden")));

static inline PP_NOINSTR uintptr_t slot_word(uintptr_t slot)
{
	uintptr_t w;
	memcpy(&w, (const void *)slot, sizeof w);
	return w;
}

/* An id a budget stopped, its sleds not yet unpatched (arm.c): its calls
 * open no frame; the exits of those open before the stop are matched. */
static inline __attribute__((always_inline)) int stopped(int32_t fid)
{
	const pp__xray_map_t *m = __atomic_load_n(&pp__xray_map, __ATOMIC_ACQUIRE);
	return m && fid >= 1 && (size_t)fid <= m->n && !__atomic_load_n(&m->armed[fid], __ATOMIC_RELAXED);
}

/* The sled's stack slot, from the handler's frame: with the kind a
 * constant, one load and an add (three instructions an event less than
 * indexing pp__xray_slot_off by a variable). A stack address is never 0: the shims
 * read the return address without testing (three more an entry). */
static inline __attribute__((always_inline)) uintptr_t sled_slot(uintptr_t fp, int kind, int cal)
{
	uintptr_t slot = cal ? fp + (uintptr_t)pp__xray_slot_off[kind] : 0;
	if (cal && !slot)
		__builtin_unreachable();
	return slot;
}

/* The instruction a TAIL sled returns to is the tail jump itself; decode its
 * target when it is direct (e9 rel32, eb rel8), else 0. */
static inline PP_NOINSTR uintptr_t tail_target(uintptr_t slot)
{
#if defined(__x86_64__)
	const uint8_t *ip;
	memcpy(&ip, (const void *)(slot - sizeof(void *)), sizeof ip);
	if (ip[0] == 0xe9) {
		int32_t rel;
		memcpy(&rel, ip + 1, sizeof rel);
		return (uintptr_t)(ip + 5) + (uintptr_t)(intptr_t)rel;
	}
	if (ip[0] == 0xeb)
		return (uintptr_t)(ip + 2) + (uintptr_t)(intptr_t)(int8_t)ip[1];
#endif
	(void)slot;
	return 0;
}

/* Where each tail jump a thread has met leads: its address (what a TAIL
 * sled returns to) -> the id of the function it jumps to, 0 when that is
 * no instrumented function, -1 when the jump is indirect. Code does not
 * move under XRay (no DSO support), so an entry stays true; whether the
 * target is armed is read at each use. Decoding the jump and searching the
 * map cost about 60 instructions a tail call (bench/tailinstr.sh, #30).
 * Behind each function's last two jumps (pp__xray_map_t's tail, read
 * inline), for a function that tail-jumps from more places: it is read
 * out of line, in pp__xray_tail_fid_miss. Per thread, so it takes no lock
 * and no atomic. */
#define PP__XRAY_TCACHE_BITS 6
#define PP__XRAY_TCACHE (1u << PP__XRAY_TCACHE_BITS)
/* the top bits of a multiplicative hash of the address's low half: two
 * instructions (a shift, an xor and a mask before: 2 a tail jump more,
 * bench/tailinstr.sh); code spans far less than 4 GiB */
#define PP__XRAY_TCACHE_AT(ip) (((uint32_t)(ip) * 0x9e3779b1u) >> (32 - PP__XRAY_TCACHE_BITS))
typedef struct pp__xray_tcache {
	uintptr_t ip;
	int32_t fid;
} pp__xray_tcache_t;
extern __thread pp__xray_tcache_t pp__xray_tcache[PP__XRAY_TCACHE]
	__attribute__((visibility("hidden"))) PP_TLS_IE;

/* Is the tail jump at ip one of fid's last two? Then *to is where it led.
 * Each word is read once: another thread may be moving them. */
static inline __attribute__((always_inline)) int pp__xray_tail_find(const pp__xray_map_t *m, int32_t fid, uintptr_t ip,
								  int32_t *to)
{
	const uint64_t *w = &m->tail[2 * (size_t)fid];
	uint64_t x = __atomic_load_n(&w[0], __ATOMIC_RELAXED);
	if (PP_UNLIKELY((uint32_t)x != (uint32_t)ip)) {
		x = __atomic_load_n(&w[1], __ATOMIC_RELAXED);
		if ((uint32_t)x != (uint32_t)ip)
			return 0;
	}
	*to = (int32_t)(x >> 32);
	return 1;
}

/* A jump that is not fid's last one: from the thread's cache (a function
 * that tail-jumps from several places), else decoded and looked up; fid's
 * word and the cache then hold it (handler.c). */
int32_t pp__xray_tail_fid_miss(const pp__xray_map_t *m, int32_t fid, uintptr_t ip, uintptr_t slot) PP_NOINSTR;

/* The id of the function the tail jump of fid at a TAIL sled's slot
 * leads to: fid's last jump's, inline, when it is the same jump. */
static inline __attribute__((always_inline)) int32_t tail_fid(const pp__xray_map_t *m, int32_t fid, uintptr_t slot)
{
	uintptr_t ip = slot_word(slot - sizeof(void *));
	int32_t to;
	if (PP_LIKELY(pp__xray_tail_find(m, fid, ip, &to)))
		return to;
	return pp__xray_tail_fid_miss(m, fid, ip, slot);
}

/* XRay's instrumentation map in this program, where the XRay runtime reads
 * it: the linker's bounds of its section. An entry is LLVM's XRaySledEntry
 * on a 64-bit target, 32 bytes: the sled's address, its function's, the
 * kind at byte 16 (2: a tail call), the version at 18 (from 2 on, both
 * addresses relative to their own fields). */
extern const unsigned char __start_xray_instr_map[] __attribute__((weak, visibility("hidden")));
extern const unsigned char __stop_xray_instr_map[] __attribute__((weak, visibility("hidden")));
#define PP__XRAY_SLED_BYTES 32
#define PP__XRAY_SLED_KIND(p) ((p)[16])

/* The map's bounds: 0, or -1 when there is none or it cannot be read. */
static inline PP_NOINSTR int pp__xray_sleds(const unsigned char **p, const unsigned char **end)
{
	*p = __start_xray_instr_map;
	*end = __stop_xray_instr_map;
	if (!*p || !*end || *end <= *p || (size_t)(*end - *p) % PP__XRAY_SLED_BYTES)
		return -1;
	return 0;
}

/* The sled's address (field 0) or its function's (field 8). */
static inline PP_NOINSTR uintptr_t pp__xray_sled_addr(const unsigned char *p, int field)
{
	uint64_t a;
	memcpy(&a, p + field, sizeof a);
	if (p[18] >= 2)
		a += (uint64_t)(uintptr_t)(p + field);
	return (uintptr_t)a;
}

/* What pathprof's trampolines call for one kind of sled: the slot given
 * (the sled's stack pointer); type is not set (the handler is of one
 * kind). A pp__xray_handler_t is called through an adapter that sets
 * type (trampoline.c; the ABI leaves the third argument register
 * unread), never from C. */
typedef void (*pp__xray_sled_handler_t)(int32_t fid, int type, uintptr_t slot);

/* Set the handler the sleds call (NULL: remove it), in XRay and in
 * pathprof's trampolines (trampoline.c), which take the lean shim's
 * handler for each kind of sled when it has them; XRay's result. */
int pp__xray_use_handler(pp__xray_handler_t h) PP_NOINSTR;

/* The lean shim's handler for each kind of sled (entry, exit, tail) that
 * does what h does: 1, or 0 when h is none of the lean shim's. */
int pp__xray_lean_kinds(pp__xray_handler_t h, pp__xray_sled_handler_t kind[3]) PP_NOINSTR;

/* pathprof's trampolines in place of XRay's (trampoline.c): 1 when they
 * are, 0 when XRay's stay (PATHPROF_XRAY_TRAMPOLINES=xray, a sled already
 * patched, code that cannot be written). Before calibration, which
 * measures the trampolines in use. */
int pp__xray_own_trampolines(void) PP_NOINSTR;

/* Learn where the sleds' stack slot lies relative to the handler, with the
 * probes below. 0 on success; -1 leaves the shim in its degraded mode
 * (docs/reference/xray.md, "Tail calls"). Call with no sled patched. */
int pp__xray_calibrate(void) PP_NOINSTR;

/* Probes compiled with -fxray-instrument (probe.c): tail jumps to leaf. */
int pp__xray_probe_tail(int x);
int pp__xray_probe_leaf(int x);
extern volatile uintptr_t pp__xray_probe_slot;

#endif
