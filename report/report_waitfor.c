/* The wait-for graph (`--format waitfor`, DOT): from off-CPU data, an edge
 * from the path node a thread blocked on to the path node of the thread that
 * woke it (or to the kernel, another process, a thread outside any gate),
 * one per reason, its width and label the off-CPU time and blocks. Edges
 * below --min-count blocks or --min-time off-CPU time are left out, and the
 * graph says how many. A profile without off-CPU data gives an empty graph
 * that says so. */
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

static const char *const waker_node[PP_WAKER_KINDS] = {
	"unseen", "", "thread", "process", "kernel",
};
static const char *const waker_label[PP_WAKER_KINDS] = {
	"(woken unseen)", "", "(a thread outside any gate)", "(another process)",
	"(kernel: interrupt, timer, kernel thread)",
};

/* The label of a node: its names, one per line, root first. */
static void node_label(FILE *out, const pp_profile_t *p, const pp_ppath_t *n)
{
	size_t len = 0;
	for (uint32_t d = 0; d < n->depth; d++)
		len += strlen(pp__report_name(p, n->names[d])) + 2;
	char *s = malloc(len + 1), *w = s;
	if (!s) {
		pp__report_dot_str(out, "?");
		return;
	}
	for (uint32_t d = 0; d < n->depth; d++) {
		const char *nm = pp__report_name(p, n->names[d]);
		size_t k = strlen(nm);
		memcpy(w, nm, k);
		w += k;
		if (d + 1 < n->depth)
			*w++ = '>';
	}
	*w = '\0';
	pp__report_dot_str(out, n->depth ? s : "(outside any gate)");
	free(s);
}

static int shown(const pp_offcpu_t *e, const pp_report_opts_t *o)
{
	return e->time.count >= o->min_count && e->time.sum >= o->min_time_ns;
}

int pp__report_waitfor(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o)
{
	uint64_t max = 1, hidden = 0;
	for (uint32_t i = 0; i < p->noffcpu; i++) {
		if (shown(&p->offcpu[i], o))
			max = p->offcpu[i].time.sum > max ? p->offcpu[i].time.sum : max;
		else
			hidden++;
	}
	fputs("digraph waitfor {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n", out);
	fputs("  label=", out);
	char note[200];
	if (!p->noffcpu)
		snprintf(note, sizeof note, "no off-CPU data (record with pathprof run --offcpu)");
	else
		snprintf(note, sizeof note, "blocked path -> waker, by off-CPU time; %llu edge(s) below "
			 "--min-count/--min-time left out", (unsigned long long)hidden);
	pp__report_dot_str(out, note);
	fputs(";\n", out);
	/* nodes: each blocked and waker node once (ids are stable path ids) */
	for (uint32_t i = 0; i < p->noffcpu; i++) {
		const pp_offcpu_t *e = &p->offcpu[i];
		if (!shown(e, o))
			continue;
		const pp_ppath_t *side[2] = {&e->blocked, &e->waker};
		for (int s = 0; s < 2; s++) {
			if (s == 1 && e->waker_kind != PP_WAKER_GATED) {
				fprintf(out, "  %s [label=", waker_node[e->waker_kind]);
				pp__report_dot_str(out, waker_label[e->waker_kind]);
				fputs(", shape=ellipse, style=dashed];\n", out);
				continue;
			}
			fprintf(out, "  n%016llx [label=", (unsigned long long)side[s]->id);
			node_label(out, p, side[s]);
			fputs("];\n", out);
		}
	}
	for (uint32_t i = 0; i < p->noffcpu; i++) {
		const pp_offcpu_t *e = &p->offcpu[i];
		if (!shown(e, o))
			continue;
		char to[32];
		if (e->waker_kind == PP_WAKER_GATED)
			snprintf(to, sizeof to, "n%016llx", (unsigned long long)e->waker.id);
		else
			snprintf(to, sizeof to, "%s", waker_node[e->waker_kind]);
		char label[96];
		snprintf(label, sizeof label, "%s %.3f ms, %llu blocks",
			 pp__offcpu_reason_name(e->reason), (double)e->time.sum / 1e6,
			 (unsigned long long)e->time.count);
		fprintf(out, "  n%016llx -> %s [label=", (unsigned long long)e->blocked.id, to);
		pp__report_dot_str(out, label);
		fprintf(out, ", penwidth=%.2f];\n", 1.0 + 5.0 * (double)e->time.sum / (double)max);
	}
	fputs("}\n", out);
	return 0;
}
