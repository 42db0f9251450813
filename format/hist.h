/* Log-linear (HDR-style) histograms of tick counts.
 * 16 sub-buckets per power of two: recording is O(1) (clz, shift, mask) and a
 * value reported as its bucket's midpoint is within 1/32 (3.125 %) of the
 * recorded value; values below 16 ticks are exact. Histograms merge by adding
 * buckets, so per-thread data combines without loss. */
#ifndef PP_HIST_H
#define PP_HIST_H

#include <stdint.h>
#include <stddef.h>
#include <pathprof/compiler.h>

#define PP_HIST_SUB_BITS 4
#define PP_HIST_SUB (1u << PP_HIST_SUB_BITS)
/* Row 0 holds 0..15 exactly; row r >= 1 holds [2^(r+3), 2^(r+4)) in 16 steps.
 * 44 rows reach 2^47 ticks (over 13 hours at 3 GHz); larger values land in the
 * last bucket and the exact maximum is kept beside the buckets. */
#define PP_HIST_ROWS 44u
#define PP_HIST_BUCKETS (PP_HIST_ROWS * PP_HIST_SUB)

/* The bucket of a value (readers; tests). */
uint32_t pp__hist_bucket(uint64_t v);

/* The runtime records into its own layout of the same buckets (slab.h), one
 * cheaper to index: cell e*16 + s holds the values 2^e <= v < 2^(e+1) whose
 * four bits below the top one are s. Those are bits 48-63 of v as a double
 * (exponent and the top of the mantissa), so a timed exit pays a conversion,
 * a move and a shift where counting leading zeros, comparing and shifting
 * took twelve instructions. Row 0 has one value (1) and lends its cell 1 to
 * v = 0. Readers map cells onto buckets with pp__hist_canon. */
#define PP__CELL_ROWS 64u
#define PP__CELL_ZERO 1u

/* The cell of 1 <= v < 2^63 (conversion exact below 2^53; above, rounding
 * can only move v to a neighbouring cell). The mask keeps any input in
 * range. */
PP_INLINE uint32_t pp__hist_cell(uint64_t v)
{
	union {
		double d;
		uint64_t u;
	} c;
	c.d = (double)(int64_t)v;
	return ((uint32_t)(c.u >> 48) - (1023u << PP_HIST_SUB_BITS)) &
	       (PP__CELL_ROWS * PP_HIST_SUB - 1);
}

/* pp__hist_cell's row (cell / 16) and column (cell % 16), for 1 <= v < 2^63
 * only (a timed exit's fast case): the exponent and the mantissa's top
 * four bits taken apart, which saves the mask and a shift. 64-bit, so that
 * the exponent's bias folds into the row load's displacement. */
typedef struct pp__cell_at {
	uint64_t row, col;
} pp__cell_at_t;

PP_INLINE pp__cell_at_t pp__hist_cell_at(uint64_t v)
{
	union {
		double d;
		uint64_t u;
	} c;
	c.d = (double)(int64_t)v;
	return (pp__cell_at_t){ (c.u >> 52) - 1023u, (c.u >> 48) & (PP_HIST_SUB - 1) };
}

/* The bucket of a cell. */
uint32_t pp__hist_canon(uint32_t cell);

/* Smallest value that falls in bucket b. */
uint64_t pp__hist_low(uint32_t b);
/* Largest value that falls in bucket b (the last bucket also takes all above). */
uint64_t pp__hist_high(uint32_t b);
/* The value reported for bucket b: midpoint of [low, high]. */
uint64_t pp__hist_mid(uint32_t b);

/* One non-empty bucket of a sparse (merged, on-file) histogram. */
typedef struct pp_hbin {
	uint32_t bucket;
	uint64_t count;
} pp_hbin_t;

/* Timing of one segment of one path, in ticks. Bins sorted by bucket, no zero
 * counts, sum of bin counts == count. */
typedef struct pp_seg {
	uint64_t count, sum, min, max;
	uint32_t nbins;
	pp_hbin_t *bins;
} pp_seg_t;

/* Nearest-rank percentile (p in [0,100]) of a segment: the midpoint of the
 * bucket holding rank ceil(p/100*count), clamped to [min, max]. 0 if empty. */
uint64_t pp__seg_percentile(const pp_seg_t *s, double p);

/* dst += src (bins merged exactly, min/max/sum/count combined). Returns 0 or
 * -1 when out of memory. */
int pp__seg_merge(pp_seg_t *dst, const pp_seg_t *src);

/* Build a sparse segment from dense bucket counts (PP_HIST_BUCKETS entries). */
int pp__seg_from_dense(pp_seg_t *dst, uint64_t count, uint64_t sum, uint64_t min,
		       uint64_t max, const uint64_t *dense);

/* One row of the runtime's cells that exists: its index (0 to
 * PP__CELL_ROWS - 1) and its PP_HIST_SUB counts, read with relaxed loads. */
typedef struct pp__cell_row {
	const uint64_t *cells;
	uint32_t row;
} pp__cell_row_t;

/* The same from the rows of cells a node has, n of them in ascending row
 * order, without a dense array. */
int pp__seg_from_cells(pp_seg_t *dst, const pp__cell_row_t *rows, uint32_t n, uint64_t sum,
		       uint64_t min, uint64_t max);

void pp__seg_free(pp_seg_t *s);

#endif
