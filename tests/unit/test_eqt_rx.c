// SPDX-License-Identifier: GPL-2.0-only
/*
 * user/core/rx.c: a receiving tunnel's mechanics.  A SYN on a fresh
 * tunnel starts an epoch (zero-RTT) and the reorder queue at its first
 * seq; anything else without state is answered with an RST; packets of
 * the epoch are admitted within the window only; a SYN is taken for a new
 * epoch only where the peer's next one must start, which restarts the
 * queue and sends up what the old epoch held.  Each refusal is counted.
 */
#include "testlib.h"
#include <string.h>
#include "rx.h"

#define ISN	(5u << EQT_EPOCH_SHIFT)	/* eqt_epoch_first(5) */
#define LIM	16
#define WIN	64u			/* how far from the next in order */
#define TMO	1000000ULL
#define PEER	7
#define T0	1000000ULL

struct rec {
	uint32_t	up[256];
	unsigned	n_up;
};

static struct rec R;
static struct eqt_pool pool;

static void up(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	assert_int_equal(peer, PEER);
	assert_true(R.n_up < 256);
	R.up[R.n_up++] = p->seq;
	eqt_pkt_put(&pool, p);
}

/* The loss window is off (0): nothing is reported. */
static void lost(void *ctx, uint32_t peer, uint32_t seq)
{
	fail_msg("seq %u reported lost", seq);
}

static const struct eqt_reorder_io io = { .ctx = NULL, .pool = &pool, .deliver = up,
					  .lost = lost };

static int setup(void **state)
{
	memset(&R, 0, sizeof(R));
	return eqt_pool_init(&pool, 64);
}

static int teardown(void **state)
{
	eqt_pool_fini(&pool);
	return 0;
}

static enum eqt_admit rx_in(struct eqt_rx *r, uint32_t seq, bool syn)
{
	return eqt_rx_in(r, seq, syn, WIN, &io, PEER, T0);
}

/* An admitted packet of seq into the reorder queue. */
static void in(struct eqt_rx *r, uint32_t seq)
{
	struct eqt_pkt *p = eqt_pkt_get(&pool);

	assert_non_null(p);
	p->seq = seq;
	p->len = 100;
	eqt_reorder_in(&r->q, p, &io, PEER, T0);
}

static void up_are(const uint32_t *seqs, unsigned n)
{
	assert_int_equal(R.n_up, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(R.up[i], seqs[i]);
}

/* An epoch at ISN, everything before `next` gone up. */
static void established(struct eqt_rx *r, uint32_t next)
{
	assert_int_equal(eqt_rx_init(r, LIM, TMO, 0), 0);
	assert_int_equal(rx_in(r, ISN, true), EQT_ADMIT_NEW_EPOCH);
	for (uint32_t s = ISN; s != next; s++)
		in(r, s);
	assert_int_equal(r->q.expected, next);
	assert_int_equal(R.n_up, next - ISN);
	R.n_up = 0;
}

static void done(struct eqt_rx *r)
{
	eqt_rx_fini(r, &pool);
	assert_int_equal(pool.in_use, 0);
}

/* Zero-RTT: the first SYN, whichever of the epoch's it is, starts the
 * epoch at its ISN; the queue waits from there.  Later packets of the
 * epoch, SYN or not, are the epoch's. */
static void in__a_syn_on_a_fresh_tunnel_starts_the_epoch(void **state)
{
	struct eqt_rx r;
	static const uint32_t want[] = { ISN, ISN + 1, ISN + 2, ISN + 3 };

	assert_int_equal(eqt_rx_init(&r, LIM, TMO, 0), 0);
	assert_false(r.est);
	assert_int_equal(rx_in(&r, ISN + 3, true), EQT_ADMIT_NEW_EPOCH);
	assert_true(r.est);
	assert_int_equal(r.isn, ISN);
	assert_int_equal(r.q.expected, ISN);
	assert_int_equal(R.n_up, 0);
	in(&r, ISN + 3);
	assert_int_equal(r.q.n, 1);			/* behind ISN .. ISN + 2 */
	assert_int_equal(rx_in(&r, ISN + 1, true), EQT_ADMIT);
	assert_int_equal(rx_in(&r, ISN, false), EQT_ADMIT);
	assert_int_equal(rx_in(&r, ISN + 2, false), EQT_ADMIT);
	assert_int_equal(r.isn, ISN);
	in(&r, ISN + 1);
	in(&r, ISN);
	in(&r, ISN + 2);
	up_are(want, 4);
	assert_int_equal(r.q.expected, ISN + 4);
	assert_int_equal(r.st.bad_epoch, 0);
	assert_int_equal(r.st.bad_window, 0);
	assert_int_equal(r.st.no_state, 0);
	done(&r);
}

/* A packet without SYN and no epoch here (we restarted): the sender must
 * be told (RST); no epoch is made up from it. */
static void in__no_syn_and_no_state(void **state)
{
	struct eqt_rx r;

	assert_int_equal(eqt_rx_init(&r, LIM, TMO, 0), 0);
	assert_int_equal(rx_in(&r, ISN + 9, false), EQT_ADMIT_NO_STATE);
	assert_int_equal(r.st.no_state, 1);
	assert_false(r.est);
	assert_int_equal(r.q.expected, 0);
	assert_int_equal(rx_in(&r, ISN + 10, false), EQT_ADMIT_NO_STATE);
	assert_int_equal(r.st.no_state, 2);
	assert_int_equal(r.st.bad_epoch, 0);
	assert_int_equal(r.st.bad_window, 0);
	done(&r);
}

/* The epoch's packets within WIN of the next in order, ahead or behind
 * (a late duplicate), are admitted; further off they are dropped and
 * counted, a SYN of the epoch's SYN window too. */
static void in__a_packet_outside_the_window_is_refused(void **state)
{
	struct eqt_rx r;
	uint32_t exp = ISN + 10;

	established(&r, exp);
	assert_int_equal(rx_in(&r, exp + WIN - 1, false), EQT_ADMIT);
	assert_int_equal(rx_in(&r, exp - WIN + 1, false), EQT_ADMIT);
	assert_int_equal(r.st.bad_window, 0);
	assert_int_equal(rx_in(&r, exp + WIN, false), EQT_REFUSE_WINDOW);
	assert_int_equal(r.st.bad_window, 1);
	assert_int_equal(rx_in(&r, exp - WIN, false), EQT_REFUSE_WINDOW);
	assert_int_equal(r.st.bad_window, 2);
	assert_int_equal(rx_in(&r, exp + (1u << 30), false), EQT_REFUSE_WINDOW);
	assert_int_equal(r.st.bad_window, 3);
	assert_int_equal(rx_in(&r, ISN + 100000, true), EQT_REFUSE_WINDOW);
	assert_int_equal(r.st.bad_window, 4);
	assert_int_equal(r.st.bad_epoch, 0);
	assert_int_equal(r.isn, ISN);
	assert_int_equal(r.q.expected, exp);
	done(&r);
}

/* A SYN from before our next in order, outside the epoch's SYN window: an
 * older epoch's.  Refused and counted; the epoch stays. */
static void in__a_syn_of_an_older_epoch_is_refused(void **state)
{
	struct eqt_rx r;

	established(&r, ISN + 10);
	assert_int_equal(rx_in(&r, ISN - 5, true), EQT_REFUSE_OLD_EPOCH);
	assert_int_equal(r.st.bad_epoch, 1);
	assert_int_equal(rx_in(&r, eqt_epoch_first(2) + 1, true), EQT_REFUSE_OLD_EPOCH);
	assert_int_equal(r.st.bad_epoch, 2);
	assert_int_equal(r.st.bad_window, 0);
	assert_true(r.est);
	assert_int_equal(r.isn, ISN);
	assert_int_equal(r.q.expected, ISN + 10);
	assert_int_equal(R.n_up, 0);
	done(&r);
}

/* A SYN ahead of us but not where the peer's next epoch must start
 * (eqt_epoch_after() of our next in order, up to two windows and an
 * epoch on): refused and counted; the epoch, and what the queue holds,
 * stay. */
static void in__a_syn_ahead_but_not_at_the_next_epoch_is_refused(void **state)
{
	struct eqt_rx r;
	uint32_t exp = ISN + 10, next = eqt_epoch_after(exp);

	assert_int_equal(next, (5u + EQT_EPOCH_GAP) << EQT_EPOCH_SHIFT);
	established(&r, exp);
	in(&r, exp + 2);
	assert_int_equal(rx_in(&r, next - 1, true), EQT_REFUSE_BAD_EPOCH);
	assert_int_equal(rx_in(&r, next + 2 * WIN + (1u << EQT_EPOCH_SHIFT), true),
			 EQT_REFUSE_BAD_EPOCH);
	assert_int_equal(rx_in(&r, ISN + EQT_EPOCH_SYN_SEQS, true), EQT_REFUSE_BAD_EPOCH);
	assert_int_equal(r.st.bad_epoch, 3);
	assert_int_equal(r.st.bad_window, 0);
	assert_int_equal(r.isn, ISN);
	assert_int_equal(r.q.expected, exp);
	assert_int_equal(r.q.n, 1);
	assert_int_equal(R.n_up, 0);
	done(&r);
}

/* A SYN where the peer's next epoch starts: the new epoch, at its ISN.
 * What the old one held behind a gap goes up first, and the queue then
 * waits from the new ISN; the old epoch's packets are refused since. */
static void in__a_syn_at_the_next_epoch_restarts_the_queue(void **state)
{
	struct eqt_rx r;
	uint32_t exp = ISN + 2, next = eqt_epoch_after(exp);
	static const uint32_t old[] = { ISN + 3, ISN + 5 };

	established(&r, exp);
	in(&r, ISN + 5);
	in(&r, ISN + 3);
	assert_int_equal(r.q.n, 2);
	assert_int_equal(R.n_up, 0);
	assert_int_equal(rx_in(&r, next + 1, true), EQT_ADMIT_NEW_EPOCH);
	assert_true(r.est);
	assert_int_equal(r.isn, next);
	assert_int_equal(r.q.expected, next);
	assert_int_equal(r.q.n, 0);
	up_are(old, 2);
	assert_int_equal(r.st.bad_epoch, 0);
	/* The new epoch goes up in order from its ISN. */
	in(&r, next + 1);
	assert_int_equal(R.n_up, 2);
	assert_int_equal(rx_in(&r, next, true), EQT_ADMIT);
	in(&r, next);
	assert_int_equal(R.n_up, 4);
	assert_int_equal(R.up[2], next);
	assert_int_equal(R.up[3], next + 1);
	/* The old epoch's, late: out of the window, or an older epoch's SYN. */
	assert_int_equal(rx_in(&r, ISN + 4, false), EQT_REFUSE_WINDOW);
	assert_int_equal(rx_in(&r, ISN + 4, true), EQT_REFUSE_OLD_EPOCH);
	assert_int_equal(r.st.bad_window, 1);
	assert_int_equal(r.st.bad_epoch, 1);
	done(&r);
}

/* The peer's last seq may lie up to a window past our next in order, and
 * its first round trip of SYN packets another: the last seq a new epoch
 * is taken at.  Its ISN is that seq's epoch. */
static void in__the_next_epoch_may_start_up_to_two_windows_on(void **state)
{
	struct eqt_rx r;
	uint32_t exp = ISN + 10, seq = eqt_epoch_after(exp) + 2 * WIN + (1u << EQT_EPOCH_SHIFT) - 1;

	established(&r, exp);
	assert_int_equal(rx_in(&r, seq, true), EQT_ADMIT_NEW_EPOCH);
	assert_int_equal(r.isn, eqt_epoch_after(exp) + (1u << EQT_EPOCH_SHIFT));
	assert_int_equal(r.isn, eqt_epoch_of(seq));
	assert_int_equal(r.q.expected, r.isn);
	assert_int_equal(r.st.bad_epoch, 0);
	done(&r);
}

/* fini gives back to the pool what the queue held behind its gaps. */
static void fini__frees_what_the_queue_held(void **state)
{
	struct eqt_rx r;

	established(&r, ISN + 1);
	in(&r, ISN + 2);
	in(&r, ISN + 4);
	assert_int_equal(r.q.n, 2);
	assert_int_equal(pool.in_use, 2);
	assert_int_equal(R.n_up, 0);
	done(&r);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(in__a_syn_on_a_fresh_tunnel_starts_the_epoch),
		T(in__no_syn_and_no_state),
		T(in__a_packet_outside_the_window_is_refused),
		T(in__a_syn_of_an_older_epoch_is_refused),
		T(in__a_syn_ahead_but_not_at_the_next_epoch_is_refused),
		T(in__a_syn_at_the_next_epoch_restarts_the_queue),
		T(in__the_next_epoch_may_start_up_to_two_windows_on),
		T(fini__frees_what_the_queue_held),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
