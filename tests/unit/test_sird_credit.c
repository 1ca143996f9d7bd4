// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/sird/credit.c: SIRD's receiver credit and the
 * sender's two rules (../shared/notes/sird.md §6, items 1, 2 and 11):
 * the credit invariants after every event of a random run (b <= B, b the
 * sum of the shares, a share granted only within its sender's limit,
 * everything back to 0 once what was granted arrived or was reclaimed),
 * the policies, the global bucket and the downlink bucket that marks
 * shrink, the unscheduled rules, and credit
 * paced at rho·C over every 100 us window.
 */
#include "testlib.h"
#include <errno.h>
#include "credit.h"
#include "pacer.h"

#define BDP	100000ULL
#define MTU	1538u
#define B15	(SIRD_ONE * 3 / 2)

static void init__refusals(void **state)
{
	struct sird_rx r;

	assert_int_equal(sird_rx_init(&r, 0, BDP, MTU, B15, SIRD_ROUND_ROBIN), -EINVAL);
	assert_int_equal(sird_rx_init(&r, SIRD_MAX_SENDERS + 1, BDP, MTU, B15, SIRD_ROUND_ROBIN),
			 -EINVAL);
	assert_int_equal(sird_rx_init(&r, 2, BDP, MTU, SIRD_ONE - 1, SIRD_ROUND_ROBIN), -EINVAL);
	assert_int_equal(sird_rx_init(&r, 2, BDP, MTU, B15, SIRD_ROUND_ROBIN), 0);
	assert_int_equal(r.B, 150000);
}

/* Round robin: senders that want credit take turns, a grain each; one
 * that wants less than a grain gets what it wants. */
static void tick__round_robin(void **state)
{
	struct sird_rx r;
	uint32_t c;

	assert_int_equal(sird_rx_init(&r, 3, BDP, MTU, B15, SIRD_ROUND_ROBIN), 0);
	sird_rx_want(&r, 0, 10 * MTU);
	sird_rx_want(&r, 2, 10 * MTU);
	sird_rx_want(&r, 1, 100);
	assert_int_equal(sird_rx_tick(&r, &c), 0);
	assert_int_equal(c, MTU);
	assert_int_equal(sird_rx_tick(&r, &c), 1);
	assert_int_equal(c, 100);
	assert_int_equal(sird_rx_tick(&r, &c), 2);
	assert_int_equal(sird_rx_tick(&r, &c), 0);
	assert_int_equal(sird_rx_tick(&r, &c), 2);
	assert_int_equal(r.b, 4 * MTU + 100);
}

/* Shortest first: the sender with the least left to send (the tunnel's
 * backlog standing in for a message's remaining size). */
static void tick__shortest_first(void **state)
{
	struct sird_rx r;
	uint32_t c;

	assert_int_equal(sird_rx_init(&r, 3, BDP, MTU, B15, SIRD_SHORTEST_FIRST), 0);
	sird_rx_want(&r, 0, 30 * MTU);
	sird_rx_want(&r, 1, 3 * MTU);
	sird_rx_want(&r, 2, 10 * MTU);
	for (int k = 0; k < 3; k++)
		assert_int_equal(sird_rx_tick(&r, &c), 1);
	for (int k = 0; k < 10; k++)
		assert_int_equal(sird_rx_tick(&r, &c), 2);
	assert_int_equal(sird_rx_tick(&r, &c), 0);
}

/* The global bucket: with more senders than a BDP needs, grants stop at
 * B, and each arrival makes room for one more. */
static void tick__the_global_bucket(void **state)
{
	struct sird_rx r;
	uint32_t c;
	int n = 0, i;

	assert_int_equal(sird_rx_init(&r, 8, BDP, MTU, B15, SIRD_ROUND_ROBIN), 0);
	for (i = 0; i < 8; i++)
		sird_rx_want(&r, (uint32_t)i, 100 * MTU);
	while (sird_rx_tick(&r, &c) >= 0)
		n++;
	assert_int_equal(n, 150000 / MTU);		/* 97 grains */
	assert_true(r.b <= r.B && r.b + MTU > r.B);
	i = sird_rx_tick(&r, &c);
	assert_int_equal(i, -1);
	sird_rx_on_data(&r, 3, MTU, true, false, false);
	assert_true(sird_rx_tick(&r, &c) >= 0);
	assert_int_equal(sird_rx_tick(&r, &c), -1);
}

/* The downlink bucket: CE marks (or trims) on the DATA that reaches the
 * receiver, whoever sent it, shrink what b may reach, down to the AIMD's
 * floor (0.03 B, 2 grains at least) and no further, however many senders
 * each hold their own floor; unmarked DATA grows it back to B. */
static void tick__the_downlink_bucket(void **state)
{
	struct sird_rx r;
	uint32_t c;
	int n;

	assert_int_equal(sird_rx_init(&r, 32, BDP, MTU, B15, SIRD_ROUND_ROBIN), 0);
	assert_int_equal(sird_rx_bucket(&r), r.B);
	for (int k = 0; k < 32; k++)
		sird_rx_want(&r, (uint32_t)k, 100000 * MTU);
	/* Every packet marked, from all 32 senders in turn. */
	for (int k = 0; k < 20000; k++)
		sird_rx_on_data(&r, (uint32_t)(k % 32), 0, false, false, true);
	assert_int_equal(sird_rx_bucket(&r), 4500);	/* the floor: 0.03 B */
	for (n = 0; sird_rx_tick(&r, &c) >= 0; n++)
		;
	assert_int_equal(n, 2);		/* 32 senders, 2 grains granted */
	/* Unmarked DATA: back to B, which the grants then fill. */
	for (int k = 0; k < 200000 && sird_rx_bucket(&r) < r.B; k++)
		sird_rx_on_data(&r, (uint32_t)(k % 32), 0, false, false, false);
	assert_int_equal(sird_rx_bucket(&r), r.B);
	while (sird_rx_tick(&r, &c) >= 0)
		;
	assert_true(r.b <= r.B && r.b + MTU > r.B);
	/* A new BDP: the bucket keeps its share of B. */
	assert_int_equal(sird_rx_set_bdp(&r, 2 * BDP), 0);
	assert_int_equal(sird_rx_bucket(&r), r.B);
	assert_int_equal(r.B, 300000);
}

/* A share stays within its sender's limit: csn marks shrink a sender's
 * bucket, and it gets no more than that while the others get the rest. */
static void tick__within_the_senders_limit(void **state)
{
	struct sird_rx r;
	uint32_t c;
	int got[2] = { 0, 0 };

	assert_int_equal(sird_rx_init(&r, 2, BDP, MTU, SIRD_ONE * 4, SIRD_ROUND_ROBIN), 0);
	for (int k = 0; k < 3000; k++)
		sird_rx_on_data(&r, 0, 0, false, true, false);	/* csn, no credit */
	sird_rx_want(&r, 0, 1000 * MTU);
	sird_rx_want(&r, 1, 1000 * MTU);
	for (int i; (i = sird_rx_tick(&r, &c)) >= 0;)
		got[i]++;
	assert_true(r.s[0].sb <= sird_limit_bytes(&r.s[0].lim));
	assert_true(r.s[0].sb + MTU > sird_limit_bytes(&r.s[0].lim));
	assert_true(sird_limit_bytes(&r.s[0].lim) < BDP / 5);
	assert_int_equal(r.s[1].sb, BDP / MTU * MTU);		/* a whole BDP */
	assert_true(got[1] > 4 * got[0]);
}

/* Item 1: after every event of a random run, b <= B, b is the sum of the
 * shares, each share <= a BDP, and a grant leaves its share within its
 * sender's limit; once every grant arrived or was reclaimed, all is 0. */
static void invariants__random_run_and_back_to_zero(void **state)
{
	struct sird_rx r;
	uint32_t c, n = 6;
	uint64_t out[SIRD_MAX_SENDERS] = { 0 };	/* granted, not yet arrived */

	assert_int_equal(sird_rx_init(&r, n, BDP, MTU, B15, SIRD_SHORTEST_FIRST), 0);
	rng_state = 11;
	for (int k = 0; k < 200000; k++) {
		uint32_t i = rnd32() % n, what = rnd32() % 10;

		if (what == 0) {
			sird_rx_want(&r, i, rnd32() % (20 * MTU));
		} else if (what < 6) {
			int s = sird_rx_tick(&r, &c);

			if (s >= 0) {
				out[s] += c;
				assert_true(r.s[s].sb <= sird_limit_bytes(&r.s[s].lim));
			}
		} else if (out[i]) {
			uint32_t a = out[i] < MTU ? (uint32_t)out[i] : MTU;

			out[i] -= a;
			if (what == 9)
				sird_rx_reclaim(&r, i, a);		/* lost */
			else
				sird_rx_on_data(&r, i, a, true, rnd32() % 4 == 0, rnd32() % 8 == 0);
		}
		uint64_t sum = 0;

		for (uint32_t j = 0; j < n; j++) {
			sum += r.s[j].sb;
			assert_int_equal(r.s[j].sb, out[j]);
			assert_true(r.s[j].sb <= BDP);
		}
		assert_int_equal(r.b, sum);
		assert_true(r.b <= r.B);
	}
	for (uint32_t j = 0; j < n; j++)
		sird_rx_reclaim(&r, j, out[j]);
	assert_int_equal(r.b, 0);
	for (uint32_t j = 0; j < n; j++)
		assert_int_equal(r.s[j].sb, 0);
}

/* Item 2: what a new burst sends without credit, and the csn bit. */
/* A sender that is gone gives back everything it was granted, wants
 * nothing more, and its limits start again at a BDP. */
static void forget__gives_back_and_resets(void **state)
{
	struct sird_rx r;
	uint32_t c;

	assert_int_equal(sird_rx_init(&r, 2, BDP, MTU, B15, SIRD_ROUND_ROBIN), 0);
	sird_rx_want(&r, 0, 10 * MTU);
	sird_rx_want(&r, 1, 10 * MTU);
	for (int i = 0; i < 4; i++)
		assert_true(sird_rx_tick(&r, &c) >= 0);
	for (int i = 0; i < 200; i++)	/* every packet csn-marked: its limit shrinks */
		sird_rx_on_data(&r, 0, 0, false, true, false);
	assert_true(sird_limit_bytes(&r.s[0].lim) < BDP);
	sird_rx_forget(&r, 0);
	assert_int_equal(r.s[0].sb, 0);
	assert_int_equal(r.s[0].rem, 0);
	assert_int_equal(r.b, 2 * MTU);		/* sender 1's two grains */
	assert_int_equal(sird_limit_bytes(&r.s[0].lim), BDP);
	assert_int_equal(sird_rx_tick(&r, &c), 1);	/* only 1 wants any */
}

/* A new BDP (the senders measured the path): B follows, and each bucket
 * keeps its share of its ceiling, within the new floors. */
static void set_bdp__scales_the_buckets(void **state)
{
	struct sird_rx r;

	assert_int_equal(sird_rx_init(&r, 2, BDP, MTU, B15, SIRD_ROUND_ROBIN), 0);
	for (int i = 0; i < 200; i++)	/* sender 1's csn bucket falls */
		sird_rx_on_data(&r, 1, 0, false, true, false);
	uint64_t was = sird_limit_bytes(&r.s[1].lim);

	assert_true(was < BDP);
	assert_int_equal(sird_rx_set_bdp(&r, 4 * BDP), 0);
	assert_int_equal(r.B, 600000);
	assert_int_equal(r.p.bdp, 4 * BDP);
	assert_int_equal(sird_limit_bytes(&r.s[0].lim), 4 * BDP);	/* at its ceiling: the new one */
	assert_true(sird_limit_bytes(&r.s[1].lim) >= 4 * was - 4 &&
		    sird_limit_bytes(&r.s[1].lim) <= 4 * was + 4);
	assert_int_equal(sird_rx_set_bdp(&r, BDP / 4), 0);	/* down: within the new floor */
	assert_true(sird_limit_bytes(&r.s[1].lim) >= BDP / 4 / 10);
	assert_int_equal(sird_limit_bytes(&r.s[0].lim), BDP / 4);
	assert_int_equal(sird_rx_set_bdp(&r, MTU - 1), -EINVAL);	/* less than a grain */
	assert_int_equal(r.p.bdp, BDP / 4);
}

static void sender__unscheduled_and_csn(void **state)
{
	assert_int_equal(sird_tx_unscheduled(500, BDP, BDP), 500);
	assert_int_equal(sird_tx_unscheduled(BDP, BDP, BDP), BDP);
	assert_int_equal(sird_tx_unscheduled(BDP + 1, BDP, BDP), 0);	/* a request first */
	assert_int_equal(sird_tx_unscheduled(3 * BDP, 4 * BDP, BDP), BDP);	/* UnschT > BDP */
	assert_false(sird_tx_csn(BDP / 2, BDP / 2));
	assert_true(sird_tx_csn(BDP / 2 + 1, BDP / 2));
}

/* Item 11: ticks from a pacer at rho·C grant at most rho·C in every
 * 100 us window (and the pacer's burst), and no less. */
static void pacing__rho_c_in_every_100us(void **state)
{
	struct sird_rx r;
	struct eqt_pacer pc;
	const uint64_t rate = 10000000000ULL * 95 / 100;	/* 0.95 × 10 Gbit/s */
	uint64_t win_bytes = 0, win_start = 0, max_win = 0;
	uint32_t c;

	assert_int_equal(sird_rx_init(&r, 4, BDP, MTU, B15, SIRD_ROUND_ROBIN), 0);
	eqt_pacer_init(&pc, rate, 2 * MTU, 0);	/* a burst of 2 grains: ticks come late */
	for (uint32_t i = 0; i < 4; i++)
		sird_rx_want(&r, i, 1u << 30);
	for (uint64_t now = 0; now < 20000000; now += 300) {	/* 20 ms, a tick every 300 ns */
		int s;

		if (now - win_start >= 100000) {
			if (win_bytes > max_win)
				max_win = win_bytes;
			win_bytes = 0;
			win_start = now;
		}
		eqt_pacer_update(&pc, now);
		if (!eqt_pacer_take(&pc, MTU) || (s = sird_rx_tick(&r, &c)) < 0)
			continue;
		win_bytes += c;
		sird_rx_on_data(&r, (uint32_t)s, c, true, false, false);	/* arrives at once */
	}
	assert_true(max_win <= rate / 8 / 10000 + 2 * MTU);
	assert_true(max_win >= rate / 8 / 10000 - MTU);	/* and it grants at that rate */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init__refusals),
		cmocka_unit_test(tick__round_robin),
		cmocka_unit_test(tick__shortest_first),
		cmocka_unit_test(tick__the_global_bucket),
		cmocka_unit_test(tick__the_downlink_bucket),
		cmocka_unit_test(tick__within_the_senders_limit),
		cmocka_unit_test(invariants__random_run_and_back_to_zero),
		cmocka_unit_test(forget__gives_back_and_resets),
		cmocka_unit_test(set_bdp__scales_the_buckets),
		cmocka_unit_test(sender__unscheduled_and_csn),
		cmocka_unit_test(pacing__rho_c_in_every_100us),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
