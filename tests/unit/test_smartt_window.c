// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/smartt/window.c: SMaRTT's window rules, each against
 * the exact value the paper's equations give (../shared/notes/smartt-reps.md
 * §6, items 1-11), on the paper's reference path (4 KiB MTU, 12 us base
 * RTT, a BDP of 150,000 bytes: gamma 1) unless a test says otherwise.
 * Fixed point: a window is exact to a byte.
 */
#include "testlib.h"
#include <errno.h>
#include <stdlib.h>
#include "window.h"

#define MTU	4096
#define BRTT	12000ULL		/* ns */
#define TRTT	18000ULL		/* 1.5 base RTTs */
#define BDP	150000ULL

static struct smartt_params params_with(const struct smartt_settings *s, uint64_t bdp)
{
	struct smartt_params p;

	assert_int_equal(smartt_params_set(&p, s, MTU, BRTT, bdp), 0);
	return p;
}

static struct smartt_params params(void)
{
	struct smartt_settings s;

	smartt_settings_default(&s);
	return params_with(&s, BDP);
}

/* The window in bytes, with its fraction. */
static double cwnd(const struct smartt_win *w)
{
	return (double)w->cwnd / SMARTT_ONE;
}

static enum smartt_rule ack(struct smartt_win *w, const struct smartt_params *p, uint64_t rtt,
			    bool ecn, uint64_t now)
{
	struct smartt_fb fb = { .size = MTU, .rtt_ns = rtt, .ecn = ecn, .unacked = 10 * MTU };

	return smartt_on_ack(w, p, &fb, now);
}

static void assert_near(double got, double want, double tol)
{
	if (got < want - tol || got > want + tol)
		fail_msg("%.3f, want %.3f +- %.3f", got, want, tol);
}

/* 1. Fair decrease: cwnd -= cwnd/bdp * fd * size. */
static void fd__takes_its_share_of_the_window(void **state)
{
	struct smartt_params p = params();
	struct smartt_win w;

	smartt_win_init(&w, &p);
	assert_near(cwnd(&w), 150000, 0);
	w.wtd = SMARTT_ONE;			/* the gate open */
	assert_int_equal(ack(&w, &p, 15000, true, 1), SMARTT_FD);
	assert_near(cwnd(&w), 150000 - 3276.8, 1);
	/* At the target exactly it is still "at most the target". */
	smartt_win_init(&w, &p);
	w.wtd = SMARTT_ONE;
	assert_int_equal(ack(&w, &p, TRTT, true, 1), SMARTT_FD);
}

/* 2. Multiplicative decrease past the target: at most one packet, then
 * the fair decrease too; md doubles when timeouts find the losses. */
static void md__at_most_a_packet_then_fd(void **state)
{
	struct smartt_settings s;
	struct smartt_params p = params(), pto;
	struct smartt_win w;

	smartt_win_init(&w, &p);
	w.wtd = SMARTT_ONE;
	assert_int_equal(ack(&w, &p, 2 * TRTT, true, 1), SMARTT_MD);
	/* (rtt - trtt)/rtt * md = 1: the cap, one packet; then FD on what is left. */
	assert_near(cwnd(&w), (150000 - 4096) * (1 - 0.8 * 4096 / 150000.0), 1);
	/* At 1.25 trtt: 0.2 * 2 * 4096 = 1638.4 with trimming ... */
	smartt_win_init(&w, &p);
	w.wtd = SMARTT_ONE;
	ack(&w, &p, TRTT * 5 / 4, true, 1);
	assert_near(cwnd(&w), (150000 - 1638.4) * (1 - 0.8 * 4096 / 150000.0), 1);
	/* ... and twice that without. */
	smartt_settings_default(&s);
	s.trimming = false;
	pto = params_with(&s, BDP);
	assert_int_equal(pto.md, 2 * p.md);
	smartt_win_init(&w, &pto);
	w.wtd = SMARTT_ONE;
	ack(&w, &pto, TRTT * 5 / 4, true, 1);
	assert_near(cwnd(&w), (150000 - 3276.8) * (1 - 0.8 * 4096 / 150000.0), 1);
}

/* 3. Fair increase past the target without a mark: size/cwnd * mtu * fi,
 * however late the ACK. */
static void fi__ignores_how_late(void **state)
{
	struct smartt_params p = params();
	uint64_t rtts[] = { TRTT + 1, 2 * TRTT, 50 * TRTT };

	for (unsigned i = 0; i < 3; i++) {
		struct smartt_win w;

		smartt_win_init(&w, &p);
		assert_int_equal(ack(&w, &p, rtts[i], false, 1), SMARTT_FI);
		assert_near(cwnd(&w), 150000 + 4096.0 * 4096 * 0.25 / 150000, 0.01);
	}
}

/* 4. Multiplicative increase below the target, then the fair one; over a
 * window of ACKs at the base RTT, MI adds at most one MTU. */
static void mi__then_fi_and_one_mtu_a_window(void **state)
{
	struct smartt_settings s;
	struct smartt_params p = params();
	struct smartt_win w;
	double before, mi = 0.2 * 4096 * 4096 * 2 / 150000;	/* (trtt - rtt)/rtt = 0.2 */

	smartt_win_init(&w, &p);
	assert_int_equal(ack(&w, &p, 15000, false, 1), SMARTT_MI);
	assert_near(cwnd(&w), 150000 + mi + 4096.0 * 4096 * 0.25 / (150000 + mi), 0.01);
	/* fi 0: MI alone, a window of ACKs at the base RTT. */
	smartt_settings_default(&s);
	s.fi = 0;
	p = params_with(&s, BDP);
	smartt_win_init(&w, &p);
	before = cwnd(&w);
	for (unsigned i = 0; i < BDP / MTU; i++)
		assert_int_equal(ack(&w, &p, BRTT, false, 1 + i), SMARTT_MI);
	assert_true(cwnd(&w) - before <= MTU);
	assert_true(cwnd(&w) - before >= 0.95 * MTU * (BDP / MTU) * MTU / 154000.0);
}

/* 5. After every update: one MTU <= cwnd <= max_cwnd BDPs (1.25 or 1.0). */
static void clamp__holds_after_every_update(void **state)
{
	struct smartt_settings s;

	smartt_settings_default(&s);
	for (int cap = 0; cap < 2; cap++) {
		s.max_cwnd = cap ? SMARTT_ONE : SMARTT_ONE * 5 / 4;
		struct smartt_params p = params_with(&s, BDP);
		struct smartt_win w;
		uint64_t now = 1;

		smartt_win_init(&w, &p);
		rng_state = 16 + cap;
		for (int i = 0; i < 20000; i++) {
			struct smartt_fb fb = { .size = 64 + rnd32() % (MTU - 63),
						.rtt_ns = BRTT / 2 + rnd64() % (4 * TRTT),
						.ecn = rnd32() % 3 == 0, .unacked = rnd64() % (2 * BDP) };

			now += rnd64() % 4000;
			if (rnd32() % 20 == 0)
				smartt_on_loss(&w, &p, &fb, now);
			else
				smartt_on_ack(&w, &p, &fb, now);
			assert_true(w.cwnd >= (uint64_t)MTU << 16);
			assert_true(w.cwnd <= (cap ? BDP : BDP * 5 / 4) << 16);
		}
	}
}

/* 6. gamma = bdp / 150,000 scales fi and mi, not fd or md. */
static void gamma__scales_the_increases_only(void **state)
{
	struct smartt_settings s;
	struct smartt_params p1, p2;
	struct smartt_win w1, w2;

	smartt_settings_default(&s);
	p1 = params_with(&s, BDP);
	p2 = params_with(&s, 2 * BDP);
	assert_int_equal(p1.mi, 2 * SMARTT_ONE);	/* brtt / (trtt - brtt) */
	assert_int_equal(p2.fi, 2 * p1.fi);
	assert_int_equal(p2.mi, 2 * p1.mi);
	assert_int_equal(p2.fd, p1.fd);
	assert_int_equal(p2.md, p1.md);
	/* The same window on both paths: twice the fair increase. */
	smartt_win_init(&w1, &p1);
	smartt_win_init(&w2, &p2);
	w2.cwnd = w1.cwnd;
	ack(&w1, &p1, 2 * TRTT, false, 1);
	ack(&w2, &p2, 2 * TRTT, false, 1);
	assert_near(cwnd(&w2) - 150000, 2 * (cwnd(&w1) - 150000), 0.01);
}

/* 7. Wait-To-Decrease: marked ACKs leave the window alone until a quarter
 * of the recent ones were marked (EWMA 1/16: the fifth in a row). */
static void wtd__no_decrease_below_a_quarter(void **state)
{
	struct smartt_params p = params();
	struct smartt_win w;

	smartt_win_init(&w, &p);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ack(&w, &p, 15000, true, 1 + i), SMARTT_WAIT);
		assert_near(cwnd(&w), 150000, 0);
	}
	assert_true(w.wtd < SMARTT_ONE / 4);
	assert_int_equal(ack(&w, &p, 15000, true, 5), SMARTT_FD);
	assert_true(cwnd(&w) < 150000);
	/* Clean ACKs close the gate again. */
	for (int i = 0; i < 8; i++)
		ack(&w, &p, 2 * TRTT, false, 6 + i);
	assert_int_equal(ack(&w, &p, 15000, true, 20), SMARTT_WAIT);
}

/* 8. QuickAdapt, the paper's Fig. 4: a window of 4 packets, a trim, and
 * at the end of the trtt the window is what came through in it (two ACKed
 * packets and the trim's header, 64 bytes) times 0.8; the feedback of what
 * was then in flight is ignored, trims included, and it fires at most once
 * per trtt. */
static void qa__after_a_trim_what_was_acked(void **state)
{
	struct smartt_params p = params();
	struct smartt_win w;
	struct smartt_fb trim = { .size = MTU, .rtt_ns = 0, .unacked = 3 * MTU };
	uint64_t t0 = 1000;

	smartt_win_init(&w, &p);
	w.cwnd = (uint64_t)4 * MTU << 16;
	assert_int_equal(ack(&w, &p, 2 * TRTT, false, t0), SMARTT_FI);	/* the window starts */
	assert_int_equal(smartt_on_loss(&w, &p, &trim, t0 + 100), SMARTT_LOSS);
	assert_near(cwnd(&w), 3 * MTU + 4096.0 * 4096 * 0.25 / (4 * MTU), 0.01);
	assert_int_equal(ack(&w, &p, 2 * TRTT, false, t0 + 200), SMARTT_FI);
	struct smartt_fb fb = { .size = MTU, .rtt_ns = 2 * TRTT, .unacked = 3 * MTU };
	assert_int_equal(smartt_on_ack(&w, &p, &fb, t0 + TRTT), SMARTT_QA);
	assert_near(cwnd(&w), (2 * MTU + 64) * 0.8, 1);
	/* The 3 packets in flight then: ignored, a trim among them too. */
	assert_int_equal(ack(&w, &p, 2 * TRTT, true, t0 + TRTT + 10), SMARTT_IGNORED);
	assert_int_equal(smartt_on_loss(&w, &p, &trim, t0 + TRTT + 11), SMARTT_IGNORED);
	assert_near(cwnd(&w), (2 * MTU + 64) * 0.8, 1);
	assert_int_equal(ack(&w, &p, 2 * TRTT, false, t0 + TRTT + 20), SMARTT_FI);
	/* Another trim within the trtt: its size only. */
	trim.unacked = MTU;
	assert_int_equal(smartt_on_loss(&w, &p, &trim, t0 + TRTT + 30), SMARTT_LOSS);
	assert_near(cwnd(&w), MTU, 0);		/* the floor */
	/* Once the trtt is over, the next feedback adapts again. */
	fb.unacked = MTU;
	assert_int_equal(smartt_on_ack(&w, &p, &fb, t0 + 2 * TRTT + 1), SMARTT_QA);
}

/* 9. FastIncrease: nothing until more than a window of clean bytes at the
 * base RTT in a row, then 2 MTUs per ACK; the first mark stops it. */
static void fast__after_a_clean_window_two_mtus_an_ack(void **state)
{
	struct smartt_settings s;
	struct smartt_params p;
	struct smartt_win w;
	uint64_t before, now = 1, bytes = 0;
	enum smartt_rule r;

	smartt_settings_default(&s);
	s.max_cwnd = 2 * SMARTT_ONE;		/* room for the steps below */
	p = params_with(&s, BDP);
	smartt_win_init(&w, &p);
	for (;;) {
		before = smartt_cwnd(&w);
		r = ack(&w, &p, BRTT, false, now++);
		bytes += MTU;
		if (r == SMARTT_FAST)
			break;
		assert_int_equal(r, SMARTT_MI);
		assert_true(bytes <= before);
	}
	assert_true(bytes > before);
	assert_int_equal(smartt_cwnd(&w), before + 2 * MTU);
	for (int i = 0; i < 3; i++) {
		before = w.cwnd;
		assert_int_equal(ack(&w, &p, BRTT, false, now++), SMARTT_FAST);
		assert_int_equal(w.cwnd - before, (uint64_t)2 * MTU << 16);
	}
	assert_int_equal(ack(&w, &p, BRTT, true, now++), SMARTT_WAIT);
	assert_int_equal(ack(&w, &p, BRTT, false, now++), SMARTT_MI);
	/* A late ACK, past "at the base RTT" but below the target, ends a
	 * run too: the clean ones after it count again from nothing. */
	assert_true(p.fast_ns > BRTT && p.fast_ns < TRTT);
	while (ack(&w, &p, BRTT, false, now++) != SMARTT_FAST)
		;
	assert_int_equal(ack(&w, &p, p.fast_ns + 1, false, now++), SMARTT_MI);
	assert_int_equal(w.fast_count, 0);
	assert_int_equal(ack(&w, &p, BRTT, false, now++), SMARTT_MI);
}

/* 10. Every trim takes its size off (down to one MTU). */
static void loss__takes_its_size(void **state)
{
	struct smartt_params p = params();
	struct smartt_win w;
	struct smartt_fb trim = { .size = 1000, .unacked = 0 };

	smartt_win_init(&w, &p);
	ack(&w, &p, 2 * TRTT, false, 1);			/* a QA window from t = 1 */
	w.cwnd = (uint64_t)100000 << 16;
	for (int i = 0; i < 5; i++) {
		assert_int_equal(smartt_on_loss(&w, &p, &trim, 2 + i), SMARTT_LOSS);
		assert_near(cwnd(&w), 100000 - 1000.0 * (i + 1), 0);
	}
}

/* Settings no path can use are refused. */
static void params__refuse_what_cannot_work(void **state)
{
	struct smartt_settings s;
	struct smartt_params p;

	smartt_settings_default(&s);
	assert_int_equal(smartt_params_set(&p, &s, MTU, 0, BDP), -EINVAL);
	assert_int_equal(smartt_params_set(&p, &s, MTU, BRTT, 0), -EINVAL);
	s.trtt = SMARTT_ONE;				/* a target at the base RTT */
	assert_int_equal(smartt_params_set(&p, &s, MTU, BRTT, BDP), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fd__takes_its_share_of_the_window),
		cmocka_unit_test(md__at_most_a_packet_then_fd),
		cmocka_unit_test(fi__ignores_how_late),
		cmocka_unit_test(mi__then_fi_and_one_mtu_a_window),
		cmocka_unit_test(clamp__holds_after_every_update),
		cmocka_unit_test(gamma__scales_the_increases_only),
		cmocka_unit_test(wtd__no_decrease_below_a_quarter),
		cmocka_unit_test(qa__after_a_trim_what_was_acked),
		cmocka_unit_test(fast__after_a_clean_window_two_mtus_an_ack),
		cmocka_unit_test(loss__takes_its_size),
		cmocka_unit_test(params__refuse_what_cannot_work),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
