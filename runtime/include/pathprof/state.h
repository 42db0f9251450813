/* The state the inline gate works on: the per-thread state, open frames,
 * path table slots and records, the process-wide timing mode, and the pure
 * helpers the gate and the runtime share (tick read, hash step, slot index).
 * Nothing here calls out of line, so the runtime's files below the gate
 * include this, not gate.h. */
#ifndef PATHPROF_STATE_H
#define PATHPROF_STATE_H

#include <stdint.h>
#include <pathprof/compiler.h>

PP_EXTERN_C_BEGIN

/* Timing compiled in (the default) or out (-DPP_NO_TIMING). */
#ifdef PP_NO_TIMING
#define PP__TIMING 0
#else
#define PP__TIMING 1
#endif



/* Which front-end produced a key; tells the runtime how to name it. */
enum pp_frontend {
	PP_FE_NONE = 0,
	PP_FE_RAII = 1,   /* key = address of a pp_site_t */
	PP_FE_CYG = 2,    /* key = function address */
	PP_FE_XRAY = 3,   /* key = XRay function id */
	PP_FE_PLUGIN = 4, /* key = compile-time hash of the function name */
	PP_FE_REPLAY = 5, /* key = name index of a replayed trace */
	PP_FE_COUNT
};

/* Running-hash value of "no frame open": every event's root is entered with
 * it. Zero, so the push's event check is a test rather than a 64-bit
 * constant; no path hashes to it (a path has at least one frame mixed in,
 * and a hash of 0 is never recorded). */
#define PP__SEED 0ull

/* Timing modes (run time). */
/* BURST: windows of time, a 1/sample_n share of each thread's run at
 * random, during which every gate is timed (runtime/gate_window.c). */
enum pp_timing { PP_TIMING_OFF = 0, PP_TIMING_ON = 1, PP_TIMING_SAMPLE = 2, PP_TIMING_BURST = 3 };

/* One open gate. The untimed gate writes the first four words and reads
 * hash_before and key back at its exit; t and kids are written only in timed
 * events. 64 bytes (PP__FRAME_BYTES), so a frame's address is one mask of
 * dstate away. */
typedef struct pp__frame {
	uint64_t hash_before; /* running hash of the parent: restored on leave */
	uint64_t sp;    /* position of the gate's host (PP__POS); deeper calls lie
			 * lower (PP__SP_NONE: not checked) */
	uint64_t key;   /* a checked leave must name it (pp__leave) */
	uint64_t ra;    /* raii: the host's return address (tells a nested scope
			 * from a new activation at the same address); cyg and
			 * plugin: the hook's (tells copies of one inlined
			 * function apart); XRay's lean shim: its slot's */
	uint64_t t;     /* timed events: entry timestamp in ticks */
	uint64_t kids;  /* timed events: inclusive ticks of the gated children
			 * that have left, so that self = inclusive - kids */
	uint64_t tail;  /* XRay's lean shim: the id a tail jump out of this
			 * frame leads to (PP__TAIL_CHAIN in sp says it was left so) */
	uint64_t pad;
} pp__frame_t;

/* t->wend when no burst window is open: no clock reaches it. */
#define PP__NO_WINDOW UINT64_MAX
/* t->wend while every event is timed (PATHPROF_TIMING=on): a window that
 * never ends, so the timing an event's first gate turns on goes on into
 * the next event instead of being decided again and turned off at each
 * root's exit (about 40 instructions an event; runtime/gate_timed.c). No
 * clock reaches it either, and a real window's end (ticks, below 2^62) is
 * always below it. */
#define PP__ENDLESS (1ull << 62)

/* Frames pushed without a stack position (replay, recording, XRay) carry
 * this: above every address, so they are never taken for dead. */
#define PP__SP_NONE UINT64_MAX

/* XRay's lean shim marks a frame a tail jump left in the low bits of its
 * position (a return-address slot, 8-aligned): the frame stays open until
 * the function it jumped to returns, which returns to its caller
 * (docs/reference/xray.md, "Tail calls"). CHAIN: a direct jump to the
 * armed id in tail; UNKNOWN: an indirect jump (the return address in ra
 * tells the target's entry from a new call at the same slot). Marked, the
 * position is above its slot, so the gates of the jump's target and of its
 * callees nest in it. */
#define PP__TAIL_CHAIN 1u
#define PP__TAIL_UNKNOWN 2u
#define PP__TAIL_MARK(sp) ((unsigned)(sp) & 3u)
#define PP__TAIL_LEFT(sp) (PP__TAIL_MARK(sp) - 1u < 2u)
#define PP__TAIL_SLOT(sp) ((sp) & ~(uint64_t)3)

typedef struct pp__path pp__path_t;

/* One per raii gate site (PP_GATE); its address is the gate's key. stopped
 * (set by a budget, runtime/throttle.c) lets a timed gate of a stopped
 * site return inline, without a call to look its key up. */
typedef struct pp_site {
	const char *name;
	const char *file;
	unsigned line;
	unsigned stopped;
} pp_site_t;

/* dstate arithmetic (see pp__tls_t). */
#define PP__FRAME_BYTES 64u
#define PP__DS_DEPTH(v) ((uint32_t)(v) >> 6)
#define PP__DS_OFF(v) ((uint64_t)(uint32_t)(v) & ~(uint64_t)(PP__FRAME_BYTES - 1u))
#define PP__DS_FRAME(t, v) ((pp__frame_t *)((char *)(t)->stack + PP__DS_OFF(v)))

typedef struct pp__slot {
	uint64_t hash; /* running hash naming the path, 0 = empty */
	pp__path_t *path;
} pp__slot_t;

/* A thread's limit and elimit are also written by burst timing's pacer
 * thread (runtime/burst.c), its tlimit by a budget's (runtime/throttle.c): 32-bit aligned words, whose plain loads and
 * stores are single instructions on x86-64 and AArch64. The gate and the
 * runtime use plain ones (an atomic load costs the gate two instructions,
 * atomic stores in the timing switch two more an event), except under
 * ThreadSanitizer, which is told what happens. The compiler barrier of
 * every push keeps a loop of inlined gates from holding a stale limit. */
#if defined(__SANITIZE_THREAD__)
#define PP__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PP__TSAN 1
#endif
#endif
#ifdef PP__TSAN
#define PP__LIMIT(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define PP__LIMIT_SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#else
#define PP__LIMIT(x) (x)
#define PP__LIMIT_SET(x, v) ((x) = (v))
#endif

/* Per-thread state. dstate is the byte offset of the next free frame (the
 * depth times 64), plus 1 while the top frame has entered no gated child: a
 * frame's address is one mask away, a leave finds out whether it ends a path
 * from the word it reads anyway, and an entry sets the bit with the store it
 * makes anyway. limit is the depth bound times 64 and doubles as the "take
 * the slow path" switch: it is 0 for an unregistered or dead thread, while frames
 * beyond the bound are open, while recording, and during a timed event, so
 * enter and leave each pay exactly one predictable branch for all of them.
 * The entry compares with elimit instead, which is limit but for a root
 * selection, when only entries must go out of line. */
/* The ABI of what the inline gate compiles into a program: this thread
 * state's layout, pp__mix, the frame and slot shapes, the slot a hash
 * starts at (pp__slot_at: 8 since its bits moved), the arguments of the
 * slow paths it calls. Bump PP_ABI whenever
 * one of them changes. The thread state's symbol carries it, so an object
 * compiled against another version's headers fails to link ("undefined
 * reference to pp__tls_abi3") instead of running silently wrong (#27). */
#define PP_ABI 8
#define PP__ABI_SYM2(v) pp__tls_abi##v
#define PP__ABI_SYM(v) PP__ABI_SYM2(v)
#define pp__tls PP__ABI_SYM(PP_ABI)
#define PP__ABI_MARK2(v) pp__runtime_abi##v
#define PP__ABI_MARK(v) PP__ABI_MARK2(v)
#define pp__runtime_abi PP__ABI_MARK(PP_ABI)

typedef struct pp__tls {
	uint64_t hash;
	uint32_t dstate;
	uint32_t limit;
	pp__frame_t *stack; /* stack[-1] is a sentinel: the resync check needs no depth test */
	pp__slot_t *table;
	uint64_t smask;       /* the table's slot mask in bytes: (slots - 1) * 16 */
	char *abase;          /* the arena's base: the timed exit's histogram rows */
	struct pp__slab *slab;
	uint32_t timing_now; /* the current event is being timed (limit is 0) */
	uint32_t tlimit;     /* ... and nothing else is rare: the limit its gates go
			      * their lean way under (the bound times 64), else 0;
			      * 0 too once a budget stopped a key, written then by
			      * the throttling thread (runtime/throttle.c) */
	uint32_t elimit;     /* the entry's own limit: limit, or 0 while a selection
			      * (PATHPROF_ROOT, PATHPROF_FUNCTIONS) must see every
			      * key entered (runtime/select.c); never above limit */
	uint32_t countdown;  /* events left until the next sampled one: the
			      * inline entry counts it down to 1, the decision
			      * sets it again */
	uint32_t excess;     /* frames entered but not pushed (overflow, not yet registered) */
	uint32_t state;      /* internal: registration state */
	struct pp__trace_buf *trace; /* recording this thread (PATHPROF_TRACE); limit stays 0 */
	uint64_t excess_sp;  /* frame address of the outermost skipped frame */
	/* Burst timing (runtime/gate_window.c): the pacer thread sets wstart
	 * (at the first request not yet taken), adds to wlen, sets wreq and
	 * zeroes limit and elimit, so the next gate opens a
	 * window; wend is when the open window ends (PP__NO_WINDOW: none;
	 * pp__slab_attach sets it), which the timed exit compares with its
	 * clock, a compare with memory. */
	uint32_t wreq;
	/* 1 while the runtime does its own work inside a timed event (the
	 * time pp__skip_own_work takes out of every frame): the off-CPU
	 * recorder counts a block then outside any gate, as its time is in no
	 * node. In what was padding, so no offset above or below moved. */
	uint32_t own_work;
	uint64_t wstart, wend;
	uint64_t wlen; /* the window's length: the requests' shares since it was last taken */
} pp__tls_t;

/* Shared by all threads, written only by pp_set_timing(). */
typedef struct pp__mode {
	uint32_t timing; /* enum pp_timing */
	uint32_t sample_n;
} pp__mode_t;

/* The thread state is the runtime's (runtime/state.c), but code compiled
 * into an executable (-fPIE or not PIC) reaches it at a constant offset from
 * the thread pointer, where a shared library's code loads that offset from
 * the GOT and keeps it in a register across the gated body: the executable
 * carries a weak definition of its own, to which the dynamic linker binds
 * the runtime's references too (the executable is first in the lookup
 * order), so every part of the process uses that one copy. raii's gate
 * saves a load and a saved register (bench/gateinstr.sh: 5 instructions a
 * gate at depth 3). A weak definition links against any runtime, so the
 * executable also refers to the runtime's ABI mark, which an object of
 * another ABI misses at link time (#27). */
#if !defined(PP_NOT_A_HOST) && defined(__x86_64__) && (defined(__PIE__) || !defined(__PIC__))
extern PP_EXPORT __thread pp__tls_t pp__tls __attribute__((tls_model("local-exec")));
__attribute__((weak)) PP_EXPORT __thread pp__tls_t pp__tls;
extern PP_EXPORT const int pp__runtime_abi;
__attribute__((used)) static const int *const pp__runtime_abi_ref = &pp__runtime_abi;
#else
extern PP_EXPORT __thread pp__tls_t pp__tls PP_TLS_IE;
#endif
extern PP_EXPORT pp__mode_t pp__mode;
/* Keys a budget stopped, 0 until the first (runtime/gate_budget.c). */
extern PP_EXPORT uint32_t pp__throttle_n;

/* Per-thread record of one calling-context node: the path prefix that ends
 * at a gate, named by the running hash while that gate is open; its keys
 * follow. count: leaf returns (the node ended a root->leaf path); seg: the
 * node's timing (calls, inclusive histogram, self), allocated at its first
 * timed exit. A node that only ever had children has count 0. */
struct pp__path {
	uint64_t hash;  /* running hash */
	uint64_t count;
	uint32_t depth;
	uint32_t misses; /* owner only: lookups past its table slot (gate_node.c) */
	struct pp__path *next;   /* the slab's list, walked by readers */
	struct pp__seg *seg;     /* timing (slab.h), allocated on first timed exit */
	uint64_t keys[];
};

struct pp__slab {
	uint64_t magic;
	uint64_t events; /* root frames left */
	/* further fields are private to the runtime (runtime/slab.h) */
};
/* The path table slot a running hash starts probing at. The mix only
 * carries bits upward, so the low bits of the hash barely change with keys
 * that are aligned addresses (cyg, raii): index by bits 28 and up, which
 * every key bit below them reaches (tables hold at most 2^27 slots). Not 32:
 * two keys one apart (XRay's ids 4 and 5 as siblings) give hashes that
 * differ by the multiplier alone, below 2^31, which bits 32 and up hardly
 * see: such siblings shared a home at every table size, and half their
 * leaves' counts went the slow way (8 sibling leaves under one parent: 142
 * instructions a gate, 86 from bit 28, where the multiplier's top nibble
 * parts them; bench/README.md). */
PP_INLINE uint64_t pp__slot_index(uint64_t h, uint64_t mask)
{
	return (h >> 28) & mask;
}

/* The same slot's address from a mask in bytes (pp__tls_t's smask): bits 28
 * and up of the hash, already times the slot's 16 bytes, so a shift, a mask
 * and an add (the gate's leaf exit saves the scaling shift). */
PP_INLINE pp__slot_t *pp__slot_at(pp__slot_t *table, uint64_t smask, uint64_t h)
{
	return (pp__slot_t *)(void *)((char *)table + ((h >> 24) & smask));
}

/* Plain timestamp counter read, no fence: ordering against neighbouring loads
 * would cost more than the skew it removes at these scales. */
PP_INLINE uint64_t pp_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	extern uint64_t pp__ticks_fallback(void);
	return pp__ticks_fallback();
#endif
}

/* Mix a key into the running hash: xor then a multiply by an odd constant,
 * two instructions, ~4 cycles. Each step is a bijection of the hash for a
 * given key and order-sensitive (A>B and B>A name different paths); the
 * multiply carries every key bit up to 31 places upward, into the bits the
 * table index is taken from (pp__slot_index), and repeated steps carry them
 * further. */
PP_INLINE uint64_t pp__mix(uint64_t h, uint64_t key)
{
	/* a 31-bit odd multiplier is an immediate operand: no constant load */
	return (h ^ key) * 0x5bd1e995ull;
}
PP_EXTERN_C_END

#endif
