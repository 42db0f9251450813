/* The live view's text and JSON (report_top.h): per path, what changed
 * since the previous snapshot (leaf returns and their rate, the time spent
 * on it), and each node's p50/p99 with their changes. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pathprof/pathprof.h>
#include "report.h"
#include "report_top.h"

#define JSON_SCHEMA 1

static const char *const sort_names[] = { "rate", "time", "count" };

typedef struct frame_path {
	const pp_ppath_t *p;
	const pp_ppath_t *prev; /* same id in the previous snapshot, or NULL */
	uint64_t delta;         /* leaf returns since the previous snapshot */
	uint64_t time;          /* ticks spent on it since then (all segments) */
} frame_path_t;

/* A path's time: its leaf node's self time (as the report's). */
static uint64_t path_time(const pp_profile_t *prof, const pp_ppath_t *p)
{
	const pp_pnode_t *leaf = pp__profile_node(prof, p->id);
	return leaf ? leaf->self : 0;
}

static pp__top_sort_t cmp_sort;
static int by_key(const void *a, const void *b)
{
	const frame_path_t *x = a, *y = b;
	uint64_t kx, ky;
	switch (cmp_sort) {
	case PP__TOP_TIME:
		kx = x->time;
		ky = y->time;
		break;
	case PP__TOP_COUNT:
		kx = x->p->count;
		ky = y->p->count;
		break;
	default:
		kx = x->delta;
		ky = y->delta;
		break;
	}
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return x->p->id < y->p->id ? -1 : x->p->id > y->p->id;
}

/* The paths of the current snapshot with what changed since the previous
 * one; sorted, all of them (the caller cuts at top). */
static frame_path_t *frame_paths(const pp__top_view_t *v)
{
	const pp_profile_t *c = &v->cur, *p = &v->prev;
	frame_path_t *fp = calloc(c->npaths ? c->npaths : 1, sizeof *fp);
	pp__map_t ids = { 0 };
	if (!fp)
		return NULL;
	for (uint32_t i = 0; v->have_prev && i < p->npaths; i++)
		if (pp__map_put(&ids, p->paths[i].id, i) != 0) {
			free(fp);
			pp__map_free(&ids);
			return NULL;
		}
	for (uint32_t i = 0; i < c->npaths; i++) {
		uint32_t at;
		fp[i].p = &c->paths[i];
		fp[i].prev = v->have_prev && pp__map_get(&ids, c->paths[i].id, &at) ? &p->paths[at] : NULL;
		uint64_t pc = fp[i].prev ? fp[i].prev->count : 0;
		uint64_t pt = fp[i].prev ? path_time(p, fp[i].prev) : 0;
		uint64_t t = path_time(c, fp[i].p);
		fp[i].delta = c->paths[i].count >= pc ? c->paths[i].count - pc : 0;
		fp[i].time = t >= pt ? t - pt : 0;
	}
	pp__map_free(&ids);
	cmp_sort = v->sort;
	if (c->npaths > 1)
		qsort(fp, c->npaths, sizeof *fp, by_key);
	return fp;
}

/* Seconds the deltas cover: since the previous snapshot, or since the
 * program started (until it exited) on the first one. */
static double span_s(const pp__top_view_t *v)
{
	uint64_t from = v->have_prev ? v->pst.taken_ns : v->cur.start_ns;
	uint64_t to = v->cur.end_ns;
	if (v->have_prev)
		to = v->st.taken_ns;
	return to > from ? (double)(to - from) / 1e9 : 0;
}

static double rate(uint64_t n, double s)
{
	return s > 0 ? (double)n / s : 0;
}

static uint64_t delta(uint64_t now, uint64_t before)
{
	return now >= before ? now - before : 0;
}

/* "crashed" once the writer met a fatal signal: its profile file was
 * written then, and the segment holds what it had counted (docs/guides/crash.md). */
static const char *state_word(const pp__shm_stats_t *st)
{
	if (st->exited)
		return "exited";
	if (st->crash_signal)
		return st->alive ? "crashing" : "crashed";
	return st->alive ? "running" : "dead";
}

static double seg_pct_ns(const pp_profile_t *p, const pp_seg_t *s, double pct)
{
	return s && s->count ? pp__ticks_ns(p, pp__seg_percentile(s, pct)) : 0;
}

static void render_json(FILE *f, const pp__top_view_t *v, const frame_path_t *fp, uint32_t n)
{
	const pp_profile_t *c = &v->cur, *p = v->have_prev ? &v->prev : NULL;
	double s = span_s(v);
	uint64_t de = delta(c->events, p ? p->events : 0), dr = delta(c->records, p ? p->records : 0);
	fprintf(f, "{\"schema\":%d,\"segment\":", JSON_SCHEMA);
	pp__report_json_str(f, v->seg.object);
	fprintf(f, ",\"program\":");
	pp__report_json_str(f, v->st.program);
	fprintf(f, ",\"pid\":%llu,\"state\":\"%s\",\"crash_signal\":%u,\"generation\":%llu,"
		   "\"time_ns\":%llu,\"span_s\":%.6f,\"first\":%s,\"frontend\":",
		(unsigned long long)v->st.pid, state_word(&v->st), v->st.crash_signal,
		(unsigned long long)v->st.generation,
		(unsigned long long)v->st.taken_ns, s, p ? "false" : "true");
	pp__report_json_str(f, c->frontend);
	fprintf(f, ",\"ticks_per_ns\":%.6f,\"events\":%llu,\"records\":%llu,\"events_per_s\":%.3f,"
		   "\"records_per_s\":%.3f,\"drops_table\":%llu,\"drops_depth\":%llu,"
		   "\"unmatched\":%llu,\"unnamed_records\":%llu,\"naming_thread\":%s,\"threads\":%llu,"
		   "\"threads_live\":%llu,\"npaths\":%u,\"sort\":\"%s\",\"gate_cost\":",
		c->ticks_per_ns, (unsigned long long)c->events, (unsigned long long)c->records,
		rate(de, s), rate(dr, s), (unsigned long long)c->drops_table,
		(unsigned long long)c->drops_depth, (unsigned long long)c->unmatched,
		(unsigned long long)v->st.unnamed_records, v->st.namer ? "true" : "false",
		(unsigned long long)c->threads, (unsigned long long)v->st.threads_live, c->npaths,
		sort_names[v->sort]);
	if (c->gate_in > 0 || c->gate_out > 0)
		fprintf(f, "{\"inside_ns\":%.3f,\"outside_ns\":%.3f,\"compensated\":%s}",
			pp__ticks_ns(c, c->gate_in), pp__ticks_ns(c, c->gate_out),
			c->compensated ? "true" : "false");
	else
		fputs("null", f);
	fputs(",\"paths\":[", f);
	for (uint32_t i = 0; i < n; i++) {
		const pp_ppath_t *q = fp[i].p;
		fprintf(f, "%s{\"id\":\"%016llx\",\"names\":[", i ? "," : "", (unsigned long long)q->id);
		for (uint32_t k = 0; k < q->depth; k++) {
			if (k)
				fputc(',', f);
			pp__report_json_str(f, c->names[q->names[k]].name);
		}
		fprintf(f, "],\"count\":%llu,\"delta\":%llu,\"rate\":%.3f,\"time_ns\":%.1f",
			(unsigned long long)q->count, (unsigned long long)fp[i].delta,
			rate(fp[i].delta, s), pp__ticks_ns(c, fp[i].time));
		if (c->nnodes) {
			fputs(",\"nodes\":[", f);
			for (uint32_t k = 0; k < q->depth; k++) {
				const pp_pnode_t *gn = pp__profile_stage(c, q, k);
				const pp_pnode_t *pn = p && fp[i].prev ? pp__profile_stage(p, fp[i].prev, k) : NULL;
				static const pp_seg_t empty;
				const pp_seg_t *g = gn ? &gn->incl : &empty;
				const pp_seg_t *pg = pn ? &pn->incl : NULL;
				double p50 = seg_pct_ns(c, g, 50), p99 = seg_pct_ns(c, g, 99);
				fprintf(f, "%s{\"count\":%llu,\"p50_ns\":%.1f,\"p99_ns\":%.1f,"
					   "\"p50_change_ns\":%.1f,\"p99_change_ns\":%.1f}",
					k ? "," : "", (unsigned long long)g->count, p50, p99,
					pg ? p50 - seg_pct_ns(p, pg, 50) : 0.0,
					pg ? p99 - seg_pct_ns(p, pg, 99) : 0.0);
			}
			fputc(']', f);
		}
		fputc('}', f);
	}
	fputs("]}\n", f);
}


/* What the times below hold of the gate's own cost (report/compensate.c):
 * the figures the process measured while it ran, taken out unless --raw. */
static void gate_cost_line(FILE *f, const pp_profile_t *c)
{
	if (c->timing == PP_TIMING_OFF)
		return;
	if (!(c->gate_in > 0 || c->gate_out > 0))
		fputs("gate cost: not measured yet, the times hold it\n", f);
	else
		fprintf(f, "gate cost: %.1f + %.1f ns a timed gate (inside + outside), %s\n",
			pp__ticks_ns(c, c->gate_in), pp__ticks_ns(c, c->gate_out),
			c->compensated ? "taken out of the times (--raw: as measured)"
				       : "in the times (--raw)");
}

static void render_text(FILE *f, const pp__top_view_t *v, const frame_path_t *fp, uint32_t n)
{
	const pp_profile_t *c = &v->cur, *p = v->have_prev ? &v->prev : NULL;
	double s = span_s(v);
	uint64_t de = delta(c->events, p ? p->events : 0), dr = delta(c->records, p ? p->records : 0);
	/* the gated time of the interval the paths' times cover */
	uint64_t total_time = delta(pp__profile_gated_ticks(c), p ? pp__profile_gated_ticks(p) : 0);
	if (v->tty)
		fputs("\033[H\033[2J", f);
	fprintf(f, "pathprof top  %s (pid %llu, %s)  segment %s%s\n", v->st.program,
		(unsigned long long)v->st.pid, state_word(&v->st), v->seg.object,
		v->frozen ? "  [frozen]" : "");
	fprintf(f, "events %llu (%.1f/s)  records %llu (%.1f/s)  %s %.2f s\n",
		(unsigned long long)c->events, rate(de, s), (unsigned long long)c->records,
		rate(dr, s), p ? "over" : "average since start over", s);
	fprintf(f, "threads %llu (%llu live)  drops: table %llu depth %llu  unmatched %llu  "
		   "unnamed %llu  paths %u\n",
		(unsigned long long)c->threads, (unsigned long long)v->st.threads_live,
		(unsigned long long)c->drops_table, (unsigned long long)c->drops_depth,
		(unsigned long long)c->unmatched, (unsigned long long)v->st.unnamed_records,
		c->npaths);
	fprintf(f, "sort: %s  top %u%s\n", sort_names[v->sort], v->top,
		v->top ? "" : " (all)");
	if (v->st.alive && !v->st.exited && !v->st.namer && v->st.unnamed_records)
		fputs("names: some at the program's exit; it runs one thread, pathprof starts none "
		      "in it, and its files name only cyg and raii keys (PATHPROF_NAMER=on names "
		      "while it runs, at a cost: docs/guides/live.md)\n",
		      f);
	gate_cost_line(f, c);
	fputc('\n', f);
	fprintf(f, "%12s %14s %12s %6s  %s\n", "rate/s", "count", "change", "time%", "path");
	uint64_t shown_time = 0;
	for (uint32_t i = 0; i < n; i++) {
		const pp_ppath_t *q = fp[i].p;
		shown_time += fp[i].time;
		char pct[16] = "";
		if (c->nnodes && total_time)
			snprintf(pct, sizeof pct, "%.1f", 100.0 * (double)fp[i].time / (double)total_time);
		fprintf(f, "%12.1f %14llu %+12lld %6s  ", rate(fp[i].delta, s),
			(unsigned long long)q->count, (long long)fp[i].delta, pct);
		for (uint32_t k = 0; k < q->depth; k++)
			fprintf(f, "%s%s", k ? ">" : "", c->names[q->names[k]].name);
		fputc('\n', f);
		for (uint32_t k = 0; c->nnodes && k < q->depth; k++) {
			const pp_pnode_t *gn = pp__profile_stage(c, q, k);
			const pp_pnode_t *pn = p && fp[i].prev ? pp__profile_stage(p, fp[i].prev, k) : NULL;
			static const pp_seg_t empty;
			const pp_seg_t *g = gn ? &gn->incl : &empty;
			const pp_seg_t *pg = pn ? &pn->incl : NULL;
			char a[32], b[32], da[32], db[32];
			double p50 = seg_pct_ns(c, g, 50), p99 = seg_pct_ns(c, g, 99);
			pp__report_duration(p50, 1, a, sizeof a);
			pp__report_duration(p99, 1, b, sizeof b);
			pp__report_duration(pg ? p50 - seg_pct_ns(p, pg, 50) : 0, 1, da, sizeof da);
			pp__report_duration(pg ? p99 - seg_pct_ns(p, pg, 99) : 0, 1, db, sizeof db);
			fprintf(f, "%47s%-24s p50 %8s (%s%s)  p99 %8s (%s%s)\n", "",
				c->names[q->names[k]].name, a, da[0] == '-' ? "" : "+", da, b,
				db[0] == '-' ? "" : "+", db);
		}
	}
	/* time% is a leaf's self time: say where the rest of the gated time is */
	if (c->nnodes && total_time)
		fprintf(f, "\ntime%%: the path's leaf self time over the gated time; the rows shown "
			   "hold %.1f%%, the other %.1f%% is the self time of the nodes above the "
			   "leaves and of paths not shown\n",
			100.0 * (double)shown_time / (double)total_time,
			100.0 - 100.0 * (double)shown_time / (double)total_time);
	if (v->tty)
		fputs("\nkeys: r rate  t time  c count  +/- paths  f freeze  q quit\n", f);
	else
		fputc('\n', f);
}

int pp__report_top(FILE *f, pp__top_view_t *v)
{
	frame_path_t *fp = frame_paths(v);
	if (!fp)
		return -1;
	uint32_t n = v->top && v->top < v->cur.npaths ? v->top : v->cur.npaths;
	if (v->json)
		render_json(f, v, fp, n);
	else
		render_text(f, v, fp, n);
	free(fp);
	fflush(f);
	return ferror(f) ? -1 : 0;
}

