/* Off-CPU recording (`pathprof run --offcpu`): a BPF program on the
 * scheduler's switch and wake-up tracepoints records, for every thread of
 * one process that blocks, the path node it was on (its open gates, read
 * from its own memory), its kernel stack, who woke it (and the waker's path
 * node when the waker is a gated thread of the same process) and how long
 * it was off the CPU. Shared by the BPF program (offcpu.bpf.c) and the
 * loader (offcpu.c). */
#ifndef PP_OFFCPU_H
#define PP_OFFCPU_H

#ifndef __bpf__
#include <linux/types.h> /* __u32, __u64: the BPF side has them from vmlinux.h */
#endif

#define PP_OFF_MAXD 32   /* open gates read per thread (the root side) */
#define PP_OFF_STACK 24  /* kernel frames kept to name the reason */

/* One block, sent when the thread runs again. */
struct pp_off_event {
	__u32 tid;
	__u32 depth;       /* open gates when it blocked (may exceed PP_OFF_MAXD) */
	__u32 waker_kind;  /* enum pp_waker */
	__u32 waker_depth;
	__u32 waker_tid;
	__u32 nstack;      /* kernel frames in stack */
	__u32 waker_nstack;
	__u32 preempted;   /* switched out runnable: not a block, a wait for a CPU */
	__u64 off_ns;
	__u64 keys[PP_OFF_MAXD];
	__u64 waker_keys[PP_OFF_MAXD];
	__u64 stack[PP_OFF_STACK];       /* where it blocked */
	__u64 waker_stack[PP_OFF_STACK]; /* where the wake-up came from */
};

#ifndef __bpf__
#include <stdint.h>
#include "profile.h"

/* Is off-CPU recording possible here? 0, or -1 with why in err (no BPF in
 * this build, no rights, no BTF). */
int pp_offcpu_available(char *err, size_t errlen);

typedef struct pp_offcpu_rec pp_offcpu_rec_t;

/* Start recording the threads of process pid (not yet running its program:
 * the caller starts it after). NULL with why in err. */
pp_offcpu_rec_t *pp_offcpu_start(int pid, char *err, size_t errlen);

/* The process's live segment, once it exists: where its threads keep their
 * gate state (the recorder reads nothing before) and, within it, the word
 * set during the runtime's own work (0: none). The runtime's own threads
 * are told by their names (own_thread.h), not from here. */
void pp_offcpu_set_process(pp_offcpu_rec_t *r, int64_t tls_offset, uint32_t own_work_at);

/* Take in what the kernel has sent; wait at most ms. */
void pp_offcpu_poll(pp_offcpu_rec_t *r, int ms);

/* Stop, and add the off-CPU entries to p, naming keys through the live
 * segment seg (open; it may have been removed since). 0, or -1 with why in
 * err. Frees r either way; with p NULL only frees. */
struct pp__shm_view;
int pp_offcpu_finish(pp_offcpu_rec_t *r, const struct pp__shm_view *seg, pp_profile_t *p,
		     char *err, size_t errlen);
#endif

#endif
