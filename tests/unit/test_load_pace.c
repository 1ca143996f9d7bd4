// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tests/fabric/load/pace.c: the send time of packet k at
 * rate R (worked examples, no drift over millions of packets, no overflow
 * at the extremes), eql_pace_due() as the exact inverse of the send
 * times, achieved rates, and the Poisson gap that offers a load.
 */
#include "testlib.h"
#include <math.h>
#include "load/pace.h"

static void offset__worked_examples(void **state)
{
	/* 1514-byte frames at 10 Mbit/s: 12112 bits, 1.2112 ms each. */
	assert_int_equal(eql_pace_offset_ns(0, 1514, 10000000), 0);
	assert_int_equal(eql_pace_offset_ns(1, 1514, 10000000), 1211200);
	assert_int_equal(eql_pace_offset_ns(40, 1514, 10000000), 40 * 1211200ULL);
	/* 1500 bytes at 1 Gbit/s: 12 us. */
	assert_int_equal(eql_pace_offset_ns(1, 1500, 1000000000), 12000);
	/* 1514 bytes at 200 Mbit/s: 60.56 us, rounded down per packet. */
	assert_int_equal(eql_pace_offset_ns(1, 1514, 200000000), 60560);
	/* A period that is no whole number of ns: floor(k * 800e9 / 3). */
	assert_int_equal(eql_pace_offset_ns(1, 100, 3), 266666666666ULL);
	assert_int_equal(eql_pace_offset_ns(2, 100, 3), 533333333333ULL);
	assert_int_equal(eql_pace_offset_ns(3, 100, 3), 800000000000ULL);
}

/* Computed from the start, not summed: packet k is exact for any k. */
static void offset__no_drift_and_no_overflow(void **state)
{
	/* 64-byte frames at 7 Gbit/s: 512/7 ns each, not a whole number. */
	for (uint64_t k = 0; k < 10000000; k += 9973) {
		uint64_t t = eql_pace_offset_ns(k, 64, 7000000000ULL);

		assert_int_equal(t, k * 512 / 7);
	}
	/* 10^12 packets of 1514 bytes at 100 Gbit/s: 1.2112e14 ns exactly,
	 * though k * bits * 1e9 is 1.2e25, far past 64 bits. */
	assert_int_equal(eql_pace_offset_ns(1000000000000ULL, 1514, 100000000000ULL),
			 121120000000000ULL);
	/* Beyond 2^64 ns: saturates instead of wrapping. */
	assert_int_equal(eql_pace_offset_ns(UINT64_MAX, 65535, 1), UINT64_MAX);
	assert_int_equal(eql_pace_due(UINT64_MAX, 1, UINT64_MAX), UINT64_MAX);
}

static void offset__is_monotone(void **state)
{
	rng_state = 0x70616365;
	for (int i = 0; i < 10000; i++) {
		uint64_t frame = 1 + rnd32() % 65600, rate = 1 + rnd64() % 400000000000ULL;
		uint64_t k = rnd32(), t = eql_pace_offset_ns(k, frame, rate);

		assert_true(eql_pace_offset_ns(k + 1, frame, rate) >= t);
		/* 1000 frames take at least 1000 * 8e9 / 4e11 = 20 ns. */
		assert_true(eql_pace_offset_ns(k + 1000, frame, rate) > t);
	}
}

/* due(e) packets are due at e: the last of them is due at or before e, the
 * next one after it. */
static void due__inverts_the_send_times(void **state)
{
	assert_int_equal(eql_pace_due(0, 1514, 10000000), 1);	/* packet 0 at t0 */
	assert_int_equal(eql_pace_due(1211199, 1514, 10000000), 1);
	assert_int_equal(eql_pace_due(1211200, 1514, 10000000), 2);
	rng_state = 0x64756521;
	for (int i = 0; i < 1000000; i++) {
		uint64_t frame = 1 + rnd32() % 65600;
		uint64_t rate = 1000 + rnd64() % 400000000000ULL;
		uint64_t e = rnd64() % 100000000000ULL;		/* up to 100 s */
		uint64_t d = eql_pace_due(e, frame, rate);

		assert_true(d >= 1);
		assert_true(eql_pace_offset_ns(d - 1, frame, rate) <= e);
		assert_true(eql_pace_offset_ns(d, frame, rate) > e);
	}
}

static void rate__and_interarrival(void **state)
{
	assert_true(eql_rate_bps(1000000000, 8000000000ULL) == 1e9);
	assert_true(eql_rate_bps(125, 1000) == 1e9);
	assert_true(eql_rate_bps(123, 0) == 0);
	/* 1 MB flows at 50% of 10 Gbit/s: 8e6 bits / 5e9 bit/s = 1.6 ms. */
	assert_true(fabs(eql_interarrival_ns(1e6, 0.5, 10000000000ULL) - 1.6e6) < 1e-6);
	/* Offered load = mean size * 8 / gap = load * link rate. */
	rng_state = 0x6c6f6164;
	for (int i = 0; i < 1000; i++) {
		double mean = 1 + rnd32() % 10000000, load = (1 + rnd32() % 1000) / 1000.0;
		uint64_t link = 1000000 + rnd64() % 400000000000ULL;
		double gap = eql_interarrival_ns(mean, load, link);

		assert_true(fabs(mean * 8 * 1e9 / gap - load * (double)link) < 1e-6 * load * (double)link);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(offset__worked_examples),
		cmocka_unit_test(offset__no_drift_and_no_overflow),
		cmocka_unit_test(offset__is_monotone),
		cmocka_unit_test(due__inverts_the_send_times),
		cmocka_unit_test(rate__and_interarrival),
	};

	return cmocka_run_group_tests_name("load_pace", tests, NULL, NULL);
}
