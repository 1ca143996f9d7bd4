// SPDX-License-Identifier: GPL-2.0-only
/* user/core/pacer.c: the token bucket behind the pull pacer and the wire arbiter. */
#include "testlib.h"
#include "pacer.h"

#define RATE	1000000000ULL	/* 1 Gbit/s: 1500 bytes every 12 us */
#define MTU	1500

/* Called at random times, late or early: over any run the bytes taken
 * never exceed rate x time + burst, and a caller that keeps asking gets
 * at least rate x time - one MTU. */
static void test_rate_bound_random_calls(void **state)
{
	struct eqt_pacer p;
	uint64_t now = 0, taken = 0;

	rng_state = 11;
	eqt_pacer_init(&p, RATE, 8 * MTU, now);
	for (int i = 0; i < 200000; i++) {
		now += rnd32() % 200000;	/* 0..200 us: late wake-ups */
		eqt_pacer_update(&p, now);
		while (eqt_pacer_take(&p, MTU))
			taken += MTU;
		assert_true((double)taken * 8e9 <= (double)now * RATE + 8.0 * MTU * 8e9);
	}
	/* Gaps over the burst lose rate, by design: check the total within
	 * the part the burst could not hold (wake-ups up to 200 us, burst 96 us). */
	assert_true((double)taken * 8e9 >= (double)now * RATE / 2);
}

static void test_regular_calls_full_rate(void **state)
{
	struct eqt_pacer p;
	uint64_t now = 0, taken = 0;

	eqt_pacer_init(&p, RATE, 8 * MTU, now);
	for (int i = 0; i < 100000; i++) {
		now += 50000;	/* every 50 us, inside the 96 us burst */
		eqt_pacer_update(&p, now);
		while (eqt_pacer_take(&p, MTU))
			taken += MTU;
	}
	/* Exactly the rate, to within one MTU. */
	assert_true((double)taken * 8e9 + MTU * 8e9 >= (double)now * RATE);
	assert_true((double)taken * 8e9 <= (double)now * RATE);
}

static void test_when(void **state)
{
	struct eqt_pacer p;

	eqt_pacer_init(&p, RATE, 8 * MTU, 1000);
	assert_int_equal(eqt_pacer_take(&p, MTU), 0);		/* starts empty */
	assert_int_equal(eqt_pacer_when(&p, MTU), 1000 + 12000);
	eqt_pacer_update(&p, 1000 + 11999);
	assert_int_equal(eqt_pacer_take(&p, MTU), 0);
	eqt_pacer_update(&p, 1000 + 12000);
	assert_int_equal(eqt_pacer_take(&p, MTU), 1);
	eqt_pacer_update(&p, 10000000000ULL);			/* a long sleep: burst only */
	for (int i = 0; i < 8; i++)
		assert_int_equal(eqt_pacer_take(&p, MTU), 1);
	assert_int_equal(eqt_pacer_take(&p, MTU), 0);
	eqt_pacer_update(&p, 5);				/* the clock never runs back */
	assert_int_equal(eqt_pacer_take(&p, MTU), 0);
}

/* A wait for more than the burst ends when the bucket is full, and the
 * bucket then gives what it holds: a pacer asked for 16 MTUs with a
 * burst of 8 never said "now" before, and its caller spun. */
static void test_when_beyond_the_burst(void **state)
{
	struct eqt_pacer p;
	uint64_t t;

	eqt_pacer_init(&p, RATE, 8 * MTU, 0);
	t = eqt_pacer_when(&p, 16 * MTU);
	assert_int_equal(t, 8 * 12000);				/* full after 8 MTU times */
	eqt_pacer_update(&p, t);
	assert_int_equal(eqt_pacer_when(&p, 16 * MTU), t);	/* now */
	assert_int_equal(eqt_pacer_take_units(&p, MTU, 16), 8);
}

/* Several units at once: as many as the bucket holds, up to the cap, and
 * the rest stays for the next call; never more than the rate allows. */
static void test_take_units(void **state)
{
	struct eqt_pacer p;
	uint64_t now = 0, taken = 0;

	eqt_pacer_init(&p, RATE, 8 * MTU, 0);
	assert_int_equal(eqt_pacer_take_units(&p, MTU, 100), 0);
	eqt_pacer_update(&p, 12000 * 5 + 6000);			/* 5.5 MTUs due */
	assert_int_equal(eqt_pacer_take_units(&p, MTU, 3), 3);
	assert_int_equal(eqt_pacer_take_units(&p, MTU, 100), 2);
	assert_int_equal(eqt_pacer_take_units(&p, MTU, 100), 0);
	eqt_pacer_update(&p, 12000 * 6);			/* the half left + half */
	assert_int_equal(eqt_pacer_take_units(&p, MTU, 100), 1);
	assert_int_equal(eqt_pacer_take_units(&p, 0, 100), 0);
	eqt_pacer_update(&p, 10000000000ULL);			/* burst only */
	assert_int_equal(eqt_pacer_take_units(&p, MTU, 100), 8);
	/* Random calls: the same bound as one unit at a time. */
	rng_state = 12;
	eqt_pacer_init(&p, RATE, 8 * MTU, now);
	for (int i = 0; i < 100000; i++) {
		now += rnd32() % 100000;
		eqt_pacer_update(&p, now);
		taken += (uint64_t)eqt_pacer_take_units(&p, MTU, 1 + rnd32() % 16) * MTU;
		assert_true((double)taken * 8e9 <= (double)now * RATE + 8.0 * MTU * 8e9);
	}
}

/* A bucket made smaller loses what it held above; made larger, it holds
 * more from the next update on (the pull pacer's bucket follows how many
 * senders it pulls from). */
static void test_set_burst(void **state)
{
	struct eqt_pacer p;

	eqt_pacer_init(&p, RATE, 8 * MTU, 0);
	eqt_pacer_update(&p, 10000000000ULL);			/* full: 8 MTUs */
	eqt_pacer_set_burst(&p, 2 * MTU);
	assert_int_equal(eqt_pacer_take_units(&p, MTU, 100), 2);
	eqt_pacer_set_burst(&p, 20 * MTU);
	assert_int_equal(eqt_pacer_take_units(&p, MTU, 100), 0);	/* nothing given */
	eqt_pacer_update(&p, 20000000000ULL);
	assert_int_equal(eqt_pacer_take_units(&p, MTU, 100), 20);
	assert_int_equal(eqt_pacer_when(&p, 20 * MTU), 20000000000ULL + 20 * 12000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_bound_random_calls),
		cmocka_unit_test(test_regular_calls_full_rate),
		cmocka_unit_test(test_when),
		cmocka_unit_test(test_when_beyond_the_burst),
		cmocka_unit_test(test_take_units),
		cmocka_unit_test(test_set_burst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
