/* Running a loaded trace (`capture replay` and `compare`): the index of
 * its calls by thread, one replay thread per recorded thread (or one in
 * the recorded global order), and a pass over every call; each call is
 * made and checked by pp__cap_replay_call (replay.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_cli.h"
#include "replay.h"

static int by_thread(const void *a, const void *b)
{
	const call_at_t *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int by_order(const void *a, const void *b)
{
	const call_at_t *x = a, *y = b;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Replay the n calls at ats, in that order, with a reader of its own. */
static int replay_list(rp_t *r, const call_at_t *ats, size_t n)
{
	pp__cap_reader_t rd = r->rd; /* shares the functions, not the cursor */
	pp__cap_rec_t rec;
	rd.ended = 0;
	for (size_t i = 0; i < n; i++) {
		pthread_mutex_lock(&r->lock);
		int stop = r->stop;
		pthread_mutex_unlock(&r->lock);
		if (stop)
			return 3;
		rd.pos = ats[i].pos;
		if (pp__cap_next(&rd, &rec) != PP_CAP_CALL)
			return CLI_FAIL; /* read whole once: cannot happen */
		int rc = pp__cap_replay_call(r, r->fns[rec.fn - 1], &rec);
		if (rc < 0) {
			pthread_mutex_lock(&r->lock);
			r->stop = 1;
			cli_error("capture replay: %s (%llu calls replayed)", r->why[0] ? r->why : "out of memory",
				  (unsigned long long)r->replayed);
			pthread_mutex_unlock(&r->lock);
			return CLI_FAIL;
		}
		pthread_mutex_lock(&r->lock);
		r->replayed++;
		pthread_mutex_unlock(&r->lock);
		if (rc == 3)
			return 3;
	}
	return CLI_OK;
}

typedef struct job {
	rp_t *r;
	const call_at_t *ats;
	size_t n;
	int status;
} job_t;

static void *replay_thread(void *arg)
{
	job_t *j = arg;
	j->status = replay_list(j->r, j->ats, j->n);
	pthread_mutex_lock(&j->r->lock);
	j->r->running--;
	pthread_cond_broadcast(&j->r->bound);
	pthread_mutex_unlock(&j->r->lock);
	return NULL;
}

/* One replay thread per recorded thread (ats grouped by thread), each in
 * its own order. The worst status wins: a failure, then a difference. */
static int replay_threads(rp_t *r, const call_at_t *ats, size_t n)
{
	size_t ngroups = 0;
	for (size_t i = 0; i < n; i++)
		ngroups += !i || ats[i].tid != ats[i - 1].tid;
	job_t *jobs = calloc(ngroups, sizeof *jobs);
	pthread_t *th = calloc(ngroups, sizeof *th);
	if (!jobs || !th) {
		free(jobs), free(th);
		cli_error("capture replay: out of memory");
		return CLI_FAIL;
	}
	size_t g = 0;
	for (size_t i = 0; i < n; g++) {
		size_t k = i;
		while (k < n && ats[k].tid == ats[i].tid)
			k++;
		jobs[g] = (job_t){ r, ats + i, k - i, CLI_OK };
		i = k;
	}
	r->running = (int)ngroups;
	r->waiting = 0;
	size_t started = 0;
	for (; started < ngroups; started++)
		if (pthread_create(&th[started], NULL, replay_thread, &jobs[started]) != 0)
			break;
	if (started < ngroups) {
		pthread_mutex_lock(&r->lock);
		r->stop = 1;
		r->running -= (int)(ngroups - started);
		pthread_cond_broadcast(&r->bound);
		pthread_mutex_unlock(&r->lock);
	}
	int status = started < ngroups ? CLI_FAIL : CLI_OK;
	for (size_t i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		if (jobs[i].status == CLI_FAIL || (jobs[i].status == 3 && status == CLI_OK))
			status = jobs[i].status;
	}
	free(jobs);
	free(th);
	return status;
}

int pp__cap_replay_load(pp__cap_replay_t *x, const char *path, const char *libpath, const char *times,
			int keep, int serial, int deepbind)
{
	char err[512];
	memset(x, 0, sizeof *x);
	if (pp__input_open(&x->in, path, PP_CAP_MAGIC, 8, err, sizeof err) != 0) {
		cli_error("capture replay: %s", err);
		return CLI_FAIL;
	}
	x->opened = 1;
	x->lib = dlopen(libpath, RTLD_NOW | RTLD_LOCAL | (deepbind ? RTLD_DEEPBIND : 0));
	if (!x->lib) {
		cli_error("capture replay: %s", dlerror());
		return CLI_FAIL;
	}
	rp_t *r = &x->r;
	r->keep_going = keep;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->bound, NULL);
	pp__cap_open(&r->rd, path, x->in.data, x->in.size);
	x->loaded = 1;
	pp__cap_rec_t rec;
	int status = CLI_OK;
	/* The index: the functions (resolved in the library), and where each
	 * call starts and its thread; a damaged or cut end is said after the
	 * calls before it are replayed. */
	size_t cap = 0;
	int t;
	for (size_t at = r->rd.pos; (t = pp__cap_next(&r->rd, &rec)) > 0; at = r->rd.pos) {
		if (t == PP_CAP_FUNC && pp__cap_add_func(r, x->lib, times) != 0) {
			cli_error("capture replay: %s", r->why[0] ? r->why : "out of memory");
			status = CLI_FAIL;
			break;
		}
		if (t != PP_CAP_CALL)
			continue;
		if (x->nats == cap) {
			cap = cap ? 2 * cap : 1024;
			call_at_t *g = realloc(x->ats, cap * sizeof *g);
			if (!g) {
				cli_error("capture replay: out of memory");
				status = CLI_FAIL;
				break;
			}
			x->ats = g;
		}
		x->ats[x->nats] = (call_at_t){ at, rec.tid, x->nats };
		x->nats++;
	}
	if (status == CLI_OK && t < 0 && r->rd.cut)
		snprintf(x->end_msg, sizeof x->end_msg, "%s: cut inside the record after call %llu (the program "
			 "did not finish writing it); the calls before it were replayed", path,
			 (unsigned long long)x->nats);
	else if (status == CLI_OK && t < 0)
		snprintf(x->end_msg, sizeof x->end_msg, "%s (the %llu calls before it were replayed)", r->rd.why,
			 (unsigned long long)x->nats);
	else if (status == CLI_OK && !r->rd.ended)
		snprintf(x->end_msg, sizeof x->end_msg, "%s: cut after call %llu (no END record: the program "
			 "did not exit normally); the calls before it were replayed", path,
			 (unsigned long long)x->nats);
	/* one replay thread per recorded thread, unless --serial or only one */
	if (x->nats)
		qsort(x->ats, x->nats, sizeof *x->ats, by_thread);
	size_t nthreads = 0;
	for (size_t i = 0; i < x->nats; i++)
		nthreads += !i || x->ats[i].tid != x->ats[i - 1].tid;
	r->threaded = nthreads > 1 && !serial;
	if (!r->threaded && x->nats)
		qsort(x->ats, x->nats, sizeof *x->ats, by_order);
	return status;
}

int pp__cap_replay_pass(pp__cap_replay_t *x)
{
	rp_t *r = &x->r;
	for (size_t i = 0; i < r->nhandles; i++)
		r->handles[i] = NULL;
	r->stop = 0;
	return r->threaded ? replay_threads(r, x->ats, x->nats) : replay_list(r, x->ats, x->nats);
}

void pp__cap_replay_free(pp__cap_replay_t *x)
{
	rp_t *r = &x->r;
	for (size_t i = 0; i < r->nf; i++) {
		free(r->fns[i]->ns);
		for (int k = 0; k < PP_CAP_MAX_PARAMS; k++)
			if (r->fns[i]->cb[k]) {
				if (r->fns[i]->cb[k]->closure)
					ffi_closure_free(r->fns[i]->cb[k]->closure);
				free(r->fns[i]->cb[k]);
			}
		free(r->fns[i]);
	}
	free(r->fns);
	free(r->handles);
	free(x->ats);
	if (x->loaded)
		pp__cap_close(&r->rd);
	if (x->opened)
		pp__input_close(&x->in);
	/* the library stays loaded: its code may still be referenced by
	 * atexit handlers it installed */
}

