/* The Prometheus exposition of live profiles (metrics.h). Counts are the
 * segments' exact counts; durations are the nodes' inclusive times per call,
 * moved from pathprof's log-linear buckets onto fixed `le` bounds: a call
 * lands in the first bound at or above its bucket's midpoint, so a duration
 * within 3.2 % (half a bucket) of a bound may be counted on its other side
 * (docs/guides/fleet.md). Label values are valid UTF-8 (ill-formed bytes become
 * '?') and escaped as the format asks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "metrics.h"
#include "report_impl.h"

/* Seconds: 1 ns to 10 s in 1-2.5-5 steps, then +Inf. From 1 ns, not 100:
 * a gated helper takes tens of ns, and a first bucket of 100 ns made every
 * such node read p50 = 50 ns in PromQL (#29). */
static const double le_bounds[] = {
	1e-9, 2.5e-9, 5e-9, 1e-8, 2.5e-8, 5e-8, 1e-7, 2.5e-7, 5e-7, 1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4,
	1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};
#define NLE (sizeof le_bounds / sizeof le_bounds[0])

/* A path label longer than this keeps its leaf end, after "...". */
#define LABEL_MAX 200

typedef struct ctx {
	FILE *out;
	int om;
} ctx_t;

const char *metrics_content_type(int openmetrics)
{
	return openmetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
			   : "text/plain; version=0.0.4; charset=utf-8";
}

/* "# HELP" and "# TYPE" of a family. A counter's family is named without
 * _total in OpenMetrics and with it in the text format. */
static void family(const ctx_t *c, const char *name, const char *type, const char *help)
{
	int counter = !strcmp(type, "counter"), info = !strcmp(type, "info");
	/* the text format has no info type: a gauge named as its one sample */
	const char *suffix = c->om ? "" : counter ? "_total" : info ? "_info" : "";
	fprintf(c->out, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, suffix, help, name, suffix,
		info && !c->om ? "gauge" : type);
}

/* A label value: '\\', '"' and newlines escaped; ill-formed UTF-8 and other
 * control bytes as '?'. */
static void put_value(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		size_t n = pp__report_utf8_seq(p);
		if (n == 0 || p + n > end) {
			fputc('?', out);
			p++;
			continue;
		}
		if (n > 1)
			fwrite(p, 1, n, out);
		else if (*p == '\\' || *p == '"')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else
			fputc(*p >= 0x20 && *p != 0x7f ? *p : '?', out);
		p += n;
	}
}

/* The process's labels, first in every one of its series. */
static void proc_labels(FILE *out, const metrics_proc_t *m)
{
	const char *svc = m->prof.service && *m->prof.service ? m->prof.service : m->st.program;
	fputs("service=\"", out);
	put_value(out, svc, strlen(svc));
	fprintf(out, "\",pid=\"%llu\",uid=\"%u\",frontend=\"", (unsigned long long)m->st.pid,
		m->st.uid);
	const char *fe = m->prof.frontend ? m->prof.frontend : "";
	put_value(out, fe, strlen(fe));
	fputc('"', out);
}

/* The readable label of a path or node: its names joined by '>', the leaf
 * end kept when it is long. */
static void path_value(FILE *out, const pp_profile_t *p, const pp_ppath_t *pa, uint32_t depth)
{
	size_t total = 0;
	for (uint32_t i = 0; i < depth; i++)
		total += strlen(pp__report_name(p, pa->names[i])) + (i ? 1 : 0);
	if (total <= LABEL_MAX) {
		for (uint32_t i = 0; i < depth; i++) {
			const char *name = pp__report_name(p, pa->names[i]);
			if (i)
				fputc('>', out);
			put_value(out, name, strlen(name));
		}
		return;
	}
	/* the last LABEL_MAX - 3 bytes, after "...": the end tells paths apart */
	char buf[LABEL_MAX];
	size_t want = LABEL_MAX - 3, at = want;
	for (uint32_t i = depth; i-- > 0 && at > 0;) {
		const char *name = pp__report_name(p, pa->names[i]);
		size_t n = strlen(name), take = n < at ? n : at;
		memcpy(buf + at - take, name + n - take, take);
		at -= take;
		if (i && at > 0)
			buf[--at] = '>';
	}
	while (at < want && ((unsigned char)buf[at] & 0xc0) == 0x80)
		at++; /* not from inside a UTF-8 sequence */
	fputs("...", out);
	put_value(out, buf + at, want - at);
}

static int by_count_desc(const void *a, const void *b)
{
	const pp_ppath_t *x = *(const pp_ppath_t *const *)a, *y = *(const pp_ppath_t *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The paths with series of their own: those chosen before, then, while
 * there is room, the others by count. Returns the number of paths of p in
 * the choice (listed in rows), or -1 out of memory. */
static long choose(metrics_proc_t *m, const pp_ppath_t **rows)
{
	const pp_profile_t *p = &m->prof;
	size_t k = 0;
	for (uint32_t i = 0; i < p->npaths; i++)
		rows[k++] = &p->paths[i];
	qsort(rows, k, sizeof *rows, by_count_desc);
	uint32_t v;
	/* chosen before: kept whatever their count now */
	size_t n = 0;
	uint64_t room = m->chosen->len < m->top ? m->top - m->chosen->len : 0;
	for (size_t i = 0; i < k; i++) {
		if (pp__map_get(m->chosen, rows[i]->id, &v)) {
			rows[n++] = rows[i];
		} else if (room) {
			if (pp__map_put(m->chosen, rows[i]->id, 1) != 0)
				return -1;
			room--;
			rows[n++] = rows[i];
		}
	}
	return (long)n;
}

static void path_counters(const ctx_t *c, metrics_proc_t *m, const pp_ppath_t **rows, size_t n)
{
	const pp_profile_t *p = &m->prof;
	uint64_t in_rows = 0, all = 0;
	for (size_t i = 0; i < n; i++) {
		fprintf(c->out, "pathprof_path_leaf_returns_total{");
		proc_labels(c->out, m);
		fprintf(c->out, ",path_id=\"%016llx\",path=\"", (unsigned long long)rows[i]->id);
		path_value(c->out, p, rows[i], rows[i]->depth);
		fprintf(c->out, "\"} %llu\n", (unsigned long long)rows[i]->count);
		in_rows += rows[i]->count;
	}
	for (uint32_t i = 0; i < p->npaths; i++)
		all += p->paths[i].count;
	m->cut = p->npaths - n;
	if (m->cut) {
		fprintf(c->out, "pathprof_path_leaf_returns_total{");
		proc_labels(c->out, m);
		fprintf(c->out, ",path_id=\"other\",path=\"other\"} %llu\n",
			(unsigned long long)(all - in_rows));
	}
}

/* Seconds of ticks t of p. */
static double seconds(const pp_profile_t *p, double ticks)
{
	return ticks / p->ticks_per_ns / 1e9;
}

static void node_histogram(const ctx_t *c, const metrics_proc_t *m, const pp_pnode_t *node)
{
	const pp_profile_t *p = &m->prof;
	uint64_t cum[NLE + 1] = {0};
	for (uint32_t i = 0; i < node->incl.nbins; i++) {
		double s = seconds(p, (double)pp__hist_mid(node->incl.bins[i].bucket));
		size_t k = 0;
		while (k < NLE && s > le_bounds[k])
			k++;
		cum[k] += node->incl.bins[i].count;
	}
	uint64_t run = 0;
	for (size_t k = 0; k <= NLE; k++) {
		run += cum[k];
		fprintf(c->out, "pathprof_node_seconds_bucket{");
		proc_labels(c->out, m);
		fprintf(c->out, ",node_id=\"%016llx\",node=\"", (unsigned long long)node->id);
		path_value(c->out, p, node, node->depth);
		if (k < NLE)
			fprintf(c->out, "\",le=\"%g\"} %llu\n", le_bounds[k], (unsigned long long)run);
		else
			fprintf(c->out, "\",le=\"+Inf\"} %llu\n", (unsigned long long)run);
	}
	static const char *const tail[2] = {"sum", "count"};
	for (int t = 0; t < 2; t++) {
		fprintf(c->out, "pathprof_node_seconds_%s{", tail[t]);
		proc_labels(c->out, m);
		fprintf(c->out, ",node_id=\"%016llx\",node=\"", (unsigned long long)node->id);
		path_value(c->out, p, node, node->depth);
		if (t == 0)
			fprintf(c->out, "\"} %.9g\n", seconds(p, (double)node->incl.sum));
		else
			fprintf(c->out, "\"} %llu\n", (unsigned long long)node->incl.count);
	}
}

/* The timed nodes along the chosen paths, each once. */
static int node_histograms(const ctx_t *c, const metrics_proc_t *m, const pp_ppath_t **rows,
			   size_t n)
{
	const pp_profile_t *p = &m->prof;
	if (!(p->ticks_per_ns > 0) || !p->nnodes)
		return 0;
	pp__map_t done = {0};
	uint32_t maxd = 1;
	for (size_t i = 0; i < n; i++)
		maxd = rows[i]->depth > maxd ? rows[i]->depth : maxd;
	uint64_t *ids = malloc(maxd * sizeof *ids);
	int rc = ids ? 0 : -1;
	uint32_t v;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (pp__report_prefix_ids(p, rows[i], ids) < 0) {
			rc = -1;
			break;
		}
		for (uint32_t d = 0; d < rows[i]->depth && rc == 0; d++) {
			const pp_pnode_t *node = pp__profile_node(p, ids[d]);
			if (!node || !node->incl.count || pp__map_get(&done, ids[d], &v))
				continue;
			rc = pp__map_put(&done, ids[d], 1);
			if (rc == 0)
				node_histogram(c, m, node);
		}
	}
	free(ids);
	pp__map_free(&done);
	return rc;
}

/* One series per process of a per-process total. */
typedef uint64_t (*total_fn)(const metrics_proc_t *m);

static void per_proc(const ctx_t *c, metrics_proc_t *procs, size_t n, const char *name,
		     const char *suffix, total_fn fn)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(c->out, "%s%s{", name, suffix);
		proc_labels(c->out, &procs[i]);
		fprintf(c->out, "} %llu\n", (unsigned long long)fn(&procs[i]));
	}
}

static uint64_t t_events(const metrics_proc_t *m) { return m->prof.events; }
static uint64_t t_unmatched(const metrics_proc_t *m) { return m->prof.unmatched; }
static uint64_t t_threads(const metrics_proc_t *m) { return m->st.threads_live; }
static uint64_t t_started(const metrics_proc_t *m) { return m->prof.threads; }
static uint64_t t_paths(const metrics_proc_t *m) { return m->prof.npaths; }
static uint64_t t_cut(const metrics_proc_t *m) { return m->cut; }

int metrics_write(FILE *out, int openmetrics, metrics_proc_t *procs, size_t n,
		  const metrics_health_t *h)
{
	ctx_t c = {out, openmetrics};
	const pp_ppath_t ***rows = calloc(n ? n : 1, sizeof *rows);
	long *nrows = calloc(n ? n : 1, sizeof *nrows);
	int rc = rows && nrows ? 0 : -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		rows[i] = malloc((procs[i].prof.npaths ? procs[i].prof.npaths : 1) * sizeof **rows);
		nrows[i] = rows[i] ? choose(&procs[i], rows[i]) : -1;
		rc = nrows[i] < 0 ? -1 : 0;
	}
	if (rc != 0)
		goto out;

	family(&c, "pathprof_path_leaf_returns", "counter",
	       "Leaf returns of a root-to-leaf path: exact count since the process started.");
	for (size_t i = 0; i < n; i++)
		path_counters(&c, &procs[i], rows[i], (size_t)nrows[i]);

	family(&c, "pathprof_node_seconds", "histogram",
	       "Inclusive time per call of a calling-context node (the path prefix ending at a gate).");
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = node_histograms(&c, &procs[i], rows[i], (size_t)nrows[i]);
	if (rc != 0)
		goto out;

	family(&c, "pathprof_events", "counter", "Events started (root gates entered).");
	per_proc(&c, procs, n, "pathprof_events", "_total", t_events);

	family(&c, "pathprof_drops", "counter",
	       "Records lost, by kind: table (path table or memory full), depth (frames beyond "
	       "the stack bound), time (timed exits not recorded), signal (handlers inside the "
	       "runtime), unprofiled (gates of threads that got no slab).");
	for (size_t i = 0; i < n; i++) {
		const pp_profile_t *p = &procs[i].prof;
		const uint64_t v[5] = {p->drops_table, p->drops_depth, p->drops_time, p->drops_signal,
				       p->unprofiled_frames};
		static const char *const kind[5] = {"table", "depth", "time", "signal", "unprofiled"};
		for (int k = 0; k < 5; k++) {
			fputs("pathprof_drops_total{", out);
			proc_labels(out, &procs[i]);
			fprintf(out, ",kind=\"%s\"} %llu\n", kind[k], (unsigned long long)v[k]);
		}
	}

	family(&c, "pathprof_unmatched_exits", "counter", "Gate exits with no open frame (ignored).");
	per_proc(&c, procs, n, "pathprof_unmatched_exits", "_total", t_unmatched);
	family(&c, "pathprof_threads", "gauge", "Threads of the process running gated code now.");
	per_proc(&c, procs, n, "pathprof_threads", "", t_threads);
	family(&c, "pathprof_threads_started", "counter", "Threads that ever ran a gate.");
	per_proc(&c, procs, n, "pathprof_threads_started", "_total", t_started);
	family(&c, "pathprof_paths", "gauge", "Distinct root-to-leaf paths recorded.");
	per_proc(&c, procs, n, "pathprof_paths", "", t_paths);
	family(&c, "pathprof_paths_other", "gauge",
	       "Paths summed in path=\"other\" instead of series of their own (serve --top).");
	per_proc(&c, procs, n, "pathprof_paths_other", "", t_cut);

	/* Not taken out of the histograms: a bucket's count would then move
	 * with the totals and go down between scrapes, which a counter must
	 * not. The figures let a query take them out of a mean. */
	family(&c, "pathprof_gate_cost_seconds", "gauge",
	       "A timed gate's own cost as the process measured it: part=\"inside\" is in every "
	       "call's time, part=\"outside\" in its caller's.");
	for (size_t i = 0; i < n; i++) {
		const pp_profile_t *q = &procs[i].prof;
		if (!(q->ticks_per_ns > 0) || !(q->gate_in > 0 || q->gate_out > 0))
			continue;
		static const char *const part[] = { "inside", "outside" };
		for (int k = 0; k < 2; k++) {
			fputs("pathprof_gate_cost_seconds{", out);
			proc_labels(out, &procs[i]);
			fprintf(out, ",part=\"%s\"} %.12g\n", part[k],
				(k ? q->gate_out : q->gate_in) / q->ticks_per_ns / 1e9);
		}
	}

	family(&c, "pathprof_process_start_time_seconds", "gauge",
	       "When the process started, in seconds since the epoch.");
	for (size_t i = 0; i < n; i++) {
		fputs("pathprof_process_start_time_seconds{", out);
		proc_labels(out, &procs[i]);
		fprintf(out, "} %.3f\n", (double)procs[i].prof.start_ns / 1e9);
	}
	family(&c, "pathprof_process", "info",
	       "The process: host, build id of its executable (and command with --command-line).");
	for (size_t i = 0; i < n; i++) {
		const pp_profile_t *p = &procs[i].prof;
		fputs("pathprof_process_info{", out);
		proc_labels(out, &procs[i]);
		const char *kv[3][2] = {{"host", p->host}, {"build_id", p->build_id},
					{"command", p->command}};
		for (int k = 0; k < (procs[i].with_command ? 3 : 2); k++) {
			const char *s = kv[k][1] ? kv[k][1] : "";
			fprintf(out, ",%s=\"", kv[k][0]);
			put_value(out, s, strnlen(s, LABEL_MAX));
			fputc('"', out);
		}
		fputs("} 1\n", out);
	}

	family(&c, "pathprof_exporter_processes", "gauge", "Profiled processes served.");
	fprintf(out, "pathprof_exporter_processes %zu\n", n);
	family(&c, "pathprof_exporter_segments_skipped", "gauge",
	       "Shared-memory objects skipped as damaged or foreign (each warned once).");
	fprintf(out, "pathprof_exporter_segments_skipped %llu\n", (unsigned long long)h->skipped);
	family(&c, "pathprof_exporter_segments_dead", "gauge",
	       "Segments of processes that died without exiting (pathprof recover reads them).");
	fprintf(out, "pathprof_exporter_segments_dead %llu\n", (unsigned long long)h->dead);
	family(&c, "pathprof_exporter_scrapes", "counter", "Scrapes served.");
	fprintf(out, "pathprof_exporter_scrapes_total %llu\n", (unsigned long long)h->scrapes);
	family(&c, "pathprof_exporter_last_scrape_duration_seconds", "gauge",
	       "How long the previous scrape took to read every segment.");
	fprintf(out, "pathprof_exporter_last_scrape_duration_seconds %.6f\n", h->last_duration_s);
	family(&c, "pathprof_exporter_connections_cut", "counter",
	       "Connections cut because their request did not arrive within the deadline.");
	fprintf(out, "pathprof_exporter_connections_cut_total %llu\n", (unsigned long long)h->cut);
	if (openmetrics)
		fputs("# EOF\n", out);
out:
	for (size_t i = 0; rows && i < n; i++)
		free(rows[i]);
	free(rows);
	free(nrows);
	return rc;
}
