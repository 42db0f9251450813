/* The statistics of `pathprof diff`: per-path numbers of both sides matched
 * by id, the interval of the change, the noise floor from A's runs and the
 * verdict that needs the change to clear both (docs/guides/trace.md). Deterministic:
 * the same inputs give the same intervals, so outputs compare exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff_stats.h"
#include "map.h"

double diff_time_ns(const pp_profile_t *p, uint64_t id)
{
	const pp_pnode_t *n = pp__profile_node(p, id);
	return n ? pp__ticks_ns(p, n->incl.sum + n->open) : 0;
}

static double self_ns(const pp_profile_t *p, uint64_t id)
{
	const pp_pnode_t *n = pp__profile_node(p, id);
	return n ? pp__ticks_ns(p, n->self) : 0;
}

static double timed_calls(const pp_profile_t *p, uint64_t id)
{
	const pp_pnode_t *n = pp__profile_node(p, id);
	return n ? (double)n->incl.count : 0;
}

/* Deterministic generator for the bootstrap: the same inputs always give the
 * same interval, so outputs can be compared exactly. */
static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Variance of the node's per-call inclusive times, from its histogram
 * (bucket midpoints), in ns^2. */
static double node_var(const pp_profile_t *p, uint64_t id)
{
	const pp_pnode_t *n = pp__profile_node(p, id);
	const pp_seg_t *g = n ? &n->incl : NULL;
	if (!g || !g->count)
		return 0;
	double mean = (double)g->sum / (double)g->count, v = 0;
	for (uint32_t b = 0; b < g->nbins; b++) {
		double d = (double)pp__hist_mid(g->bins[b].bucket) - mean;
		v += (double)g->bins[b].count * d * d;
	}
	double ns = pp__ticks_ns(p, 1000000) / 1e6; /* ns per tick */
	return v / (double)g->count * ns * ns;
}

/* The bucket bounds (ns) of the k-th smallest call (1-based) of a node. */
static void rank_bounds(const pp_profile_t *p, const pp_seg_t *g, uint64_t k, double *lo, double *hi)
{
	uint64_t seen = 0;
	for (uint32_t b = 0; b < g->nbins; b++) {
		seen += g->bins[b].count;
		if (seen >= k) {
			uint64_t l = pp__hist_low(g->bins[b].bucket), h = pp__hist_high(g->bins[b].bucket);
			*lo = pp__ticks_ns(p, l < g->min ? g->min : l);
			*hi = pp__ticks_ns(p, h > g->max ? g->max : h);
			return;
		}
	}
	*lo = *hi = pp__ticks_ns(p, g->max);
}

/* A distribution-free 95 % interval of a node's median call, from the
 * order statistics either side of the middle (the binomial's normal
 * approximation; n >= DIFF_MIN_CALLS) and the bounds of their buckets: a
 * few preempted calls, which move the mean by their milliseconds, move it
 * by a rank or two. */
static void median_interval(const diff_per_side_t *x, uint64_t id, double *lo, double *hi)
{
	const pp_pnode_t *nd = pp__profile_node(x->prof, id);
	const pp_seg_t *g = &nd->incl;
	double n = (double)g->count, half = 1.96 * sqrt(n) / 2;
	uint64_t k_lo = (uint64_t)floor(n / 2 - half), k_hi = (uint64_t)ceil(n / 2 + half) + 1;
	double dummy;
	rank_bounds(x->prof, g, k_lo < 1 ? 1 : k_lo, lo, &dummy);
	rank_bounds(x->prof, g, k_hi > g->count ? g->count : k_hi, &dummy, hi);
}

/* A node's median call (ns), interpolated within its bucket as the
 * report's p50 is. */
static double median_ns(const diff_per_side_t *x, uint64_t id)
{
	const pp_pnode_t *nd = pp__profile_node(x->prof, id);
	return nd && nd->incl.count ? pp__ticks_ns(x->prof, pp__seg_percentile(&nd->incl, 50)) : 0;
}

/* The regularized incomplete beta function I_x(a, b), by its continued
 * fraction (evaluated with Lentz's method), on the side of x where it
 * converges fast. */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	d = fabs(d) < tiny ? tiny : d;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 300; m++) {
		for (int odd = 0; odd < 2; odd++) {
			double num = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
					 : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
			d = 1 + num * d;
			d = fabs(d) < tiny ? tiny : d;
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			d = 1 / d;
			h *= d * c;
			if (odd && fabs(d * c - 1) < 1e-12)
				return h;
		}
	}
	return h;
}

static double beta_inc(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

/* Welch's two-sided p for the row's per-call time, A's runs against B's,
 * on the logarithm (a run disturbed by a factor is one value among its
 * side's, and a change is a ratio) less its run's speed (run_speed); NAN
 * when a side has fewer than two runs that timed it. */
static double welch_p(const diff_row_t *r, const diff_side_t *sd, double *const speed[2])
{
	double m[2], v[2], n[2];
	for (int k = 0; k < 2; k++) {
		double s = 0, s2 = 0;
		n[k] = 0;
		for (uint32_t i = 0; i < sd[k].nruns; i++)
			if (r->s[k].timed[i] > 0 && r->s[k].time[i] > 0) {
				double y = log(r->s[k].time[i] / r->s[k].timed[i]) - speed[k][i];
				s += y;
				s2 += y * y;
				n[k]++;
			}
		if (n[k] < 2)
			return NAN;
		m[k] = s / n[k];
		v[k] = (s2 - s * s / n[k]) / (n[k] - 1);
		v[k] = v[k] > 0 ? v[k] / n[k] : 0; /* the mean's variance */
	}
	double se2 = v[0] + v[1];
	if (se2 <= 0)
		return m[0] == m[1] ? 1 : 0;
	double t = (m[1] - m[0]) / sqrt(se2);
	double df = se2 * se2 / (v[0] * v[0] / (n[0] - 1) + v[1] * v[1] / (n[1] - 1));
	return beta_inc(df / 2, 0.5, df / (df + t * t));
}

static int by_p(const void *a, const void *b)
{
	double x = **(const double *const *)a, y = **(const double *const *)b;
	return x < y ? -1 : x > y;
}

/* Several runs a side: keep a verdict only where its row's p clears the
 * Benjamini-Hochberg line at DIFF_FDR over every row tested (verdict or
 * not). 0, or -1 when out of memory. */
static int false_discovery(diff_row_t *rows, uint32_t n)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++)
		m += !isnan(rows[i].p);
	if (!m)
		return 0;
	const double **ps = malloc(m * sizeof *ps);
	if (!ps)
		return -1;
	m = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!isnan(rows[i].p))
			ps[m++] = &rows[i].p;
	qsort(ps, m, sizeof *ps, by_p);
	double line = -1;
	for (uint32_t k = m; k > 0; k--)
		if (*ps[k - 1] <= DIFF_FDR * k / m) {
			line = *ps[k - 1];
			break;
		}
	free(ps);
	for (uint32_t i = 0; i < n; i++) {
		diff_row_t *r = &rows[i];
		int judged = !strncmp(r->verdict, "slower", 6) || !strncmp(r->verdict, "faster", 6);
		if (judged && !(r->p <= line))
			r->verdict = "no clear change";
	}
	return 0;
}

static double median_sorted(const double *v, uint32_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* How fast each run ran as a whole, as a log factor per run of both sides
 * (speed[k][i]; 0 throughout when it cannot be told): over the nodes timed
 * enough in every run, the median of each node's log per-call time less
 * its mean over all runs. On a busy or throttled machine whole runs are
 * slower by a factor (the walk of bench/diffnoise.sh: one binary's runs
 * took 30 to 82 ms), which a change in the code does not do to most
 * nodes: the noise floor and the test of several runs a side judge each
 * node's time less that factor. The printed times and intervals stay as
 * measured. Needs DIFF_SCATTER_NODES such nodes. 0, or -1 when out of
 * memory. */
static int run_speed(const diff_side_t *sd, const diff_row_t *rows, uint32_t n, double *speed[2],
		     diff_floor_t *fl)
{
	uint32_t nr = sd[0].nruns + sd[1].nruns, nref = 0;
	double *lg = malloc((size_t)nr * (n ? n : 1) * sizeof *lg), *col = malloc((n ? n : 1) * sizeof *col);
	if (!lg || !col) {
		free(lg);
		free(col);
		return -1;
	}
	for (uint32_t j = 0; j < n; j++) {
		const diff_row_t *r = &rows[j];
		if (!r->s[0].entry || !r->s[1].entry || r->s[0].ntimed < DIFF_MIN_CALLS ||
		    r->s[1].ntimed < DIFF_MIN_CALLS ||
		    (r->share[0] < DIFF_MIN_SHARE && r->share[1] < DIFF_MIN_SHARE))
			continue;
		double sum = 0, *v = &lg[(size_t)nref * nr];
		uint32_t c = 0;
		for (int k = 0; k < 2; k++)
			for (uint32_t i = 0; i < sd[k].nruns; i++, c++) {
				if (r->s[k].timed[i] <= 0 || r->s[k].time[i] <= 0)
					break;
				v[c] = log(r->s[k].time[i] / r->s[k].timed[i]);
				sum += v[c];
			}
		if (c < nr)
			continue;
		for (uint32_t i = 0; i < nr; i++)
			v[i] -= sum / nr;
		nref++;
	}
	for (uint32_t c = 0, k = 0; k < 2; k++)
		for (uint32_t i = 0; i < sd[k].nruns; i++, c++) {
			speed[k][i] = 0;
			if (nref < DIFF_SCATTER_NODES)
				continue;
			for (uint32_t j = 0; j < nref; j++)
				col[j] = lg[(size_t)j * nr + c];
			qsort(col, nref, sizeof *col, by_double);
			speed[k][i] = median_sorted(col, nref);
			double pct = (exp(speed[k][i]) - 1) * 100;
			if (!fl->speed_nodes || pct < fl->speed_lo_pct)
				fl->speed_lo_pct = pct;
			if (!fl->speed_nodes || pct > fl->speed_hi_pct)
				fl->speed_hi_pct = pct;
			fl->speed_nodes = nref;
		}
	free(lg);
	free(col);
	return 0;
}

/* Each side's totals over its runs: timed calls, mean, variance, share
 * and the impact. */
static void side_numbers(diff_row_t *r, const diff_side_t *sd)
{
	for (int k = 0; k < 2; k++) {
		diff_per_side_t *x = &r->s[k];
		double t = 0, n = 0, self = 0;
		for (uint32_t i = 0; i < sd[k].nruns; i++) {
			t += x->time[i];
			n += x->timed[i];
			self += self_ns(&sd[k].runs[i], r->id);
		}
		x->ntimed = n;
		x->mean = n > 0 ? t / n : NAN;
		x->self = n > 0 ? self / n : NAN;
		x->var = x->entry ? node_var(x->prof, r->id) : 0;
		r->share[k] = sd[k].total_ns > 0 ? t / sd[k].nruns / sd[k].total_ns * 100 : 0;
		r->impact += (k ? 1 : -1) * t / sd[k].nruns;
	}
}

static void stats(diff_row_t *r, const diff_side_t *sd, double min_change, double *const speed[2])
{
	diff_per_side_t *a = &r->s[0], *b = &r->s[1];
	r->change = b->mean - a->mean;
	r->change_pct = a->mean > 0 ? r->change / a->mean * 100 : NAN;
	r->lo = r->hi = r->noise = r->p = NAN;
	r->verdict = !a->entry || !b->entry ? "-" : "untimed";
	if (isnan(r->change))
		return;
	if (r->share[0] < DIFF_MIN_SHARE && r->share[1] < DIFF_MIN_SHARE) {
		r->verdict = "not enough data";
		return;
	}
	if (sd[0].nruns >= 2 && sd[1].nruns >= 2) {
		/* Bootstrap over runs: resample each side's runs, pool, difference. */
		double *d = malloc(DIFF_RESAMPLES * sizeof *d);
		uint64_t x = 0x9e3779b97f4a7c15ull ^ r->id;
		uint32_t got = 0;
		for (uint32_t i = 0; d && i < DIFF_RESAMPLES; i++) {
			double m[2];
			for (int k = 0; k < 2; k++) {
				double t = 0, n = 0;
				for (uint32_t j = 0; j < sd[k].nruns; j++) {
					uint32_t pick = (uint32_t)(rng_next(&x) % sd[k].nruns);
					t += r->s[k].time[pick];
					n += r->s[k].timed[pick];
				}
				m[k] = n > 0 ? t / n : NAN;
			}
			if (!isnan(m[0]) && !isnan(m[1]))
				d[got++] = m[1] - m[0];
		}
		if (got) {
			qsort(d, got, sizeof *d, by_double);
			r->lo = d[(uint32_t)(0.025 * (got - 1))];
			r->hi = d[(uint32_t)ceil(0.975 * (got - 1))];
		}
		free(d);
		/* untestable (a side timed it in fewer than two runs): the
		 * false-discovery rule keeps no verdict here */
		r->p = welch_p(r, sd, speed);
		if (isnan(r->p)) {
			r->verdict = "not enough data";
			return;
		}
	} else if (a->ntimed >= DIFF_MIN_CALLS && b->ntimed >= DIFF_MIN_CALLS) {
		double se = sqrt(a->var / a->ntimed + b->var / b->ntimed);
		r->lo = r->change - 1.96 * se;
		r->hi = r->change + 1.96 * se;
		/* The means undecided, but the medians' intervals apart: the
		 * change is clear whatever a few outlying calls (a preempted
		 * one holds milliseconds) did to the means, so the interval and
		 * the change become the median call's (docs/guides/trace.md). */
		int decided = (r->lo > 0 && r->change_pct > min_change) || (r->hi < 0 && -r->change_pct > min_change);
		double alo = 0, ahi = 0, blo = 0, bhi = 0;
		if (!decided) {
			median_interval(a, r->id, &alo, &ahi);
			median_interval(b, r->id, &blo, &bhi);
		}
		/* Decided by the means, but the median call moved less than the
		 * floor that way (or the other way): the change is in a few
		 * calls of one run, which one run a side cannot tell from a
		 * disturbance during that run (#29: the same binary under
		 * ThreadSanitizer, mean +3.7 % from its slowest calls, median
		 * -0.0 %; a walk's node +331 % on the mean, +132 % on the
		 * median against a 225 % floor, bench/diffnoise.sh). Two or
		 * more runs a side judge such changes. */
		if (decided) {
			double pa = median_ns(a, r->id), pb = median_ns(b, r->id);
			double moved = pa > 0 ? (pb - pa) / pa * 100 : 0;
			if ((r->change > 0 ? moved : -moved) < min_change)
				r->tail_only = 1;
		}
		/* The medians apart while the means moved the other way (a
		 * walk's tiny leaf: mean 1844 -> 190 ns, median +81 %): the
		 * calls' distribution changed shape, not one way, so the
		 * median alone decides nothing (bench/diffnoise.sh). Nor
		 * where the median's move over the calls holds less than
		 * DIFF_MIN_SHARE of the run: a 27 ns leaf's 50 calls, over
		 * the share only by one long call (mean 27 -> 1339 ns). */
		double ma = (alo + ahi) / 2, mb = (blo + bhi) / 2;
		double calls = a->ntimed > b->ntimed ? a->ntimed : b->ntimed;
		double total = sd[0].total_ns > sd[1].total_ns ? sd[0].total_ns : sd[1].total_ns;
		int weighs = fabs(mb - ma) * calls >= total * DIFF_MIN_SHARE / 100;
		if (!decided && (blo > ahi || alo > bhi) && ahi > 0 && (mb - ma) * r->change > 0 && weighs) {
			r->lo = blo - ahi;
			r->hi = bhi - alo;
			r->change = mb - ma;
			r->change_pct = ma > 0 ? r->change / ma * 100 : NAN;
			r->by_median = 1;
		}
	} else {
		/* One run a side and few calls: the data carries no estimate of
		 * its own noise, so no verdict (#29: the same binary against
		 * itself was "+89.5 %, slower" from one call a side). */
		r->verdict = "not enough data";
		return;
	}
	/* Noise floor: how far A's own runs are from each other, each at
	 * the common speed (run_speed). */
	double lo = INFINITY, hi = -INFINITY;
	for (uint32_t i = 0; i < sd[0].nruns; i++) {
		if (a->timed[i] <= 0)
			continue;
		double m = a->time[i] / a->timed[i] / exp(speed[0][i]);
		lo = m < lo ? m : lo;
		hi = m > hi ? m : hi;
	}
	double spread = sd[0].nruns >= 2 && hi >= lo && a->mean > 0 ? (hi - lo) / a->mean * 100 : 0;
	r->noise = spread > min_change ? spread : min_change;
	/* Whose change: the node's own code, or its callees'. When its self
	 * time per call moved less than half its inclusive change that way,
	 * the change is below it (a function made twice as long flags its
	 * callers too, whose inclusive time holds it: they read "callees"). */
	double own = b->self - a->self, all = b->mean - a->mean;
	int callees = !(own * all > 0 && fabs(own) >= fabs(all) / 2);
	static const char *const judged[2][2][2] = {
		{{"slower", "slower (callees)"}, {"slower (median)", "slower (median, callees)"}},
		{{"faster", "faster (callees)"}, {"faster (median)", "faster (median, callees)"}}};
	if (r->tail_only)
		r->verdict = "no clear change";
	else if (r->lo > 0 && r->change_pct > r->noise)
		r->verdict = judged[0][r->by_median][callees];
	else if (r->hi < 0 && -r->change_pct > r->noise)
		r->verdict = judged[1][r->by_median][callees];
	else
		r->verdict = "no clear change";
}

static int by_impact(const void *x, const void *y)
{
	const diff_row_t *a = x, *b = y;
	double p = fabs(a->impact), q = fabs(b->impact);
	if (p != q)
		return p > q ? -1 : 1;
	double c = a->s[0].count + a->s[1].count, d = b->s[0].count + b->s[1].count;
	if (c != d)
		return c > d ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static const pp_ppath_t *find_path(const pp_profile_t *p, uint64_t id)
{
	uint32_t lo = 0, hi = p->npaths;
	while (lo < hi) {
		uint32_t m = lo + (hi - lo) / 2;
		if (p->paths[m].id < id)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < p->npaths && p->paths[lo].id == id ? &p->paths[lo] : NULL;
}

/* The path with this id, else the node (a place that never ended a path). */
static const pp_ppath_t *find(const pp_profile_t *p, uint64_t id)
{
	const pp_ppath_t *q = find_path(p, id);
	return q ? q : pp__profile_node(p, id);
}


diff_row_t *diff_build_rows(diff_side_t *sd, uint32_t *nrows, diff_floor_t *fl)
{
	double min_change = fl->pct;
	pp__map_t ids = {0};
	uint32_t n = 0, cap = 0;
	diff_row_t *rows = NULL;
	for (int k = 0; k < 4; k++)
		for (uint32_t i = 0; i < (k < 2 ? sd[k].merged.npaths : sd[k - 2].merged.nnodes); i++) {
			uint64_t id = k < 2 ? sd[k].merged.paths[i].id : sd[k - 2].merged.nodes[i].id;
			uint32_t at;
			if (pp__map_get(&ids, id, &at))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				diff_row_t *m = realloc(rows, cap * sizeof *m);
				if (!m)
					goto oom;
				rows = m;
			}
			memset(&rows[n], 0, sizeof rows[n]);
			rows[n].id = id;
			if (pp__map_put(&ids, id, n) != 0)
				goto oom;
			n++;
		}
	for (uint32_t r = 0; r < n; r++) {
		for (int k = 0; k < 2; k++) {
			diff_per_side_t *x = &rows[r].s[k];
			x->prof = &sd[k].merged;
			x->entry = find(&sd[k].merged, rows[r].id);
			x->time = calloc(sd[k].nruns, sizeof *x->time);
			x->timed = calloc(sd[k].nruns, sizeof *x->timed);
			if (!x->time || !x->timed)
				goto oom;
			for (uint32_t i = 0; i < sd[k].nruns; i++) {
				const pp_ppath_t *q = find_path(&sd[k].runs[i], rows[r].id);
				x->time[i] = diff_time_ns(&sd[k].runs[i], rows[r].id);
				x->timed[i] = timed_calls(&sd[k].runs[i], rows[r].id);
				x->count += q ? (double)q->count : 0;
			}
			x->count /= sd[k].nruns;
		}
		side_numbers(&rows[r], sd);
	}
	pp__map_free(&ids);
	double *speed[2] = {calloc(sd[0].nruns, sizeof(double)), calloc(sd[1].nruns, sizeof(double))};
	int several = sd[0].nruns >= 2 && sd[1].nruns >= 2;
	if (!speed[0] || !speed[1] || (several && run_speed(sd, rows, n, speed, fl) != 0)) {
		free(speed[0]);
		free(speed[1]);
		goto oom_rows;
	}
	for (uint32_t r = 0; r < n; r++)
		stats(&rows[r], sd, min_change, speed);
	free(speed[0]);
	free(speed[1]);
	if (several && false_discovery(rows, n) != 0)
		goto oom_rows;
	if (n)
		qsort(rows, n, sizeof *rows, by_impact);
	*nrows = n;
	return rows;
oom:
	pp__map_free(&ids);
oom_rows:
	for (uint32_t r = 0; r < n; r++)
		for (int k = 0; k < 2; k++) {
			free(rows[r].s[k].time);
			free(rows[r].s[k].timed);
		}
	free(rows);
	*nrows = 0;
	return NULL;
}

diff_scatter_t diff_scatter(const diff_side_t *sd)
{
	diff_scatter_t sc = {0, 0, 0, 0};
	const pp_profile_t *a = &sd[0].merged, *b = &sd[1].merged;
	double *r = a->nnodes ? malloc(a->nnodes * sizeof *r) : NULL;
	uint32_t n = 0;
	for (uint32_t i = 0; r && i < a->nnodes; i++) {
		uint64_t id = a->nodes[i].id;
		double ca = timed_calls(a, id), cb = timed_calls(b, id);
		double sa = diff_time_ns(a, id), sb = diff_time_ns(b, id);
		/* the rows that get verdicts: enough calls and share */
		if (ca < DIFF_MIN_CALLS || cb < DIFF_MIN_CALLS || sa <= 0 || sb <= 0 ||
		    (sa / sd[0].nruns < sd[0].total_ns * DIFF_MIN_SHARE / 100 &&
		     sb / sd[1].nruns < sd[1].total_ns * DIFF_MIN_SHARE / 100))
			continue;
		r[n++] = log((sb / cb) / (sa / ca));
	}
	if (n >= DIFF_SCATTER_NODES) {
		qsort(r, n, sizeof *r, by_double);
		double c = median_sorted(r, n);
		for (uint32_t i = 0; i < n; i++)
			r[i] = fabs(r[i] - c);
		qsort(r, n, sizeof *r, by_double);
		double s = 1.4826 * median_sorted(r, n);
		/* z with P(|Z| > z) = 0.05 / n, by bisection on erfc */
		double lo = 0, hi = 40, p = 0.05 / n;
		for (int k = 0; k < 60; k++) {
			double z = (lo + hi) / 2;
			if (erfc(z / sqrt(2)) > p)
				lo = z;
			else
				hi = z;
		}
		sc.n = n;
		sc.shift_pct = (exp(c) - 1) * 100;
		sc.spread_pct = (exp(s) - 1) * 100;
		sc.floor_pct = (exp(fabs(c) + hi * s) - 1) * 100;
	}
	free(r);
	return sc;
}

void diff_rows_free(diff_row_t *rows, uint32_t n)
{
	for (uint32_t r = 0; r < n; r++)
		for (int k = 0; k < 2; k++) {
			free(rows[r].s[k].time);
			free(rows[r].s[k].timed);
		}
	free(rows);
}
