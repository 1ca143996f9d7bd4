// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tests/fabric/load/stats.c:
 *  - eql_percentile() against the nearest-rank definition checked by brute
 *    force on random data with many ties, plus n = 0, n = 1 and the
 *    floating-point edge (q*n a hair above a whole number);
 *  - eql_samples: growth and sorting;
 *  - the log histogram: within 1/256 of the exact percentile over values
 *    spread across 2^0 .. 2^50, exact below 128, exact min and max;
 *  - Jain's index: 1 for equal shares, 1/n for one nonzero share, scale
 *    invariance, bounds, a worked example.
 */
#include "testlib.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "load/stats.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank definition, by counting: p is one of the values, at
 * least q*n values are <= p, and fewer than q*n are < p (so no smaller
 * value would do).  q = 0 means the minimum. */
static void assert_nearest_rank(const uint64_t *v, size_t n, double q, uint64_t p)
{
	size_t le = 0, lt = 0, member = 0;
	double need = q * (double)n;

	for (size_t i = 0; i < n; i++) {
		le += v[i] <= p;
		lt += v[i] < p;
		member += v[i] == p;
	}
	if (!member)
		fail_msg("q=%g n=%zu: %llu is not one of the values", q, n, (unsigned long long)p);
	if (q == 0) {
		if (lt != 0)
			fail_msg("q=0: %llu is not the minimum", (unsigned long long)p);
		return;
	}
	if ((double)le < need - 1e-6)
		fail_msg("q=%g n=%zu: only %zu values <= %llu", q, n, le, (unsigned long long)p);
	if ((double)lt >= need - 1e-6)
		fail_msg("q=%g n=%zu: %zu values < %llu: a smaller value qualifies", q, n, lt,
			 (unsigned long long)p);
}

/* ---- exact percentiles ------------------------------------------------- */

static void percentile__matches_definition_on_random_data(void **state)
{
	static const double qs[] = { 0, 0.001, 0.01, 0.1, 0.25, 0.29, 0.5, 0.75, 0.9, 0.99,
				     0.999, 1 };
	uint64_t *v = malloc(2000 * sizeof(*v));

	assert_non_null(v);
	rng_state = 0x57a75001;
	for (int round = 0; round < 2000; round++) {
		size_t n = 1 + rnd32() % 2000;
		uint32_t range = round % 2 ? 10 : 1000000;	/* many ties, few ties */

		for (size_t i = 0; i < n; i++)
			v[i] = rnd32() % range;
		qsort(v, n, sizeof(*v), cmp_u64);
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++)
			assert_nearest_rank(v, n, qs[k], eql_percentile(v, n, qs[k]));
		double q = (double)rnd32() / 4294967296.0;

		assert_nearest_rank(v, n, q, eql_percentile(v, n, q));
	}
	free(v);
}

static void percentile__edge_cases(void **state)
{
	uint64_t one = 42, v[100];

	assert_int_equal(eql_percentile(NULL, 0, 0.5), 0);
	assert_int_equal(eql_percentile(v, 0, 0.99), 0);
	for (double q = 0; q <= 1.0; q += 0.125)
		assert_int_equal(eql_percentile(&one, 1, q), 42);
	/* Out-of-range q clamps to min and max. */
	for (int i = 0; i < 100; i++)
		v[i] = (uint64_t)i + 1;		/* 1..100 */
	assert_int_equal(eql_percentile(v, 100, -1), 1);
	assert_int_equal(eql_percentile(v, 100, NAN), 1);
	assert_int_equal(eql_percentile(v, 100, 2), 100);
	/* 1..100: the p-th percentile is p. */
	assert_int_equal(eql_percentile(v, 100, 0.5), 50);
	assert_int_equal(eql_percentile(v, 100, 0.99), 99);
	assert_int_equal(eql_percentile(v, 100, 0.999), 100);
	assert_int_equal(eql_percentile(v, 100, 0.01), 1);
	/* 0.07 * 100 is 7.000000000000001 in binary: still rank 7, not 8;
	 * 0.57 * 100 is 56.99999999999999: rank 57. */
	assert_true(0.07 * 100 > 7.0);
	assert_int_equal(eql_percentile(v, 100, 0.07), 7);
	assert_true(0.57 * 100 < 57.0);
	assert_int_equal(eql_percentile(v, 100, 0.57), 57);
}

static void samples__grow_and_sort(void **state)
{
	struct eql_samples s = { 0 };

	for (uint64_t i = 100000; i > 0; i--)
		assert_int_equal(eql_samples_add(&s, i), 0);
	assert_int_equal(s.n, 100000);
	assert_true(s.cap >= s.n);
	eql_samples_sort(&s);
	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(s.v[i], i + 1);
	assert_int_equal(eql_samples_pct(&s, 0.5), 50000);
	assert_int_equal(eql_samples_pct(&s, 0.999), 99900);
	eql_samples_free(&s);
	assert_null(s.v);
	assert_int_equal(s.n, 0);
	eql_samples_sort(&s);		/* empty: no-op */
	assert_int_equal(eql_samples_pct(&s, 0.5), 0);
}

/* ---- histogram ------------------------------------------------------------ */

static void hist__within_1_in_256_of_exact(void **state)
{
	static const double qs[] = { 0, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1 };
	const size_t n = 100000;
	uint64_t *v = malloc(n * sizeof(*v));
	struct eql_hist *h = malloc(sizeof(*h));

	assert_non_null(v);
	assert_non_null(h);
	rng_state = 0x4157;
	for (int round = 0; round < 20; round++) {
		eql_hist_init(h);
		for (size_t i = 0; i < n; i++) {
			/* log-uniform over 2^0 .. 2^50: every bucket range in use */
			v[i] = rnd64() >> (14 + rnd32() % 50);
			eql_hist_add(h, v[i]);
		}
		qsort(v, n, sizeof(*v), cmp_u64);
		assert_int_equal(h->count, n);
		assert_int_equal(h->min, v[0]);
		assert_int_equal(h->max, v[n - 1]);
		for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
			uint64_t exact = eql_percentile(v, n, qs[k]), got = eql_hist_pct(h, qs[k]);
			double err = fabs((double)got - (double)exact);

			if (err > (double)exact / 256.0)
				fail_msg("q=%g: histogram %llu, exact %llu", qs[k],
					 (unsigned long long)got, (unsigned long long)exact);
		}
	}
	free(v);
	free(h);
}

static void hist__exact_below_128_and_empty(void **state)
{
	struct eql_hist *h = malloc(sizeof(*h));
	uint64_t v[127];

	assert_non_null(h);
	eql_hist_init(h);
	assert_int_equal(eql_hist_pct(h, 0.5), 0);
	for (uint64_t i = 0; i < 127; i++) {
		v[i] = i + 1;
		eql_hist_add(h, i + 1);
	}
	for (double q = 0; q <= 1; q += 0.01)
		assert_int_equal(eql_hist_pct(h, q), eql_percentile(v, 127, q));
	/* The largest values land in the last bucket; q = 1 is the max exactly. */
	eql_hist_add(h, UINT64_MAX - 5);
	assert_int_equal(eql_hist_pct(h, 1), UINT64_MAX - 5);
	assert_int_equal(eql_hist_pct(h, 0), 1);
	free(h);
}

/* ---- Jain's index ------------------------------------------------------- */

static void jain__equal_shares_give_1(void **state)
{
	double x[64];

	for (size_t n = 1; n <= 64; n++) {
		for (size_t i = 0; i < n; i++)
			x[i] = 123.456;
		assert_true(fabs(eql_jain(x, n) - 1.0) < 1e-12);
	}
}

static void jain__one_nonzero_share_gives_1_over_n(void **state)
{
	double x[64];

	for (size_t n = 1; n <= 64; n++) {
		memset(x, 0, sizeof(x));
		x[n / 2] = 5e9;
		assert_true(fabs(eql_jain(x, n) - 1.0 / (double)n) < 1e-12);
	}
}

static void jain__scale_invariant_and_bounded(void **state)
{
	double x[50], y[50];

	rng_state = 0x1a17;
	for (int round = 0; round < 1000; round++) {
		size_t n = 1 + rnd32() % 50;
		double c = 1e-3 + (double)(rnd32() % 1000000), j;

		for (size_t i = 0; i < n; i++) {
			x[i] = (double)(rnd32() % 1000);
			y[i] = x[i] * c;
		}
		j = eql_jain(x, n);
		assert_true(j >= 1.0 / (double)n - 1e-12 && j <= 1.0 + 1e-12);
		assert_true(fabs(eql_jain(y, n) - j) < 1e-9);
	}
}

static void jain__worked_example_and_degenerate_cases(void **state)
{
	double x[] = { 1, 2, 3 }, zeros[4] = { 0 };

	/* (1+2+3)^2 / (3 * (1+4+9)) = 36/42 */
	assert_true(fabs(eql_jain(x, 3) - 36.0 / 42.0) < 1e-12);
	assert_true(eql_jain(x, 0) == 0.0);
	assert_true(eql_jain(zeros, 4) == 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(percentile__matches_definition_on_random_data),
		cmocka_unit_test(percentile__edge_cases),
		cmocka_unit_test(samples__grow_and_sort),
		cmocka_unit_test(hist__within_1_in_256_of_exact),
		cmocka_unit_test(hist__exact_below_128_and_empty),
		cmocka_unit_test(jain__equal_shares_give_1),
		cmocka_unit_test(jain__one_nonzero_share_gives_1_over_n),
		cmocka_unit_test(jain__scale_invariant_and_bounded),
		cmocka_unit_test(jain__worked_example_and_degenerate_cases),
	};

	return cmocka_run_group_tests_name("load_stats", tests, NULL, NULL);
}
