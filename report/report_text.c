/* The text report for people: a header of the run's counters and gated
 * time, then one row per selected path with its share and its leaf's self
 * time, and per path a table of the nodes along it. Names are cleaned so a hostile one cannot move the cursor. */
#define _GNU_SOURCE /* sigabbrev_np */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/gate.h>

#include "map.h"
#include "report_impl.h"

/* Columns pp__report_put_text() uses for str (one per character; wide CJK glyphs are
 * rare enough in function names to ignore). */
static size_t text_width(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t w = 0;
	while (*s) {
		size_t n = pp__report_utf8_seq(s);
		s += n ? n : 1;
		w++;
	}
	return w;
}

static void pad(FILE *out, size_t n)
{
	while (n--)
		fputc(' ', out);
}

static size_t udigits(uint64_t v)
{
	size_t n = 1;
	while (v >= 10)
		v /= 10, n++;
	return n;
}

/* Names longer than this get a line of their own above their numbers, so one
 * long C++ name does not push every row of the table to the right. */
#define SEG_NAME_MAX 32

/* max beside the quantiles: the histogram's p99 is a bucket's edge, so a
 * mean pulled up by rare long calls could sit above p99 with nothing to
 * show why (#29); max is the longest call, exact. */
enum { COL_CALLS, COL_MEAN, COL_P50, COL_P99, COL_MAX, COL_SELF, COL_TOTAL, NCOLS };
static const char *const cols[NCOLS] = {"calls", "incl.mean", "p50", "p99", "max", "self.mean",
					"self.total"};

static void node_values(const pp_profile_t *p, const pp_pnode_t *n, char v[NCOLS][32])
{
	if (!n) {
		for (int c = 0; c < NCOLS; c++)
			snprintf(v[c], 32, "-");
		return;
	}
	const pp_seg_t *s = &n->incl;
	double calls = s->count ? (double)s->count : 1;
	snprintf(v[COL_CALLS], 32, "%llu", (unsigned long long)s->count);
	snprintf(v[COL_MEAN], 32, "%.0f", pp__ticks_ns(p, s->sum) / calls);
	snprintf(v[COL_P50], 32, "%.0f", pp__ticks_ns(p, pp__seg_percentile(s, 50)));
	snprintf(v[COL_P99], 32, "%.0f", pp__ticks_ns(p, pp__seg_percentile(s, 99)));
	snprintf(v[COL_MAX], 32, "%.0f", pp__ticks_ns(p, s->max));
	snprintf(v[COL_SELF], 32, "%.0f", pp__ticks_ns(p, n->self) / calls);
	snprintf(v[COL_TOTAL], 32, "%.0f", pp__ticks_ns(p, n->self));
	/* burst timing: a node seen in no whole call has no per-call figure,
	 * and its self time holds its cut calls' too, so no mean of it */
	if (!s->count)
		for (int c = COL_MEAN; c <= COL_MAX; c++)
			snprintf(v[c], 32, "-");
	if (n->open || !s->count)
		snprintf(v[COL_SELF], 32, "-");
}

/* The stages of a path: the node of each prefix (calls, inclusive time per
 * call, self time). A node shared by several paths has the same numbers on
 * each (it is one place in the program, timed once per call), so a block
 * shows from `from` on: the first `from` prefixes were shown by a block
 * above and are named on one line. */
static void text_nodes(FILE *out, const pp_profile_t *p, const pp_ppath_t *pa,
		       const pp_pnode_t **nodes, size_t indent, uint32_t from)
{
	size_t namew = strlen("node"), w[NCOLS];
	char v[NCOLS][32];

	for (int c = 0; c < NCOLS; c++)
		w[c] = strlen(cols[c]);
	for (uint32_t i = from; i < pa->depth; i++) {
		size_t nw = text_width(pp__report_name(p, pa->names[i]));
		if (nw <= SEG_NAME_MAX && nw > namew)
			namew = nw;
		node_values(p, nodes[i], v);
		for (int c = 0; c < NCOLS; c++)
			if (strlen(v[c]) > w[c])
				w[c] = strlen(v[c]);
	}

	pad(out, indent);
	fputs("node", out);
	pad(out, namew - strlen("node"));
	for (int c = 0; c < NCOLS; c++)
		fprintf(out, "  %*s", (int)w[c], cols[c]);
	fprintf(out, "  (%s)\n", pp__report_rate_known(p) ? "ns" : "ticks");
	if (from) {
		pad(out, indent);
		for (uint32_t i = 0; i < from; i++) {
			if (i)
				fputs(" > ", out);
			pp__report_put_text(out, pp__report_name(p, pa->names[i]));
		}
		fputs(": as above\n", out);
	}

	for (uint32_t i = from; i < pa->depth; i++) {
		const char *name = pp__report_name(p, pa->names[i]);
		size_t nw = text_width(name);
		pad(out, indent);
		pp__report_put_text(out, name);
		if (nw > namew) {
			fputc('\n', out);
			pad(out, indent + namew);
		} else {
			pad(out, namew - nw);
		}
		node_values(p, nodes[i], v);
		for (int c = 0; c < NCOLS; c++)
			fprintf(out, "  %*s", (int)w[c], v[c]);
		fputc('\n', out);
	}
}

/* A fault crashes a program; any other signal that ends it kills it. */
static int is_fault(uint32_t sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
	       sig == SIGABRT || sig == SIGTRAP || sig == SIGSYS;
}

/* A profile rebuilt from what a killed process left: its counts stop at the
 * kill, an event still in flight in each thread is not in them. */
static void recovered_line(FILE *out, const pp_profile_t *p)
{
	fputs("  recovered  from the live segment of a process that died", out);
	if (p->recovered_signal) {
		const char *abbrev = sigabbrev_np((int)p->recovered_signal);
		fprintf(out, " of signal %u (SIG%s)", p->recovered_signal, abbrev ? abbrev : "?");
	}
	fputs("; events in flight not counted\n", out);
	if (p->recovered_raw_keys)
		fprintf(out, "             %u keys show as FRONTEND:0xKEY: the process had not named them (new\n"
			     "             since its last naming pass, or it ran one thread) and its files\n"
			     "             could not (XRay ids, a file rebuilt since or loaded after the start)\n",
			p->recovered_raw_keys);
}

/* The process's CPU time beside the wall-clock times, and how often its
 * threads were preempted: times are wall-clock, so with many preemptions a
 * self time holds waits for a CPU (run --offcpu shows them apart). */
static void cpu_line(FILE *out, const pp_profile_t *p)
{
	if (!p->has_cpu)
		return;
	fprintf(out, "  cpu        %llu ns (user + system of the program's threads over the run); %llu "
		     "preemptions, %llu blocks (context switches)\n",
		(unsigned long long)p->cpu_ns, (unsigned long long)p->nivcsw, (unsigned long long)p->nvcsw);
	double run_s = p->end_ns > p->start_ns ? (double)(p->end_ns - p->start_ns) / 1e9 : 0;
	if (p->timing != PP_TIMING_OFF && p->noffcpu == 0 && run_s > 0 && p->nivcsw >= 100 &&
	    (double)p->nivcsw / run_s >= 100)
		fprintf(out, "  note       times are wall-clock: %.0f preemptions a second put waits for a CPU\n"
			     "             in self times ('pathprof run --offcpu' shows them apart, reason preempt)\n",
			(double)p->nivcsw / run_s);
}

/* What the times below hold of the gate's own cost (report/compensate.c). */
static void gate_cost_line(FILE *out, const pp_profile_t *p)
{
	if (p->timing == PP_TIMING_OFF)
		return;
	if (!(p->gate_in > 0 || p->gate_out > 0)) {
		fputs("  gate cost  not measured (a selection, a crash, a merge of unlike runs, or an\n"
		      "             older pathprof): times include the gates' own cost\n", out);
		return;
	}
	int ns = pp__report_rate_known(p);
	double k = ns ? 1 / p->ticks_per_ns : 1;
	fprintf(out, "  gate cost  %.1f + %.1f %s a timed gate (inside + outside the time it takes),\n"
		     "             measured in the process;",
		p->gate_in * k, p->gate_out * k, ns ? "ns" : "ticks");
	if (p->compensated)
		fprintf(out, " %.0f %s taken out of the times below (--raw: as measured)\n",
			p->gate_removed * k, ns ? "ns" : "ticks");
	else
		fputs(" the times below hold it (--raw)\n", out);
}

/* The runtime's own work in timed events, which no time below holds. */
static void own_work_line(FILE *out, const pp_profile_t *p)
{
	if (!p->own_n)
		return;
	int ns = pp__report_rate_known(p);
	fprintf(out, "  own work   %.0f %s of pathprof's in %llu first sights (a node's first record,\n"
		     "             a new arena chunk, a burst window's edge): no time below holds it\n",
		ns ? (double)p->own_ticks / p->ticks_per_ns : (double)p->own_ticks, ns ? "ns" : "ticks",
		(unsigned long long)p->own_n);
}

void pp__report_text_header(FILE *out, const pp_profile_t *p)
{
	fputs("pathprof report\n", out);
	fputs("  frontend   ", out);
	pp__report_put_text(out, p->frontend && *p->frontend ? p->frontend : "-");
	fputs("\n  command    ", out);
	pp__report_put_text(out, p->command && *p->command ? p->command : "-");
	if (p->service) {
		fputs("\n  service    ", out);
		pp__report_put_text(out, *p->service ? p->service : "-");
		fputs(" on ", out);
		pp__report_put_text(out, p->host && *p->host ? p->host : "-");
		fputs(", build id ", out);
		pp__report_put_text(out, p->build_id && *p->build_id ? p->build_id : "-");
	}
	fprintf(out, "\n  events     %llu\n", (unsigned long long)p->events);
	fprintf(out, "  records    %llu leaf returns, %u distinct paths\n",
		(unsigned long long)p->records, p->npaths);
	fprintf(out, "  drops      %llu (path table full), %llu (frames beyond depth bound), "
		"%llu (timed exits not recorded)\n",
		(unsigned long long)p->drops_table, (unsigned long long)p->drops_depth,
		(unsigned long long)p->drops_time);
	if (p->drops_signal)
		fprintf(out, "             %llu (signal handler inside the runtime's slow path)\n",
			(unsigned long long)p->drops_signal);
	fprintf(out, "  unmatched  %llu\n", (unsigned long long)p->unmatched);
	if (p->unprofiled_threads || p->unprofiled_frames)
		fprintf(out, "  unprofiled %llu gates of %llu threads that got no memory (arena full)\n",
			(unsigned long long)p->unprofiled_frames,
			(unsigned long long)p->unprofiled_threads);
	fprintf(out, "  threads    %llu\n", (unsigned long long)p->threads);
	if (p->crash_signal)
		fprintf(out, "  %-10s written at signal %u (SIG%s) in thread %llu; open gates not counted\n",
			is_fault(p->crash_signal) ? "crashed" : "killed",
			p->crash_signal, sigabbrev_np((int)p->crash_signal) ? sigabbrev_np((int)p->crash_signal) : "?",
			(unsigned long long)p->crash_tid);
	if (p->recovered)
		recovered_line(out, p);
	if (pp__report_rate_known(p))
		fprintf(out, "  tick rate  %.3f GHz\n", p->ticks_per_ns);
	else
		fputs("  tick rate  unknown (times in ticks)\n", out);
	if (p->timing == PP_TIMING_SAMPLE)
		fprintf(out, "  timing     sample (one event in %u timed; counts exact)\n", p->sample_n);
	else if (p->timing == PP_TIMING_BURST)
		fprintf(out, "  timing     burst (windows holding 1/%u of each thread's run timed, %llu in "
			"all; times are the windows'; counts exact)\n", p->sample_n,
			(unsigned long long)p->windows);
	else
		fprintf(out, "  timing     %s\n", pp__report_timing_word(p->timing));
	if (p->end_ns > p->start_ns)
		fprintf(out, "  run        %llu ns (wall%s)\n",
			(unsigned long long)(p->end_ns - p->start_ns),
			p->recovered ? ", to its last naming pass, every 50 ms; with none, to the recovery" : "");
	if (p->nnodes) {
		uint64_t g = pp__profile_gated_ticks(p);
		fprintf(out, "  gated time %.0f %s (self times summed over nodes and threads)\n",
			pp__ticks_ns(p, g), pp__report_rate_known(p) ? "ns" : "ticks");
		gate_cost_line(out, p);
		own_work_line(out, p);
	}
	cpu_line(out, p);
	if (p->selection)
		fprintf(out, "  selection  %s\n", *p->selection ? p->selection : "(differs between merged profiles)");
	/* without a budget, patched hook calls are those of functions the
	 * selection left out (runtime/site_patch.c) */
	if (p->budget == 0 && !p->nthrottled && (p->patched_sites || p->refused_sites))
		fprintf(out, "             hook calls of the functions it leaves out patched out of the code "
			     "at %u site%s (%u left)\n",
			p->patched_sites, p->patched_sites == 1 ? "" : "s", p->refused_sites);
	pp__report_budget_line(out, p);
	if (p->roots)
		fprintf(out, "  outside    %llu gate entries outside every root (not events: with a root "
			     "selection, events are the roots' entries)\n", (unsigned long long)p->outside_roots);
	/* An empty profile is never what was meant: say the usual causes. */
	if (!p->npaths && !p->nnodes && !p->events && !p->records && !p->unprofiled_frames)
		fputs("  note       no gate ran: nothing was counted (an XRay build not armed\n"
		      "             (PATHPROF_XRAY), a plugin build in its default annotated mode\n"
		      "             with no function marked, or no gated function was called)\n", out);
}

int pp__report_text(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o, const pp__row_t *rows,
		    size_t n)
{
	uint64_t total = 0, total_time = pp__profile_gated_ticks(p);
	int any_timed = p->nnodes != 0;
	const char *unit = pp__report_rate_known(p) ? "ns" : "ticks";
	uint32_t maxdepth = 1;

	for (uint32_t i = 0; i < p->npaths; i++) {
		total = pp__report_sat_add(total, p->paths[i].count);
		if (p->paths[i].depth > maxdepth)
			maxdepth = p->paths[i].depth;
	}
	const pp_pnode_t **nodes = malloc(maxdepth * sizeof *nodes);
	if (!nodes)
		return -1;

	pp__report_text_header(out, p);
	/* "where does the time go?": by function first, then the paths */
	if (o->sort == PP_SORT_TIME && p->nnodes && pp__report_flat_table(out, p, o->top) != 0) {
		free(nodes);
		return -1;
	}
	fprintf(out, "\n%zu of %u paths by %s", n, p->npaths,
		o->sort == PP_SORT_TIME ? "leaf self time" : "count");
	if (o->top)
		fprintf(out, ", top %u", o->top);
	if (o->min_count)
		fprintf(out, ", min-count %llu", (unsigned long long)o->min_count);
	if (o->min_time_ns)
		fprintf(out, ", min-time %llu ns", (unsigned long long)o->min_time_ns);
	fputs("\n", out);
	if (!n) {
		free(nodes);
		return p->noffcpu ? pp__report_offcpu_text(out, p) : 0;
	}

	/* Column widths from the rows shown, so counts of any size line up. */
	char tbuf[32], tname[16];
	size_t rankw = udigits(n), countw = strlen("count"), timew;
	snprintf(tname, sizeof tname, "self(%s)", unit);
	timew = strlen(tname);
	for (size_t i = 0; i < n; i++) {
		if (udigits(rows[i].path->count) > countw)
			countw = udigits(rows[i].path->count);
		snprintf(tbuf, sizeof tbuf, "%.0f", pp__ticks_ns(p, rows[i].time));
		if (strlen(tbuf) > timew)
			timew = strlen(tbuf);
	}

	pp__map_t shown = { 0 }; /* node ids a block above showed */
	fprintf(out, "\n%*s  %*s  %7s", (int)rankw, "#", (int)countw, "count", "share");
	if (any_timed)
		fprintf(out, "  %*s  %7s", (int)timew, tname, "tshare");
	fprintf(out, "  %-16s  path\n", "id");

	for (size_t i = 0; i < n; i++) {
		const pp_ppath_t *pa = rows[i].path;
		double share = total ? 100.0 * (double)pa->count / (double)total : 0;
		fprintf(out, "%*zu  %*llu  %6.2f%%", (int)rankw, i + 1, (int)countw,
			(unsigned long long)pa->count, share);
		const pp_pnode_t *leaf = pp__profile_node(p, pa->id);
		if (any_timed && leaf) {
			double ts = total_time ? 100.0 * (double)rows[i].time / (double)total_time : 0;
			snprintf(tbuf, sizeof tbuf, "%.0f", pp__ticks_ns(p, rows[i].time));
			fprintf(out, "  %*s  %6.2f%%", (int)timew, tbuf, ts);
		} else if (any_timed) {
			fprintf(out, "  %*s  %7s", (int)timew, "-", "-");
		}
		fprintf(out, "  %016llx  ", (unsigned long long)pa->id);
		for (uint32_t d = 0; d < pa->depth; d++) {
			if (d)
				fputs(" > ", out);
			pp__report_put_text(out, pp__report_name(p, pa->names[d]));
		}
		uint32_t el[4];
		size_t nel = pp__report_elided(p, pa, el, 4);
		for (size_t k = 0; k < nel; k++) {
			fputs(k ? ", " : "  [elided below: ", out);
			pp__report_put_text(out, pp__report_name(p, el[k]));
		}
		fputs(nel ? " (throttled)]\n" : "\n", out);
		if (any_timed) {
			if (pp__report_path_nodes(p, pa, nodes) < 0) {
				free(nodes);
				pp__map_free(&shown);
				return -1;
			}
			/* the prefixes a block above showed (node identity is the
			 * prefix, so they are a prefix of this path too) */
			uint32_t from = 0, dummy;
			while (from + 1 < pa->depth && nodes[from] && pp__map_get(&shown, nodes[from]->id, &dummy))
				from++;
			for (uint32_t d = from; d < pa->depth; d++)
				if (nodes[d] && pp__map_put(&shown, nodes[d]->id, 1) != 0) {
					free(nodes);
					pp__map_free(&shown);
					return -1;
				}
			text_nodes(out, p, pa, nodes, rankw + 2, from);
			if (i + 1 < n)
				fputc('\n', out);
		}
	}
	free(nodes);
	pp__map_free(&shown);
	pp__report_throttled_text(out, p);
	return p->noffcpu ? pp__report_offcpu_text(out, p) : 0;
}

/* --format flat: the header, then the functions (report_flat.c). */
int pp__report_flat(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o)
{
	pp__report_text_header(out, p);
	if (!p->nnodes) {
		fputs("\nno timed node: the flat view needs a timed profile (PATHPROF_TIMING=on, "
		      "'pathprof run')\n", out);
		return 0;
	}
	int rc = pp__report_flat_table(out, p, o->top);
	pp__report_throttled_text(out, p);
	return rc;
}
