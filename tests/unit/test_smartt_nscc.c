// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/smartt/nscc.c: UEC's NSCC window, each rule of the
 * UEC simulator's code (../shared/notes/wave2-algorithms.md §1.2) against
 * the value it gives, on the reference path (4 KiB MTU, 12 us base RTT, a
 * BDP of 150,000 bytes: a = 1, target 9 us, b = 0.75).
 */
#include "testlib.h"
#include <errno.h>
#include "nscc.h"

#define MTU	4096
#define BASE	12000ULL
#define TARGET	9000ULL
#define BDP	150000ULL
#define MAXW	225000ULL		/* 1.5 BDPs */

static struct smartt_nscc_params params(void)
{
	struct smartt_nscc_settings s;
	struct smartt_nscc_params p;

	smartt_nscc_settings_default(&s);
	assert_int_equal(smartt_nscc_params_set(&p, &s, MTU, BASE, BDP), 0);
	return p;
}

/* ... without eta, for the tests of the other rules over longer spells. */
static struct smartt_nscc_params params_no_eta(void)
{
	struct smartt_nscc_settings s;
	struct smartt_nscc_params p;

	smartt_nscc_settings_default(&s);
	s.eta = 0;
	assert_int_equal(smartt_nscc_params_set(&p, &s, MTU, BASE, BDP), 0);
	return p;
}

static double cwnd(const struct smartt_nscc *n)
{
	return (double)n->cwnd / SMARTT_ONE;
}

static void assert_near(double got, double want, double tol)
{
	if (got < want - tol || got > want + tol)
		fail_msg("%.3f, want %.3f +- %.3f", got, want, tol);
}

/* A flow at `w` bytes of window, its QuickAdapt window started at t. */
static void flow(struct smartt_nscc *n, const struct smartt_nscc_params *p, uint64_t w, uint64_t t)
{
	smartt_nscc_init(n, p, t);
	n->cwnd = w << 16;
	n->qa_end = t + BASE + TARGET;
}

static enum smartt_nscc_rule ack(struct smartt_nscc *n, const struct smartt_nscc_params *p,
				 uint64_t delay, bool ecn, uint64_t now)
{
	return smartt_nscc_on_ack(n, p, MTU, BASE + delay, ecn, 10 * MTU, now);
}

static void params__the_reference_path(void **state)
{
	struct smartt_nscc_settings s;
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;

	assert_int_equal(p.a, SMARTT_ONE);
	assert_int_equal(p.target_ns, TARGET);
	assert_int_equal(p.clear_ns, BASE / 12);
	assert_int_equal(p.qa_delay_ns, 4 * TARGET);
	smartt_nscc_init(&n, &p, 0);
	assert_near(cwnd(&n), MAXW, 0);		/* a line-rate start */
	/* Without trimming the target is a whole base RTT. */
	smartt_nscc_settings_default(&s);
	s.trimming = false;
	assert_int_equal(smartt_nscc_params_set(&p, &s, MTU, BASE, BDP), 0);
	assert_int_equal(p.target_ns, BASE);
	assert_int_equal(smartt_nscc_params_set(&p, &s, MTU, 0, BDP), -EINVAL);
}

/* A mark at a low delay is the path's: no window change, nothing owed. */
static void path__a_mark_below_the_target_changes_nothing(void **state)
{
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;

	flow(&n, &p, 100000, 0);
	for (int i = 0; i < 20; i++)
		assert_int_equal(ack(&n, &p, TARGET - 1, true, 1 + i), NSCC_PATH);
	assert_near(cwnd(&n), 100000, 0);
	assert_int_equal(n.inc, 0);
}

/* Fair increase above the target: 5·MSS·a per window of ACKs, owed and
 * applied once more than 8 MTUs were acknowledged. */
static void fair__batched_every_eight_mtus(void **state)
{
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;

	flow(&n, &p, 100000, 0);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(ack(&n, &p, TARGET + 1000, false, 1 + i), NSCC_FAIR);
		assert_near(cwnd(&n), 100000, 0);
	}
	assert_int_equal(ack(&n, &p, TARGET + 1000, false, 9), NSCC_FAIR);
	assert_near(cwnd(&n), 100000 + 9.0 * MTU * 5 * MTU / 100000, 0.01);
	assert_int_equal(n.inc, 0);
	assert_int_equal(n.received, 0);
}

/* Proportional increase below the target: alpha·newly·(target - delay),
 * alpha = 4·MSS·a·b / target. */
static void prop__by_how_far_below_the_target(void **state)
{
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;

	flow(&n, &p, 100000, 0);
	for (int i = 0; i < 9; i++)
		assert_int_equal(ack(&n, &p, 3000, false, 1 + i), NSCC_PROP);
	/* 4 · 4096 · 0.75 · (6/9) = 8192 per acked byte */
	assert_near(cwnd(&n), 100000 + 9.0 * MTU * 8192 / 100000, 0.01);
}

/* eta: 0.15·MSS·a once per base RTT, at the adjustment. */
static void eta__once_per_base_rtt(void **state)
{
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;

	flow(&n, &p, 100000, 0);
	assert_int_equal(ack(&n, &p, TARGET, false, BASE + 1), NSCC_FAIR);
	assert_near(cwnd(&n), 100000 + 1.0 * MTU * 5 * MTU / 100000 + 0.15 * MTU, 0.05);
	assert_int_equal(n.last_adjust, BASE + 1);
	/* The next, within the base RTT: nothing applied yet. */
	assert_int_equal(ack(&n, &p, TARGET, false, BASE + 2), NSCC_FAIR);
	assert_int_not_equal(n.inc, 0);
}

/* Multiplicative decrease on the average delay, at most once per base
 * RTT: cwnd · max(1 - 0.8 (avg - target)/avg, 0.5). */
static void md__on_the_average_once_per_rtt(void **state)
{
	struct smartt_nscc_params p = params_no_eta();
	struct smartt_nscc n;
	double w;

	flow(&n, &p, 100000, 0);
	n.avg = (int64_t)(2 * TARGET) << 16;
	assert_int_equal(ack(&n, &p, 2 * TARGET, true, 100000), NSCC_MD);
	assert_near(cwnd(&n), 100000 * 0.6, 1);
	w = cwnd(&n);
	assert_int_equal(ack(&n, &p, 2 * TARGET, true, 100001), NSCC_MD);
	assert_near(cwnd(&n), w, 0);
	/* At four targets the cut would be 0.4: never below half. */
	n.avg = (int64_t)(4 * TARGET) << 16;
	assert_int_equal(ack(&n, &p, 4 * TARGET, true, 100000 + BASE + 1), NSCC_MD);
	assert_near(cwnd(&n), w * 0.5, 1);
	/* Below the target on average: no cut, however high this sample. */
	n.avg = (int64_t)(TARGET / 2) << 16;
	w = cwnd(&n);
	assert_int_equal(ack(&n, &p, 3 * TARGET, true, 200000), NSCC_MD);
	assert_near(cwnd(&n), w, 0);
}

/* Fast increase: after more than a window of bytes on a clear path (a
 * delay under a twelfth of the base RTT), 0.25·a per acked byte; a delay
 * past it ends the run and starts the count again. */
static void fast__after_a_clear_window(void **state)
{
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;
	uint64_t now = 1, bytes = 0, w = 0, before;
	enum smartt_nscc_rule r;

	flow(&n, &p, 40000, 0);
	for (;;) {
		w = smartt_nscc_cwnd(&n);
		r = ack(&n, &p, 500, false, now++);
		bytes += MTU;
		if (r == NSCC_FAST)
			break;
		assert_int_equal(r, NSCC_PROP);
		assert_true(bytes <= w);
	}
	assert_true(bytes > w);
	/* What PROP owed is applied within 9 ACKs; then exactly 1,024 an ACK. */
	for (int i = 0; i < 9; i++)
		assert_int_equal(ack(&n, &p, 500, false, now++), NSCC_FAST);
	for (int i = 0; i < 10; i++) {
		before = n.cwnd;
		assert_int_equal(ack(&n, &p, 500, false, now++), NSCC_FAST);
		assert_int_equal(n.cwnd - before, (uint64_t)MTU / 4 << 16);
	}
	assert_int_equal(ack(&n, &p, 3000, false, now++), NSCC_PROP);
	assert_int_equal(ack(&n, &p, 500, false, now++), NSCC_PROP);
}

/* QuickAdapt: a trim, and at the end of the window (base RTT + target) the
 * window becomes what came through, if less than an eighth of MaxWnd;
 * marks on what was then in flight are ignored, clean ACKs are not. */
static void qa__after_a_trim_when_little_came_through(void **state)
{
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;
	uint64_t t0 = 1000, end = t0 + BASE + TARGET;

	smartt_nscc_init(&n, &p, t0);
	n.cwnd = (uint64_t)60000 << 16;
	assert_int_equal(ack(&n, &p, 3000, false, t0), NSCC_PROP);	/* the window starts */
	assert_int_equal(n.qa_end, end);
	assert_int_equal(smartt_nscc_on_nack(&n, &p, MTU, 12 * MTU, t0 + 100), NSCC_LOSS);
	assert_near(cwnd(&n), 60000 - MTU, 1);
	assert_int_equal(smartt_nscc_on_ack(&n, &p, MTU, BASE + 3000, false, 4 * MTU, end + 1), NSCC_QA);
	assert_near(cwnd(&n), MTU, 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ack(&n, &p, 2 * TARGET, true, end + 2 + i), NSCC_IGNORED);
	assert_int_equal(ack(&n, &p, 3000, false, end + 10), NSCC_PROP);
}

static void qa__not_when_enough_came_through(void **state)
{
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;
	uint64_t t0 = 1000, end = t0 + BASE + TARGET;

	smartt_nscc_init(&n, &p, t0);
	n.cwnd = (uint64_t)60000 << 16;
	ack(&n, &p, 3000, false, t0);
	for (int i = 0; i < 7; i++)		/* 28,672 bytes: above 225,000 / 8 */
		ack(&n, &p, 3000, false, t0 + 10 + i);
	double w = cwnd(&n);
	assert_int_equal(smartt_nscc_on_nack(&n, &p, MTU, 12 * MTU, end + 1), NSCC_LOSS);
	assert_near(cwnd(&n), w - MTU, 1);
}

/* A delay above four targets adapts too, with no trim. */
static void qa__on_a_long_delay(void **state)
{
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;
	uint64_t t0 = 1000, end = t0 + BASE + TARGET;

	smartt_nscc_init(&n, &p, t0);
	ack(&n, &p, 3000, false, t0);
	assert_int_equal(ack(&n, &p, 4 * TARGET + 1, false, end + 1), NSCC_QA);
	assert_near(cwnd(&n), MTU, 0);
}

/* The average delay: a high one without a mark counts as a quarter base
 * RTT (not believed); with a mark, as it is. */
static void delay__high_without_a_mark_is_not_believed(void **state)
{
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;

	flow(&n, &p, 100000, 0);
	for (int i = 0; i < 2000; i++)
		ack(&n, &p, 10 * TARGET, false, 1 + i);
	assert_near((double)n.avg / SMARTT_ONE, BASE / 4, 10);
	for (int i = 0; i < 2000; i++)
		ack(&n, &p, 2 * TARGET, true, 5000 + i);
	assert_near((double)n.avg / SMARTT_ONE, 2 * TARGET, 10);
}

/* A timeout takes its packet off; a trim counts as a base RTT of queue. */
static void loss__rto_and_nack(void **state)
{
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;

	flow(&n, &p, 3 * MTU, 0);
	smartt_nscc_on_rto(&n, &p, MTU);
	assert_near(cwnd(&n), 2 * MTU, 0);
	smartt_nscc_on_rto(&n, &p, MTU);
	smartt_nscc_on_rto(&n, &p, MTU);
	assert_near(cwnd(&n), MTU, 0);		/* the floor */
	flow(&n, &p, 100000, 0);
	smartt_nscc_on_nack(&n, &p, MTU, MTU, 1);
	assert_near((double)n.avg / SMARTT_ONE, BASE * 0.0125, 1);
}

/* After every update: one MTU <= cwnd <= 1.5 BDPs. */
static void clamp__holds_after_every_update(void **state)
{
	struct smartt_nscc_params p = params();
	struct smartt_nscc n;
	uint64_t now = 1;

	smartt_nscc_init(&n, &p, 0);
	rng_state = 2718;
	for (int i = 0; i < 20000; i++) {
		uint32_t size = 64 + rnd32() % (MTU - 63), what = rnd32() % 20;

		now += rnd64() % 4000;
		if (what == 0)
			smartt_nscc_on_nack(&n, &p, size, rnd64() % (2 * BDP), now);
		else if (what == 1)
			smartt_nscc_on_rto(&n, &p, size);
		else
			smartt_nscc_on_ack(&n, &p, size, rnd32() % 8 ? BASE / 2 + rnd64() % (6 * BASE) : 0,
					   rnd32() % 3 == 0, rnd64() % (2 * BDP), now);
		assert_true(n.cwnd >= (uint64_t)MTU << 16);
		assert_true(n.cwnd <= MAXW << 16);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(params__the_reference_path),
		cmocka_unit_test(path__a_mark_below_the_target_changes_nothing),
		cmocka_unit_test(fair__batched_every_eight_mtus),
		cmocka_unit_test(prop__by_how_far_below_the_target),
		cmocka_unit_test(eta__once_per_base_rtt),
		cmocka_unit_test(md__on_the_average_once_per_rtt),
		cmocka_unit_test(fast__after_a_clear_window),
		cmocka_unit_test(qa__after_a_trim_when_little_came_through),
		cmocka_unit_test(qa__not_when_enough_came_through),
		cmocka_unit_test(qa__on_a_long_delay),
		cmocka_unit_test(delay__high_without_a_mark_is_not_believed),
		cmocka_unit_test(loss__rto_and_nack),
		cmocka_unit_test(clamp__holds_after_every_update),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
