/* The kernel side of `pathprof run --offcpu` (offcpu.h): on the scheduler's
 * tracepoints, for the threads of one process. A thread switched out in a
 * sleeping state leaves its open gates (read from its pp__tls, at its fs
 * base plus the offset the live segment publishes) and its kernel stack; a
 * wake-up of such a thread notes the waker, with the waker's open gates when
 * it is a thread of the same process, and its kernel stack (an interrupt
 * shows there); when the thread runs again one event goes to user space.
 * Only threads of the target process cost anything beyond a compare.
 *
 * Why not only at the switch-in: on a loaded machine a thread sometimes
 * runs again after its wake-up with no sched_switch naming it as next at
 * all (kernel 6.18 in a KVM guest, beside CPU hogs: one block in a few
 * hundred; ftrace's own sched_switch event misses the same switch). Its
 * block would stay in `blocked` until its next switch-out overwrote it, and
 * that block's time would be lost. So a switch-out that finds the thread's
 * previous block still there sends that block first, its off-CPU time the
 * time since it blocked less the CPU time the thread has had since
 * (se.sum_exec_runtime, which the scheduler brings up to date before the
 * switch). The runtime's own threads (named "pathprof:...") are left out
 * from their first block. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "offcpu.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 target_tgid = 0;
/* Tests only (PATHPROF_OFFCPU_TEST_SKIP=N): every Nth switch-in that ends a
 * block is left unseen, as the kernel sometimes leaves one (top of file). */
const volatile __u32 skip_every = 0;
__u64 switch_ins = 0;

struct block {
	__u64 ts;
	__u64 runtime; /* the thread's se.sum_exec_runtime when it blocked */
	__u32 depth, nstack, preempted, pad;
	__u64 keys[PP_OFF_MAXD];
	__u64 stack[PP_OFF_STACK];
};

struct wake {
	__u32 tid, depth, kind, nstack; /* kind: enum pp_waker, provisional */
	__u64 keys[PP_OFF_MAXD];
	__u64 stack[PP_OFF_STACK];
};

/* [0]: pp__tls's offset from the fs base, 0 until the segment says; [1]:
 * where in it the runtime's own-work word lies, 0 for none */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __s64);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct block);
} blocked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct wake);
} woken SEC(".maps");

/* Records are built here: they are larger than the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct block);
} block_tmp SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct wake);
} wake_tmp SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24);
} events SEC(".maps");

/* The first words of pp__tls_t (pathprof/state.h). */
struct tls_head {
	__u64 hash;
	__u32 dstate;
	__u32 limit;
	__u64 stack;
};

/* The current thread's open gates, root first, into keys; their number.
 * Frames are 64 bytes, the key at offset 16 (pp__frame_t). */
static __always_inline __u32 read_path(__u64 *keys)
{
	__u32 zero = 0, one = 1;
	__s64 *off = bpf_map_lookup_elem(&cfg, &zero), *own_at = bpf_map_lookup_elem(&cfg, &one);
	if (!off || !*off || !own_at)
		return 0;
	struct task_struct *t = bpf_get_current_task_btf();
	__u64 fsbase = BPF_CORE_READ(t, thread.fsbase);
	struct tls_head h;
	if (bpf_probe_read_user(&h, sizeof h, (void *)(fsbase + *off)) != 0)
		return 0;
	/* the runtime's own work: its time is in no node (pp__skip_own_work) */
	__u32 own = 0;
	if (*own_at && (bpf_probe_read_user(&own, sizeof own, (void *)(fsbase + *off + *own_at)) != 0 || own))
		return 0;
	__u32 depth = h.dstate >> 6;
	for (__u32 i = 0; i < PP_OFF_MAXD; i++) {
		if (i >= depth)
			break;
		if (bpf_probe_read_user(&keys[i], sizeof keys[i], (void *)(h.stack + i * 64 + 16)))
			return i;
	}
	return depth;
}

/* Send block b of thread tid, off_ns off the CPU, with its waker when one
 * was seen, and forget both. */
static __always_inline void send(__u32 tid, struct block *b, __u64 off_ns)
{
	struct pp_off_event *e = bpf_ringbuf_reserve(&events, sizeof *e, 0);
	if (e) {
		e->tid = tid;
		e->off_ns = off_ns;
		e->depth = b->depth;
		e->nstack = b->nstack;
		e->preempted = b->preempted;
		__builtin_memcpy(e->keys, b->keys, sizeof e->keys);
		__builtin_memcpy(e->stack, b->stack, sizeof e->stack);
		struct wake *w = bpf_map_lookup_elem(&woken, &tid);
		if (w) {
			/* user space tells an interrupt from a thread by the
			 * waker's stack: the kind here is provisional */
			e->waker_kind = w->kind;
			e->waker_tid = w->tid;
			e->waker_depth = w->depth;
			e->waker_nstack = w->nstack;
			__builtin_memcpy(e->waker_keys, w->keys, sizeof e->waker_keys);
			__builtin_memcpy(e->waker_stack, w->stack, sizeof e->waker_stack);
		} else {
			e->waker_kind = 0;
			e->waker_tid = 0;
			e->waker_depth = 0;
			e->waker_nstack = 0;
		}
		/* user space reads on a timer; wake it only when the ring
		 * fills, not once per block (a wake-up per event cost more
		 * than the rest of the recording) */
		__u64 queued = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
		bpf_ringbuf_submit(e, queued > (1 << 22) ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	}
	bpf_map_delete_elem(&blocked, &tid);
	bpf_map_delete_elem(&woken, &tid);
}

/* Is t one of the runtime's own threads (own_thread.h names them
 * "pathprof:...")? Never the main thread, whatever its program's name. */
static __always_inline int own_thread(struct task_struct *t)
{
	static const char prefix[] = "pathprof:";
	if (t->pid == t->tgid)
		return 0;
	for (int i = 0; i < (int)sizeof prefix - 1; i++)
		if (t->comm[i] != prefix[i])
			return 0;
	return 1;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 zero = 0;
	/* prev is the current task here: its memory is the one readable. A
	 * task switched out in a sleeping state blocked; one switched out
	 * runnable (state 0) was preempted (or yielded): its time until it runs
	 * again is a wait for a CPU, recorded apart (reason preempt) */
	if (prev->tgid == target_tgid && !own_thread(prev)) {
		__u32 tid = prev->pid;
		__u64 now = bpf_ktime_get_ns(), runtime = prev->se.sum_exec_runtime;
		struct block *old = bpf_map_lookup_elem(&blocked, &tid);
		if (old) {
			/* its switch-in went unseen (top of file) */
			__u64 off = now - old->ts, ran = runtime - old->runtime;
			send(tid, old, ran < off ? off - ran : 0);
		}
		struct block *b = bpf_map_lookup_elem(&block_tmp, &zero);
		if (!b)
			return 0;
		b->ts = now;
		b->runtime = runtime;
		b->preempted = prev_state == 0;
		b->depth = read_path(b->keys);
		long n = bpf_get_stack(ctx, b->stack, sizeof b->stack, 0);
		b->nstack = n > 0 ? (__u64)n / 8 : 0;
		bpf_map_update_elem(&blocked, &tid, b, BPF_ANY);
		bpf_map_delete_elem(&woken, &tid);
	}
	if (next->tgid != target_tgid)
		return 0;
	__u32 tid = next->pid;
	struct block *b = bpf_map_lookup_elem(&blocked, &tid);
	if (!b)
		return 0;
	if (skip_every && __sync_fetch_and_add(&switch_ins, 1) % skip_every == skip_every - 1)
		return 0;
	send(tid, b, bpf_ktime_get_ns() - b->ts);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	if (p->tgid != target_tgid)
		return 0;
	__u32 tid = p->pid, zero = 0;
	if (!bpf_map_lookup_elem(&blocked, &tid))
		return 0;
	struct wake *w = bpf_map_lookup_elem(&wake_tmp, &zero);
	if (!w)
		return 0;
	struct task_struct *cur = bpf_get_current_task_btf();
	w->tid = cur->pid;
	/* a thread of the process (gated or not: user space tells from the
	 * depth), a kernel thread (PF_KTHREAD), or another process */
	w->kind = cur->tgid == target_tgid ? 1 : (cur->flags & 0x00200000) ? 4 : 3;
	w->depth = w->kind == 1 ? read_path(w->keys) : 0;
	long n = bpf_get_stack(ctx, w->stack, sizeof w->stack, 0);
	w->nstack = n > 0 ? (__u64)n / 8 : 0;
	/* the first wake-up after the block is the one that ended it */
	bpf_map_update_elem(&woken, &tid, w, BPF_NOEXIST);
	return 0;
}
