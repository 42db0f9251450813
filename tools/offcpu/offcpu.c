/* The user-space side of `pathprof run --offcpu` (offcpu.h): loads the BPF
 * program through its bpftool-generated skeleton, reads its events from the
 * ring buffer, names each block's reason from its kernel stack and its
 * waker from the waker's, and sums blocks per (blocked node, reason, waker
 * node) with a histogram of their off-CPU time. At the end the keys read
 * from the threads' shadow stacks are named through the process's live
 * segment and the entries join the profile (section OFFCPU). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "hist.h"
#include "map.h"
#include "offcpu.h"
#include "offcpu.skel.h"
#include "shm_read.h"

/* ---- kernel symbols, to read stacks ---- */

typedef struct ksym {
	uint64_t addr;
	char *name;
} ksym_t;

static int by_addr(const void *a, const void *b)
{
	const ksym_t *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* ---- aggregation ---- */

typedef struct entry {
	uint32_t depth, waker_depth, reason, kind;
	__u64 keys[PP_OFF_MAXD], waker_keys[PP_OFF_MAXD];
	uint64_t count, sum, min, max;
	uint64_t *dense; /* PP_HIST_BUCKETS counts of off-CPU ns */
	__u64 stack[PP_OFF_STACK]; /* the first block's kernel stack */
	uint32_t nstack;
} entry_t;

struct pp_offcpu_rec {
	struct offcpu_bpf *skel;
	struct ring_buffer *rb;
	ksym_t *syms;
	size_t nsyms;
	entry_t *entries;
	size_t n, cap;
	pp__map_t at; /* entry key -> index */
	int oom;
	uint64_t events;
	pp__map_t kinds;    /* kernel address -> what its function says, + 1 */
};

static int load_kallsyms(pp_offcpu_rec_t *r)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -1;
	char line[512], name[256], type;
	unsigned long long addr;
	size_t cap = 0;
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (r->nsyms == cap) {
			cap = cap ? cap * 2 : 65536;
			ksym_t *s = realloc(r->syms, cap * sizeof *s);
			if (!s)
				break;
			r->syms = s;
		}
		r->syms[r->nsyms].addr = addr;
		r->syms[r->nsyms].name = strdup(name);
		if (r->syms[r->nsyms].name)
			r->nsyms++;
	}
	fclose(f);
	qsort(r->syms, r->nsyms, sizeof *r->syms, by_addr);
	return r->nsyms ? 0 : -1;
}

static const char *ksym_name(const pp_offcpu_rec_t *r, uint64_t addr)
{
	size_t lo = 0, hi = r->nsyms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? r->syms[lo - 1].name : "";
}

static int starts(const char *s, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (!strncmp(s, *prefixes, strlen(*prefixes)))
			return 1;
	return 0;
}

enum { K_NONE = 0, K_IRQ = 16 }; /* besides the reasons PP_OFF_* */

/* The kind of one kernel function, by its name. */
static uint32_t classify(const char *s)
{
	static const char *const futex[] = {"futex_", "__futex", NULL};
	static const char *const poll[] = {"ep_poll", "do_epoll_", "do_sys_poll", "do_poll",
					   "do_select", "core_sys_select", "do_pselect", NULL};
	static const char *const net[] = {"tcp_", "sk_wait", "inet_", "unix_", "sock_", "udp_",
					  "__skb_", "skb_recv", "inet6_", NULL};
	static const char *const disk[] = {"io_schedule", "folio_wait", "wait_on_page", "blk_",
					   "bio_", "jbd2", "ext4_", "xfs_", "btrfs_", "filemap_",
					   "file_write_and_wait", "file_fdatawait", "submit_bio",
					   "wait_for_completion_io", NULL};
	static const char *const sleep[] = {"do_nanosleep", "hrtimer_nanosleep", "common_nsleep",
					    "__x64_sys_nanosleep", "__x64_sys_clock_nanosleep",
					    "msleep", NULL};
	static const char *const irq[] = {"asm_sysvec_", "sysvec_", "__sysvec_", "asm_common_interrupt",
					  "common_interrupt", "irq_exit", "hrtimer_interrupt",
					  "__hrtimer_run_queues", "handle_irq", "run_ksoftirqd", NULL};
	if (starts(s, futex))
		return PP_OFF_FUTEX;
	if (starts(s, poll))
		return PP_OFF_POLL;
	if (starts(s, net))
		return PP_OFF_NET;
	if (starts(s, disk))
		return PP_OFF_DISK;
	if (starts(s, sleep))
		return PP_OFF_SLEEP;
	if (starts(s, irq))
		return K_IRQ;
	return K_NONE;
}

/* What the function at kernel address addr says: a reason, an interrupt,
 * or nothing. Remembered per address: a stack is read by its addresses
 * thousands of times a second, each named once. */
static uint32_t kind_of(pp_offcpu_rec_t *r, uint64_t addr)
{
	uint32_t v;
	if (pp__map_get(&r->kinds, addr, &v))
		return v - 1;
	v = classify(ksym_name(r, addr));
	if (pp__map_put(&r->kinds, addr, v + 1) != 0)
		r->oom = 1;
	return v;
}

/* The reason of a block: the innermost kernel function that says what the
 * thread waits for. */
static uint32_t reason_of(pp_offcpu_rec_t *r, const __u64 *stack, uint32_t n)
{
	for (uint32_t i = 0; i < n && i < PP_OFF_STACK; i++) {
		uint32_t k = kind_of(r, stack[i]);
		if (k != K_NONE && k != K_IRQ)
			return k;
	}
	return PP_OFF_OTHER;
}

/* A wake-up from an interrupt (a timer, a device) runs on whatever thread
 * was interrupted: that thread did not wake anyone. */
static int from_interrupt(pp_offcpu_rec_t *r, const __u64 *stack, uint32_t n)
{
	for (uint32_t i = 0; i < n && i < PP_OFF_STACK; i++)
		if (kind_of(r, stack[i]) == K_IRQ)
			return 1;
	return 0;
}

static uint64_t keys_hash(const __u64 *keys, uint32_t n, uint64_t h)
{
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ keys[i]) * 0x100000001b3ull;
	return h;
}

static int on_event(void *ctx, void *data, size_t size)
{
	pp_offcpu_rec_t *r = ctx;
	const struct pp_off_event *e = data;
	if (size < sizeof *e)
		return 0;
	r->events++;
	uint32_t depth = e->depth < PP_OFF_MAXD ? e->depth : PP_OFF_MAXD;
	uint32_t kind = e->waker_kind;
	uint32_t wdepth = e->waker_depth < PP_OFF_MAXD ? e->waker_depth : PP_OFF_MAXD;
	if (kind && from_interrupt(r, e->waker_stack, e->waker_nstack))
		kind = PP_WAKER_KERNEL;
	else if (kind == PP_WAKER_GATED && !wdepth)
		kind = PP_WAKER_THREAD;
	else if (kind == PP_WAKER_PROCESS && e->waker_tid == 0)
		kind = PP_WAKER_KERNEL;
	if (e->preempted)
		kind = PP_WAKER_NONE; /* nobody woke it: it never slept */
	if (kind != PP_WAKER_GATED)
		wdepth = 0;
	uint32_t reason = e->preempted ? PP_OFF_PREEMPT : reason_of(r, e->stack, e->nstack);
	uint64_t h = keys_hash(e->keys, depth, 0xcbf29ce484222325ull);
	h = keys_hash(e->waker_keys, wdepth, h ^ ((uint64_t)depth << 40 | (uint64_t)wdepth << 20));
	h ^= (uint64_t)(reason << 8 | kind) * 0x9e3779b97f4a7c15ull;
	uint32_t i;
	entry_t *en = NULL;
	if (pp__map_get(&r->at, h, &i)) {
		en = &r->entries[i];
		if (en->depth != depth || en->waker_depth != wdepth || en->reason != reason ||
		    en->kind != kind || memcmp(en->keys, e->keys, depth * 8) ||
		    memcmp(en->waker_keys, e->waker_keys, wdepth * 8))
			en = NULL; /* a hash collision: counted apart under a new slot */
	}
	if (!en) {
		if (r->n == r->cap) {
			size_t c = r->cap ? r->cap * 2 : 64;
			entry_t *m = realloc(r->entries, c * sizeof *m);
			if (!m) {
				r->oom = 1;
				return 0;
			}
			r->entries = m;
			r->cap = c;
		}
		en = &r->entries[r->n];
		memset(en, 0, sizeof *en);
		en->dense = calloc(PP_HIST_BUCKETS, sizeof *en->dense);
		if (!en->dense) {
			r->oom = 1;
			return 0;
		}
		en->depth = depth;
		en->waker_depth = wdepth;
		en->reason = reason;
		en->kind = kind;
		memcpy(en->keys, e->keys, depth * 8);
		memcpy(en->waker_keys, e->waker_keys, wdepth * 8);
		en->nstack = e->nstack < PP_OFF_STACK ? e->nstack : PP_OFF_STACK;
		memcpy(en->stack, e->stack, en->nstack * 8);
		en->min = UINT64_MAX;
		while (pp__map_get(&r->at, h, &i))
			h++;
		if (pp__map_put(&r->at, h, (uint32_t)r->n) != 0) {
			free(en->dense);
			r->oom = 1;
			return 0;
		}
		r->n++;
	}
	uint64_t ns = e->off_ns;
	en->count++;
	en->sum += ns;
	en->min = ns < en->min ? ns : en->min;
	en->max = ns > en->max ? ns : en->max;
	en->dense[pp__hist_bucket(ns)]++;
	return 0;
}

int pp_offcpu_available(char *err, size_t errlen)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		snprintf(err, errlen, "the kernel has no BTF (/sys/kernel/btf/vmlinux)");
		return -1;
	}
	/* effective capabilities: bit 21 CAP_SYS_ADMIN, 38 CAP_PERFMON, 39 CAP_BPF */
	unsigned long long eff = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	if (f)
		fclose(f);
	int admin = (eff >> 21) & 1, perfmon = (eff >> 38) & 1, bpf = (eff >> 39) & 1;
	if (!admin && !(bpf && perfmon)) {
		snprintf(err, errlen, "loading BPF programs needs CAP_BPF and CAP_PERFMON, or "
			 "CAP_SYS_ADMIN (run as root)");
		return -1;
	}
	return 0;
}

static int silent(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

pp_offcpu_rec_t *pp_offcpu_start(int pid, char *err, size_t errlen)
{
	if (pp_offcpu_available(err, errlen) != 0)
		return NULL;
	pp_offcpu_rec_t *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (load_kallsyms(r) != 0) {
		snprintf(err, errlen, "/proc/kallsyms: no kernel symbols to read stacks with");
		goto fail;
	}
	libbpf_set_print(silent);
	r->skel = offcpu_bpf__open();
	if (!r->skel) {
		snprintf(err, errlen, "cannot open the BPF program: %s", strerror(errno));
		goto fail;
	}
	r->skel->rodata->target_tgid = (__u32)pid;
	/* tests only: leave every Nth switch-in unseen (offcpu.bpf.c) */
	const char *skip = getenv("PATHPROF_OFFCPU_TEST_SKIP");
	r->skel->rodata->skip_every = skip ? (__u32)strtoul(skip, NULL, 10) : 0;
	int e = offcpu_bpf__load(r->skel);
	if (!e)
		e = offcpu_bpf__attach(r->skel);
	if (e) {
		snprintf(err, errlen, "cannot load the BPF program: %s", strerror(-e > 0 ? -e : errno));
		goto fail;
	}
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.events), on_event, r, NULL);
	if (!r->rb) {
		snprintf(err, errlen, "cannot read the BPF ring buffer: %s", strerror(errno));
		goto fail;
	}
	return r;
fail:
	pp_offcpu_finish(r, NULL, NULL, NULL, 0);
	return NULL;
}

void pp_offcpu_set_process(pp_offcpu_rec_t *r, int64_t tls_offset, uint32_t own_work_at)
{
	uint32_t zero = 0, one = 1;
	int64_t at = own_work_at;
	bpf_map__update_elem(r->skel->maps.cfg, &one, sizeof one, &at, sizeof at, BPF_ANY);
	bpf_map__update_elem(r->skel->maps.cfg, &zero, sizeof zero, &tls_offset, sizeof tls_offset,
			     BPF_ANY);
}

void pp_offcpu_poll(pp_offcpu_rec_t *r, int ms)
{
	/* the kernel side wakes us only when the ring fills: read what is
	 * there after the wait either way */
	ring_buffer__poll(r->rb, ms);
	ring_buffer__consume(r->rb);
}

/* Name index in p of the name of key (from the segment's names, else
 * "FRONTEND:0xKEY"), appended when p has no such name yet. */
static int name_index(pp_profile_t *p, pp__map_t *pidx, const pp_profile_t *seg,
		      const pp__map_t *by_key, uint64_t key, uint32_t *out)
{
	uint32_t i;
	const char *name, *file = "";
	uint32_t line = 0;
	char raw[64];
	if (pp__map_get(by_key, key, &i)) {
		name = seg->names[i].name;
		file = seg->names[i].file ? seg->names[i].file : "";
		line = seg->names[i].line;
	} else {
		snprintf(raw, sizeof raw, "%s:0x%llx", p->frontend ? p->frontend : "?",
			 (unsigned long long)key);
		name = raw;
	}
	uint64_t h = pp__path_id(&name, 1);
	if (pp__map_get(pidx, h, &i) && !strcmp(p->names[i].name, name)) {
		*out = i;
		return 0;
	}
	pp_name_t *m = realloc(p->names, (p->nnames + 1) * sizeof *m);
	if (!m)
		return -1;
	p->names = m;
	m[p->nnames] = (pp_name_t){.name = strdup(name), .file = strdup(file), .line = line};
	if (!m[p->nnames].name || !m[p->nnames].file)
		return -1;
	*out = p->nnames;
	return pp__map_put(pidx, h, p->nnames++);
}

/* "fn;fn;..." of a kernel stack, innermost first; NULL out of memory. */
static char *stack_text(const pp_offcpu_rec_t *r, const __u64 *stack, uint32_t n)
{
	/* the frames before the scheduler are the tracepoint's and BPF's */
	uint32_t from = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(ksym_name(r, stack[i]), "__schedule")) {
			from = i;
			break;
		}
	stack += from;
	n -= from;
	size_t len = 1;
	for (uint32_t i = 0; i < n; i++)
		len += strlen(ksym_name(r, stack[i])) + 1;
	char *s = malloc(len), *w = s;
	if (!s)
		return NULL;
	*w = '\0';
	for (uint32_t i = 0; i < n; i++)
		w += sprintf(w, "%s%s", i ? ";" : "", ksym_name(r, stack[i]));
	return s;
}

static int side(pp_profile_t *p, pp__map_t *pidx, const pp_profile_t *seg, const pp__map_t *by_key,
		const __u64 *keys, uint32_t depth, pp_ppath_t *out, const char **scratch)
{
	*out = (pp_ppath_t){0};
	if (!depth) {
		out->id = pp__path_id(scratch, 0); /* what the file stores for "none" */
		return 0;
	}
	out->names = malloc(depth * sizeof *out->names);
	if (!out->names)
		return -1;
	out->depth = depth;
	for (uint32_t k = 0; k < depth; k++)
		if (name_index(p, pidx, seg, by_key, keys[k], &out->names[k]) != 0)
			return -1;
	for (uint32_t k = 0; k < depth; k++)
		scratch[k] = p->names[out->names[k]].name;
	out->id = pp__path_id(scratch, depth);
	return 0;
}

int pp_offcpu_finish(pp_offcpu_rec_t *r, const pp__shm_view_t *seg, pp_profile_t *p, char *err,
		     size_t errlen)
{
	int rc = 0;
	if (r->rb)
		ring_buffer__consume(r->rb);
	if (p) {
		pp_profile_t names = {0};
		pp__map_t by_key = {0}, pidx = {0};
		const char **scratch = malloc(PP_OFF_MAXD * sizeof *scratch);
		rc = -1;
		if (!scratch || r->oom) {
			snprintf(err, errlen, "out of memory");
		} else if (pp__shm_names(seg, &names, &by_key, err, errlen) == 0) {
			rc = 0;
		}
		for (uint32_t i = 0; rc == 0 && i < p->nnames; i++) {
			const char *nm = p->names[i].name;
			rc = pp__map_put(&pidx, pp__path_id(&nm, 1), i);
		}
		pp_offcpu_t *out = rc == 0 && r->n ? calloc(r->n, sizeof *out) : NULL;
		if (rc == 0 && r->n && !out) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
		if (out) {
			p->offcpu = out;
			p->noffcpu = 0;
		}
		for (size_t i = 0; rc == 0 && i < r->n; i++) {
			entry_t *en = &r->entries[i];
			pp_offcpu_t *o = &out[i];
			o->reason = en->reason;
			o->waker_kind = en->kind;
			p->noffcpu = (uint32_t)i + 1; /* zeroed entries free as they are */
			if (side(p, &pidx, &names, &by_key, en->keys, en->depth, &o->blocked, scratch) ||
			    side(p, &pidx, &names, &by_key, en->waker_keys, en->waker_depth, &o->waker,
				 scratch) ||
			    pp__seg_from_dense(&o->time, en->count, en->sum, en->min, en->max, en->dense) ||
			    !(o->kstack = stack_text(r, en->stack, en->nstack))) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
			}
		}
		if (rc == 0 && pp__profile_canonical(p) != 0) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
		}
		free(scratch);
		pp__map_free(&by_key);
		pp__map_free(&pidx);
		pp__profile_free(&names);
	}
	if (r->rb)
		ring_buffer__free(r->rb);
	if (r->skel)
		offcpu_bpf__destroy(r->skel);
	for (size_t i = 0; i < r->nsyms; i++)
		free(r->syms[i].name);
	for (size_t i = 0; i < r->n; i++)
		free(r->entries[i].dense);
	free(r->entries);
	free(r->syms);
	pp__map_free(&r->at);
	pp__map_free(&r->kinds);
	free(r);
	return rc;
}
