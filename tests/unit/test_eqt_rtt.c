// SPDX-License-Identifier: GPL-2.0-only
/* user/core/rtt.c: RFC 6298's retransmission timeout, the core's. */
#include "testlib.h"
#include "rtt.h"

#define US	1000ULL
#define MS	1000000ULL
#define FLOOR	(10 * MS)
#define MAX	(1000 * MS)

/* Before any sample the floor applies; the first sample R gives srtt R,
 * rttvar R/2, RTO R + 4 R/2 = 3R (RFC 6298 §2.2). */
static void first_sample__srtt_r_rttvar_half(void **state)
{
	struct eqt_rtt r = { 0 };

	assert_int_equal(eqt_rtt_rto(&r, FLOOR), FLOOR);
	eqt_rtt_sample(&r, 8 * MS, FLOOR, MAX);
	assert_int_equal(r.srtt_ns, 8 * MS);
	assert_int_equal(r.rttvar_ns, 4 * MS);
	assert_int_equal(r.rto_ns, 24 * MS);
	assert_int_equal(eqt_rtt_rto(&r, FLOOR), 24 * MS);
}

/* §2.3 with alpha 1/8, beta 1/4, worked by hand: after 8 ms, a 16 ms
 * sample: rttvar = 3/4 4 + 1/4 |8 - 16| = 5 ms, srtt = 7/8 8 + 1/8 16 =
 * 9 ms, RTO 29 ms (rttvar is updated with the old srtt). */
static void second_sample__rfc_order_of_updates(void **state)
{
	struct eqt_rtt r = { 0 };

	eqt_rtt_sample(&r, 8 * MS, FLOOR, MAX);
	eqt_rtt_sample(&r, 16 * MS, FLOOR, MAX);
	assert_int_equal(r.rttvar_ns, 5 * MS);
	assert_int_equal(r.srtt_ns, 9 * MS);
	assert_int_equal(r.rto_ns, 29 * MS);
}

/* Steady samples shrink rttvar geometrically: the RTO converges on srtt,
 * but never goes below the floor; a huge sample is capped at MAX. */
static void clamps__floor_and_cap(void **state)
{
	struct eqt_rtt r = { 0 };

	for (int i = 0; i < 100; i++)
		eqt_rtt_sample(&r, 200 * US, FLOOR, MAX);
	assert_int_equal(r.srtt_ns, 200 * US);
	assert_true(r.rttvar_ns < US);
	assert_int_equal(r.rto_ns, FLOOR);
	eqt_rtt_sample(&r, 5000 * MS, FLOOR, MAX);
	assert_int_equal(r.rto_ns, MAX);
}

/* §5.5: each expiry doubles the RTO, from the floor when there is no
 * estimate, up to the cap; a sample then recomputes it. */
static void backoff__doubles_to_the_cap_sample_resets(void **state)
{
	struct eqt_rtt r = { 0 };
	uint64_t want = FLOOR;

	for (int i = 0; i < 10; i++) {
		eqt_rtt_backoff(&r, FLOOR, MAX);
		want = 2 * want > MAX ? MAX : 2 * want;
		assert_int_equal(r.rto_ns, want);
	}
	assert_int_equal(r.rto_ns, MAX);
	eqt_rtt_sample(&r, 2 * MS, FLOOR, MAX);
	assert_int_equal(r.rto_ns, FLOOR);	/* 2 + 4 x 1 ms, below the floor */
}

/* The base RTT's floor: the lowest smoothed RTT of this window's half and
 * the last; a half more than a window old is forgotten, so the floor
 * follows a loop that got slower. */
#define WIN	(100 * MS)

static void floor__lowest_of_two_halves_then_forgets(void **state)
{
	struct eqt_rtt_floor f = { 0 };
	uint64_t t = 5 * MS;

	assert_int_equal(eqt_rtt_floor(&f), 0);
	eqt_rtt_floor_add(&f, 300 * US, t, WIN);
	assert_int_equal(eqt_rtt_floor(&f), 300 * US);
	eqt_rtt_floor_add(&f, 200 * US, t + 10 * MS, WIN);
	eqt_rtt_floor_add(&f, 900 * US, t + 50 * MS, WIN);
	assert_int_equal(eqt_rtt_floor(&f), 200 * US);
	/* a new half: the last one's 200 us still counts */
	eqt_rtt_floor_add(&f, 1000 * US, t + 120 * MS, WIN);
	assert_int_equal(eqt_rtt_floor(&f), 200 * US);
	eqt_rtt_floor_add(&f, 950 * US, t + 150 * MS, WIN);
	assert_int_equal(eqt_rtt_floor(&f), 200 * US);
	/* the next half drops it: the loop now takes about 1 ms */
	eqt_rtt_floor_add(&f, 980 * US, t + 225 * MS, WIN);
	assert_int_equal(eqt_rtt_floor(&f), 950 * US);
	/* after an idle spell of more than two windows, only the new sample */
	eqt_rtt_floor_add(&f, 400 * US, t + 800 * MS, WIN);
	assert_int_equal(eqt_rtt_floor(&f), 400 * US);
	assert_int_equal(f.prev, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_sample__srtt_r_rttvar_half),
		cmocka_unit_test(second_sample__rfc_order_of_updates),
		cmocka_unit_test(clamps__floor_and_cap),
		cmocka_unit_test(backoff__doubles_to_the_cap_sample_resets),
		cmocka_unit_test(floor__lowest_of_two_halves_then_forgets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
