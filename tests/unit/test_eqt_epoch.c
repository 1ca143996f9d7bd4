// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/core/epoch.c: where a sender's next epoch starts,
 * and what a receiver admits, each verdict at its edges.
 */
#include "testlib.h"
#include "epoch.h"

#define ISN	(5u << EQT_EPOCH_SHIFT)
#define WIN	1000u

static void next__past_the_last_seq_or_the_floor(void **state)
{
	assert_int_equal(eqt_epoch_first(3), 3u << EQT_EPOCH_SHIFT);
	/* From our own last seq ... */
	assert_int_equal(eqt_epoch_next(ISN + 77, 0), ISN + (EQT_EPOCH_GAP << EQT_EPOCH_SHIFT));
	/* ... or from the receiver's floor, which wins. */
	assert_int_equal(eqt_epoch_next(ISN + 77, 9u << EQT_EPOCH_SHIFT),
			 (9u + EQT_EPOCH_GAP) << EQT_EPOCH_SHIFT);
	/* Past the old epoch's SYN window however far it ran, and whole. */
	for (uint32_t last = ISN; last < ISN + 5000; last += 333) {
		uint32_t n = eqt_epoch_next(last, 0);

		assert_true(n - last > 3 * EQT_EPOCH_SYN_SEQS);
		assert_int_equal(eqt_epoch_of(n), n);
	}
	/* Across the wrap. */
	assert_int_equal(eqt_epoch_next(0xffffff00u, 0),
			 (uint32_t)(((0xffffff00u >> EQT_EPOCH_SHIFT) + EQT_EPOCH_GAP) << EQT_EPOCH_SHIFT));
}

static void admit__the_current_epoch_within_the_window(void **state)
{
	uint32_t exp = ISN + 500;

	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, exp, false), EQT_ADMIT);
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, exp + WIN - 1, false), EQT_ADMIT);
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, exp - WIN + 1, false), EQT_ADMIT);
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, exp + WIN, false), EQT_REFUSE_WINDOW);
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, exp - WIN, false), EQT_REFUSE_WINDOW);
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, exp + (1u << 30), false),
			 EQT_REFUSE_WINDOW);
	/* A SYN packet of the current epoch's SYN window is the epoch's. */
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, ISN + 3, true), EQT_ADMIT);
	assert_int_equal(eqt_rx_admit(true, ISN, ISN + 900000, WIN, ISN + 900001, true), EQT_ADMIT);
}

static void admit__zero_rtt_and_no_state(void **state)
{
	/* No epoch: a SYN starts one, anything else is answered with an RST. */
	assert_int_equal(eqt_rx_admit(false, 0, 0, WIN, ISN + 2, true), EQT_ADMIT_NEW_EPOCH);
	assert_int_equal(eqt_rx_admit(false, 0, 0, WIN, ISN + 2, false), EQT_ADMIT_NO_STATE);
	assert_int_equal(eqt_epoch_of(ISN + 2), ISN);
}

static void admit__a_new_epoch_only_where_it_must_start(void **state)
{
	uint32_t exp = ISN + 500, next = eqt_epoch_after(exp);

	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, next, true), EQT_ADMIT_NEW_EPOCH);
	/* Its later SYN packets, and a peer whose last seq ran ahead of our
	 * next in order by what it had in flight. */
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, next + 2 * WIN, true),
			 EQT_ADMIT_NEW_EPOCH);
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN,
				      next + 2 * WIN + (1u << EQT_EPOCH_SHIFT) - 1, true),
			 EQT_ADMIT_NEW_EPOCH);
	/* Anywhere else ahead: not the peer's next epoch. */
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN,
				      next + 2 * WIN + (1u << EQT_EPOCH_SHIFT), true),
			 EQT_REFUSE_BAD_EPOCH);
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, next - 1, true), EQT_REFUSE_BAD_EPOCH);
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, ISN + EQT_EPOCH_SYN_SEQS, true),
			 EQT_REFUSE_BAD_EPOCH);
	/* Behind our next in order: an older epoch's. */
	assert_int_equal(eqt_rx_admit(true, ISN, exp, WIN, ISN - 5, true), EQT_REFUSE_OLD_EPOCH);
}

/* A sender takes an RST echoing one of this epoch's seqs, an ack up to
 * what it sent and down to a little below its cumulative ack; an older
 * epoch's ack (within EQT_TX_OLD_SPAN behind) changes nothing; anything
 * else is refused. */
static void tx_admit__within_what_was_sent(void **state)
{
	uint32_t hi = ISN + 100, cum = ISN + 50;

	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, true, ISN), EQT_TX_ADMIT);
	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, true, hi), EQT_TX_ADMIT);
	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, true, hi + 1), EQT_TX_BAD_RST);
	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, true, ISN - 1), EQT_TX_BAD_RST);
	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, false, hi), EQT_TX_ADMIT);
	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, false, cum - 10), EQT_TX_ADMIT);
	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, false, cum - 11), EQT_TX_BAD_ACK);
	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, false, hi + 1), EQT_TX_BAD_ACK);
	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, false, hi + (1u << 30)), EQT_TX_BAD_ACK);
	/* isn - 1 acknowledges "nothing of this epoch yet": the epoch's. */
	assert_int_equal(eqt_tx_admit(ISN, hi, ISN, 10, false, ISN - 1), EQT_TX_ADMIT);
	assert_int_equal(eqt_tx_admit(ISN, hi, ISN, 10, false, ISN - 2), EQT_TX_OLD_EPOCH);
	/* Older epochs lie just behind; an ack further back than they can
	 * reach is nobody's: refused and counted (half of a flood of random
	 * acks went uncounted before). */
	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, false, ISN - 1 - EQT_TX_OLD_SPAN),
			 EQT_TX_OLD_EPOCH);
	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, false, ISN - 2 - EQT_TX_OLD_SPAN),
			 EQT_TX_BAD_ACK);
	assert_int_equal(eqt_tx_admit(ISN, hi, cum, 10, false, ISN - (1u << 30)), EQT_TX_BAD_ACK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(next__past_the_last_seq_or_the_floor),
		cmocka_unit_test(admit__the_current_epoch_within_the_window),
		cmocka_unit_test(admit__zero_rtt_and_no_state),
		cmocka_unit_test(admit__a_new_epoch_only_where_it_must_start),
		cmocka_unit_test(tx_admit__within_what_was_sent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
