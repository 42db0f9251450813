/* The JSON export for programs: every field of the profile and each selected
 * path with its segments' percentiles and histogram bins (schema in
 * docs/reference/cli.md). Its string writer is shared with the CLI's JSON outputs. */
#include <math.h>
#include <string.h>

#include "report_impl.h"

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

void pp__report_json_str(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str_or_empty(str);
	fputc('"', out);
	while (*s) {
		size_t n = pp__report_utf8_seq(s);
		if (n == 0) {
			fputs("\\ufffd", out); /* ill-formed byte: JSON text must be UTF-8 */
			s++;
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, n, out);
		} else if (*s == '"' || *s == '\\') {
			fprintf(out, "\\%c", *s);
		} else if (*s == '\n') {
			fputs("\\n", out);
		} else if (*s == '\t') {
			fputs("\\t", out);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(out, "\\u%04x", *s);
		} else {
			fputc(*s, out);
		}
		s += n;
	}
	fputc('"', out);
}

static void json_u64(FILE *out, const char *key, uint64_t v, const char *sep)
{
	fprintf(out, "\"%s\": %llu%s", key, (unsigned long long)v, sep);
}

/* A node's inclusive-time histogram: count is its timed calls. */
static void json_incl(FILE *out, const pp_profile_t *p, const pp_seg_t *s)
{
	static const struct { const char *key; double pct; } pcts[] = {
		{ "p50_ns", 50 }, { "p90_ns", 90 }, { "p99_ns", 99 }, { "p999_ns", 99.9 },
	};
	fputc('{', out);
	json_u64(out, "count", s->count, ", ");
	json_u64(out, "sum_ticks", s->sum, ", ");
	json_u64(out, "min_ticks", s->min, ", ");
	json_u64(out, "max_ticks", s->max, ", ");
	fputs("\"mean_ns\": ", out);
	pp__report_json_num(out, s->count ? pp__ticks_ns(p, s->sum) / (double)s->count : 0, 3);
	fputs(", \"min_ns\": ", out);
	pp__report_json_num(out, pp__ticks_ns(p, s->min), 3);
	for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
		fprintf(out, ", \"%s\": ", pcts[i].key);
		pp__report_json_num(out, pp__ticks_ns(p, pp__seg_percentile(s, pcts[i].pct)), 3);
	}
	fputs(", \"max_ns\": ", out);
	pp__report_json_num(out, pp__ticks_ns(p, s->max), 3);
	fputs(", \"bins\": [", out);
	for (uint32_t b = 0; b < s->nbins; b++)
		fprintf(out, "%s[%u, %llu]", b ? ", " : "", s->bins[b].bucket,
			(unsigned long long)s->bins[b].count);
	fputs("]}", out);
}

/* ,"name_ids": [...], "path": [...] of a path or node. */
static void json_names(FILE *out, const pp_profile_t *p, const pp_ppath_t *pa, const char *sep)
{
	fprintf(out, ",%s\"name_ids\": [", sep);
	for (uint32_t d = 0; d < pa->depth; d++)
		fprintf(out, "%s%u", d ? ", " : "", pa->names[d]);
	fprintf(out, "],%s\"path\": [", sep);
	for (uint32_t d = 0; d < pa->depth; d++) {
		if (d)
			fputs(", ", out);
		pp__report_json_str(out, pp__report_name(p, pa->names[d]));
	}
	fputc(']', out);
}

/* "offcpu": present when the profile has off-CPU data (run --offcpu):
 * per (blocked node, reason, waker), the blocks and their off-CPU time in
 * ns. A node of depth 0 is "outside any gate". */
static void json_offcpu(FILE *out, const pp_profile_t *p)
{
	fputs(",\n  \"offcpu\": [", out);
	for (uint32_t i = 0; i < p->noffcpu; i++) {
		const pp_offcpu_t *e = &p->offcpu[i];
		const pp_seg_t *s = &e->time;
		fputs(i ? ",\n    {" : "\n    {", out);
		fprintf(out, "\"blocked_id\": \"%016llx\", \"reason\": \"%s\", \"waker\": \"%s\", "
			"\"waker_id\": ", (unsigned long long)e->blocked.id,
			pp__offcpu_reason_name(e->reason), pp__waker_name(e->waker_kind));
		if (e->waker.depth)
			fprintf(out, "\"%016llx\"", (unsigned long long)e->waker.id);
		else
			fputs("null", out);
		fputs(",\n     ", out);
		json_u64(out, "blocks", s->count, ", ");
		json_u64(out, "total_ns", s->sum, ", ");
		json_u64(out, "min_ns", s->min, ", ");
		json_u64(out, "p50_ns", pp__seg_percentile(s, 50), ", ");
		json_u64(out, "p99_ns", pp__seg_percentile(s, 99), ", ");
		json_u64(out, "max_ns", s->max, ",\n     ");
		fputs("\"blocked\": [", out);
		for (uint32_t d = 0; d < e->blocked.depth; d++) {
			fputs(d ? ", " : "", out);
			pp__report_json_str(out, pp__report_name(p, e->blocked.names[d]));
		}
		fputs("], \"waker_path\": [", out);
		for (uint32_t d = 0; d < e->waker.depth; d++) {
			fputs(d ? ", " : "", out);
			pp__report_json_str(out, pp__report_name(p, e->waker.names[d]));
		}
		/* where in the kernel it blocked, innermost first */
		fputs("],\n     \"kernel_stack\": [", out);
		const char *k = e->kstack ? e->kstack : "";
		for (int first = 1; *k; first = 0) {
			size_t n = strcspn(k, ";");
			char fn[256];
			snprintf(fn, sizeof fn, "%.*s", (int)(n < sizeof fn ? n : sizeof fn - 1), k);
			fputs(first ? "" : ", ", out);
			pp__report_json_str(out, fn);
			k += n + (k[n] == ';');
		}
		fputs("]}", out);
	}
	fputs(p->noffcpu ? "\n  ]" : "]", out);
}

int pp__report_json(FILE *out, const pp_profile_t *p, const pp_report_opts_t *o, const pp__row_t *rows,
		    size_t n)
{
	uint64_t total = 0;
	for (uint32_t i = 0; i < p->npaths; i++)
		total = pp__report_sat_add(total, p->paths[i].count);

	fprintf(out, "{\n  \"schema\": %d,\n", PP_REPORT_JSON_SCHEMA);
	fprintf(out, "  \"profile_version\": %u,\n", p->version);
	fputs("  \"frontend\": ", out);
	pp__report_json_str(out, p->frontend);
	fputs(",\n  \"command\": ", out);
	pp__report_json_str(out, p->command);
	/* who wrote it: null when the profile does not say (older files) */
	static const char *const who[3] = {"service", "host", "build_id"};
	const char *val[3] = {p->service, p->host, p->build_id};
	for (int i = 0; i < 3; i++) {
		fprintf(out, ",\n  \"%s\": ", who[i]);
		if (p->service)
			pp__report_json_str(out, val[i] ? val[i] : "");
		else
			fputs("null", out);
	}
	fputs(",\n  ", out);
	json_u64(out, "pid", p->pid, ",\n  ");
	json_u64(out, "start_ns", p->start_ns, ",\n  ");
	json_u64(out, "end_ns", p->end_ns, ",\n  ");
	fputs("\"ticks_per_ns\": ", out);
	if (pp__report_rate_known(p))
		fprintf(out, "%.9g", p->ticks_per_ns);
	else
		fputs("null", out);
	fprintf(out, ",\n  \"timing\": \"%s\",\n  ", pp__report_timing_word(p->timing));
	json_u64(out, "sample_n", p->sample_n, ",\n  ");
	if (pp__report_share_se(p, 0) >= 0)
		json_u64(out, "windows", p->windows, ",\n  ");
	json_u64(out, "events", p->events, ",\n  ");
	json_u64(out, "records", p->records, ",\n  ");
	json_u64(out, "drops_table", p->drops_table, ",\n  ");
	json_u64(out, "drops_depth", p->drops_depth, ",\n  ");
	json_u64(out, "unmatched", p->unmatched, ",\n  ");
	json_u64(out, "threads", p->threads, ",\n  ");
	json_u64(out, "drops_time", p->drops_time, ",\n  ");
	json_u64(out, "drops_signal", p->drops_signal, ",\n  ");
	json_u64(out, "unprofiled_frames", p->unprofiled_frames, ",\n  ");
	json_u64(out, "unprofiled_threads", p->unprofiled_threads, ",\n  ");
	if (p->recovered) {
		json_u64(out, "recovered_signal", p->recovered_signal, ",\n  ");
		json_u64(out, "recovered_raw_keys", p->recovered_raw_keys, ",\n  ");
	}
	if (p->crash_signal) {
		json_u64(out, "crash_signal", p->crash_signal, ",\n  ");
		json_u64(out, "crash_tid", p->crash_tid, ",\n  ");
	}
	fputs("\"gated_ns\": ", out);
	pp__report_json_num(out, pp__ticks_ns(p, pp__profile_gated_ticks(p)), 3);
	fputs(",\n  ", out);
	if (p->selection) {
		fputs("\"function_selection\": ", out);
		pp__report_json_str(out, p->selection);
		fputs(",\n  ", out);
		if (p->roots)
			json_u64(out, "outside_roots", p->outside_roots, ",\n  ");
	}
	if (p->budget != 0 || p->nthrottled) {
		/* budget -1: merged profiles ran under different ones */
		fputs("\"budget_pct\": ", out);
		pp__report_json_num(out, p->budget, 3);
		fputs(",\n  \"throttled\": [", out);
		for (uint32_t i = 0; i < p->nthrottled; i++) {
			const pp_throttled_t *e = &p->throttled[i];
			fputs(i ? ",\n    {\"function\": " : "\n    {\"function\": ", out);
			pp__report_json_str(out, pp__report_name(p, e->name));
			fprintf(out, ", \"calls\": %llu, \"incl_ns\": ", (unsigned long long)e->calls);
			pp__report_json_num(out, pp__ticks_ns(p, e->incl), 3);
			fprintf(out, ", \"at_ns\": %llu}", (unsigned long long)e->at_ns);
		}
		fputs(p->nthrottled ? "\n  ],\n  " : "],\n  ", out);
	}
	/* hook calls patched out: a budget's stopped functions, or a
	 * selection's left-out ones */
	if (p->budget != 0 || p->nthrottled || p->patched_sites || p->refused_sites)
		fprintf(out, "\"patched_sites\": %u, \"refused_sites\": %u,\n  ", p->patched_sites,
			p->refused_sites);
	if (p->has_cpu)
		fprintf(out, "\"cpu\": {\"cpu_ns\": %llu, \"preemptions\": %llu, \"blocks\": %llu},\n  ",
			(unsigned long long)p->cpu_ns, (unsigned long long)p->nivcsw,
			(unsigned long long)p->nvcsw);
	if (p->gate_in > 0 || p->gate_out > 0) {
		/* per timed gate, and what compensation took out (0 with --raw) */
		double k = pp__report_rate_known(p) ? 1 / p->ticks_per_ns : 1;
		fputs("\"gate_cost\": {\"inside_ns\": ", out);
		pp__report_json_num(out, p->gate_in * k, 3);
		fputs(", \"outside_ns\": ", out);
		pp__report_json_num(out, p->gate_out * k, 3);
		fputs(", \"removed_ns\": ", out);
		pp__report_json_num(out, p->compensated ? p->gate_removed * k : 0, 3);
		fprintf(out, ", \"compensated\": %s},\n  ", p->compensated ? "true" : "false");
	}
	if (p->own_n) {
		fputs("\"own_work\": {\"ns\": ", out);
		pp__report_json_num(out, pp__report_rate_known(p) ? (double)p->own_ticks / p->ticks_per_ns
								  : (double)p->own_ticks, 3);
		fprintf(out, ", \"count\": %llu},\n  ", (unsigned long long)p->own_n);
	}
	fprintf(out, "\"hist\": {\"sub_bits\": %u, \"rows\": %u, \"buckets\": %u},\n",
		PP_HIST_SUB_BITS, PP_HIST_ROWS, PP_HIST_BUCKETS);

	fputs("  \"names\": [", out);
	for (uint32_t i = 0; i < p->nnames; i++) {
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		pp__report_json_str(out, p->names[i].name);
		fputs(", \"file\": ", out);
		pp__report_json_str(out, p->names[i].file);
		fprintf(out, ", \"line\": %u}", p->names[i].line);
	}
	fputs(p->nnames ? "\n  ],\n  " : "],\n  ", out);

	json_u64(out, "total_count", total, ",\n  ");
	json_u64(out, "total_paths", p->npaths, ",\n  ");
	fprintf(out, "\"selection\": {\"sort\": \"%s\", \"top\": %u, \"min_count\": %llu, "
		     "\"min_time_ns\": %llu, \"shown\": %zu},\n",
		o->sort == PP_SORT_TIME ? "time" : "count", o->top,
		(unsigned long long)o->min_count, (unsigned long long)o->min_time_ns, n);

	fputs("  \"paths\": [", out);
	for (size_t i = 0; i < n; i++) {
		const pp_ppath_t *pa = rows[i].path;
		fputs(i ? ",\n    {\n" : "\n    {\n", out);
		fprintf(out, "      \"id\": \"%016llx\",\n      ", (unsigned long long)pa->id);
		json_u64(out, "count", pa->count, ",\n      ");
		fputs("\"share\": ", out);
		pp__report_json_num(out, total ? (double)pa->count / (double)total : 0, 6);
		fputs(",\n      \"self_ns\": ", out);
		if (pp__profile_node(p, pa->id))
			pp__report_json_num(out, pp__ticks_ns(p, rows[i].time), 3);
		else
			fputs("null", out);
		uint32_t el[16];
		size_t nel = pp__report_elided(p, pa, el, 16);
		for (size_t k = 0; k < nel; k++) {
			fputs(k ? ", " : ",\n      \"elided_below\": [", out);
			pp__report_json_str(out, pp__report_name(p, el[k]));
		}
		if (nel)
			fputs("]", out);
		json_names(out, p, pa, "\n      ");
		fputs("\n    }", out);
	}
	fputs(n ? "\n  ],\n" : "],\n", out);

	/* Every node (not only those on the shown paths): the export is whole. */
	double gated = (double)pp__profile_gated_ticks(p);
	fputs("  \"nodes\": [", out);
	for (uint32_t i = 0; i < p->nnodes; i++) {
		const pp_pnode_t *nd = &p->nodes[i];
		fputs(i ? ",\n    {\n" : "\n    {\n", out);
		fprintf(out, "      \"id\": \"%016llx\",\n      ", (unsigned long long)nd->id);
		json_u64(out, "calls", nd->incl.count, ",\n      ");
		json_u64(out, "self_ticks", nd->self, ",\n      ");
		fputs("\"self_ns\": ", out);
		pp__report_json_num(out, pp__ticks_ns(p, nd->self), 3);
		if (p->compensated) { /* the self time compensation took out */
			fputs(",\n      \"gate_ns\": ", out);
			pp__report_json_num(out, pp__ticks_ns(p, nd->gate), 3);
		}
		if (nd->open) /* burst timing: inclusive time of calls a window cut */
			fprintf(out, ",\n      \"open_ticks\": %llu", (unsigned long long)nd->open);
		double se = pp__report_share_se(p, gated > 0 ? (double)nd->self / gated : 0);
		if (se >= 0) { /* burst timing: the error on its share of self time */
			fputs(",\n      \"self_share_se\": ", out);
			pp__report_json_num(out, se, 6);
		}
		fputs(",\n      \"incl\": ", out);
		json_incl(out, p, &nd->incl);
		json_names(out, p, nd, "\n      ");
		fputs("\n    }", out);
	}
	fputs(p->nnodes ? "\n  ]" : "]", out);
	if (p->noffcpu)
		json_offcpu(out, p);
	fputs("\n}\n", out);
	return 0;
}
