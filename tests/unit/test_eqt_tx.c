// SPDX-License-Identifier: GPL-2.0-only
/*
 * user/core/tx.c: a sending tunnel's mechanics.  The first packet opens
 * an epoch, SYN until the receiver answers; a NACKed packet goes first and
 * keeps its seq; an ACK takes out exactly what it acknowledges and times
 * only packets sent once; control packets are checked against what this
 * epoch sent; the RTO, due for the oldest packet in flight, moves the
 * newest to the resend queue as a probe and backs off, and the probe's
 * ACK what was sent before it and is still in flight; an RST renumbers what was left in an epoch
 * past the receiver's floor.  Every packet comes from a pool and goes
 * back to it.
 */
#include "testlib.h"
#include <string.h>
#include "edgeq/wire.h"
#include "tx.h"

#define SEQ0	(5u << EQT_EPOCH_SHIFT)	/* eqt_epoch_first(5) */
#define FLOOR	50000ULL		/* the RTO floor: 50 us */
#define T0	1000000ULL		/* the clock at the first send */
#define OTHER	EQT_CLS_OTHER
#define TCP	EQT_CLS_TCP

static struct eqt_pool pool;

static int setup(void **state)
{
	return eqt_pool_init(&pool, 64);
}

static int teardown(void **state)
{
	eqt_pool_fini(&pool);
	return 0;
}

/* A packet of `len` bytes queued in class cls, not sent yet. */
static struct eqt_pkt *queue(struct eqt_tx *t, uint32_t cls, uint16_t len)
{
	struct eqt_pkt *p = eqt_pkt_get(&pool);

	assert_non_null(p);
	p->len = len;
	p->cls = (uint8_t)cls;
	eqt_q_push(&t->q[cls], p);
	return p;
}

/* Takes whatever goes next in class cls (resends first) at `now`. */
static struct eqt_pkt *take(struct eqt_tx *t, uint32_t cls, struct eqt_hdr *h, uint64_t now)
{
	struct eqt_q *q = eqt_tx_head(t, cls);

	assert_non_null(q);
	return eqt_tx_take(t, q, h, &pool, FLOOR, now);
}

/* A new packet of `len` bytes, queued and sent at `now`. */
static struct eqt_pkt *send(struct eqt_tx *t, uint16_t len, uint64_t now)
{
	struct eqt_hdr h;

	queue(t, OTHER, len);
	return take(t, OTHER, &h, now);
}

static void ack(struct eqt_tx *t, uint32_t seq, uint32_t cum, uint64_t now,
		struct eqt_tx_acked *out)
{
	eqt_tx_ack(t, seq, cum, &pool, FLOOR, now, out);
}

/* Every packet the tunnel held goes back to the pool. */
static void done(struct eqt_tx *t)
{
	eqt_tx_fini(t, &pool);
	assert_int_equal(pool.in_use, 0);
}

static void take__the_first_packet_opens_an_epoch_at_seq0(void **state)
{
	struct eqt_tx t;
	struct eqt_hdr h;
	struct eqt_pkt *p;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	assert_false(t.open);
	assert_int_equal(eqt_tx_deadline(&t), EQT_NO_DEADLINE);
	/* Nothing to take opens nothing. */
	assert_null(eqt_tx_take(&t, &t.q[OTHER], &h, &pool, FLOOR, T0));
	assert_false(t.open);

	queue(&t, OTHER, 1000);
	assert_int_equal(eqt_tx_backlog(&t), 1000);
	assert_ptr_equal(eqt_tx_head(&t, OTHER), &t.q[OTHER]);
	assert_null(eqt_tx_head(&t, TCP));
	p = eqt_tx_take(&t, &t.q[OTHER], &h, &pool, FLOOR, T0);
	assert_non_null(p);
	assert_true(t.open);
	assert_true(t.syn);
	assert_int_equal(t.isn, SEQ0);
	assert_int_equal(t.cum_ack, SEQ0);
	assert_int_equal(t.next_seq, SEQ0 + 1);
	assert_int_equal(p->seq, SEQ0);
	assert_int_equal(h.type, EQ_T_DATA);
	assert_int_equal(h.flags, EQ_F_SYN);
	assert_int_equal(h.seq_ack, SEQ0);
	assert_int_equal(h.aux, 1000);
	assert_int_equal(p->tx_count, 1);
	assert_int_equal(p->t_ns, T0);
	assert_int_equal(p->flags & EQT_PF_SYN, EQT_PF_SYN);
	/* Held in flight (the caller sends it; it stays ours). */
	assert_int_equal(t.infl.n, 1);
	assert_int_equal(t.infl.bytes, 1000);
	assert_ptr_equal(eqt_infl_get(&t.infl, SEQ0), p);
	assert_int_equal(eqt_tx_backlog(&t), 0);
	assert_int_equal(t.st.data, 1);
	assert_int_equal(t.st.rtx, 0);
	/* No RTT sample yet: the RTO is the floor. */
	assert_int_equal(t.rto_at, T0 + FLOOR);
	assert_int_equal(eqt_tx_deadline(&t), T0 + FLOOR);
	done(&t);
}

/* Seqs follow the order taken, whatever the class; the timer is armed
 * by the first send only (later sends do not push it back). */
static void take__seqs_count_up_and_the_timer_arms_once(void **state)
{
	struct eqt_tx t;
	struct eqt_hdr h;
	struct eqt_pkt *p;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	queue(&t, OTHER, 100);
	queue(&t, TCP, 200);
	queue(&t, OTHER, 300);
	for (uint32_t i = 0; i < 3; i++) {
		p = take(&t, i == 1 ? TCP : OTHER, &h, T0 + 10 * i);
		assert_int_equal(p->seq, SEQ0 + i);
		assert_int_equal(h.seq_ack, SEQ0 + i);
		assert_int_equal(h.aux, 100 * (i + 1));
		assert_int_equal(p->t_ns, T0 + 10 * i);
	}
	assert_int_equal(t.next_seq, SEQ0 + 3);
	assert_int_equal(t.infl.n, 3);
	assert_int_equal(t.infl.bytes, 600);
	assert_int_equal(t.st.data, 3);
	assert_int_equal(t.rto_at, T0 + FLOOR);
	done(&t);
}

/* Zero-RTT: every packet is SYN until the receiver says anything of this
 * epoch; an ACK ends it. */
static void take__syn_until_an_ack_answers(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;
	struct eqt_hdr h;
	struct eqt_pkt *p;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	queue(&t, OTHER, 200);
	p = take(&t, OTHER, &h, T0 + 10);
	assert_int_equal(h.flags, EQ_F_SYN);
	assert_int_equal(p->flags & EQT_PF_SYN, EQT_PF_SYN);
	ack(&t, SEQ0, SEQ0 + 1, T0 + 100, &out);
	assert_false(t.syn);
	queue(&t, OTHER, 300);
	p = take(&t, OTHER, &h, T0 + 200);
	assert_int_equal(p->seq, SEQ0 + 2);
	assert_int_equal(h.flags, 0);
	assert_int_equal(p->flags & EQT_PF_SYN, 0);
	done(&t);
}

/* A NACK is an answer too: the resend it asks for and what follows go
 * without SYN. */
static void take__syn_until_a_nack_answers(void **state)
{
	struct eqt_tx t;
	struct eqt_hdr h;
	struct eqt_pkt *p;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	send(&t, 200, T0 + 10);
	assert_true(t.syn);
	assert_int_equal(eqt_tx_nack(&t, SEQ0), 100);
	assert_false(t.syn);
	p = take(&t, OTHER, &h, T0 + 200);
	assert_int_equal(p->seq, SEQ0);
	assert_int_equal(h.flags, EQ_F_RTX);
	queue(&t, OTHER, 300);
	p = take(&t, OTHER, &h, T0 + 300);
	assert_int_equal(p->seq, SEQ0 + 2);
	assert_int_equal(h.flags, 0);
	done(&t);
}

/* A NACKed packet leaves flight for the resend queue, which goes before
 * either class; taken again it keeps its seq and says RTX.  A NACK of a
 * seq not in flight moves nothing. */
static void nack__a_resend_goes_first_and_keeps_its_seq(void **state)
{
	struct eqt_tx t;
	struct eqt_hdr h;
	struct eqt_pkt *p;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	send(&t, 200, T0 + 10);
	send(&t, 300, T0 + 20);
	queue(&t, TCP, 400);
	assert_int_equal(eqt_tx_nack(&t, SEQ0 + 1), 200);
	assert_int_equal(t.st.nacks, 1);
	assert_int_equal(t.infl.n, 2);
	assert_int_equal(t.infl.bytes, 400);
	assert_int_equal(t.rtx.pkts, 1);
	assert_int_equal(t.rtx.bytes, 200);
	assert_int_equal(eqt_tx_backlog(&t), 600);
	/* A duplicate NACK, and one of a seq never sent: nothing. */
	assert_int_equal(eqt_tx_nack(&t, SEQ0 + 1), 0);
	assert_int_equal(eqt_tx_nack(&t, SEQ0 + 7), 0);
	assert_int_equal(t.st.nacks, 1);
	assert_int_equal(t.rtx.pkts, 1);
	/* Two in flight still: the timer stays as it was. */
	assert_int_equal(t.rto_at, T0 + FLOOR);

	assert_ptr_equal(eqt_tx_head(&t, TCP), &t.rtx);
	assert_ptr_equal(eqt_tx_head(&t, OTHER), &t.rtx);
	p = take(&t, TCP, &h, T0 + 100);
	assert_int_equal(p->seq, SEQ0 + 1);
	assert_int_equal(p->len, 200);
	assert_int_equal(h.seq_ack, SEQ0 + 1);
	assert_int_equal(h.flags, EQ_F_RTX);		/* the NACK ended SYN */
	assert_int_equal(p->tx_count, 2);
	assert_int_equal(p->t_ns, T0 + 100);
	assert_int_equal(t.next_seq, SEQ0 + 3);		/* no new seq used */
	assert_int_equal(t.st.rtx, 1);
	assert_int_equal(t.st.data, 3);
	assert_int_equal(t.infl.n, 3);
	assert_ptr_equal(eqt_infl_get(&t.infl, SEQ0 + 1), p);
	/* The class queue's turn once the resends are out. */
	assert_ptr_equal(eqt_tx_head(&t, TCP), &t.q[TCP]);
	p = take(&t, TCP, &h, T0 + 110);
	assert_int_equal(p->seq, SEQ0 + 3);
	assert_int_equal(h.flags, 0);
	assert_int_equal(t.st.data, 4);
	done(&t);
}

/* An ACK of one seq takes out that packet only; sent once, it times the
 * round trip: the first sample sets srtt R, rttvar R/2, RTO 3R; the
 * timer stays where it was (the oldest packet's own deadline). */
static void ack__one_seq_selectively_with_an_rtt_sample(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	send(&t, 200, T0 + 1000);
	send(&t, 300, T0 + 2000);
	ack(&t, SEQ0 + 1, SEQ0, T0 + 31000, &out);	/* nothing in order yet */
	assert_int_equal(out.bytes, 200);
	assert_int_equal(out.pkts, 1);
	assert_int_equal(out.rtt_ns, 30000);
	assert_int_equal(t.min_rtt_ns, 30000);
	assert_int_equal(t.rtt.srtt_ns, 30000);
	assert_int_equal(t.rtt.rttvar_ns, 15000);
	assert_int_equal(t.rtt.rto_ns, 90000);
	assert_int_equal(t.rto_at, T0 + FLOOR);	/* where the first send put it */
	assert_int_equal(t.cum_ack, SEQ0);
	assert_int_equal(t.infl.n, 2);
	assert_int_equal(t.infl.bytes, 400);
	assert_null(eqt_infl_get(&t.infl, SEQ0 + 1));
	assert_non_null(eqt_infl_get(&t.infl, SEQ0));
	/* At its time the oldest, SEQ0, is not due by the new RTO: nothing
	 * goes again, and the timer moves to when it will be. */
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + FLOOR), 0);
	assert_int_equal(t.rto_at, T0 + 90000);
	assert_int_equal(t.infl.n, 2);
	assert_int_equal(t.st.rto_fired, 0);
	done(&t);
}

/* A cumulative ACK takes out everything before cum, holes and all, with
 * the seq it names; the last one out of flight stops the timer. */
static void ack__cumulative_takes_everything_before_cum(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	for (uint32_t i = 0; i < 4; i++)
		send(&t, (uint16_t)(100 * (i + 1)), T0 + 1000 * i);
	ack(&t, SEQ0 + 2, SEQ0 + 3, T0 + 40000, &out);
	assert_int_equal(out.bytes, 600);		/* 100 + 200 + 300 */
	assert_int_equal(out.pkts, 3);
	assert_int_equal(out.rtt_ns, 38000);		/* SEQ0 + 2's */
	assert_int_equal(t.cum_ack, SEQ0 + 3);
	assert_int_equal(t.infl.n, 1);
	assert_int_equal(t.infl.bytes, 400);
	assert_non_null(eqt_infl_get(&t.infl, SEQ0 + 3));
	assert_int_equal(t.rtt.rto_ns, 38000 + 4 * 19000);
	assert_int_equal(t.rto_at, T0 + FLOOR);	/* progress does not restart it */
	ack(&t, SEQ0 + 3, SEQ0 + 4, T0 + 50000, &out);
	assert_int_equal(out.bytes, 400);
	assert_int_equal(out.pkts, 1);
	assert_int_equal(out.rtt_ns, 47000);
	assert_int_equal(t.min_rtt_ns, 38000);		/* the lowest sample */
	assert_int_equal(t.rtt.srtt_ns, (7 * 38000 + 47000) / 8);
	assert_int_equal(t.cum_ack, SEQ0 + 4);
	assert_int_equal(t.infl.n, 0);
	assert_int_equal(t.infl.bytes, 0);
	assert_int_equal(t.rto_at, 0);
	assert_int_equal(eqt_tx_deadline(&t), EQT_NO_DEADLINE);
	done(&t);
}

/* Only the packet an ACK names is its RTT sample: what its cumulative ack
 * takes out (ACKs lost, or a resend's recovery) was sent earlier, and
 * its send time would make the sample longer than the path. */
static void ack__only_the_named_seq_is_a_sample(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	send(&t, 200, T0 + 1000);
	send(&t, 300, T0 + 2000);
	ack(&t, SEQ0 + 2, SEQ0, T0 + 10000, &out);
	assert_int_equal(out.rtt_ns, 8000);
	ack(&t, SEQ0 + 2, SEQ0 + 2, T0 + 12000, &out);
	assert_int_equal(out.bytes, 300);		/* SEQ0 and SEQ0 + 1 */
	assert_int_equal(out.pkts, 2);
	assert_int_equal(out.rtt_ns, 0);		/* not SEQ0 + 1's 11000 */
	assert_int_equal(t.min_rtt_ns, 8000);
	assert_int_equal(t.infl.n, 0);
	done(&t);
}

/* Karn: the ACK of a packet sent twice cannot tell which send it
 * answers; no sample, the RTO stays unset. */
static void ack__a_resend_gives_no_rtt_sample(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;
	struct eqt_hdr h;
	struct eqt_pkt *p;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	assert_int_equal(eqt_tx_nack(&t, SEQ0), 100);
	p = take(&t, OTHER, &h, T0 + 5000);
	assert_int_equal(p->tx_count, 2);
	ack(&t, SEQ0, SEQ0 + 1, T0 + 20000, &out);
	assert_int_equal(out.bytes, 100);
	assert_int_equal(out.pkts, 1);
	assert_int_equal(out.rtt_ns, 0);
	assert_int_equal(t.min_rtt_ns, 0);
	assert_int_equal(t.rtt.srtt_ns, 0);
	assert_int_equal(t.rtt.rto_ns, 0);
	assert_int_equal(t.cum_ack, SEQ0 + 1);
	assert_int_equal(t.infl.n, 0);
	assert_int_equal(t.rto_at, 0);
	done(&t);
}

/* The same ACK twice: the second takes nothing, samples nothing and
 * leaves the timer where the first put it. */
/* A sample the scheme took itself (an echoed timestamp) moves the
 * estimator, the lowest RTT and the base RTT as an ACK's does; the base
 * RTT is the lowest smoothed RTT, which one low sample moves an eighth. */
static void sample__a_schemes_own_moves_srtt_and_the_lowest(void **state)
{
	struct eqt_tx t;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	assert_int_equal(eqt_tx_base_rtt(&t), 0);
	eqt_tx_rtt_sample(&t, 40000, FLOOR, 1000);
	assert_int_equal(t.rtt.srtt_ns, 40000);
	assert_int_equal(t.min_rtt_ns, 40000);
	assert_int_equal(eqt_tx_base_rtt(&t), 40000);
	eqt_tx_rtt_sample(&t, 24000, FLOOR, 2000);
	assert_int_equal(t.rtt.srtt_ns, (7 * 40000 + 24000) / 8);
	assert_int_equal(t.min_rtt_ns, 24000);
	assert_int_equal(eqt_tx_base_rtt(&t), (7 * 40000 + 24000) / 8);
	eqt_tx_rtt_sample(&t, 90000, FLOOR, 3000);
	assert_int_equal(t.min_rtt_ns, 24000);		/* the lowest stays */
	assert_int_equal(eqt_tx_base_rtt(&t), (7 * 40000 + 24000) / 8);
	done(&t);
}

static void ack__a_repeat_changes_nothing(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	send(&t, 200, T0);
	ack(&t, SEQ0, SEQ0 + 1, T0 + 10000, &out);
	assert_int_equal(out.bytes, 100);
	/* A 10 us sample: 3R = 30 us, below the floor. */
	assert_int_equal(t.rtt.rto_ns, FLOOR);
	assert_int_equal(t.rto_at, T0 + FLOOR);
	ack(&t, SEQ0, SEQ0 + 1, T0 + 20000, &out);
	assert_int_equal(out.bytes, 0);
	assert_int_equal(out.pkts, 0);
	assert_int_equal(out.rtt_ns, 0);
	assert_int_equal(t.cum_ack, SEQ0 + 1);
	assert_int_equal(t.infl.n, 1);
	assert_int_equal(t.infl.bytes, 200);
	assert_int_equal(t.rtt.srtt_ns, 10000);
	assert_int_equal(t.rto_at, T0 + FLOOR);
	done(&t);
}

/* An ACK of a seq not sent, or acknowledging in order past what was
 * sent, is not the receiver's: refused and counted. */
static void check__acks_beyond_what_was_sent_are_bad(void **state)
{
	struct eqt_tx t;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	for (uint32_t i = 0; i < 3; i++)
		send(&t, 100, T0);
	/* Sent: SEQ0 .. SEQ0 + 2. */
	assert_int_equal(eqt_tx_check(&t, false, SEQ0 + 2, SEQ0 + 3), EQT_TX_ADMIT);
	assert_int_equal(eqt_tx_check(&t, false, SEQ0, SEQ0 + 1), EQT_TX_ADMIT);
	assert_int_equal(t.st.bad_ack, 0);
	assert_int_equal(eqt_tx_check(&t, false, SEQ0 + 3, SEQ0 + 3), EQT_TX_BAD_ACK);
	assert_int_equal(t.st.bad_ack, 1);
	assert_int_equal(eqt_tx_check(&t, false, SEQ0 + 1, SEQ0 + 4), EQT_TX_BAD_ACK);
	assert_int_equal(t.st.bad_ack, 2);
	assert_int_equal(eqt_tx_check(&t, false, SEQ0 + (1u << 30), SEQ0 + (1u << 30)),
			 EQT_TX_BAD_ACK);
	assert_int_equal(t.st.bad_ack, 3);
	assert_int_equal(t.st.bad_rst, 0);
	done(&t);
}

/* isn - 1 acknowledges "nothing of this epoch yet"; anything further
 * back is an older epoch's, late: it changes nothing and is no forgery. */
static void check__an_ack_below_the_epoch_is_old(void **state)
{
	struct eqt_tx t;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	send(&t, 100, T0);
	assert_int_equal(eqt_tx_check(&t, false, SEQ0 - 1, SEQ0 - 1), EQT_TX_ADMIT);
	assert_int_equal(eqt_tx_check(&t, false, SEQ0 - 2, SEQ0 - 2), EQT_TX_OLD_EPOCH);
	assert_int_equal(eqt_tx_check(&t, false, SEQ0 - 100000, SEQ0 - 99999), EQT_TX_OLD_EPOCH);
	assert_int_equal(t.st.bad_ack, 0);
	done(&t);
}

/* An RST must echo a seq of this epoch. */
static void check__an_rst_must_echo_a_seq_of_the_epoch(void **state)
{
	struct eqt_tx t;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	for (uint32_t i = 0; i < 3; i++)
		send(&t, 100, T0);
	assert_int_equal(eqt_tx_check(&t, true, SEQ0, 0), EQT_TX_ADMIT);
	assert_int_equal(eqt_tx_check(&t, true, SEQ0 + 2, 0), EQT_TX_ADMIT);
	assert_int_equal(t.st.bad_rst, 0);
	assert_int_equal(eqt_tx_check(&t, true, SEQ0 + 3, 0), EQT_TX_BAD_RST);	/* not sent yet */
	assert_int_equal(t.st.bad_rst, 1);
	assert_int_equal(eqt_tx_check(&t, true, SEQ0 + (1u << 30), 0), EQT_TX_BAD_RST);
	assert_int_equal(t.st.bad_rst, 2);
	assert_int_equal(t.st.bad_ack, 0);
	done(&t);
}

/* Before anything was sent there is no epoch for a control packet to
 * belong to: everything is an old epoch's, nothing counted. */
static void check__with_no_epoch_everything_is_old(void **state)
{
	struct eqt_tx t;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	assert_int_equal(eqt_tx_check(&t, false, SEQ0, SEQ0 + 1), EQT_TX_OLD_EPOCH);
	assert_int_equal(eqt_tx_check(&t, false, SEQ0 - 1, SEQ0), EQT_TX_OLD_EPOCH);
	assert_int_equal(eqt_tx_check(&t, true, SEQ0, 0), EQT_TX_OLD_EPOCH);
	assert_int_equal(eqt_tx_check(&t, true, 12345, 0), EQT_TX_OLD_EPOCH);
	assert_int_equal(t.st.bad_ack, 0);
	assert_int_equal(t.st.bad_rst, 0);
	done(&t);
}

/* Before the timer's time nothing moves; at it, with no RTT sample, the
 * packet goes to the resend queue and the RTO doubles from the floor.
 * No answer came: its resend is still SYN. */
static void timeout__nothing_before_rto_at_then_the_resend_queue(void **state)
{
	struct eqt_tx t;
	struct eqt_hdr h;
	struct eqt_pkt *p;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + 10 * FLOOR), 0);	/* nothing sent */
	send(&t, 100, T0);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + FLOOR - 1), 0);
	assert_int_equal(t.infl.n, 1);
	assert_int_equal(t.rtx.pkts, 0);
	assert_int_equal(t.st.rto_fired, 0);
	assert_int_equal(t.rto_at, T0 + FLOOR);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + FLOOR), 100);
	assert_int_equal(t.st.rto_fired, 1);
	assert_int_equal(t.infl.n, 0);
	assert_int_equal(t.infl.bytes, 0);
	assert_int_equal(t.rtx.pkts, 1);
	assert_int_equal(t.rtx.head->seq, SEQ0);
	assert_int_equal(t.rtt.rto_ns, 2 * FLOOR);
	assert_int_equal(t.rto_at, 0);
	assert_int_equal(eqt_tx_deadline(&t), EQT_NO_DEADLINE);
	assert_true(t.syn);
	p = take(&t, OTHER, &h, T0 + FLOOR + 5);
	assert_int_equal(p->seq, SEQ0);
	assert_int_equal(p->tx_count, 2);
	assert_int_equal(h.flags, EQ_F_SYN | EQ_F_RTX);
	assert_int_equal(t.st.rtx, 1);
	/* The resend re-arms the timer with the backed-off RTO. */
	assert_int_equal(t.rto_at, T0 + FLOOR + 5 + 2 * FLOOR);
	done(&t);
}

/* The oldest packet in flight is due an RTO after it went, whatever
 * later ACKs said; then the newest goes again and the RTO doubles from
 * its estimate and is armed from now.  The probe's resend keeps its seq;
 * its ACK gives no sample, leaves the backed-off RTO in place, and finds
 * what went before the RTO still missing, a NACKed packet's resend
 * included, oldest first. */
static void timeout__due_for_the_oldest_then_the_newest_goes_again(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;
	struct eqt_hdr h;
	struct eqt_pkt *p;
	static const uint32_t want[] = { SEQ0, SEQ0 + 2 };

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	for (uint32_t i = 0; i < 4; i++)
		send(&t, (uint16_t)(100 * (i + 1)), T0 + 1000 * i);
	ack(&t, SEQ0 + 1, SEQ0, T0 + 31000, &out);	/* 30 us: RTO 90 us */
	assert_int_equal(t.rto_at, T0 + FLOOR);
	assert_int_equal(eqt_tx_nack(&t, SEQ0), 100);
	p = take(&t, OTHER, &h, T0 + 33000);		/* SEQ0 again, after SEQ0 + 3 */
	assert_int_equal(p->seq, SEQ0);
	/* The oldest in flight is SEQ0 + 2, sent at T0 + 2000: due an RTO
	 * (90 us) after, whatever the ACK of SEQ0 + 1 said meanwhile. */
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + FLOOR), 0);
	assert_int_equal(t.rto_at, T0 + 92000);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + 91999), 0);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + 92000), 400);
	assert_int_equal(t.st.rto_fired, 1);
	assert_int_equal(t.infl.n, 2);
	assert_int_equal(t.rtx.pkts, 1);
	assert_int_equal(t.rtx.head->seq, SEQ0 + 3);
	assert_int_equal(t.rtt.rto_ns, 180000);
	assert_int_equal(t.rto_at, T0 + 92000 + 180000);

	p = take(&t, OTHER, &h, T0 + 130000);
	assert_int_equal(p->seq, SEQ0 + 3);
	assert_int_equal(h.flags, EQ_F_RTX);
	assert_int_equal(t.next_seq, SEQ0 + 4);
	assert_int_equal(t.st.rtx, 2);
	assert_int_equal(t.rto_at, T0 + 92000 + 180000);	/* not later */
	ack(&t, SEQ0 + 3, SEQ0, T0 + 140000, &out);
	assert_int_equal(out.bytes, 400);
	assert_int_equal(out.rtt_ns, 0);
	assert_int_equal(t.rtt.rto_ns, 180000);
	assert_int_equal(out.lost, 2);
	assert_int_equal(out.lost_bytes, 100 + 300);
	assert_int_equal(t.infl.n, 0);
	p = t.rtx.head;
	for (unsigned i = 0; i < 2; i++, p = p->next)
		assert_int_equal(p->seq, want[i]);
	assert_null(p);
	done(&t);
}

/* The timer was armed for a packet that has left flight since (NACKed
 * here); the oldest still in flight is not due: the timer moves to its
 * time, nothing moves, nothing backs off.  When it fires, the probe goes
 * ahead of the NACKed packet, whatever a window says. */
static void timeout__rearms_for_the_oldest_when_it_is_not_due(void **state)
{
	struct eqt_tx t;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	send(&t, 200, T0 + 40000);
	assert_int_equal(eqt_tx_nack(&t, SEQ0), 100);
	assert_int_equal(t.rto_at, T0 + FLOOR);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + FLOOR), 0);
	assert_int_equal(t.rto_at, T0 + 40000 + FLOOR);
	assert_int_equal(t.st.rto_fired, 0);
	assert_int_equal(t.infl.n, 1);
	assert_int_equal(t.rtx.pkts, 1);
	assert_int_equal(t.rtt.rto_ns, 0);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + 40000 + FLOOR - 1), 0);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + 40000 + FLOOR), 200);
	assert_int_equal(t.st.rto_fired, 1);
	assert_int_equal(t.rtx.pkts, 2);
	/* The probe first, and no window holds it: what is in flight may
	 * all be lost, and only its ACK tells (tx.h, eqt_tx_probe_waits()). */
	assert_int_equal(t.rtx.head->seq, SEQ0 + 1);
	assert_int_equal(t.rtx.tail->seq, SEQ0);		/* the NACKed one */
	assert_true(eqt_tx_probe_waits(&t, &t.rtx));
	assert_false(eqt_tx_probe_waits(&t, &t.q[OTHER]));
	assert_int_equal(t.rtt.rto_ns, 2 * FLOOR);
	{
		struct eqt_hdr h;
		struct eqt_pkt *p = eqt_tx_take(&t, &t.rtx, &h, &pool, FLOOR, T0 + 50000 + FLOOR);

		assert_int_equal(p->seq, SEQ0 + 1);
		assert_false(eqt_tx_probe_waits(&t, &t.rtx));	/* the NACKed one waits its turn */
	}
	done(&t);
}

/* The receiver lost this epoch: what was in flight and what waited to go
 * again are numbered afresh, in that order, in an epoch past the floor it
 * gave (not past our own last seq), SYN again; new data waits behind. */
static void reset__requeues_what_was_left_in_an_epoch_past_the_floor(void **state)
{
	struct eqt_tx t;
	struct eqt_hdr h;
	struct eqt_pkt *p;
	uint32_t floor = eqt_epoch_first(77) + 5, isn = eqt_epoch_next(SEQ0 + 4, floor);

	assert_int_equal(isn, (77u + EQT_EPOCH_GAP) << EQT_EPOCH_SHIFT);
	assert_int_not_equal(isn, eqt_epoch_next(SEQ0 + 4, 0));
	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	for (uint32_t i = 0; i < 4; i++)
		send(&t, (uint16_t)(100 * (i + 1)), T0);
	assert_int_equal(eqt_tx_nack(&t, SEQ0 + 3), 400);
	queue(&t, TCP, 500);
	assert_int_equal(eqt_tx_check(&t, true, SEQ0 + 1, 0), EQT_TX_ADMIT);
	assert_true(eqt_tx_reset(&t, floor));
	assert_int_equal(t.st.rsts, 1);
	assert_true(t.open);
	assert_true(t.syn);
	assert_int_equal(t.isn, isn);
	assert_int_equal(t.next_seq, isn);
	assert_int_equal(t.cum_ack, isn);
	assert_int_equal(t.floor, 0);
	assert_int_equal(t.rto_at, 0);
	assert_int_equal(t.infl.n, 0);
	assert_int_equal(t.infl.bytes, 0);
	assert_int_equal(t.rtx.pkts, 4);
	assert_int_equal(t.rtx.bytes, 1000);
	p = t.rtx.head;
	for (unsigned i = 0; i < 4; i++, p = p->next) {
		assert_int_equal(p->len, 100 * (i + 1));
		assert_int_equal(p->tx_count, 0);
	}
	assert_int_equal(t.q[TCP].pkts, 1);
	for (uint32_t i = 0; i < 4; i++) {
		p = take(&t, TCP, &h, T0 + 100);
		assert_int_equal(p->seq, isn + i);
		assert_int_equal(p->len, 100 * (i + 1));
		assert_int_equal(p->tx_count, 1);
		assert_int_equal(h.flags, EQ_F_SYN);		/* new, not RTX */
	}
	p = take(&t, TCP, &h, T0 + 100);
	assert_int_equal(p->seq, isn + 4);
	assert_int_equal(p->len, 500);
	assert_int_equal(t.st.data, 9);
	assert_int_equal(t.st.rtx, 0);
	assert_int_equal(t.infl.n, 5);
	assert_int_equal(t.rto_at, T0 + 100 + FLOOR);
	/* The old epoch's acks are late now. */
	assert_int_equal(eqt_tx_check(&t, false, SEQ0 + 1, SEQ0 + 2), EQT_TX_OLD_EPOCH);
	done(&t);
}

/* Nothing left to send: the tunnel closes; the next packet opens an epoch
 * past our last seq (no floor) or past the floor an RST gave. */
/* What goes again after an RST goes in the order of its old seqs: a
 * NACKed packet waiting to be resent goes back among those in flight,
 * not behind them (the receiver would deliver it after later ones). */
static void reset__resends_keep_the_order_of_their_seqs(void **state)
{
	struct eqt_tx t;
	struct eqt_pkt *p;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	for (uint32_t i = 0; i < 4; i++)
		send(&t, (uint16_t)(100 * (i + 1)), T0);
	assert_int_equal(eqt_tx_nack(&t, SEQ0 + 1), 200);
	assert_true(eqt_tx_reset(&t, 0));
	assert_int_equal(t.rtx.pkts, 4);
	p = t.rtx.head;
	for (unsigned i = 0; i < 4; i++, p = p->next)
		assert_int_equal(p->len, 100 * (i + 1));
	done(&t);
}

/* The other RSTs of an epoch an RST ended (one for each packet the
 * restarted receiver got) come late: an older epoch's, not counted as
 * forged; an echo of no seq of either epoch still is. */
static void reset__late_rsts_of_the_ended_epoch_are_old(void **state)
{
	struct eqt_tx t;
	struct eqt_hdr h;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	for (uint32_t i = 0; i < 3; i++)
		send(&t, 100, T0);
	assert_int_equal(eqt_tx_check(&t, true, SEQ0, 0), EQT_TX_ADMIT);
	assert_true(eqt_tx_reset(&t, 0));
	take(&t, OTHER, &h, T0 + 100);
	assert_int_equal(eqt_tx_check(&t, true, SEQ0 + 1, 0), EQT_TX_OLD_EPOCH);
	assert_int_equal(eqt_tx_check(&t, true, SEQ0 + 2, 0), EQT_TX_OLD_EPOCH);
	assert_int_equal(t.st.bad_rst, 0);
	assert_int_equal(eqt_tx_check(&t, true, SEQ0 + 3, 0), EQT_TX_BAD_RST);
	assert_int_equal(t.st.bad_rst, 1);
	done(&t);
}

static void reset__with_nothing_left_closes_the_tunnel(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;
	struct eqt_hdr h;
	struct eqt_pkt *p;
	uint32_t isn = eqt_epoch_next(SEQ0 + 2, 0), floor = eqt_epoch_first(9000) + 17;

	assert_int_equal(isn, (5u + EQT_EPOCH_GAP) << EQT_EPOCH_SHIFT);
	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	send(&t, 200, T0);
	ack(&t, SEQ0 + 1, SEQ0 + 2, T0 + 1000, &out);
	assert_int_equal(out.pkts, 2);
	assert_false(eqt_tx_reset(&t, 0));
	assert_false(t.open);
	assert_int_equal(t.st.rsts, 1);
	assert_int_equal(t.rtx.pkts, 0);
	assert_int_equal(t.rto_at, 0);
	assert_int_equal(eqt_tx_check(&t, false, SEQ0 + 1, SEQ0 + 2), EQT_TX_OLD_EPOCH);
	assert_int_equal(eqt_tx_check(&t, true, SEQ0 + 1, 0), EQT_TX_OLD_EPOCH);
	assert_int_equal(t.st.bad_rst, 0);

	queue(&t, OTHER, 300);
	p = take(&t, OTHER, &h, T0 + 2000);
	assert_true(t.open);
	assert_int_equal(t.isn, isn);
	assert_int_equal(p->seq, isn);
	assert_int_equal(h.flags, EQ_F_SYN);
	assert_int_equal(t.cum_ack, isn);

	/* Again, with a floor this time. */
	ack(&t, isn, isn + 1, T0 + 3000, &out);
	assert_int_equal(out.pkts, 1);
	assert_false(eqt_tx_reset(&t, floor));
	assert_int_equal(t.st.rsts, 2);
	queue(&t, OTHER, 400);
	p = take(&t, OTHER, &h, T0 + 4000);
	assert_int_equal(t.isn, (9000u + EQT_EPOCH_GAP) << EQT_EPOCH_SHIFT);
	assert_int_equal(p->seq, t.isn);
	assert_int_equal(t.isn, eqt_epoch_next(isn + 1, floor));
	assert_int_equal(h.flags, EQ_F_SYN);
	done(&t);
}

/* While the receiver has not answered, no new packet is numbered past
 * the epoch's SYN window; a resend of the epoch still goes; an answer
 * lifts the limit. */
static void syn_room__no_new_packet_past_the_syn_window(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	queue(&t, OTHER, 100);
	assert_true(eqt_tx_syn_room(&t, &t.q[OTHER]));		/* no epoch yet */
	send(&t, 100, T0);
	assert_true(eqt_tx_syn_room(&t, &t.q[OTHER]));
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + FLOOR), 100);
	assert_true(t.syn);
	/* The epoch's 1024th seq may still be numbered ... */
	t.next_seq = SEQ0 + EQT_EPOCH_SYN_NEW - 1;
	assert_true(eqt_tx_syn_room(&t, &t.q[OTHER]));
	/* ... but none past it; the timed-out SYN0 keeps its seq. */
	t.next_seq = SEQ0 + EQT_EPOCH_SYN_NEW;
	assert_false(eqt_tx_syn_room(&t, &t.q[OTHER]));
	assert_true(eqt_tx_syn_room(&t, &t.rtx));
	/* The receiver answered (its first send came after all). */
	ack(&t, SEQ0, SEQ0 + 1, T0 + FLOOR + 10, &out);
	assert_int_equal(out.pkts, 0);
	assert_false(t.syn);
	assert_true(eqt_tx_syn_room(&t, &t.q[OTHER]));
	t.next_seq = SEQ0 + 1;
	done(&t);
}

/* fini frees what waits in either class, in flight and to go again. */
static void fini__frees_queued_in_flight_and_resends(void **state)
{
	struct eqt_tx t;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	for (uint32_t i = 0; i < 3; i++)
		send(&t, 100, T0);
	assert_int_equal(eqt_tx_nack(&t, SEQ0 + 1), 100);
	queue(&t, TCP, 100);
	queue(&t, TCP, 100);
	queue(&t, OTHER, 100);
	assert_int_equal(pool.in_use, 6);
	assert_int_equal(t.infl.n, 2);
	assert_int_equal(t.rtx.pkts, 1);
	assert_int_equal(eqt_tx_backlog(&t), 400);
	done(&t);
}

/* The probe: at the RTO only the newest packet in flight goes to the
 * resend queue; the rest stay in flight, the RTO backs off and is armed
 * from now, not from the oldest's send. */
static void probe__only_the_newest_goes_again(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	send(&t, 200, T0 + 10);
	send(&t, 300, T0 + 20);
	ack(&t, SEQ0, SEQ0, T0 + 30, &out);	/* answered: not SYN any more */
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + 10 + FLOOR - 1), 0);	/* not due */
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + 10 + 3 * FLOOR), 300);
	assert_int_equal(t.st.rto_fired, 1);
	assert_int_equal(t.infl.n, 1);
	assert_int_equal(t.infl.bytes, 200);
	assert_int_equal(t.rtx.pkts, 1);
	assert_int_equal(t.rtx.head->seq, SEQ0 + 2);
	assert_true(t.probing);
	assert_int_equal(t.probe_seq, SEQ0 + 2);
	/* The sample of the first ACK (30 ns) is far below the floor, so the
	 * RTO was the floor: it doubled. */
	assert_int_equal(t.rtt.rto_ns, 2 * FLOOR);
	assert_int_equal(t.rto_at, T0 + 10 + 3 * FLOOR + 2 * FLOOR);
	done(&t);
}

/* The probe's ACK: what went before it and is still in flight was lost,
 * and goes to the resend queue, oldest first; what came after the probe
 * stays in flight. */
static void probe__its_ack_finds_the_older_ones_lost(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;
	struct eqt_hdr h;
	struct eqt_pkt *p;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	for (int i = 0; i < 4; i++)
		send(&t, 100, T0 + i);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + FLOOR), 100);
	p = take(&t, OTHER, &h, T0 + FLOOR + 1);		/* the probe goes */
	assert_int_equal(p->seq, SEQ0 + 3);
	send(&t, 100, T0 + FLOOR + 2);				/* new data after it */
	ack(&t, SEQ0 + 3, SEQ0, T0 + FLOOR + 100, &out);
	assert_int_equal(out.pkts, 1);
	assert_int_equal(out.lost, 3);
	assert_int_equal(out.lost_bytes, 300);
	assert_false(t.probing);
	assert_int_equal(t.rtx.pkts, 3);
	assert_int_equal(t.rtx.head->seq, SEQ0);
	assert_int_equal(t.infl.n, 1);			/* the one sent after it */
	assert_non_null(eqt_infl_get(&t.infl, SEQ0 + 4));
	assert_int_equal(t.st.rto_fired, 4);
	done(&t);
}

/* A NACKed packet resent after the RTO fired lies below the probe's seq
 * but went after it: the probe's ACK leaves it in flight (by send time,
 * as RACK); only what went before the RTO is lost. */
static void probe__a_resend_after_it_stays_in_flight(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;
	struct eqt_hdr h;
	struct eqt_pkt *p;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	for (int i = 0; i < 3; i++)
		send(&t, 100, T0);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + FLOOR), 100);	/* SEQ0 + 2 */
	assert_int_equal(eqt_tx_nack(&t, SEQ0 + 1), 100);		/* trimmed */
	p = take(&t, OTHER, &h, T0 + FLOOR + 1);	/* resends go in queue order */
	assert_int_equal(p->seq, SEQ0 + 2);
	p = take(&t, OTHER, &h, T0 + FLOOR + 2);
	assert_int_equal(p->seq, SEQ0 + 1);
	ack(&t, SEQ0 + 2, SEQ0, T0 + 2 * FLOOR, &out);
	assert_int_equal(out.lost, 1);				/* SEQ0 alone */
	assert_int_equal(out.lost_bytes, 100);
	assert_int_equal(t.rtx.pkts, 1);
	assert_int_equal(t.rtx.head->seq, SEQ0);
	assert_int_equal(t.infl.n, 1);
	assert_non_null(eqt_infl_get(&t.infl, SEQ0 + 1));
	done(&t);
}

/* ACKs that were only late come before the probe's: they take the rest
 * out of flight (and time it: sent once), and the probe's ACK finds
 * nothing lost.  Only the probe went twice. */
static void probe__late_acks_first_nothing_lost(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;
	struct eqt_hdr h;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	for (int i = 0; i < 3; i++)
		send(&t, 100, T0);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + FLOOR), 100);
	take(&t, OTHER, &h, T0 + FLOOR + 1);
	ack(&t, SEQ0, SEQ0, T0 + 2 * FLOOR, &out);
	assert_int_equal(out.rtt_ns, 2 * FLOOR);
	assert_int_equal(out.lost, 0);
	ack(&t, SEQ0 + 1, SEQ0, T0 + 2 * FLOOR, &out);
	assert_int_equal(out.lost, 0);
	assert_true(t.probing);
	ack(&t, SEQ0 + 2, SEQ0, T0 + 2 * FLOOR + 1, &out);	/* the probe's (or its original's) */
	assert_int_equal(out.lost, 0);
	assert_false(t.probing);
	assert_int_equal(t.infl.n, 0);
	assert_int_equal(t.rtx.pkts, 0);
	assert_int_equal(t.st.rto_fired, 1);
	done(&t);
}

/* A cumulative ack past the probe answers it too, and an RST ends it. */
static void probe__a_cumulative_ack_or_an_rst_ends_it(void **state)
{
	struct eqt_tx t;
	struct eqt_tx_acked out;
	struct eqt_hdr h;

	assert_int_equal(eqt_tx_init(&t, 16, SEQ0), 0);
	send(&t, 100, T0);
	send(&t, 100, T0);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + FLOOR), 100);
	take(&t, OTHER, &h, T0 + FLOOR + 1);
	eqt_tx_cum(&t, SEQ0 + 2, &pool, T0 + 2 * FLOOR, &out);
	assert_false(t.probing);
	assert_int_equal(out.lost, 0);
	assert_int_equal(t.infl.n, 0);
	send(&t, 100, T0 + 3 * FLOOR);
	send(&t, 100, T0 + 3 * FLOOR);
	assert_int_equal(eqt_tx_probe(&t, FLOOR, T0 + 6 * FLOOR), 100);
	assert_true(t.probing);
	assert_true(eqt_tx_reset(&t, 0));
	assert_false(t.probing);
	done(&t);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(take__the_first_packet_opens_an_epoch_at_seq0),
		T(take__seqs_count_up_and_the_timer_arms_once),
		T(take__syn_until_an_ack_answers),
		T(take__syn_until_a_nack_answers),
		T(nack__a_resend_goes_first_and_keeps_its_seq),
		T(ack__one_seq_selectively_with_an_rtt_sample),
		T(ack__cumulative_takes_everything_before_cum),
		T(ack__only_the_named_seq_is_a_sample),
		T(ack__a_resend_gives_no_rtt_sample),
		T(ack__a_repeat_changes_nothing),
		T(sample__a_schemes_own_moves_srtt_and_the_lowest),
		T(check__acks_beyond_what_was_sent_are_bad),
		T(check__an_ack_below_the_epoch_is_old),
		T(check__an_rst_must_echo_a_seq_of_the_epoch),
		T(check__with_no_epoch_everything_is_old),
		T(timeout__nothing_before_rto_at_then_the_resend_queue),
		T(timeout__due_for_the_oldest_then_the_newest_goes_again),
		T(timeout__rearms_for_the_oldest_when_it_is_not_due),
		T(probe__only_the_newest_goes_again),
		T(probe__its_ack_finds_the_older_ones_lost),
		T(probe__late_acks_first_nothing_lost),
		T(probe__a_resend_after_it_stays_in_flight),
		T(probe__a_cumulative_ack_or_an_rst_ends_it),
		T(reset__requeues_what_was_left_in_an_epoch_past_the_floor),
		T(reset__resends_keep_the_order_of_their_seqs),
		T(reset__late_rsts_of_the_ended_epoch_are_old),
		T(reset__with_nothing_left_closes_the_tunnel),
		T(syn_room__no_new_packet_past_the_syn_window),
		T(fini__frees_queued_in_flight_and_resends),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
