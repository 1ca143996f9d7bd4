// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/smartt/ackpath.c: REPS for the ACKs' way back.  A
 * DATA a cumulative ACK covered is a suspect; its own ACK coming late
 * clears it; the own ACK of a DATA sent more than the reordering window
 * after it names its entropy; the oldest suspect gives way when full.
 */
#include "testlib.h"
#include "ackpath.h"

#define US	1000ULL

/* Covered, then its own ACK: late, not lost, and nothing named. */
static void late_own_ack__clears(void **state)
{
	struct smartt_ackpath a = { 0 };
	uint32_t lost[4];

	(void)state;
	smartt_ackpath_covered(&a, 10, 7, 100 * US);
	assert_int_equal(a.n, 1);
	/* Its own ACK (the DATA was freed: its time is not known). */
	assert_int_equal(smartt_ackpath_acked(&a, 10, 0, 20 * US, lost, 4), 0);
	assert_int_equal(a.n, 0);
}

/* The own ACK of a later DATA: the suspects sent more than the window
 * before it are named, those within it wait. */
static void later_ack__names_beyond_the_window(void **state)
{
	struct smartt_ackpath a = { 0 };
	uint32_t lost[4];

	(void)state;
	smartt_ackpath_covered(&a, 10, 7, 100 * US);
	smartt_ackpath_covered(&a, 11, 8, 115 * US);
	smartt_ackpath_covered(&a, 12, 9, 125 * US);
	/* DATA 13, sent at 130 us, window 20 us: 10 (30 us before) goes. */
	assert_int_equal(smartt_ackpath_acked(&a, 13, 130 * US, 20 * US, lost, 4), 1);
	assert_int_equal(lost[0], 7);
	assert_int_equal(a.n, 2);
	/* Exactly the window before is not beyond it: 11 stays. */
	assert_int_equal(smartt_ackpath_acked(&a, 14, 135 * US, 20 * US, lost, 4), 0);
	/* 12's own ACK, late: cleared; its own time (125 us) names nothing. */
	assert_int_equal(smartt_ackpath_acked(&a, 12, 0, 20 * US, lost, 4), 0);
	assert_int_equal(a.n, 1);
	/* A DATA sent long after: 11 named. */
	assert_int_equal(smartt_ackpath_acked(&a, 20, 500 * US, 20 * US, lost, 4), 1);
	assert_int_equal(lost[0], 8);
	assert_int_equal(a.n, 0);
	/* An ACK with no time, of no suspect: nothing. */
	smartt_ackpath_covered(&a, 30, 1, 600 * US);
	assert_int_equal(smartt_ackpath_acked(&a, 31, 0, 20 * US, lost, 4), 0);
	assert_int_equal(a.n, 1);
}

/* More named than the caller has room for: the rest are dropped, not
 * kept to be named twice. */
static void named__at_most_max(void **state)
{
	struct smartt_ackpath a = { 0 };
	uint32_t lost[2];

	(void)state;
	for (uint32_t i = 0; i < 5; i++)
		smartt_ackpath_covered(&a, i, 100 + i, i * US);
	assert_int_equal(smartt_ackpath_acked(&a, 9, 1000 * US, 20 * US, lost, 2), 2);
	assert_int_equal(a.n, 0);
}

/* Full: the oldest sent gives way to the new suspect. */
static void full__the_oldest_gives_way(void **state)
{
	struct smartt_ackpath a = { 0 };
	uint32_t lost[SMARTT_ACKPATH_SUSPECTS];

	(void)state;
	for (uint32_t i = 0; i < SMARTT_ACKPATH_SUSPECTS; i++)
		smartt_ackpath_covered(&a, i, i, (1000 + i) * US);
	smartt_ackpath_covered(&a, 99, 99, 5000 * US);
	assert_int_equal(a.n, SMARTT_ACKPATH_SUSPECTS);
	/* Name everything: seq 0's entropy is not among them, 99's is. */
	assert_int_equal(smartt_ackpath_acked(&a, 200, 9000 * US, 20 * US, lost,
					      SMARTT_ACKPATH_SUSPECTS), SMARTT_ACKPATH_SUSPECTS);
	for (uint32_t i = 0; i < SMARTT_ACKPATH_SUSPECTS; i++)
		assert_int_not_equal(lost[i], 0);
	bool saw99 = false;

	for (uint32_t i = 0; i < SMARTT_ACKPATH_SUSPECTS; i++)
		saw99 |= lost[i] == 99;
	assert_true(saw99);
	/* A new epoch forgets them. */
	smartt_ackpath_covered(&a, 1, 1, 0);
	smartt_ackpath_reset(&a);
	assert_int_equal(a.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(late_own_ack__clears),
		cmocka_unit_test(later_ack__names_beyond_the_window),
		cmocka_unit_test(named__at_most_max),
		cmocka_unit_test(full__the_oldest_gives_way),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
