// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tests/fabric/load/rng.c: the exact xoshiro256** stream of
 * a seed (reference values computed separately from the published
 * algorithm), so --seed keeps meaning the same flows across versions;
 * uniform draws in [0, 1) with flat deciles; exponential draws with the
 * right mean and tail.
 */
#include "testlib.h"
#include <math.h>
#include "load/rng.h"

static void rng__stream_matches_reference(void **state)
{
	static const struct { uint64_t seed, out[3]; } ref[] = {
		{ 0,  { 0x99ec5f36cb75f2b4ULL, 0xbf6e1f784956452aULL, 0x1a5f849d4933e6e0ULL } },
		{ 1,  { 0xb3f2af6d0fc710c5ULL, 0x853b559647364ceaULL, 0x92f89756082a4514ULL } },
		{ 42, { 0x15780b2e0c2ec716ULL, 0x6104d9866d113a7eULL, 0xae17533239e499a1ULL } },
	};

	struct eql_rng r;
	uint64_t x = 0;

	for (size_t i = 0; i < sizeof(ref) / sizeof(ref[0]); i++) {
		eql_rng_seed(&r, ref[i].seed);
		for (int k = 0; k < 3; k++)
			assert_int_equal(eql_rng_next(&r), ref[i].out[k]);
	}
	/* Far enough in that every word of the state has fed the output. */
	eql_rng_seed(&r, 1);
	for (int k = 0; k < 1000; k++)
		x = eql_rng_next(&r);
	assert_int_equal(x, 0xb8517c33c344d153ULL);
}

static void rng__seeds_give_distinct_streams(void **state)
{
	struct eql_rng a, b;
	int same = 0;

	eql_rng_seed(&a, 1);
	eql_rng_seed(&b, 2);
	for (int i = 0; i < 1000; i++)
		same += eql_rng_next(&a) == eql_rng_next(&b);
	assert_int_equal(same, 0);
}

static void uniform__in_range_and_flat(void **state)
{
	const int n = 1000000;
	unsigned int decile[10] = { 0 };
	struct eql_rng r;
	double sum = 0;

	eql_rng_seed(&r, 0x756e69);
	for (int i = 0; i < n; i++) {
		double u = eql_rng_uniform(&r);

		assert_true(u >= 0.0 && u < 1.0);
		decile[(int)(u * 10)]++;
		sum += u;
	}
	assert_true(fabs(sum / n - 0.5) < 0.002);
	for (int d = 0; d < 10; d++)	/* sd of a decile's share: 0.0003 */
		assert_true(fabs(decile[d] / (double)n - 0.1) < 0.002);
}

static void exp__mean_and_tail(void **state)
{
	const int n = 1000000;
	const double mean = 1234.5;
	struct eql_rng r;
	double sum = 0;
	int above = 0;

	eql_rng_seed(&r, 0x657870);
	for (int i = 0; i < n; i++) {
		double x = eql_rng_exp(&r, mean);

		assert_true(x >= 0 && isfinite(x));
		sum += x;
		above += x > mean;
	}
	assert_true(fabs(sum / n - mean) < 0.01 * mean);
	/* P(X > mean) = 1/e for an exponential. */
	assert_true(fabs(above / (double)n - exp(-1.0)) < 0.003);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rng__stream_matches_reference),
		cmocka_unit_test(rng__seeds_give_distinct_streams),
		cmocka_unit_test(uniform__in_range_and_flat),
		cmocka_unit_test(exp__mean_and_tail),
	};

	return cmocka_run_group_tests_name("load_rng", tests, NULL, NULL);
}
