// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/core/edge.h: what a peer's edge queue shows TC, and
 * the packets TC handed over that never reached the agent (its socket was
 * full).  Those are counted as taken once a mark has seen them wait
 * longer than wait_ns, and at once when the tunnel is freed; packets
 * merely on their way are not.
 */
#include "testlib.h"
#include <string.h>
#include "edge.h"

#define WAIT	10000000ULL	/* 10 ms */

static void show__taken_and_queued(void **state)
{
	struct eq_credit b;

	(void)state;
	memset(&b, 0, sizeof(b));
	eqt_edge_show(&b, 7, 3);
	assert_int_equal(b.taken, 7);
	assert_int_equal(b.queued, 3);
}

/* Two handed, one read and one lost: the mark taken at the first settle
 * sees both; a wait later the lost one is counted as taken, and TC's
 * handed - taken is 0 again. */
static void settle__what_was_handed_before_the_mark_and_not_read(void **state)
{
	struct eq_credit b;
	struct eqt_edge_mark m = { 0 };
	uint32_t taken = 0;
	uint64_t now = 1000;

	(void)state;
	memset(&b, 0, sizeof(b));
	b.handed = 2;
	eqt_edge_settle(&b, &taken, &m, now, WAIT);	/* the mark: 2 */
	taken++;					/* one read */
	eqt_edge_settle(&b, &taken, &m, now + WAIT - 1, WAIT);
	assert_int_equal(taken, 1);			/* not yet: it may come */
	eqt_edge_settle(&b, &taken, &m, now + WAIT, WAIT);
	assert_int_equal(taken, 2);
	assert_int_equal(b.handed - taken, 0);
}

/* A steady stream, every packet read within the wait: nothing changes,
 * however many are on their way at each mark. */
static void settle__leaves_packets_on_their_way(void **state)
{
	struct eq_credit b;
	struct eqt_edge_mark m = { 0 };
	uint32_t taken = 0;
	uint64_t now = 1000;

	(void)state;
	memset(&b, 0, sizeof(b));
	for (int k = 0; k < 100; k++) {
		b.handed += 50;		/* handed since the last look ... */
		eqt_edge_settle(&b, &taken, &m, now, WAIT);
		taken += 50;		/* ... read a little later */
		assert_int_equal(b.handed - taken, 0);
		now += WAIT / 3;
	}
	/* One read late, after the wait had adopted it: taken runs ahead of
	 * handed by one, which TC reads as nothing waiting, and the next
	 * settles leave it be. */
	b.handed += 1;
	eqt_edge_settle(&b, &taken, &m, now, WAIT);
	eqt_edge_settle(&b, &taken, &m, now + WAIT, WAIT);
	assert_int_equal(taken, b.handed);
	taken++;			/* it came after all */
	eqt_edge_settle(&b, &taken, &m, now + 3 * WAIT, WAIT);
	assert_int_equal(taken, b.handed + 1);
}

/* The agents drop only beyond what TC lets through: edge_queue for what
 * TCP sends again soon, EQ_EDGE_UNCLOCKED times it for what it would
 * not (a SYN, a connection's first packets), and one GSO packet's
 * segments more, which goes in whole while the queue has room for one. */
static void full__at_twice_the_limit_and_a_gso_packet(void **state)
{
	(void)state;
	assert_int_equal(EQ_EDGE_UNCLOCKED, 2);
	assert_int_equal(EQ_EDGE_GSO_SEGS, 64);
	assert_false(eqt_edge_full(0, 100));
	assert_false(eqt_edge_full(100, 100));
	assert_false(eqt_edge_full(263, 100));
	assert_true(eqt_edge_full(264, 100));
	/* edge_queue 1: a 45-segment TSO packet into the empty queue, twice */
	assert_false(eqt_edge_full(1 + 44, 1));
	assert_true(eqt_edge_full(66, 1));
}

/* A freed tunnel: whatever was handed is lost or read. */
static void adopt__at_free(void **state)
{
	struct eq_credit b;
	uint32_t taken = 4;

	(void)state;
	memset(&b, 0, sizeof(b));
	b.handed = 9;
	eqt_edge_adopt(&b, &taken);
	assert_int_equal(taken, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(show__taken_and_queued),
		cmocka_unit_test(settle__what_was_handed_before_the_mark_and_not_read),
		cmocka_unit_test(settle__leaves_packets_on_their_way),
		cmocka_unit_test(full__at_twice_the_limit_and_a_gso_packet),
		cmocka_unit_test(adopt__at_free),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
