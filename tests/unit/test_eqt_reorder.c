// SPDX-License-Identifier: GPL-2.0-only
/*
 * user/core/reorder.c: the reorder queue, alone (tests/unit/
 * test_eqds_receiver.c tests it through EQDS).  Arrivals in any order
 * within the queue go up in order, once; duplicates are dropped and
 * counted; a gap goes at exactly its timeout, and one in the way of a
 * packet beyond the queue at once; a seq missing a loss window after a
 * later one came is reported, and again each re-report interval while it
 * stays missing, a NACKed one never; its first send coming late doubles
 * the window, up to half the timeout; a restart sends everything up and
 * starts a new numbering.
 */
#include "testlib.h"
#include <stdlib.h>
#include <string.h>
#include "reorder.h"

#define LIM	16
#define TMO	1000000ULL	/* 1 ms */
#define LOSS	100000ULL	/* 100 us */

struct rec {
	uint32_t	up[1024], lost[1024];
	unsigned	n_up, n_lost;
	uint32_t	gone_from[16], gone_n[16];	/* gaps given up */
	unsigned	n_gone;
};

static struct rec R;
static struct eqt_pool pool;

static void up(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	assert_int_equal(peer, 7);
	assert_true(R.n_up < 1024);
	R.up[R.n_up++] = p->seq;
	eqt_pkt_put(&pool, p);
}

static void lost(void *ctx, uint32_t peer, uint32_t seq)
{
	assert_int_equal(peer, 7);
	assert_true(R.n_lost < 1024);
	R.lost[R.n_lost++] = seq;
}

static void gave_up(void *ctx, uint32_t peer, uint32_t from, uint32_t n)
{
	assert_int_equal(peer, 7);
	if (R.n_gone < 16) {
		R.gone_from[R.n_gone] = from;
		R.gone_n[R.n_gone] = n;
	}
	R.n_gone++;
}

static const struct eqt_reorder_io io = { .ctx = NULL, .pool = &pool, .deliver = up,
					  .lost = lost, .gave_up = gave_up };

static int setup(void **state)
{
	memset(&R, 0, sizeof(R));
	return eqt_pool_init(&pool, 256);
}

static int teardown(void **state)
{
	assert_int_equal(pool.in_use, 0);	/* every packet freed or handed on */
	eqt_pool_fini(&pool);
	return 0;
}

static void in(struct eqt_reorder *q, uint32_t seq, uint64_t now)
{
	struct eqt_pkt *p = eqt_pkt_get(&pool);

	assert_non_null(p);
	p->seq = seq;
	p->len = 100;
	eqt_reorder_in(q, p, &io, 7, now);
}

static void up_in_order(uint32_t first, unsigned n)
{
	assert_int_equal(R.n_up, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(R.up[i], first + i);
}

static void in_order_and_out_of_order_go_up_in_order(void **state)
{
	struct eqt_reorder q;

	assert_int_equal(eqt_reorder_init(&q, LIM, TMO, 0), 0);
	q.expected = 1000;
	in(&q, 1000, 1);
	in(&q, 1003, 2);
	in(&q, 1002, 3);
	assert_int_equal(R.n_up, 1);
	assert_int_equal(q.n, 2);
	assert_true(eqt_reorder_seen(&q, 1003));
	assert_false(eqt_reorder_seen(&q, 1001));
	in(&q, 1001, 4);
	up_in_order(1000, 4);
	assert_int_equal(q.n, 0);
	assert_int_equal(q.expected, 1004);
	assert_int_equal(q.ooo, 2);
	/* Duplicates: of one gone up, of one held. */
	in(&q, 1002, 5);
	in(&q, 1006, 6);
	in(&q, 1006, 7);
	assert_int_equal(q.dup, 2);
	assert_int_equal(q.n, 1);
	eqt_reorder_fini(&q, &pool);
}

static void a_gap_goes_at_its_timeout_and_one_in_the_way_at_once(void **state)
{
	struct eqt_reorder q;
	uint64_t t0 = 5000000;

	assert_int_equal(eqt_reorder_init(&q, LIM, TMO, 0), 0);
	in(&q, 0, t0);
	in(&q, 2, t0 + 10);			/* gap at 1 from t0 + 10 */
	assert_int_equal(eqt_reorder_timers(&q, &io, 7, t0 + 11), t0 + 10 + TMO);
	eqt_reorder_timers(&q, &io, 7, t0 + 10 + TMO - 1);
	assert_int_equal(R.n_up, 1);
	assert_int_equal(eqt_reorder_timers(&q, &io, 7, t0 + 10 + TMO), EQT_NO_DEADLINE);
	assert_int_equal(R.n_up, 2);
	assert_int_equal(R.up[1], 2);
	assert_int_equal(q.gaps, 1);
	/* The scheme hears which seqs were given up (SIRD takes their
	 * credit back). */
	assert_int_equal(R.n_gone, 1);
	assert_int_equal(R.gone_from[0], 1);
	assert_int_equal(R.gone_n[0], 1);
	/* 4 held behind a gap at 3; 3 + LIM + 1 does not fit: the gap goes. */
	in(&q, 4, t0 + 2 * TMO);
	in(&q, 3 + LIM + 1, t0 + 2 * TMO);
	assert_int_equal(R.n_up, 3);
	assert_int_equal(R.up[2], 4);
	assert_int_equal(q.gaps, 2);
	assert_int_equal(q.n, 1);
	assert_int_equal(R.n_gone, 2);
	assert_int_equal(R.gone_from[1], 3);
	assert_int_equal(R.gone_n[1], 1);
	/* Nothing held and a seq far beyond: the whole stretch goes. */
	eqt_reorder_fini(&q, &pool);
	assert_int_equal(eqt_reorder_init(&q, LIM, TMO, 0), 0);
	in(&q, 0, t0);
	in(&q, 1 + 2 * LIM, t0);
	assert_int_equal(R.n_gone, 3);
	assert_int_equal(R.gone_from[2], 1);
	assert_int_equal(R.gone_n[2], LIM + 1);
	assert_int_equal(q.gaps, 1);
	eqt_reorder_fini(&q, &pool);
}

static void losses_are_reported_once_and_nacked_ones_never(void **state)
{
	struct eqt_reorder q;
	uint64_t t0 = 5000000;

	assert_int_equal(eqt_reorder_init(&q, LIM, TMO, LOSS), 0);
	in(&q, 0, t0);
	eqt_reorder_nacked(&q, 1);		/* a trimmed header: NACKed */
	in(&q, 3, t0 + 1);			/* 1 and 2 missing */
	in(&q, 5, t0 + 2);			/* and 4, from now */
	assert_int_equal(eqt_reorder_timers(&q, &io, 7, t0 + 2), t0 + 1 + LOSS);
	eqt_reorder_timers(&q, &io, 7, t0 + 1 + LOSS);
	assert_int_equal(R.n_lost, 1);
	assert_int_equal(R.lost[0], 2);
	eqt_reorder_timers(&q, &io, 7, t0 + 1 + 2 * LOSS);
	assert_int_equal(R.n_lost, 2);
	assert_int_equal(R.lost[1], 4);
	/* Not again before the re-report interval (TMO / 4 here). */
	eqt_reorder_timers(&q, &io, 7, t0 + 1 + 3 * LOSS);
	assert_int_equal(R.n_lost, 2);
	assert_int_equal(q.lost, 2);
	assert_int_equal(q.relost, 0);
	/* The resends (RTX) are not late; 1, 2 and 4 fill the gaps. */
	assert_false(eqt_reorder_late(&q, 2, true));
	in(&q, 1, t0 + 6 * LOSS);
	in(&q, 2, t0 + 6 * LOSS);
	in(&q, 4, t0 + 6 * LOSS);
	up_in_order(0, 6);
	assert_int_equal(q.late, 0);
	eqt_reorder_fini(&q, &pool);
}

/* A seq reported lost and still missing (its NACK or its resend was lost
 * too) is reported again each re-report interval, a quarter of the
 * timeout, until it comes; a seq the scheme NACKed (trimmed) never is.
 * Reported once only, such a gap held everything behind it for the
 * whole timeout. */
static void a_seq_still_missing_is_reported_again_until_it_comes(void **state)
{
	struct eqt_reorder q;
	uint64_t t0 = 5000000, t1 = t0 + 1 + LOSS, every = TMO / 4;

	assert_int_equal(eqt_reorder_init(&q, LIM, TMO, LOSS), 0);
	in(&q, 0, t0);
	eqt_reorder_nacked(&q, 2);		/* trimmed: the scheme's to NACK */
	in(&q, 3, t0 + 1);			/* 1 and 2 missing */
	assert_int_equal(eqt_reorder_timers(&q, &io, 7, t1), t1 + every);
	assert_int_equal(R.n_lost, 1);
	assert_int_equal(R.lost[0], 1);
	eqt_reorder_timers(&q, &io, 7, t1 + every - 1);
	assert_int_equal(R.n_lost, 1);
	assert_int_equal(eqt_reorder_timers(&q, &io, 7, t1 + every), t1 + 2 * every);
	assert_int_equal(R.n_lost, 2);
	assert_int_equal(R.lost[1], 1);
	eqt_reorder_timers(&q, &io, 7, t1 + 2 * every);
	assert_int_equal(R.n_lost, 3);
	assert_int_equal(R.lost[2], 1);
	assert_int_equal(q.lost, 1);		/* one seq lost, */
	assert_int_equal(q.relost, 2);		/* reported twice more */
	in(&q, 1, t1 + 2 * every + 1);		/* the resend */
	in(&q, 2, t1 + 2 * every + 2);		/* and the trimmed one's */
	up_in_order(0, 4);
	assert_int_equal(eqt_reorder_timers(&q, &io, 7, t1 + 5 * every), EQT_NO_DEADLINE);
	assert_int_equal(R.n_lost, 3);
	assert_int_equal(q.gaps, 0);
	eqt_reorder_fini(&q, &pool);
}

/* A seq reported after a round of re-reports was set is not in that
 * round (it would be asked for again at once), but in the next. */
static void a_seq_reported_later_waits_for_the_next_round(void **state)
{
	struct eqt_reorder q;
	uint64_t t0 = 5000000, t1 = t0 + 1 + LOSS, every = TMO / 4;

	assert_int_equal(eqt_reorder_init(&q, LIM, TMO, LOSS), 0);
	in(&q, 0, t0);
	in(&q, 2, t0 + 1);			/* 1 missing */
	eqt_reorder_timers(&q, &io, 7, t1);	/* 1 reported; a round set */
	in(&q, 4, t1 + 1);			/* 3 missing */
	eqt_reorder_timers(&q, &io, 7, t1 + 1 + LOSS);
	assert_int_equal(R.n_lost, 2);
	assert_int_equal(R.lost[1], 3);
	eqt_reorder_timers(&q, &io, 7, t1 + every);
	assert_int_equal(R.n_lost, 3);		/* 1 again, not 3 */
	assert_int_equal(R.lost[2], 1);
	eqt_reorder_timers(&q, &io, 7, t1 + 2 * every);
	assert_int_equal(R.n_lost, 5);		/* both */
	assert_int_equal(R.lost[3], 1);
	assert_int_equal(R.lost[4], 3);
	in(&q, 1, t1 + 2 * every + 1);
	in(&q, 3, t1 + 2 * every + 2);
	up_in_order(0, 5);
	assert_int_equal(q.relost, 3);
	eqt_reorder_fini(&q, &pool);
}

/* The interval is never shorter than two loss windows: where resends
 * are only slow, the window has grown, and so does the interval. */
static void the_re_report_interval_follows_a_grown_loss_window(void **state)
{
	struct eqt_reorder q;
	uint64_t t1 = 1 + 2 * LOSS;

	assert_int_equal(eqt_reorder_init(&q, LIM, TMO, 2 * LOSS), 0);	/* 2 x 200 us > 250 */
	in(&q, 0, 0);
	in(&q, 2, 1);
	assert_int_equal(eqt_reorder_timers(&q, &io, 7, t1), t1 + 4 * LOSS);
	assert_int_equal(R.n_lost, 1);
	eqt_reorder_timers(&q, &io, 7, t1 + TMO / 4);
	assert_int_equal(R.n_lost, 1);
	eqt_reorder_timers(&q, &io, 7, t1 + 4 * LOSS);
	assert_int_equal(R.n_lost, 2);
	assert_int_equal(q.gaps, 0);		/* before the gap's timeout */
	in(&q, 1, t1 + 4 * LOSS + 1);
	up_in_order(0, 3);
	eqt_reorder_fini(&q, &pool);
}

static void a_late_first_send_doubles_the_window_up_to_a_cap(void **state)
{
	struct eqt_reorder q;

	assert_int_equal(eqt_reorder_init(&q, LIM, TMO, LOSS), 0);
	in(&q, 0, 1);
	in(&q, 2, 2);
	eqt_reorder_timers(&q, &io, 7, 2 + LOSS);
	assert_int_equal(R.n_lost, 1);
	assert_true(eqt_reorder_late(&q, 1, false));
	assert_false(eqt_reorder_late(&q, 1, false));	/* asked once */
	assert_int_equal(q.late, 1);
	assert_int_equal(q.loss_ns, 2 * LOSS);
	for (int i = 0; i < 10; i++) {
		eqt_reorder_nacked(&q, 100 + i);
		eqt_reorder_late(&q, 100 + i, false);
	}
	assert_int_equal(q.loss_ns, TMO / 2);
	in(&q, 1, 3);
	up_in_order(0, 3);
	eqt_reorder_fini(&q, &pool);
}

/* A burst that fell behind later packets (the sender's qdisc queue, which
 * its agent's sends go around) comes late as many packets, all reported
 * lost under one window: the window doubles once for them, not once for
 * each (ten took it to its cap at once, and every later loss then waited
 * half the reorder timeout for its NACK).  A loss reported under the new
 * window that also comes late doubles it again. */
static void a_late_burst_doubles_the_window_once(void **state)
{
	struct eqt_reorder q;

	assert_int_equal(eqt_reorder_init(&q, LIM, TMO, LOSS), 0);
	in(&q, 0, 1);
	in(&q, 4, 2);				/* 1, 2, 3 fell behind */
	eqt_reorder_timers(&q, &io, 7, 2 + LOSS);
	assert_int_equal(R.n_lost, 3);
	for (uint32_t s = 1; s <= 3; s++)
		assert_true(eqt_reorder_late(&q, s, false));
	assert_int_equal(q.late, 3);
	assert_int_equal(q.loss_ns, 2 * LOSS);
	for (uint32_t s = 1; s <= 3; s++)
		in(&q, s, 3);
	up_in_order(0, 5);
	in(&q, 7, 10);				/* 5 and 6 behind, under the new window */
	eqt_reorder_timers(&q, &io, 7, 10 + 2 * LOSS);
	assert_int_equal(R.n_lost, 5);
	assert_true(eqt_reorder_late(&q, 5, false));
	assert_true(eqt_reorder_late(&q, 6, false));
	assert_int_equal(q.loss_ns, 4 * LOSS);
	eqt_reorder_fini(&q, &pool);
}

static void a_restart_sends_everything_up_and_renumbers(void **state)
{
	struct eqt_reorder q;

	assert_int_equal(eqt_reorder_init(&q, LIM, TMO, LOSS), 0);
	in(&q, 0, 1);
	in(&q, 5, 2);
	in(&q, 3, 3);
	eqt_reorder_nacked(&q, 4);
	eqt_reorder_restart(&q, &io, 7, 1u << 20, 4);
	assert_int_equal(R.n_up, 3);
	assert_int_equal(R.up[1], 3);
	assert_int_equal(R.up[2], 5);
	assert_int_equal(q.n, 0);
	assert_int_equal(q.expected, 1u << 20);
	assert_false(eqt_reorder_late(&q, 4, false));	/* the old epoch's marks are gone */
	in(&q, 1u << 20, 5);
	assert_int_equal(R.n_up, 4);
	eqt_reorder_fini(&q, &pool);
}

/* Loss detection in an epoch whatever its numbers: restarted at a seq in
 * the far half of the seq space from where the queue was (0 after init,
 * the last epoch's before), a loss is reported a loss window after a
 * later packet came, as at 0. */
static void losses_are_found_in_any_epoch(void **state)
{
	static const uint32_t isns[] = { 0x40000000u, 0x90000000u, 0xf0000000u };

	for (unsigned k = 0; k < sizeof(isns) / sizeof(isns[0]); k++) {
		struct eqt_reorder q;
		uint32_t isn = isns[k];
		uint64_t t0 = 5000000;

		memset(&R, 0, sizeof(R));
		assert_int_equal(eqt_reorder_init(&q, LIM, TMO, LOSS), 0);
		eqt_reorder_restart(&q, &io, 7, isn, t0);
		in(&q, isn, t0);
		in(&q, isn + 2, t0 + 1);		/* isn + 1 missing */
		eqt_reorder_timers(&q, &io, 7, t0 + 1 + LOSS);
		assert_int_equal(R.n_lost, 1);
		assert_int_equal(R.lost[0], isn + 1);
		in(&q, isn + 1, t0 + 2 * LOSS);
		up_in_order(isn, 3);
		eqt_reorder_fini(&q, &pool);
	}
}

/* Random arrivals (a window of 24 with loss, duplication and reordering)
 * never go up out of order or twice, and everything is accounted for:
 * gone up, held, dropped as a duplicate or given up with a gap. */
static void random_arrivals_keep_order_and_account(void **state)
{
	struct eqt_reorder q;
	uint32_t next = 0, arrived = 0;
	uint64_t now = 1;

	rng_state = 23;
	assert_int_equal(eqt_reorder_init(&q, LIM, TMO, LOSS), 0);
	for (int i = 0; i < 900 && R.n_up < 1000; i++) {
		uint32_t s = next + rnd32() % 24;

		if (rnd32() % 10 == 0)
			continue;			/* lost */
		in(&q, s, now);
		arrived++;
		if (rnd32() % 3 == 0)
			next++;
		now += 1000 + rnd32() % 50000;
		eqt_reorder_timers(&q, &io, 7, now);
	}
	for (unsigned i = 1; i < R.n_up; i++)
		assert_true((int32_t)(R.up[i] - R.up[i - 1]) > 0);
	assert_int_equal(R.n_up + q.n + q.dup, arrived);
	eqt_reorder_fini(&q, &pool);
}

/* A queue asked for 12 packets holds 16, a power of two: its slots go by
 * seq % lim, and with 12 the seqs just below the wrap of the seq space
 * took the slots of those just above it (2^32 - 4 and 0 share slot 0),
 * so a packet held there was dropped as stale. */
static void the_queue_is_a_power_of_two_across_the_wrap(void **state)
{
	struct eqt_reorder q;
	uint32_t base = 0xffffffffu - 5;

	assert_int_equal(eqt_reorder_init(&q, 12, TMO, 0), 0);
	assert_int_equal(q.lim, 16);
	q.expected = base;
	for (uint32_t i = 10; i >= 1; i--)	/* all but base, backwards */
		in(&q, base + i, 1);
	assert_int_equal(q.n, 10);
	in(&q, base, 2);
	up_in_order(base, 11);
	assert_int_equal(q.dup, 0);
	eqt_reorder_fini(&q, &pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(in_order_and_out_of_order_go_up_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(a_gap_goes_at_its_timeout_and_one_in_the_way_at_once,
						setup, teardown),
		cmocka_unit_test_setup_teardown(losses_are_reported_once_and_nacked_ones_never, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_seq_still_missing_is_reported_again_until_it_comes,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_seq_reported_later_waits_for_the_next_round,
						setup, teardown),
		cmocka_unit_test_setup_teardown(the_re_report_interval_follows_a_grown_loss_window,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_late_first_send_doubles_the_window_up_to_a_cap, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_late_burst_doubles_the_window_once, setup, teardown),
		cmocka_unit_test_setup_teardown(losses_are_found_in_any_epoch, setup, teardown),
		cmocka_unit_test_setup_teardown(a_restart_sends_everything_up_and_renumbers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(random_arrivals_keep_order_and_account, setup, teardown),
		cmocka_unit_test_setup_teardown(the_queue_is_a_power_of_two_across_the_wrap, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
