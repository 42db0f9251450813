/* The text report's off-CPU part (a profile recorded with `pathprof run
 * --offcpu`): per blocked node, its on-CPU self time beside its off-CPU
 * time by reason; then the blocking edges, blocked node <- waker, heaviest
 * first. Times in ns, like the rest of the text report. */
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "report_impl.h"

typedef struct node_sum {
	const pp_ppath_t *node;
	uint64_t total, by[PP_OFF_REASONS];
} node_sum_t;

static int by_total(const void *a, const void *b)
{
	const node_sum_t *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->node->id < y->node->id ? -1 : x->node->id > y->node->id;
}

static void put_node(FILE *out, const pp_profile_t *p, const pp_ppath_t *n, const char *none)
{
	if (!n->depth) {
		fputs(none, out);
		return;
	}
	for (uint32_t d = 0; d < n->depth; d++) {
		if (d)
			fputs(" > ", out);
		pp__report_put_text(out, pp__report_name(p, n->names[d]));
	}
}

static void put_waker(FILE *out, const pp_profile_t *p, const pp_offcpu_t *e)
{
	if (e->reason == PP_OFF_PREEMPT) {
		fputs("(the scheduler: runnable, it waited for a CPU)", out);
		return;
	}
	switch (e->waker_kind) {
	case PP_WAKER_GATED:
		put_node(out, p, &e->waker, "");
		break;
	case PP_WAKER_THREAD:
		fputs("(a thread of the process outside any gate)", out);
		break;
	case PP_WAKER_PROCESS:
		fputs("(another process)", out);
		break;
	case PP_WAKER_KERNEL:
		fputs("(the kernel: interrupt, timer or kernel thread)", out);
		break;
	default:
		fputs("(not seen)", out);
	}
}

int pp__report_offcpu_text(FILE *out, const pp_profile_t *p)
{
	node_sum_t *sums = calloc(p->noffcpu ? p->noffcpu : 1, sizeof *sums);
	pp__map_t at = {0};
	size_t n = 0;
	uint64_t total = 0, blocks = 0;
	int rc = sums ? 0 : -1;
	for (uint32_t i = 0; i < p->noffcpu && rc == 0; i++) {
		const pp_offcpu_t *e = &p->offcpu[i];
		uint32_t k;
		if (!pp__map_get(&at, e->blocked.id, &k)) {
			k = (uint32_t)n++;
			sums[k].node = &e->blocked;
			rc = pp__map_put(&at, e->blocked.id, k);
		}
		sums[k].total += e->time.sum;
		sums[k].by[e->reason < PP_OFF_REASONS ? e->reason : PP_OFF_OTHER] += e->time.sum;
		total += e->time.sum;
		blocks += e->time.count;
	}
	pp__map_free(&at);
	if (rc != 0) {
		free(sums);
		return -1;
	}
	qsort(sums, n, sizeof *sums, by_total);
	fprintf(out, "\noff-CPU: %llu blocks, %llu ns off the CPU in all (pathprof run --offcpu)\n",
		(unsigned long long)blocks, (unsigned long long)total);
	fputs("  per blocked node, ns: self time (wall), the part of it on the CPU, then the\n"
	      "  time off the CPU in all and by reason\n", out);
	fprintf(out, "  %12s  %12s  %12s", "self", "on-CPU", "off-CPU");
	for (uint32_t r = 0; r < PP_OFF_REASONS; r++)
		fprintf(out, "  %10s", pp__offcpu_reason_name(r));
	fputs("  node\n", out);
	for (size_t i = 0; i < n; i++) {
		const pp_pnode_t *nd = sums[i].node->depth ? pp__profile_node(p, sums[i].node->id) : NULL;
		char self[32] = "-", on[32] = "-";
		if (nd) {
			/* self time runs while the node is the innermost open gate,
			 * and so do the blocks attributed to it */
			double s = pp__ticks_ns(p, nd->self), off = (double)sums[i].total;
			snprintf(self, sizeof self, "%.0f", s);
			snprintf(on, sizeof on, "%.0f", s > off ? s - off : 0);
		}
		fprintf(out, "  %12s  %12s  %12llu", self, on, (unsigned long long)sums[i].total);
		for (uint32_t r = 0; r < PP_OFF_REASONS; r++)
			fprintf(out, "  %10llu", (unsigned long long)sums[i].by[r]);
		fputs("  ", out);
		put_node(out, p, sums[i].node, "(outside any gate)");
		fputc('\n', out);
	}
	fputs("  blocking edges, heaviest first: off-CPU ns, blocks, p50 and p99 ns per block, "
	      "reason, blocked node <- waker\n", out);
	for (uint32_t i = 0; i < p->noffcpu; i++) {
		const pp_offcpu_t *e = &p->offcpu[i];
		fprintf(out, "  %12llu  %6llu  %10llu  %10llu  %-5s  ", (unsigned long long)e->time.sum,
			(unsigned long long)e->time.count,
			(unsigned long long)pp__seg_percentile(&e->time, 50),
			(unsigned long long)pp__seg_percentile(&e->time, 99),
			pp__offcpu_reason_name(e->reason));
		put_node(out, p, &e->blocked, "(outside any gate)");
		fputs("  <-  ", out);
		put_waker(out, p, e);
		fputc('\n', out);
	}
	free(sums);
	return 0;
}
