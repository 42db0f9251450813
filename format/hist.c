/* Bucket arithmetic and sparse-histogram operations for segment timings.
 * The recording side (pp__hist_cell) is inline in hist.h; everything here
 * runs at read/report time, so it favours exactness over speed.
 * Layout and error bound: docs/reference/histograms.md. */
#include "hist.h"

#include <stdlib.h>
#include <string.h>

/* Upper end of the nominal range of the last row: values at or above it still
 * land in the last bucket, but only the exact max keeps their magnitude. */
#define NOMINAL_TOP (1ull << (PP_HIST_ROWS + PP_HIST_SUB_BITS - 1))

uint32_t pp__hist_bucket(uint64_t v)
{
	if (v < PP_HIST_SUB)
		return (uint32_t)v;
	uint32_t e = 63u - (uint32_t)__builtin_clzll(v); /* e >= 4 */
	uint32_t row = e - (PP_HIST_SUB_BITS - 1);
	if (row >= PP_HIST_ROWS)
		return PP_HIST_BUCKETS - 1;
	uint32_t sub = (uint32_t)(v >> (e - PP_HIST_SUB_BITS)) & (PP_HIST_SUB - 1);
	return row * PP_HIST_SUB + sub;
}

uint32_t pp__hist_canon(uint32_t cell)
{
	uint32_t e = cell >> PP_HIST_SUB_BITS, s = cell & (PP_HIST_SUB - 1);
	if (cell == PP__CELL_ZERO)
		return 0;
	if (e < PP_HIST_SUB_BITS) /* below 16: the exact value */
		return (PP_HIST_SUB + s) >> (PP_HIST_SUB_BITS - e);
	uint32_t b = (e - (PP_HIST_SUB_BITS - 1)) * PP_HIST_SUB + s;
	return b < PP_HIST_BUCKETS ? b : PP_HIST_BUCKETS - 1;
}

uint64_t pp__hist_low(uint32_t b)
{
	if (b >= PP_HIST_BUCKETS)
		b = PP_HIST_BUCKETS - 1;
	uint32_t row = b >> PP_HIST_SUB_BITS, sub = b & (PP_HIST_SUB - 1);
	if (row == 0)
		return sub;
	/* row r starts at 2^(r+3) and is cut into 16 steps of 2^(r-1) */
	return (1ull << (row + PP_HIST_SUB_BITS - 1)) + ((uint64_t)sub << (row - 1));
}

uint64_t pp__hist_high(uint32_t b)
{
	if (b >= PP_HIST_BUCKETS - 1)
		return UINT64_MAX;
	return pp__hist_low(b + 1) - 1;
}

uint64_t pp__hist_mid(uint32_t b)
{
	uint64_t lo = pp__hist_low(b);
	/* The last bucket's real upper end is UINT64_MAX; its midpoint would be
	 * ~2^63 and useless, so use its nominal range (the bound still holds
	 * there, and percentile() clamps to the exact max above it). */
	uint64_t hi = b >= PP_HIST_BUCKETS - 1 ? NOMINAL_TOP - 1 : pp__hist_high(b);
	return lo + (hi - lo) / 2;
}

uint64_t pp__seg_percentile(const pp_seg_t *s, double p)
{
	if (!s || s->count == 0 || s->nbins == 0)
		return 0;
	if (!(p > 0)) /* also catches NaN */
		p = 0;
	if (p > 100)
		p = 100;
	/* p * count / 100 rather than p / 100 * count: for whole p the product is
	 * exact, so ranks like 7 % of 100 do not round up to 8. */
	double r = __builtin_ceil(p * (double)s->count / 100.0);
	uint64_t rank = r < 1 ? 1 : r >= (double)s->count ? s->count : (uint64_t)r;

	uint32_t b = s->bins[s->nbins - 1].bucket;
	uint64_t seen = 0;
	for (uint32_t i = 0; i < s->nbins; i++) {
		seen += s->bins[i].count;
		if (seen >= rank) {
			b = s->bins[i].bucket;
			break;
		}
	}
	uint64_t v = pp__hist_mid(b);
	if (v < s->min)
		v = s->min;
	if (v > s->max)
		v = s->max;
	return v;
}

int pp__seg_merge(pp_seg_t *dst, const pp_seg_t *src)
{
	if (src->count == 0 && src->nbins == 0)
		return 0;
	size_t cap = (size_t)dst->nbins + src->nbins;
	pp_hbin_t *out = malloc(cap * sizeof *out);
	if (!out)
		return -1;
	/* Both inputs sorted by bucket: a single merge pass keeps the result
	 * sorted and unique. Reads finish before dst changes, so dst == src works. */
	uint32_t i = 0, j = 0, n = 0;
	while (i < dst->nbins || j < src->nbins) {
		if (j >= src->nbins || (i < dst->nbins && dst->bins[i].bucket < src->bins[j].bucket)) {
			out[n++] = dst->bins[i++];
		} else if (i >= dst->nbins || src->bins[j].bucket < dst->bins[i].bucket) {
			out[n++] = src->bins[j++];
		} else {
			out[n] = dst->bins[i++];
			out[n++].count += src->bins[j++].count;
		}
	}
	if (dst->count == 0) {
		dst->min = src->min;
		dst->max = src->max;
	} else {
		if (src->min < dst->min)
			dst->min = src->min;
		if (src->max > dst->max)
			dst->max = src->max;
	}
	dst->count += src->count;
	dst->sum += src->sum;
	free(dst->bins);
	dst->bins = out;
	dst->nbins = n;
	return 0;
}

/* The fields besides the bins, the same for either way of building them. A
 * slab read while its thread still records can be torn between the
 * counters; the buckets are what percentiles walk, so their total is the
 * count that keeps the segment self-consistent (and readable from file). */
static void seg_finish(pp_seg_t *dst, uint64_t total, uint64_t sum, uint64_t min, uint64_t max)
{
	dst->count = total;
	if (total == 0)
		return;
	dst->sum = sum;
	dst->min = min;
	dst->max = max;
	if (min > max) {
		dst->min = pp__hist_low(dst->bins[0].bucket);
		dst->max = pp__hist_high(dst->bins[dst->nbins - 1].bucket);
	}
}

int pp__seg_from_dense(pp_seg_t *dst, uint64_t count, uint64_t sum, uint64_t min,
		       uint64_t max, const uint64_t *dense)
{
	uint32_t n = 0;
	uint64_t total = 0;
	for (uint32_t b = 0; b < PP_HIST_BUCKETS; b++) {
		if (dense[b]) {
			n++;
			total += dense[b];
		}
	}
	memset(dst, 0, sizeof *dst);
	if (n) {
		dst->bins = malloc((size_t)n * sizeof *dst->bins);
		if (!dst->bins)
			return -1;
		for (uint32_t b = 0, k = 0; b < PP_HIST_BUCKETS; b++)
			if (dense[b])
				dst->bins[k++] = (pp_hbin_t){ .bucket = b, .count = dense[b] };
	}
	dst->nbins = n;
	(void)count;
	seg_finish(dst, total, sum, min, max);
	return 0;
}

/* A node holds a few rows of its 64, so going through the 704 buckets (a
 * memset and two passes) cost most of a profile's collection at exit:
 * SQLite's 4 276 nodes, 37 M instructions (#29); so did passing over the
 * 64 rows twice to find the few present, which the callers now list. One
 * pass over the rows present, into room for all their cells. Cells map to
 * buckets in ascending order but for the first two (the value 1 and zero),
 * so each bin goes in by a step back from the end, which stays at the
 * end. */
int pp__seg_from_cells(pp_seg_t *dst, const pp__cell_row_t *rows, uint32_t nrows, uint64_t sum,
		       uint64_t min, uint64_t max)
{
	memset(dst, 0, sizeof *dst);
	if (!nrows)
		return 0;
	pp_hbin_t *bins = malloc((size_t)nrows * PP_HIST_SUB * sizeof *bins);
	if (!bins)
		return -1;
	uint32_t n = 0;
	uint64_t total = 0;
	for (uint32_t r = 0; r < nrows; r++) {
		const uint64_t *cells = rows[r].cells;
		for (uint32_t i = 0; i < PP_HIST_SUB; i++) {
			uint64_t c = __atomic_load_n(&cells[i], __ATOMIC_RELAXED);
			if (!c)
				continue;
			uint32_t b = pp__hist_canon(rows[r].row * PP_HIST_SUB + i), k = n;
			while (k && bins[k - 1].bucket > b)
				k--;
			if (k && bins[k - 1].bucket == b) {
				bins[k - 1].count += c;
			} else {
				if (k < n)
					memmove(&bins[k + 1], &bins[k], (n - k) * sizeof *bins);
				bins[k] = (pp_hbin_t){ .bucket = b, .count = c };
				n++;
			}
			total += c;
		}
	}
	if (!n) {
		free(bins);
		return 0;
	}
	dst->bins = bins;
	dst->nbins = n;
	seg_finish(dst, total, sum, min, max);
	return 0;
}

void pp__seg_free(pp_seg_t *s)
{
	if (!s)
		return;
	free(s->bins);
	memset(s, 0, sizeof *s);
}
