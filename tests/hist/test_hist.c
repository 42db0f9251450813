/* Unit tests of the log-linear histograms: bucket bounds, the documented error
 * bound of percentiles against exact sorted-array ranks, and merge exactness.
 * Random data comes from a fixed-seed generator so failures reproduce. */
#include "hist.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#define LAST (PP_HIST_BUCKETS - 1)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic and good enough for test data */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* log-uniform values up to 2^bits, so every row gets data */
static uint64_t rng_value(unsigned bits)
{
	unsigned e = (unsigned)(rng() % (bits + 1));
	return e == 0 ? rng() % 2 : rng() & ((1ull << e) - 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_known_buckets(void)
{
	/* row 0 and row 1 are exact: bucket == value */
	for (uint64_t v = 0; v < 32; v++) {
		CHECK_EQ_U64(pp__hist_bucket(v), v);
		CHECK_EQ_U64(pp__hist_low((uint32_t)v), v);
		CHECK_EQ_U64(pp__hist_high((uint32_t)v), v);
		CHECK_EQ_U64(pp__hist_mid((uint32_t)v), v);
	}
	/* row 2: [32, 64) in steps of 2 */
	CHECK_EQ_U64(pp__hist_bucket(32), 32);
	CHECK_EQ_U64(pp__hist_bucket(33), 32);
	CHECK_EQ_U64(pp__hist_bucket(34), 33);
	CHECK_EQ_U64(pp__hist_bucket(63), 47);
	CHECK_EQ_U64(pp__hist_low(32), 32);
	CHECK_EQ_U64(pp__hist_high(32), 33);
	CHECK_EQ_U64(pp__hist_mid(32), 32);
	CHECK_EQ_U64(pp__hist_low(47), 62);
	CHECK_EQ_U64(pp__hist_high(47), 63);
	/* row 3: [64, 128) in steps of 4 */
	CHECK_EQ_U64(pp__hist_bucket(64), 48);
	CHECK_EQ_U64(pp__hist_low(48), 64);
	CHECK_EQ_U64(pp__hist_high(48), 67);
	CHECK_EQ_U64(pp__hist_mid(48), 65);
	/* 1000 = 2^9 + 15 * 2^5 + 8: row 6, sub 15, [992, 1023] */
	CHECK_EQ_U64(pp__hist_bucket(1000), 111);
	CHECK_EQ_U64(pp__hist_low(111), 992);
	CHECK_EQ_U64(pp__hist_high(111), 1023);
	CHECK_EQ_U64(pp__hist_mid(111), 1007);
	CHECK_EQ_U64(pp__hist_low(112), 1024);
	/* the last bucket: nominal [2^46 + 15 * 2^42, 2^47), takes everything above */
	uint64_t last_low = (1ull << 46) + (15ull << 42);
	CHECK_EQ_U64(pp__hist_low(LAST), last_low);
	CHECK_EQ_U64(pp__hist_high(LAST), UINT64_MAX);
	CHECK_EQ_U64(pp__hist_mid(LAST), last_low + ((1ull << 47) - 1 - last_low) / 2);
	CHECK_EQ_U64(pp__hist_high(LAST - 1), last_low - 1);
	CHECK_EQ_U64(pp__hist_bucket((1ull << 47) - 1), LAST);
	CHECK_EQ_U64(pp__hist_bucket(1ull << 47), LAST);
	CHECK_EQ_U64(pp__hist_bucket(UINT64_MAX), LAST);
	CHECK_EQ_U64(pp__hist_bucket(last_low), LAST);
	CHECK_EQ_U64(pp__hist_bucket(last_low - 1), LAST - 1);
	/* out-of-range bucket numbers behave as the last bucket, never overflow */
	CHECK_EQ_U64(pp__hist_low(PP_HIST_BUCKETS + 5), last_low);
	CHECK_EQ_U64(pp__hist_high(PP_HIST_BUCKETS + 5), UINT64_MAX);
}

static void check_value(uint64_t v)
{
	uint32_t b = pp__hist_bucket(v);
	uint64_t lo = pp__hist_low(b), hi = pp__hist_high(b), mid = pp__hist_mid(b);
	CHECK(b < PP_HIST_BUCKETS, "value %llu bucket %u", (unsigned long long)v, b);
	CHECK(lo <= v && v <= hi, "value %llu outside bucket %u [%llu, %llu]", (unsigned long long)v, b,
	      (unsigned long long)lo, (unsigned long long)hi);
	if (v < (1ull << 47)) {
		uint64_t d = mid > v ? mid - v : v - mid;
		CHECK(d * 32 <= v, "value %llu: midpoint %llu off by more than 1/32", (unsigned long long)v,
		      (unsigned long long)mid);
	}
	if (v < 32)
		CHECK_EQ_U64(mid, v);
	/* the runtime's cell layout lands every value in the same bucket */
	if (v < (1ull << 63))
		CHECK_EQ_U64(pp__hist_canon(v ? pp__hist_cell(v) : PP__CELL_ZERO), b);
}

static void test_bucket_bounds(void)
{
	/* consecutive buckets tile the value range with no gap or overlap */
	for (uint32_t b = 0; b < PP_HIST_BUCKETS; b++) {
		uint64_t lo = pp__hist_low(b), hi = pp__hist_high(b), mid = pp__hist_mid(b);
		CHECK(lo <= mid && mid <= hi, "bucket %u: mid %llu outside [%llu, %llu]", b,
		      (unsigned long long)mid, (unsigned long long)lo, (unsigned long long)hi);
		CHECK_EQ_U64(pp__hist_bucket(lo), b);
		CHECK_EQ_U64(pp__hist_bucket(hi), b);
		CHECK_EQ_U64(pp__hist_bucket(mid), b);
		if (lo > 0)
			CHECK_EQ_U64(pp__hist_bucket(lo - 1), b - 1);
		if (b + 1 < PP_HIST_BUCKETS)
			CHECK_EQ_U64(pp__hist_low(b + 1), hi + 1);
		check_value(lo);
		check_value(hi);
		check_value(mid);
	}
	/* every value of the first 20 rows, and random values of all of them */
	for (uint64_t v = 0; v < (1ull << 20); v++)
		check_value(v);
	for (int i = 0; i < 200000; i++)
		check_value(rng_value(63));
	check_value(UINT64_MAX);
}

/* Build a segment from values the way the runtime does: dense buckets first. */
static void seg_of(pp_seg_t *s, const uint64_t *v, size_t n)
{
	uint64_t *dense = calloc(PP_HIST_BUCKETS, sizeof *dense);
	uint64_t sum = 0, min = UINT64_MAX, max = 0;
	for (size_t i = 0; i < n; i++) {
		dense[pp__hist_bucket(v[i])]++;
		sum += v[i];
		if (v[i] < min)
			min = v[i];
		if (v[i] > max)
			max = v[i];
	}
	CHECK(pp__seg_from_dense(s, n, sum, n ? min : 0, max, dense) == 0, "from_dense failed");
	free(dense);
}

static void test_percentile_exact_small(void)
{
	/* 100 values: ten each of 0..9 (exact buckets); rank p holds (p-1)/10 */
	uint64_t v[100];
	for (int i = 0; i < 100; i++)
		v[i] = (uint64_t)(i / 10);
	pp_seg_t s;
	seg_of(&s, v, 100);
	CHECK_EQ_U64(s.count, 100);
	CHECK_EQ_U64(s.nbins, 10);
	CHECK_EQ_U64(pp__seg_percentile(&s, 0), 0);
	for (int p = 1; p <= 100; p++)
		CHECK(pp__seg_percentile(&s, p) == (uint64_t)(p - 1) / 10, "p%d = %llu", p,
		      (unsigned long long)pp__seg_percentile(&s, p));
	CHECK_EQ_U64(pp__seg_percentile(&s, 150), 9);
	CHECK_EQ_U64(pp__seg_percentile(&s, -3), 0);
	CHECK_EQ_U64(pp__seg_percentile(&s, __builtin_nan("")), 0);
	CHECK_EQ_U64(pp__seg_percentile(&s, 10.5), 1); /* rank 11 */
	pp__seg_free(&s);
	CHECK(s.bins == NULL && s.nbins == 0 && s.count == 0, "seg_free leaves a clean segment");

	/* 25 distinct exact values: every rank boundary shows, so a rank computed
	 * as p / 100 * count (0.28 * 25 = 7.000000000000001) would be caught */
	uint64_t w[25];
	for (int i = 0; i < 25; i++)
		w[i] = (uint64_t)i;
	seg_of(&s, w, 25);
	for (int p = 1; p <= 100; p++) {
		uint64_t rank = ((uint64_t)p * 25 + 99) / 100;
		CHECK(pp__seg_percentile(&s, p) == rank - 1, "p%d of 0..24 = %llu, want %llu", p,
		      (unsigned long long)pp__seg_percentile(&s, p), (unsigned long long)(rank - 1));
	}
	pp__seg_free(&s);

	/* a lone value is reported exactly: the midpoint is clamped to [min, max] */
	uint64_t one[] = { 993 };
	seg_of(&s, one, 1);
	CHECK_EQ_U64(pp__seg_percentile(&s, 50), 993);
	pp__seg_free(&s);
	uint64_t two[] = { 1000, 1020 }; /* same bucket, mid 1007 lies between */
	seg_of(&s, two, 2);
	CHECK_EQ_U64(pp__seg_percentile(&s, 50), 1007);
	CHECK_EQ_U64(pp__seg_percentile(&s, 100), 1007);
	pp__seg_free(&s);

	pp_seg_t empty = { 0 };
	CHECK_EQ_U64(pp__seg_percentile(&empty, 50), 0);
}

static void test_percentile_random(void)
{
	enum { N = 20011 };
	uint64_t *v = malloc(N * sizeof *v);
	for (int round = 0; round < 4; round++) {
		size_t n = round == 0 ? 1 : round == 1 ? 7 : round == 2 ? 1000 : N;
		for (size_t i = 0; i < n; i++)
			v[i] = rng_value(round == 3 ? 40 : 20);
		pp_seg_t s;
		seg_of(&s, v, n);
		qsort(v, n, sizeof *v, cmp_u64);
		for (unsigned p = 0; p <= 100; p++) {
			uint64_t rank = ((uint64_t)p * n + 99) / 100;
			if (rank == 0)
				rank = 1;
			uint64_t exact = v[rank - 1], got = pp__seg_percentile(&s, p);
			uint64_t d = got > exact ? got - exact : exact - got;
			CHECK(d * 32 <= exact, "n=%zu p%u: got %llu, exact %llu", n, p, (unsigned long long)got,
			      (unsigned long long)exact);
			CHECK(got >= v[0] && got <= v[n - 1], "p%u outside [min, max]", p);
			if (exact < 32)
				CHECK_EQ_U64(got, exact);
		}
		pp__seg_free(&s);
	}
	free(v);
}

static void check_same_seg(const pp_seg_t *a, const pp_seg_t *b)
{
	CHECK_EQ_U64(a->count, b->count);
	CHECK_EQ_U64(a->sum, b->sum);
	CHECK_EQ_U64(a->min, b->min);
	CHECK_EQ_U64(a->max, b->max);
	CHECK_EQ_U64(a->nbins, b->nbins);
	for (uint32_t i = 0; i < a->nbins && i < b->nbins; i++) {
		CHECK_EQ_U64(a->bins[i].bucket, b->bins[i].bucket);
		CHECK_EQ_U64(a->bins[i].count, b->bins[i].count);
	}
}

static void test_merge(void)
{
	enum { N = 5000 };
	uint64_t *v = malloc(N * sizeof *v);
	for (int round = 0; round < 20; round++) {
		for (size_t i = 0; i < N; i++)
			v[i] = rng_value(round < 10 ? 12 : 50);
		size_t cut = (size_t)(rng() % (N + 1));
		pp_seg_t all, a, b, acc = { 0 };
		seg_of(&all, v, N);
		seg_of(&a, v, cut);
		seg_of(&b, v + cut, N - cut);
		/* into an empty accumulator, then the rest: the concatenation exactly */
		CHECK(pp__seg_merge(&acc, &a) == 0, "merge");
		CHECK(pp__seg_merge(&acc, &b) == 0, "merge");
		check_same_seg(&acc, &all);
		/* the other order gives the same */
		CHECK(pp__seg_merge(&b, &a) == 0, "merge");
		check_same_seg(&b, &all);
		pp__seg_free(&acc);
		pp__seg_free(&a);
		pp__seg_free(&b);
		pp__seg_free(&all);
	}

	/* merging a segment into itself doubles every count */
	uint64_t small[] = { 3, 3, 40, 1000, 7 };
	pp_seg_t s, twice;
	seg_of(&s, small, 5);
	uint64_t doubled[] = { 3, 3, 40, 1000, 7, 3, 3, 40, 1000, 7 };
	seg_of(&twice, doubled, 10);
	CHECK(pp__seg_merge(&s, &s) == 0, "self merge");
	check_same_seg(&s, &twice);
	CHECK_EQ_U64(s.nbins, 4);
	/* merging an empty segment changes nothing, min stays 3 (not 0) */
	pp_seg_t empty = { 0 };
	CHECK(pp__seg_merge(&s, &empty) == 0, "merge empty");
	check_same_seg(&s, &twice);
	pp__seg_free(&s);
	pp__seg_free(&twice);
	free(v);
}

static void test_from_dense(void)
{
	uint64_t *dense = calloc(PP_HIST_BUCKETS, sizeof *dense);
	pp_seg_t s;
	CHECK(pp__seg_from_dense(&s, 0, 0, 0, 0, dense) == 0, "empty from_dense");
	CHECK(s.count == 0 && s.nbins == 0 && s.bins == NULL, "empty segment has no bins");
	pp__seg_free(&s);

	/* a torn read: counters disagree with the buckets; the buckets win */
	dense[5] = 2;
	dense[LAST] = 1;
	CHECK(pp__seg_from_dense(&s, 7, 123, 9, 4, dense) == 0, "torn from_dense");
	CHECK_EQ_U64(s.count, 3);
	CHECK_EQ_U64(s.nbins, 2);
	CHECK_EQ_U64(s.bins[0].bucket, 5);
	CHECK_EQ_U64(s.bins[1].bucket, LAST);
	CHECK_EQ_U64(s.bins[1].count, 1);
	CHECK_EQ_U64(s.min, 5);
	CHECK_EQ_U64(s.max, UINT64_MAX);
	pp__seg_free(&s);
	free(dense);
}

/* Rows of cells as the runtime records them (pp__hist_cell), read the
 * sparse way, give the segment the dense way gives: values 0 and 1 (the
 * two cells out of bucket order), small exact ones, and random magnitudes,
 * in rows filled in no particular order. */
static void test_from_cells(void)
{
	static uint64_t cells[PP__CELL_ROWS][PP_HIST_SUB];
	pp__cell_row_t rows[PP__CELL_ROWS] = { 0 };
	uint32_t nrows = 0;
	uint64_t *dense = calloc(PP_HIST_BUCKETS, sizeof *dense);
	uint64_t sum = 0;
	pp_seg_t a, b;
	CHECK(pp__seg_from_cells(&a, rows, 0, 0, 0, 0) == 0 && a.count == 0 && a.bins == NULL,
	      "no rows: an empty segment");
	for (int i = 0; i < 20000; i++) {
		uint64_t v = i % 7 == 0 ? 0 : i % 7 == 1 ? 1 : i % 7 == 2 ? (uint64_t)(i % 16) : rng_value(40);
		uint32_t c = v ? pp__hist_cell(v) : PP__CELL_ZERO;
		cells[c / PP_HIST_SUB][c % PP_HIST_SUB]++;
		dense[pp__hist_bucket(v)]++;
		sum += v;
	}
	/* the rows filled, as the runtime lists them: ascending */
	for (uint32_t r = 0; r < PP__CELL_ROWS; r++)
		for (uint32_t i = 0; i < PP_HIST_SUB; i++)
			if (cells[r][i]) {
				rows[nrows++] = (pp__cell_row_t){ cells[r], r };
				break;
			}
	CHECK(nrows > 20, "values of many magnitudes");
	CHECK(pp__seg_from_cells(&a, rows, nrows, sum, 0, 1ull << 40) == 0, "from_cells");
	CHECK(pp__seg_from_dense(&b, 20000, sum, 0, 1ull << 40, dense) == 0, "from_dense");
	CHECK_EQ_U64(a.count, 20000);
	check_same_seg(&a, &b);
	pp__seg_free(&a);
	pp__seg_free(&b);
	free(dense);
}

int main(void)
{
	test_known_buckets();
	test_bucket_bounds();
	test_percentile_exact_small();
	test_percentile_random();
	test_merge();
	test_from_dense();
	test_from_cells();
	return check_done("test_hist");
}
