// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tests/fabric/load/rxstats.c, udp-recv's accounting:
 * worked cases (in order, gaps, reordering, duplicates, ECN, trimming,
 * foreign datagrams, rate, one-way delay), and random arrival sequences
 * (loss, duplication, reordering) checked against a brute-force count.
 */
#include "testlib.h"
#include <stdlib.h>
#include <string.h>
#include "load/rxstats.h"

static struct eql_rxstats *st;

static int setup(void **state)
{
	st = malloc(sizeof(*st));
	return !st || eql_rxstats_init(st);
}

static int teardown(void **state)
{
	eql_rxstats_free(st);
	free(st);
	return 0;
}

static enum eql_rx_verdict add(uint64_t seq, unsigned int ecn, uint64_t t)
{
	struct eql_dg_info d = { .seq = seq };

	return eql_rxstats_add(st, &d, 1000, ecn, t);
}

static void reset(void)
{
	eql_rxstats_free(st);
	eql_rxstats_init(st);
}

static void in_order__nothing_lost_nothing_reordered(void **state)
{
	reset();
	for (uint64_t i = 0; i < 100; i++)
		assert_int_equal(add(i, 0, i), EQL_RX_NEW);
	assert_int_equal(st->pkts, 100);
	assert_int_equal(st->bytes, 100000);
	assert_int_equal(st->distinct, 100);
	assert_int_equal(st->max_seq, 99);
	assert_int_equal(eql_rxstats_lost(st), 0);
	assert_int_equal(st->reordered, 0);
	assert_int_equal(st->dups, 0);
	assert_int_equal(st->not_ect, 100);
}

static void gaps_reorder_and_dups(void **state)
{
	static const uint64_t arrivals[] = { 0, 1, 3, 2, 4, 4, 2, 7, 9 };
	static const enum eql_rx_verdict want[] = {
		EQL_RX_NEW, EQL_RX_NEW, EQL_RX_NEW, EQL_RX_NEW, EQL_RX_NEW,
		EQL_RX_DUP, EQL_RX_DUP, EQL_RX_NEW, EQL_RX_NEW,
	};

	reset();
	for (size_t i = 0; i < sizeof(arrivals) / sizeof(arrivals[0]); i++)
		assert_int_equal(add(arrivals[i], 0, i), want[i]);
	assert_int_equal(st->pkts, 9);
	assert_int_equal(st->distinct, 7);		/* 0 1 2 3 4 7 9 */
	assert_int_equal(st->dups, 2);
	assert_int_equal(st->reordered, 1);		/* 2 after 3; dups are not reordered */
	assert_int_equal(eql_rxstats_lost(st), 3);	/* 5 6 8 */
	assert_int_equal(st->max_seq, 9);
	/* A late arrival of a lost one repairs the count. */
	assert_int_equal(add(8, 0, 10), EQL_RX_NEW);
	assert_int_equal(eql_rxstats_lost(st), 2);
	assert_int_equal(st->reordered, 2);
}

static void ecn_trim_and_bad(void **state)
{
	struct eql_dg_info trimmed = { .seq = 5, .trimmed = true };
	struct eql_dg_info huge = { .seq = EQL_RX_SEQ_MAX };

	reset();
	add(0, 0, 0);
	add(1, 1, 1);
	add(2, 2, 2);
	add(3, 3, 3);
	add(4, 3 | 0xb8, 4);		/* DSCP bits ignored */
	assert_int_equal(st->not_ect, 1);
	assert_int_equal(st->ect, 2);
	assert_int_equal(st->ce, 2);
	assert_int_equal(eql_rxstats_add(st, &trimmed, 62, 0, 5), EQL_RX_NEW);
	assert_int_equal(st->trimmed, 1);
	assert_int_equal(eql_rxstats_add(st, NULL, 1000, 0, 6), EQL_RX_BAD);
	assert_int_equal(eql_rxstats_add(st, &huge, 1000, 0, 7), EQL_RX_BAD);
	assert_int_equal(st->bad, 2);
	assert_int_equal(st->pkts, 6);			/* bad ones count nowhere else */
	assert_int_equal(st->bytes, 5 * 1000 + 62);
	assert_int_equal(st->last_ns, 5);
	/* The bitmap grows past its first size. */
	assert_int_equal(add(EQL_RX_SEQ_MAX - 1, 0, 8), EQL_RX_NEW);
	assert_int_equal(add(EQL_RX_SEQ_MAX - 1, 0, 9), EQL_RX_DUP);
	assert_int_equal(eql_rxstats_lost(st), EQL_RX_SEQ_MAX - 7);
}

static void rate_excludes_the_first_datagram(void **state)
{
	reset();
	assert_true(eql_rxstats_rate_bps(st) == 0);
	add(0, 0, 5000000);
	assert_true(eql_rxstats_rate_bps(st) == 0);
	add(1, 0, 6000000);
	add(2, 0, 7000000);
	/* 2 x 1000 bytes in 2 ms after the first: 8 Mbit/s. */
	assert_true(eql_rxstats_rate_bps(st) == 8e6);
	assert_int_equal(st->first_ns, 5000000);
	assert_int_equal(st->last_ns, 7000000);
}

static void owd_from_send_times(void **state)
{
	reset();
	for (uint64_t i = 0; i < 1000; i++) {
		struct eql_dg_info d = { .seq = i, .has_time = true, .send_ns = 1000000 + i };

		eql_rxstats_add(st, &d, 100, 0, 1000000 + i + 1000 + i);	/* owd 1000 + i */
	}
	{	/* no time, or a time after the arrival: not a delay sample */
		struct eql_dg_info a = { .seq = 1000 }, b = { .seq = 1001, .has_time = true,
							     .send_ns = 99999999 };

		eql_rxstats_add(st, &a, 100, 0, 5);
		eql_rxstats_add(st, &b, 100, 0, 5);
	}
	assert_int_equal(st->owd.count, 1000);
	assert_int_equal(st->owd.min, 1000);
	assert_int_equal(st->owd.max, 1999);
	assert_true(eql_hist_pct(&st->owd, 0.5) >= 1499 - 6 && eql_hist_pct(&st->owd, 0.5) <= 1499 + 6);
}

/* Random runs: a subset of 0..n-1, some duplicated, shuffled; every figure
 * against a brute-force recount. */
static void random_sequences_match_brute_force(void **state)
{
	const size_t n = 3000;
	uint64_t *arr = malloc(3 * n * sizeof(*arr));
	uint8_t *seen = malloc(n);

	assert_non_null(arr);
	assert_non_null(seen);
	rng_state = 0x72787374;
	for (int round = 0; round < 300; round++) {
		size_t m = 0, distinct = 0, dups = 0, reordered = 0;
		uint64_t max = 0;
		bool any = false;

		for (uint64_t s = 0; s < n; s++) {
			if (rnd32() % 10 == 0)
				continue;			/* lost */
			arr[m++] = s;
			if (rnd32() % 20 == 0)
				arr[m++] = s;			/* duplicated */
		}
		for (size_t i = 0; i < m; i++) {		/* local reordering */
			if (rnd32() % 4 == 0 && i + 1 < m) {
				size_t j = i + 1 + rnd32() % (m - i - 1 < 8 ? m - i - 1 : 8);
				uint64_t t = arr[i];

				arr[i] = arr[j];
				arr[j] = t;
			}
		}
		reset();
		memset(seen, 0, n);
		for (size_t i = 0; i < m; i++) {
			uint64_t s = arr[i];

			add(s, 0, i);
			if (seen[s]) {
				dups++;
				continue;
			}
			seen[s] = 1;
			if (any && s < max)
				reordered++;
			if (!any || s > max)
				max = s;
			any = true;
			distinct++;
		}
		assert_int_equal(st->pkts, m);
		assert_int_equal(st->distinct, distinct);
		assert_int_equal(st->dups, dups);
		assert_int_equal(st->reordered, reordered);
		assert_int_equal(st->max_seq, max);
		assert_int_equal(eql_rxstats_lost(st), max + 1 - distinct);
	}
	free(arr);
	free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_order__nothing_lost_nothing_reordered),
		cmocka_unit_test(gaps_reorder_and_dups),
		cmocka_unit_test(ecn_trim_and_bad),
		cmocka_unit_test(rate_excludes_the_first_datagram),
		cmocka_unit_test(owd_from_send_times),
		cmocka_unit_test(random_sequences_match_brute_force),
	};

	return cmocka_run_group_tests_name("load_rxstats", tests, setup, teardown);
}
