/* `pathprof replay`: rebuild a profile from a recorded trace by pushing its
 * events through the runtime's own gate code (pp__gate_*_at with the recorded
 * timestamps), one replayed thread per recorded one and one slab per recorded
 * slab, so the result equals what the live process collected. --bench times
 * that aggregation per operation kind on the identical workload. */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pathprof/frontend.h>
#include "cli.h"
#include "map.h"
#include "profile.h"
#include "runtime.h"
#include "gate_impl.h"
#include "glob.h"
#include "slab.h"
#include "recorder.h"
#include "trace_read.h"

static const char help_text[] =
	"usage: pathprof replay [options] TRACE\n"
	"\n"
	"Rebuild the profile recorded in TRACE (written with PATHPROF_TRACE=FILE or\n"
	"pp_trace_open()) through the runtime's aggregation: the same counts, paths\n"
	"and histograms as the profile the live process wrote.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE  write the profile to FILE (required unless --bench)\n"
	"  --bench[=N]        replay N times (default 10) on fresh slabs and print,\n"
	"                     per operation (enter, leave, leaf record, root, first\n"
	"                     sight), calls, total and mean ns, and a TOTAL row\n"
	"                     (the repetition running shows on a terminal)\n"
	"  --chunks           list the complete chunks found (byte offset, stream,\n"
	"                     sequence, payload bytes, events; a '#' header line\n"
	"                     names the columns) instead of replaying\n"
	"  -h, --help         show this help\n"
	"\n"
	"A damaged or cut trace is replayed from every complete chunk; what was lost\n"
	"is listed on stderr. Exit status: 0 success, 1 unusable TRACE or failed\n"
	"write, 2 bad command line, 3 partial (some of TRACE was lost).\n";

enum { OP_ENTER, OP_LEAVE, OP_LEAF, OP_ROOT, OP_FIRST, OP_KINDS };
static const char *const op_names[OP_KINDS] = {"enter", "leave", "leaf record", "root",
					       "first sight"};

typedef struct bench {
	uint64_t calls[OP_KINDS];
	uint64_t ticks[OP_KINDS];
} bench_t;

typedef struct replay {
	pp_trace_t *tr;
	const char *path;
	pp__map_t site_of; /* recorded key -> index in sites */
	pp_site_t **sites;
	uint32_t nsites, cap_sites;
	int partial;
	uint64_t unrecorded, bad_chunks, cut_streams;
	uint64_t unnamed; /* keys with no NAME record in the trace */
} replay_t;

/* The replay names a key through a site descriptor, the raii front-end's
 * key: its name, file and line are the ones the live dump resolved. */
static pp_site_t *site_new(replay_t *r, uint64_t key, const char *name, const char *file,
			   uint32_t line)
{
	if (r->nsites == r->cap_sites) {
		uint32_t c = r->cap_sites ? r->cap_sites * 2 : 64;
		pp_site_t **m = realloc(r->sites, c * sizeof *m);
		if (!m)
			return NULL;
		r->sites = m;
		r->cap_sites = c;
	}
	pp_site_t *s = malloc(sizeof *s);
	char *n = strdup(name), *f = strdup(file);
	if (!s || !n || !f || pp__map_put(&r->site_of, key, r->nsites) != 0) {
		free(s);
		free(n);
		free(f);
		return NULL;
	}
	*s = (pp_site_t){n, f, line};
	r->sites[r->nsites++] = s;
	return s;
}

/* A key the trace never named (its definition was in a lost chunk, or the
 * recorder predates names at first sight) keeps the stand-in the runtime
 * itself would print, and is counted. */
static uint64_t key_of(replay_t *r, uint64_t key, int fe)
{
	uint32_t i;
	if (pp__map_get(&r->site_of, key, &i))
		return (uint64_t)(uintptr_t)r->sites[i];
	char buf[64];
	snprintf(buf, sizeof buf, "%s:0x%llx", pp__frontend_name(fe), (unsigned long long)key);
	pp_site_t *s = site_new(r, key, buf, "", 0);
	r->unnamed++;
	if (!s) {
		cli_error("replay: out of memory");
		exit(CLI_FAIL);
	}
	return (uint64_t)(uintptr_t)s;
}

typedef struct slab_use {
	pp__map_t by_ref; /* recorded slab ref -> index in tls */
	pp__tls_t **tls;
	uint32_t n, cap;
} slab_use_t;

/* The replayed thread state for a recorded thread: the recorded slab's
 * replayed counterpart when an earlier thread had it, else a fresh slab. */
static pp__tls_t *thread_state(slab_use_t *u, int have_ref, uint64_t ref)
{
	uint32_t i;
	pp__tls_t *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	if (have_ref && pp__map_get(&u->by_ref, ref, &i)) {
		pp__tls_t *old = u->tls[i];
		t->slab = old->slab;
		t->stack = old->stack;
		t->table = old->table;
		t->abase = old->abase;
		t->smask = old->smask;
		t->hash = PP__SEED;
		t->wend = PP__NO_WINDOW;
		free(old);
		u->tls[i] = t;
		return t;
	}
	if (pp__thread_start(t, PP_FE_RAII) != 0) {
		free(t);
		return NULL;
	}
	if (u->n == u->cap) {
		uint32_t c = u->cap ? u->cap * 2 : 16;
		pp__tls_t **m = realloc(u->tls, c * sizeof *m);
		if (!m)
			return NULL;
		u->tls = m;
		u->cap = c;
	}
	u->tls[u->n] = t;
	if (have_ref && pp__map_put(&u->by_ref, ref, u->n) != 0)
		return NULL;
	u->n++;
	return t;
}

static void slab_use_free(slab_use_t *u)
{
	for (uint32_t i = 0; i < u->n; i++)
		free(u->tls[i]);
	free(u->tls);
	pp__map_free(&u->by_ref);
	memset(u, 0, sizeof *u);
}

/* The root list the recorded process ran under (PATHPROF_ROOT), or NULL:
 * as the live gate did (gate_slow.c), an entry outside every root is
 * counted apart from the events, decided from the key's name. */
static const char *replay_roots;

static void enter(pp__tls_t *t, uint64_t key, int timed, uint64_t at)
{
	uint64_t hb = t->hash, e0 = t->slab ? t->slab->events : 0;
	pp__gate_enter_at(t, key, timed, at);
	if (replay_roots && hb == PP__SEED &&
	    !pp__select_name(replay_roots, ',', ((const pp_site_t *)(uintptr_t)key)->name))
		pp__outside_root(t, e0);
}

static void apply(pp__tls_t *t, const pp_trace_ev_t *ev, uint64_t key, bench_t *b)
{
	if (!b) {
		switch (ev->op) {
		case PP_EV_ENTER:
		case PP_EV_ENTER_T:
			enter(t, key, ev->op == PP_EV_ENTER_T, ev->ticks);
			break;
		case PP_EV_LEAVE:
		case PP_EV_LEAVE_T:
			pp__gate_leave_at(t, ev->ticks);
			break;
		case PP_EV_ROOT:
			pp__gate_root(t);
			break;
		case PP_EV_RESET:
			pp__slab_reset_all();
			break;
		}
		return;
	}
	int kind;
	uint64_t t0, t1;
	switch (ev->op) {
	case PP_EV_ENTER:
	case PP_EV_ENTER_T:
		t0 = pp_ticks();
		enter(t, key, ev->op == PP_EV_ENTER_T, ev->ticks);
		t1 = pp_ticks();
		kind = OP_ENTER;
		break;
	case PP_EV_LEAVE:
	case PP_EV_LEAVE_T: {
		pp__slab_t *s = (pp__slab_t *)t->slab;
		uint64_t before = s->npaths;
		int leaf = !t->excess && PP__DS_DEPTH(t->dstate) && (t->dstate & 1u);
		t0 = pp_ticks();
		pp__gate_leave_at(t, ev->ticks);
		t1 = pp_ticks();
		kind = !leaf ? OP_LEAVE : s->npaths != before ? OP_FIRST : OP_LEAF;
		break;
	}
	case PP_EV_ROOT:
		t0 = pp_ticks();
		pp__gate_root(t);
		t1 = pp_ticks();
		kind = OP_ROOT;
		break;
	default:
		return;
	}
	b->calls[kind]++;
	b->ticks[kind] += t1 - t0;
}

/* Replay every recorded thread in registration order. Threads never run
 * concurrently here: each slab's content depends only on its own threads'
 * events, in their order, so this reproduces every slab. */
static int run(replay_t *r, bench_t *b)
{
	pp_trace_t *tr = r->tr;
	slab_use_t u = {0};
	for (uint32_t i = 0; i < tr->nthreads; i++) {
		pp_trace_thread_t *th = &tr->threads[i];
		pp__tls_t *t = NULL;
		int fe = PP_FE_NONE, ended = 0;
		uint64_t want = 0, tid = 0, events = 0;
		for (uint32_t j = 0; j < th->nchunks; j++) {
			const pp_trace_chunk_t *ch = &th->chunks[j];
			pp_trace_cursor_t c;
			pp_trace_ev_t ev;
			int rc;
			uint32_t n = 0;
			/* After a lost chunk the stack is unknown: start afresh. */
			if (t && ch->seq != want)
				pp__gate_root(t);
			want = ch->seq + 1;
			pp__trace_cursor(&c, ch);
			while ((rc = pp__trace_next(&c, &ev)) > 0) {
				n++;
				if (ev.op == PP_EV_START && !t) {
					tid = ev.a[0];
					fe = (int)ev.a[3];
					t = thread_state(&u, 1, ev.a[1]);
					if (!t)
						goto oom;
					continue;
				}
				if (ev.op == PP_EV_END) {
					if (!b)
						r->unrecorded += ev.a[0];
					ended = 1;
					continue;
				}
				if (ev.op == PP_EV_START)
					continue;
				if (!t && !(t = thread_state(&u, 0, 0)))
					goto oom;
				uint64_t key = ev.op == PP_EV_ENTER || ev.op == PP_EV_ENTER_T
						       ? key_of(r, ev.key, fe)
						       : 0;
				apply(t, &ev, key, b);
				events++;
			}
			if ((rc < 0 || n != ch->nevents) && !b) {
				cli_error("%s: thread %llu: chunk at byte %llu does not decode after event %u; "
					  "its rest is skipped",
					  r->path, (unsigned long long)th->stream,
					  (unsigned long long)ch->offset, n);
				r->bad_chunks++;
			}
		}
		/* Every stream ends with its thread's end record (trace version
		 * 3): without it the thread's last chunk never reached the file. */
		if (!ended && !b) {
			cli_error("%s: thread %llu (tid %llu): its stream stops after %llu event(s) in "
				  "%u chunk(s) without the thread's end record: what it ran after its "
				  "last written chunk is lost (killed, or still running at an exit "
				  "without the exit dump)",
				  r->path, (unsigned long long)th->stream, (unsigned long long)tid,
				  (unsigned long long)events, th->nchunks);
			r->cut_streams++;
		}
	}
	slab_use_free(&u);
	return 0;
oom:
	cli_error("replay: cannot get a slab for a replayed thread (raise PATHPROF_ARENA_MB)");
	slab_use_free(&u);
	return -1;
}

static int names_in(replay_t *r)
{
	for (uint32_t i = 0; i < r->tr->nnames; i++) {
		const pp_trace_name_t *n = &r->tr->names[i];
		uint32_t at;
		if (pp__map_get(&r->site_of, n->key, &at))
			continue;
		if (!site_new(r, n->key, n->name, n->file, n->line))
			return -1;
	}
	return 0;
}

/* The fields collect takes from the running process come from the trace. */
static int meta_from_trace(pp_profile_t *p, const pp_trace_t *tr)
{
	const pp_profile_t *m = &tr->meta;
	free(p->frontend);
	free(p->command);
	p->frontend = strdup(tr->has_meta ? m->frontend : "replay");
	p->command = strdup(tr->has_meta ? m->command : "");
	p->pid = tr->has_meta ? m->pid : tr->pid;
	p->start_ns = tr->has_meta ? m->start_ns : tr->start_ns;
	p->end_ns = tr->has_meta ? m->end_ns : 0;
	p->ticks_per_ns = tr->has_meta ? m->ticks_per_ns : 0;
	p->timing = tr->has_meta ? m->timing : 0;
	p->sample_n = tr->has_meta ? m->sample_n : 0;
	p->gate_in = tr->has_meta ? m->gate_in : 0;
	free(p->selection);
	free(p->roots);
	p->selection = p->roots = NULL;
	if (tr->has_meta && ((m->selection && !(p->selection = strdup(m->selection))) ||
			     (m->roots && !(p->roots = strdup(m->roots)))))
		return -1;
	p->has_cpu = tr->has_meta && m->has_cpu;
	p->cpu_ns = m->cpu_ns;
	p->nvcsw = m->nvcsw;
	p->nivcsw = m->nivcsw;
	p->gate_out = tr->has_meta ? m->gate_out : 0;
	p->threads = tr->has_meta ? m->threads : tr->nthreads;
	p->drops_depth += tr->skipped;
	/* who wrote it: the recorded process, never this tool */
	char **mine[3] = {&p->service, &p->host, &p->build_id};
	const char *theirs[3] = {m->service, m->host, m->build_id};
	for (int i = 0; i < 3; i++) {
		free(*mine[i]);
		*mine[i] = NULL;
		if (tr->has_meta && m->service && !(*mine[i] = strdup(theirs[i] ? theirs[i] : "")))
			return -1;
	}
	return p->frontend && p->command ? 0 : -1;
}

static void report_loss(const replay_t *r)
{
	const pp_trace_t *tr = r->tr;
	for (uint32_t i = 0; i < tr->ndamage; i++)
		cli_error("%s: bytes %llu..%llu (%llu bytes) %s, skipped", r->path,
			  (unsigned long long)tr->damage[i].offset,
			  (unsigned long long)(tr->damage[i].offset + tr->damage[i].length - 1),
			  (unsigned long long)tr->damage[i].length, tr->damage[i].what);
	for (uint32_t i = 0; i < tr->nthreads; i++) {
		if (tr->threads[i].missing)
			cli_error("%s: thread %llu: %llu chunk(s) missing from its sequence", r->path,
				  (unsigned long long)tr->threads[i].stream,
				  (unsigned long long)tr->threads[i].missing);
		if (tr->threads[i].duplicates)
			cli_error("%s: thread %llu: %llu chunk(s) repeat an earlier chunk's sequence "
				  "number: dropped", r->path,
				  (unsigned long long)tr->threads[i].stream,
				  (unsigned long long)tr->threads[i].duplicates);
	}
	if (tr->duplicates > 0 && !tr->nthreads)
		cli_error("%s: %llu duplicated chunk(s) dropped", r->path,
			  (unsigned long long)tr->duplicates);
	if (!tr->closed)
		cli_error("%s: no end-of-trace record (the process did not exit normally, or the "
			  "file was cut): each thread's last chunk may be missing",
			  r->path);
	if (r->unrecorded)
		cli_error("%s: %llu event(s) were not recorded (signal handlers ran gated code "
			  "inside the recorder)",
			  r->path, (unsigned long long)r->unrecorded);
	if (r->unnamed)
		cli_error("%s: %llu key(s) have no name in the trace (their definitions were "
			  "lost): shown as FRONTEND:0xKEY",
			  r->path, (unsigned long long)r->unnamed);
	if (r->partial)
		cli_error("%s: partial replay: %llu byte(s) lost in %u stretch(es), %llu chunk(s) "
			  "missing, %llu chunk(s) used",
			  r->path, (unsigned long long)tr->bytes_lost, tr->ndamage,
			  (unsigned long long)tr->chunks_missing, (unsigned long long)tr->chunks_ok);
}

static int print_bench(const replay_t *r, const bench_t *b, uint64_t reps, double tpn,
		       double overhead)
{
	uint64_t calls = 0, ticks = 0;
	printf("replay bench: %s, %llu repetition(s), %u thread(s)\n", r->path,
	       (unsigned long long)reps, r->tr->nthreads);
	printf("%-12s %14s %18s %12s\n", "operation", "calls", "total ns", "mean ns");
	for (int k = 0; k < OP_KINDS; k++) {
		calls += b->calls[k];
		ticks += b->ticks[k];
		double ns = (double)b->ticks[k] / tpn;
		printf("%-12s %14llu %18.1f %12.2f\n", op_names[k], (unsigned long long)b->calls[k],
		       ns, b->calls[k] ? ns / (double)b->calls[k] : 0.0);
	}
	double ns = (double)ticks / tpn;
	printf("%-12s %14llu %18.1f %12.2f\n", "TOTAL", (unsigned long long)calls, ns,
	       calls ? ns / (double)calls : 0.0);
	printf("(each call includes one clock-read pair, %.2f ns; tick rate %.4f GHz)\n", overhead,
	       tpn);
	return cli_output_close(stdout, NULL);
}

static double pair_overhead(double tpn)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 1000; i++) {
		uint64_t a = pp_ticks(), z = pp_ticks();
		if (z - a < best)
			best = z - a;
	}
	return (double)best / tpn;
}

static int by_offset(const void *a, const void *b)
{
	uint64_t x = ((const pp_trace_chunk_t *)a)->offset, y = ((const pp_trace_chunk_t *)b)->offset;
	return x < y ? -1 : x > y;
}

/* Thread chunks in file order (process records are not kept as chunks). */
static int list_chunks(const pp_trace_t *tr)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < tr->nthreads; i++)
		n += tr->threads[i].nchunks;
	pp_trace_chunk_t *all = malloc((n ? n : 1) * sizeof *all);
	uint64_t *stream = malloc((n ? n : 1) * sizeof *stream);
	if (!all || !stream) {
		free(all);
		free(stream);
		cli_error("replay: out of memory");
		return CLI_FAIL;
	}
	n = 0;
	for (uint32_t i = 0; i < tr->nthreads; i++)
		for (uint32_t j = 0; j < tr->threads[i].nchunks; j++) {
			all[n] = tr->threads[i].chunks[j];
			/* the stream rides in the unused data pointer's place */
			stream[n] = tr->threads[i].stream;
			all[n].data = (const uint8_t *)(uintptr_t)n;
			n++;
		}
	qsort(all, n, sizeof *all, by_offset);
	/* a '#' header: scripts skip it with grep -v '^#' */
	printf("# offset stream sequence bytes events\n");
	for (uint64_t i = 0; i < n; i++)
		printf("%llu %llu %llu %u %u\n", (unsigned long long)all[i].offset,
		       (unsigned long long)stream[(uintptr_t)all[i].data],
		       (unsigned long long)all[i].seq, all[i].len, all[i].nevents);
	free(all);
	free(stream);
	return cli_output_close(stdout, NULL);
}

enum { OPT_BENCH = 256, OPT_CHUNKS };

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "bench", optional_argument, NULL, OPT_BENCH },
	{ "chunks", no_argument, NULL, OPT_CHUNKS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_replay(int argc, char **argv)
{
	const char *out = NULL;
	uint64_t reps = 0;
	int c, chunks = 0;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case OPT_BENCH:
			reps = 10;
			if (optarg && cli_parse_u64("replay: --bench", optarg, 1000000, &reps) < 0)
				return CLI_USAGE;
			if (!reps) {
				cli_error("replay: --bench: needs at least 1 repetition");
				return CLI_USAGE;
			}
			break;
		case OPT_CHUNKS:
			chunks = 1;
			break;
		case 'h':
			return cli_help(help_text);
		default:
			return cli_bad_option("replay", c, argv);
		}
	}
	if (optind >= argc) {
		cli_error("replay: no trace file given (see 'pathprof replay --help')");
		return CLI_USAGE;
	}
	if (optind + 1 < argc) {
		cli_error("replay: one trace file at a time ('%s' is extra)", argv[optind + 1]);
		return CLI_USAGE;
	}
	if (!out && !reps && !chunks) {
		cli_error("replay: no output given: -o FILE (or --bench)");
		return CLI_USAGE;
	}
	/* the profile would replace the trace it came from */
	if (out && cli_same_file(out, argv[optind])) {
		cli_error("replay: -o %s is the trace being replayed: name another file for the profile", out);
		return CLI_USAGE;
	}
	replay_t r = {.path = argv[optind]};
	pp_trace_t tr;
	char err[512];
	int lrc = pp__trace_load(&tr, r.path, err, sizeof err);
	if (lrc < 0) {
		cli_error("%s", err);
		return CLI_FAIL;
	}
	r.tr = &tr;
	int status = CLI_FAIL;
	if (tr.other_pid && !chunks) {
		/* Two processes' events in one file: a replay would mix their
		 * threads and paths into a profile neither process had. */
		cli_error("%s: written by two processes at once (pids %llu and %llu); nothing "
			  "replayed (record with PATHPROF_TRACE=NAME.%%p)",
			  r.path, (unsigned long long)tr.other_pid, (unsigned long long)tr.pid);
		status = CLI_PARTIAL;
		goto done;
	}
	if (chunks) {
		status = list_chunks(&tr);
		goto done;
	}
	pp__init();
	replay_roots = tr.has_meta ? tr.meta.roots : NULL;
	/* The replay's slabs are this tool's own working memory: never a live
	 * segment (the runtime exports one by default). */
	pp__config.shm[0] = '\0';
	if (tr.has_config) {
		if (tr.depth < 2 || tr.depth > 65536 || tr.paths < 16 || tr.paths > (1u << 26)) {
			cli_error("%s: recorded depth bound %llu or path capacity %llu out of range",
				  r.path, (unsigned long long)tr.depth, (unsigned long long)tr.paths);
			goto done;
		}
		pp__config.depth = (uint32_t)tr.depth;
		pp__config.paths = tr.paths;
	}
	if (names_in(&r) != 0) {
		cli_error("replay: out of memory");
		goto done;
	}
	if (reps) {
		bench_t b = {0};
		/* a long bench says where it is (on a terminal only) */
		for (uint64_t i = 0; i < reps; i++) {
			cli_progress("replay --bench: repetition %llu of %llu",
				     (unsigned long long)i + 1, (unsigned long long)reps);
			if (run(&r, &b) != 0)
				goto done;
		}
		cli_progress_end();
		double tpn = pp__clock_ticks_per_ns();
		status = print_bench(&r, &b, reps, tpn, pair_overhead(tpn));
		if (status != CLI_OK || !out)
			goto done;
		pp__slab_reset_all();
	}
	if (run(&r, NULL) != 0)
		goto done;
	r.partial = lrc > 0 || r.unrecorded || r.bad_chunks || r.cut_streams;
	pp_profile_t p;
	if (pp__profile_collect(&p, err, sizeof err) != 0) {
		cli_error("replay: %s", err);
		goto done;
	}
	if (meta_from_trace(&p, &tr) != 0) {
		cli_error("replay: out of memory");
		pp__profile_free(&p);
		goto done;
	}
	int wrc = pp__profile_write(&p, out, err, sizeof err);
	pp__profile_free(&p);
	if (wrc != 0) {
		cli_error("%s", err);
		goto done;
	}
	report_loss(&r);
	status = r.partial ? CLI_PARTIAL : CLI_OK;
done:
	for (uint32_t i = 0; i < r.nsites; i++) {
		free((char *)r.sites[i]->name);
		free((char *)r.sites[i]->file);
		free(r.sites[i]);
	}
	free(r.sites);
	pp__map_free(&r.site_of);
	pp__trace_free(&tr);
	return status;
}
