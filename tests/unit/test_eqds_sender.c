// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/eqds/sender.c through the module's interface, one
 * sender with a mocked clock and recording I/O, the receiver played by the
 * test: the retransmission timeout.  It sends the newest packet in flight
 * again, as a probe, ahead of new data but only on new credit, after an
 * RTS: a packet that was only late must not be sent twice on one pull
 * (docs/eqds.md, "Sending"), and the rest stays in flight.
 * The RTO adapts to how late ACKs come, never below rto_us.  A window
 * shrunk by packets that asked for no pulls grows back to the BDP once
 * the receiver says it is idle (trimming mode), not while it is busy.  And the
 * counters: a peer's survive its tunnels (idle, flushed).  The wire
 * arbiter's DRR shares the link between the classes whatever the quantum;
 * the in-flight ring holds whatever is in flight (a BDP of more than 4096
 * packets, a resend far behind the rest); a new epoch starts past every
 * seq of the last, however long it lived.  A NACK of a packet lost on the
 * way (EQ_F_LOST) resends it at once on its own credit; a NACK of a
 * trimmed one waits for the receiver's pulls.
 */
#include "testlib.h"
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "eqds.h"
#include "eqds_int.h"

#define MTU	1500
#define BDP	(8 * MTU)
#define RTO_NS	10000000ULL
#define PEER	0

#define REC_MAX	16384

struct rec {
	uint32_t	data_seq[REC_MAX];
	uint8_t		data_cls[REC_MAX];
	uint16_t	data_len[REC_MAX];
	unsigned	n_data, rts;
	uint32_t	rts_target;	/* the last RTS's pull target */
	uint32_t	rts_aux;	/* ... and its limit (0: none) */
	uint32_t	rts_seq;	/* ... and its seq */
	uint32_t	rts_ts;		/* ... and its TSTAMP (0: none) */
	uint32_t	data_target;	/* the last DATA's pull target */
};

static void rec_send_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	struct rec *r = ctx;

	assert_true(r->n_data < REC_MAX);
	r->data_cls[r->n_data] = p->cls;
	r->data_len[r->n_data] = p->len;
	r->data_seq[r->n_data++] = h->seq_ack;
	r->data_target = h->pull;
}

static void rec_send_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	struct rec *r = ctx;

	if (h->type == EQ_T_RTS) {
		r->rts++;
		r->rts_target = h->pull;
		r->rts_aux = h->aux;
		r->rts_seq = h->seq_ack;
		r->rts_ts = h->opts & EQT_OPT(EQ_OPT_TSTAMP) ? h->ts : 0;
	}
}

static void rec_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	fail_msg("a sender-only test delivered a packet");
}

struct fx {
	struct rec	rec;
	struct eqt_pool	pool;
	struct eqds	*e;
	uint64_t	now;
};

static const struct eqds_cfg cfg0 = {
	.link_bps = 1000000000ULL, .mtu = MTU, .framing = EQ_ETH_FRAMING, .bdp_bytes = BDP,
	.edge_limit = 100, .edge_ecn = 30, .reorder_limit = 128,
	.reorder_ns = 12000000, .rto_ns = RTO_NS, .drr_quantum = 3000,
	.policy = EQDS_ASL_FIFO, .idle_ns = 10000000000ULL,
};

static struct fx *fx_new_cfg(const struct eqds_cfg *cfg, uint32_t pool_pkts)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct eqt_io io = { &f->rec, rec_send_data, rec_send_ctl, rec_deliver, NULL };

	assert_non_null(f);
	assert_int_equal(eqt_pool_init(&f->pool, pool_pkts), 0);
	f->e = eqds_new(cfg, &io, &f->pool, 0, 42);
	assert_non_null(f->e);
	return f;
}

static struct fx *fx_new(void)
{
	return fx_new_cfg(&cfg0, 1024);
}

static void fx_free(struct fx *f)
{
	eqds_free(f->e);
	eqt_pool_fini(&f->pool);
	free(f);
}

static void local_cls(struct fx *f, unsigned n, uint8_t cls)
{
	for (unsigned i = 0; i < n; i++) {
		struct eqt_pkt *p = eqt_pkt_get(&f->pool);

		assert_non_null(p);
		memset(p->data, 0, 64);
		p->len = MTU;
		p->l3_off = 0;
		p->cls = cls;
		assert_int_equal(eqds_local(f->e, PEER, p, f->now), 0);
	}
}

static void local(struct fx *f, unsigned n)
{
	local_cls(f, n, EQT_CLS_OTHER);
}

/* Time passes in 10 us steps (the pacer sends a few packets per step). */
static void run_until(struct fx *f, uint64_t t)
{
	while (f->now < t) {
		eqds_run(f->e, f->now);
		f->now += 10000;
	}
	eqds_run(f->e, f->now);
}

/* The receiver's PULL number `pull`, acknowledging nothing below `ack`. */
static void pull(struct fx *f, uint32_t pull_no, uint32_t ack)
{
	struct eqt_hdr h = { .type = EQ_T_PULL, .seq_ack = ack, .pull = pull_no };

	eqds_wire(f->e, PEER, &h, NULL, f->now);
}

static void rto__retransmits_only_on_new_credit(void **state)
{
	struct fx *f = fx_new();
	struct eqds_peer_stats st;
	uint32_t isn;
	unsigned sent;

	/* Trimming mode: the first BDP goes unscheduled. */
	local(f, 12);
	run_until(f, 1000000);
	assert_int_equal(f->rec.n_data, BDP / MTU);
	isn = f->rec.data_seq[0];
	/* The receiver's first pull (number 100) grants one MTU: one more
	 * packet; nothing is acknowledged. */
	pull(f, 100, isn);
	run_until(f, 2000000);
	assert_int_equal(f->rec.n_data, BDP / MTU + 1);
	sent = f->rec.n_data;

	/* No ACK for an RTO, but the receiver is alive: it repeats its
	 * last PULL (no new credit) every 2 ms.  The RTO fires once: the
	 * newest packet goes again as a probe, the rest stay in flight. */
	while (f->now < 2000000 + RTO_NS + 1000000) {
		run_until(f, f->now + 2000000);
		pull(f, 100, isn);
	}
	run_until(f, f->now + 10000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 1);
	assert_int_equal(st.inflight_bytes, (uint64_t)BDP);	/* the other 8 */
	assert_int_equal(f->rec.n_data, sent);	/* no credit: nothing resent yet */
	assert_true(f->rec.rts >= 1);		/* the receiver is asked to pull */
	assert_true(st.credit <= 0);

	/* A new pull pays for the probe, the newest seq; the next one for
	 * new data: nothing else goes again. */
	pull(f, 101, isn);
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.n_data, sent + 1);
	assert_int_equal(f->rec.data_seq[sent], isn + BDP / MTU);
	pull(f, 102, isn);
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.n_data, sent + 2);
	assert_int_equal(f->rec.data_seq[sent + 1], isn + BDP / MTU + 1);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.tx_rtx, 1);
	fx_free(f);
}

static void ack(struct fx *f, uint32_t seq, uint32_t pull_no)
{
	struct eqt_hdr h = { .type = EQ_T_ACK, .seq_ack = seq, .pull = pull_no };

	eqds_wire(f->e, PEER, &h, NULL, f->now);
}

/* The receiver's control packet `type`, saying its link stays busy for
 * `busy_ns` (the aux field of ACKs and PULLs). */
static void ctl_busy(struct fx *f, uint8_t type, uint32_t seq, uint32_t pull_no, uint32_t busy_ns)
{
	struct eqt_hdr h = { .type = type, .seq_ack = seq, .pull = pull_no, .aux = busy_ns };

	eqds_wire(f->e, PEER, &h, NULL, f->now);
}

/* A window of 15 of its 20 packets, which the receiver's pulls, one per
 * packet that arrives, keep at 15: the tunnel (BDP 20) sends 15 packets
 * one at a time, each alone in its queue (a TCP flow's packets, sent as
 * they come, ask for no pulls: their tokens die at the receiver), the
 * first of them staying in flight; a backlog of 90 arrives and the 5
 * packets of credit left go, again asking for nothing; the receiver is
 * busy, so an RTS asks for the room (15), and from then on each round
 * trip (1 ms) the receiver ACKs and pulls once for each packet of the
 * last round.  Every ACK and PULL says the receiver's link is busy for
 * 50 ms, until round `busy_rounds`; after that it is idle.  Returns the
 * packets sent in round `rounds`. */
static unsigned window_after_rounds(unsigned busy_rounds, unsigned rounds)
{
	struct eqds_cfg c = cfg0;
	struct fx *f;
	uint32_t pull_no = 100, first, busy = 50000000;
	unsigned from = 15, to, last = 0, rts_seen;

	c.bdp_bytes = 20 * MTU;
	f = fx_new_cfg(&c, 1024);
	local(f, 1);
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.n_data, 1);
	first = f->rec.data_seq[0];
	ctl_busy(f, EQ_T_ACK, first - 1, pull_no, busy);	/* the pull numbering */
	for (unsigned i = 1; i < 15; i++) {
		local(f, 1);
		run_until(f, f->now + 100000);
		assert_int_equal(f->rec.n_data, i + 1);
		ctl_busy(f, EQ_T_ACK, f->rec.data_seq[i], pull_no, busy);
	}
	rts_seen = f->rec.rts;
	local(f, 90);
	for (unsigned r = 1; r <= rounds; r++) {
		run_until(f, f->now + 1000000);
		to = f->rec.n_data;
		last = to - from;
		if (r > busy_rounds)
			busy = 0;
		if (r == 1)
			ctl_busy(f, EQ_T_ACK, first, pull_no, busy);
		for (unsigned k = from; k < to; k++) {
			ctl_busy(f, EQ_T_ACK, f->rec.data_seq[k], pull_no, busy);
			ctl_busy(f, EQ_T_PULL, first, ++pull_no, busy);
		}
		if (f->rec.rts != rts_seen) {
			/* An RTS's pulls, at once: up to its target, and to
			 * its limit if it gives one (everything it sent has
			 * arrived: receiver.c). */
			uint32_t upto = f->rec.rts_target;

			if (f->rec.rts_aux && (int32_t)(f->rec.rts_aux - upto) < 0)
				upto = f->rec.rts_aux;
			if ((int32_t)(upto - pull_no) > 0) {
				pull_no = upto;
				ctl_busy(f, EQ_T_PULL, first, pull_no, busy);
			}
		}
		rts_seen = f->rec.rts;
		from = to;
	}
	fx_free(f);
	return last;
}

/* Trimming mode: the window grows back to the BDP once the receiver says
 * it is not busy (a restart as from idle: one BDP less what is in
 * flight).  While it is busy (other senders' pulls queued) the window
 * stays as it is: those pulls are the fair share. */
static void credit__a_shrunk_window_grows_back_when_the_receiver_is_idle(void **state)
{
	unsigned busy = window_after_rounds(6, 6), idle = window_after_rounds(3, 6);

	print_message("# packets per round trip, BDP 20: receiver busy %u, idle %u\n", busy, idle);
	assert_int_equal(busy, 15);
	assert_true(idle >= 19);
}

/* One packet out, its ACK (and a PULL paying for the next) `delay` later. */
static void exchange(struct fx *f, uint32_t *pull_no, uint64_t delay)
{
	unsigned before = f->rec.n_data;

	local(f, 1);
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.n_data, before + 1);
	run_until(f, f->now + delay);
	ack(f, f->rec.data_seq[f->rec.n_data - 1], *pull_no);
	pull(f, ++*pull_no, f->rec.data_seq[0]);
	run_until(f, f->now + 10000);
}

/* bdp_auto: the BDP follows the RTT samples up and down.  What it grows
 * by beyond the largest it has been is credited once (the loop would
 * otherwise keep the floor's BDP); growing back after a dip is not: it
 * was credited each time, nothing took it back when no pulls came, and a
 * tunnel whose RTT swung held 436 MB of credit at a BDP of 4 MB.  Credit
 * never exceeds the largest BDP the tunnel had and an MTU. */
static void credit__bdp_growth_credited_once(void **state)
{
	struct eqds_cfg c = cfg0;
	struct eqds_peer_stats st;
	uint32_t pull_no = 100;
	int64_t most = -1000000000;
	uint32_t bdp_hi = 0;
	struct fx *f;

	c.bdp_auto = true;
	f = fx_new_cfg(&c, 1024);
	for (int k = 0; k < 60; k++) {
		/* One packet, ACKed 3 ms or 0.2 ms later; no pull (a tunnel
		 * that restarts from idle each time, as one carrying TCP ACKs
		 * does: nothing caps its credit but this rule). */
		local(f, 1);
		run_until(f, f->now + 100000);
		run_until(f, f->now + (k % 6 < 3 ? 3000000 : 200000));
		ack(f, f->rec.data_seq[f->rec.n_data - 1], pull_no);
		run_until(f, f->now + 10000);
		eqds_peer_stats(f->e, PEER, &st);
		if (st.bdp > bdp_hi)
			bdp_hi = st.bdp;
		if (st.credit - (int64_t)bdp_hi > most)
			most = st.credit - (int64_t)bdp_hi;
	}
	print_message("# credit above the largest BDP at most: %lld bytes (largest %u, now %u)\n",
		      (long long)most, bdp_hi, st.bdp);
	assert_true(st.bdp > BDP);	/* it did follow the RTT */
	assert_true(most <= MTU);
	fx_free(f);
}

/* ACKs that come later than rto_us (a busy host's agent) raise the RTO
 * instead of sending every packet twice; fast ACKs bring it back down to
 * rto_us, never below. */
static void rto__adapts_to_ack_delays(void **state)
{
	struct fx *f = fx_new();
	struct eqds_peer_stats st;
	uint32_t pull_no = 100;
	uint64_t t0;

	/* The first ACK comes after 15 ms: the RTO (10 ms) finds the
	 * receiver quiet and asks it, with an RTS; the ACK comes before the
	 * RTO after, and nothing is sent again. */
	unsigned rts = f->rec.rts;

	exchange(f, &pull_no, 15000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 0);
	assert_int_equal(f->rec.rts, rts + 1);
	/* Learnt from that ACK: no more asking at that delay. */
	rts = f->rec.rts;
	for (int k = 0; k < 10; k++)
		exchange(f, &pull_no, 15000000);
	for (int k = 0; k < 40; k++)
		exchange(f, &pull_no, 1000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 0);
	assert_int_equal(f->rec.rts, rts);
	/* Now a packet that is never ACKed times out after rto_us again:
	 * the receiver answers the RTS sent after the first quiet RTO, so
	 * that the second finds it alive and resends. */
	local(f, 1);
	t0 = f->now;
	while (f->rec.rts == rts && f->now < t0 + 100000000)
		run_until(f, f->now + 100000);
	assert_true(f->now - t0 >= RTO_NS);
	assert_true(f->now - t0 <= RTO_NS + 1000000);
	run_until(f, f->now + 1000000);			/* its answer, an RTT on */
	ack(f, f->rec.data_seq[0] - 1, pull_no);	/* nothing new: alive */
	while (st.rto_fired == 0 && f->now < t0 + 100000000) {
		run_until(f, f->now + 100000);
		eqds_peer_stats(f->e, PEER, &st);
	}
	assert_int_equal(st.rto_fired, 1);
	assert_int_equal(st.peer_silent, 0);
	assert_true(f->now - t0 >= 2 * RTO_NS);
	assert_true(f->now - t0 <= 2 * RTO_NS + 1000000);
	fx_free(f);
}

/* A probe lost again times out again, backed off, and the RTO still sees
 * the oldest packet, whose seq lies below everything resent since (it
 * once did not, and the tunnel stalled): once the probe came through and
 * only the oldest is left, the oldest is the probe. */
static void rto__a_lost_retransmission_times_out_again(void **state)
{
	struct fx *f = fx_new();
	struct eqds_peer_stats st;
	uint64_t t1;
	uint32_t isn, n;

	local(f, 2);
	run_until(f, 1000000);
	assert_int_equal(f->rec.n_data, 2);
	isn = f->rec.data_seq[0];
	/* The receiver is alive (it repeats its PULL 100, acknowledging
	 * nothing, every 2 ms) but gets neither packet: the RTO sends the
	 * newest again, as a probe, on the next pull. */
	while (f->now < RTO_NS + 2000000) {
		run_until(f, f->now + 2000000);
		pull(f, 100, isn);
	}
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 1);
	pull(f, 101, isn);
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.n_data, 3);
	assert_int_equal(f->rec.data_seq[2], isn + 1);
	/* The probe is lost too: the next RTO comes twice as late, 2 RTOs
	 * after the first (which queued the probe at RTO_NS). */
	t1 = RTO_NS + 2 * RTO_NS;
	while (f->now < t1 - 1000000) {
		run_until(f, f->now + 1000000);
		pull(f, 101, isn);
	}
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 1);
	while (f->now < t1 + 2000000) {
		run_until(f, f->now + 1000000);
		pull(f, 101, isn);
	}
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 2);
	pull(f, 102, isn);
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.data_seq[f->rec.n_data - 1], isn + 1);
	/* It arrives, and its ACK finds the first still missing: that one
	 * was lost (it went before the probe), and goes again at once on the
	 * credit in hand, without waiting for another RTO (the receiver's
	 * NACK of it may be lost, or its loss window off). */
	n = f->rec.n_data;
	ack(f, isn + 1, 102);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 3);
	assert_int_equal(f->rec.n_data, n + 1);
	assert_int_equal(f->rec.data_seq[n], isn);
	assert_int_equal(st.inflight_bytes, MTU);	/* that one alone */
	fx_free(f);
}

/* A receiver that says nothing at all for an RTO, nor answers the RTS
 * that asks it then, for another, has no agent, or one starved of CPU
 * (its XDP delivers our DATA itself): what is in flight counts as
 * delivered, not sent again (the receiver would get it twice),
 * and until the receiver speaks again the tunnel waits for no credit
 * and holds nothing in flight (nothing would ACK it).  Waiting for
 * credit let one BDP through per RTO, the RTO doubling: a 2 s outage of
 * the receiving agent took a transfer to nothing.  While data waits,
 * RTSs ask at the floor RTO, so that a restarted agent is heard from at
 * once. */
static void rto__silent_receiver_does_not_stop_the_tunnel(void **state)
{
	struct fx *f = fx_new();
	struct eqds_peer_stats st;
	uint32_t isn;

	local(f, BDP / MTU);
	run_until(f, 1000000);
	assert_int_equal(f->rec.n_data, BDP / MTU);
	isn = f->rec.data_seq[0];
	/* The first quiet RTO only asks (an RTS) and holds on... */
	unsigned rts = f->rec.rts;

	run_until(f, RTO_NS + 2000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(f->rec.rts, rts + 1);
	assert_int_equal(st.rto_fired, 0);
	assert_int_equal(st.peer_silent, 0);
	assert_int_equal(st.inflight_bytes, BDP);
	/* ... the second, the RTS unanswered, takes the receiver for silent. */
	run_until(f, 2 * RTO_NS + 2000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, BDP / MTU);
	assert_int_equal(st.tx_rtx, 0);				/* nothing again */
	assert_int_equal(st.inflight_bytes, 0);
	assert_int_equal(st.peer_silent, 1);
	/* Three BDPs at once, none of it held in flight. */
	local(f, 3 * BDP / MTU);
	run_until(f, f->now + 1000000);	/* paced at the link rate */
	assert_int_equal(f->rec.n_data, 4 * BDP / MTU);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.tx_rtx, 0);
	assert_int_equal(st.inflight_bytes, 0);
	assert_int_equal(st.peer_silent, 1);			/* one spell */
	/* The receiver speaks: it holds packets and waits for credit again. */
	pull(f, 100, isn + 4 * BDP / MTU);
	local(f, 3 * BDP / MTU);
	run_until(f, f->now + 1000000);	/* paced at the link rate */
	assert_true(f->rec.n_data < 7 * BDP / MTU);	/* on the pulls it grants */
	eqds_peer_stats(f->e, PEER, &st);
	assert_true(st.inflight_bytes > 0);
	fx_free(f);
}

/* Silent, the tunnel goes on at the rate the receiver's pulls came at
 * before (its share of the receiver's link), not at its own link rate:
 * a pull a millisecond, then silence, and a packet a millisecond after
 * it.  At a BDP whenever credit ran out, it sent its whole queue, as
 * every sender of an incast did when the receiving agent was starved. */
static void silent__goes_on_at_the_rate_its_pulls_came(void **state)
{
	struct fx *f = fx_new();
	struct eqds_peer_stats st;
	uint32_t isn, pn = 1000, n1, sent;

	local(f, 200);
	run_until(f, 100000);
	isn = f->rec.data_seq[0];
	/* 12 Mbit/s of pulls for 30 ms, from a receiver busy with others'
	 * (else the tunnel restarts with a BDP whenever it is short) */
	for (int i = 0; i < 30; i++) {
		ctl_busy(f, EQ_T_PULL, isn + f->rec.n_data, pn++, 3000000);
		run_until(f, f->now + 1000000);
	}
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.peer_silent, 0);
	assert_true(f->rec.n_data < 50);
	run_until(f, f->now + 3 * RTO_NS + 5000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.peer_silent, 1);
	n1 = f->rec.n_data;
	run_until(f, f->now + 20000000);
	sent = f->rec.n_data - n1;
	print_message("# silent for 20 ms after pulls at a packet a millisecond: %u packets sent\n", sent);
	assert_in_range(sent, 15, 25);
	fx_free(f);
}

/* A receiver that is quiet when nothing of ours is in flight (RTS mode
 * before its first pull, or every packet ACKed with data still waiting):
 * no RTO fires to find it silent, so the RTSs that ask it to pull find it
 * so, one unanswered for an RTO after a quiet one, and the queue goes
 * without credit.  Before, the RTSs went on asking and the tunnel sent
 * nothing for as long as the receiving agent was down. */
static void rts__an_unanswered_rts_with_nothing_in_flight_finds_the_receiver_silent(void **state)
{
	struct eqds_cfg c = cfg0;
	struct fx *f;
	struct eqds_peer_stats st;

	c.rts = true;
	f = fx_new_cfg(&c, 1024);
	local(f, 2 * BDP / MTU);
	/* One RTO: RTSs ask; nothing sent, not silent. */
	run_until(f, RTO_NS + 1000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_true(f->rec.rts > 0);
	assert_int_equal(f->rec.n_data, 0);
	assert_int_equal(st.inflight_bytes, 0);
	assert_int_equal(st.peer_silent, 0);
	/* Unanswered for another: silent, and the queue goes. */
	run_until(f, 3 * RTO_NS + 1000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.peer_silent, 1);
	assert_int_equal(f->rec.n_data, 2 * BDP / MTU);
	fx_free(f);
}

/* What went as delivered while the receiver was silent may not all have
 * arrived: a receiver back with its state, acknowledging a seq below what
 * was sent, waits at a hole nothing will fill (it counts what lies
 * between as in flight and grants nothing for it).  Its first cumulative
 * word moves the tunnel to a new epoch starting where the receiver takes
 * one: at once with a backlog, which goes on in it; with none, from the
 * next packet.  Without that, the soak's tunnel sent RTS after RTS for
 * 200 s with 124 bytes of credit. */
static void silent_then_hole(bool backlog)
{
	struct eqds_cfg c = cfg0;
	struct fx *f;
	struct eqds_peer_stats st;
	uint32_t isn, hole, want;
	unsigned sent, rts;

	c.rts = true;
	f = fx_new_cfg(&c, 1024);
	local(f, 2 * BDP / MTU);
	run_until(f, 3 * RTO_NS + 1000000);	/* silent: the queue went as delivered */
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.peer_silent, 1);
	isn = f->rec.data_seq[0];
	hole = isn + 3;				/* three arrived, the fourth not */
	want = ((hole >> EQT_EPOCH_SHIFT) + EQT_EPOCH_GAP) << EQT_EPOCH_SHIFT;	/* eqt_epoch_after(hole) */
	if (backlog)
		local(f, 60);			/* more than the pacer's bucket: a queue */
	sent = f->rec.n_data;
	ctl_busy(f, EQ_T_ACK, hole, 0, 0);	/* a bare ACK is not the word */
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.tx_epoch, isn);
	assert_int_equal(st.silent_skips, 0);
	{
		struct eqt_hdr h = { .type = EQ_T_ACK, .flags = EQ_F_CUM, .seq_ack = hole, .pull = 0 };

		eqds_wire(f->e, PEER, &h, NULL, f->now);
	}
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.silent_skips, 1);
	if (backlog) {
		assert_true(st.backlog_pkts > 0);
		assert_int_equal(st.tx_state, EQDS_TX_SYN_SENT);
		assert_int_equal(st.tx_epoch, want);
	} else {
		assert_int_equal(st.tx_state, EQDS_TX_CLOSED);
		local(f, 2);
	}
	/* RTS mode: it asks, in the new epoch, for what waits. */
	rts = f->rec.rts;
	run_until(f, f->now + RTO_NS);
	assert_true(f->rec.rts > rts);
	assert_int_equal(f->rec.rts_seq, want);
	assert_true(after(want, isn + sent));	/* past every seq used */
	fx_free(f);
}

static void silent__a_receiver_waiting_at_a_hole_gets_a_new_epoch(void **state)
{
	silent_then_hole(true);
	silent_then_hole(false);
}

/* Once everything that went while it was silent is acknowledged, nothing
 * changes: the same epoch goes on. */
static void silent__all_delivered_keeps_the_epoch(void **state)
{
	struct eqds_cfg c = cfg0;
	struct fx *f;
	struct eqds_peer_stats st;
	uint32_t isn;

	c.rts = true;
	f = fx_new_cfg(&c, 1024);
	local(f, 2 * BDP / MTU);
	run_until(f, 3 * RTO_NS + 1000000);
	isn = f->rec.data_seq[0];
	{
		struct eqt_hdr h = { .type = EQ_T_ACK, .flags = EQ_F_CUM,
				     .seq_ack = isn + f->rec.n_data, .pull = 0 };

		eqds_wire(f->e, PEER, &h, NULL, f->now);
	}
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.silent_skips, 0);
	assert_int_equal(st.tx_epoch, isn);
	assert_int_equal(st.tx_state, EQDS_TX_ESTABLISHED);
	fx_free(f);
}

static uint64_t stats_silent(struct fx *f)
{
	struct eqds_peer_stats st;

	eqds_peer_stats(f->e, PEER, &st);
	return st.peer_silent;
}

/* A receiver that said, when it last spoke, that it has 50 ms of pulls
 * to grant others is not taken for silent before those 50 ms and two
 * RTOs have passed (an RTO's probe goes on its pulls meanwhile); past them, as any quiet receiver: asked
 * with an RTS, then taken for silent.  Counted from its last word, it
 * was silent 20 ms after it. */
static void rto__waits_for_a_busy_receiver(void **state)
{
	struct fx *f = fx_new();
	struct eqds_peer_stats st;
	uint64_t busy = 5 * RTO_NS, t0;
	unsigned rts;
	uint32_t isn;

	local(f, BDP / MTU);
	run_until(f, 1000000);
	isn = f->rec.data_seq[0];
	ctl_busy(f, EQ_T_PULL, isn, 100, (uint32_t)busy);	/* one pull, 50 ms busy */
	t0 = f->now;
	run_until(f, t0 + busy);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.peer_silent, 0);
	assert_true(st.inflight_bytes > 0);		/* waiting for its ACKs */
	rts = f->rec.rts;
	/* The RTO that probed backed off once (20 ms): quiet past the
	 * busy time by that, it asks; unanswered one more on, silent. */
	run_until(f, t0 + busy + 2 * RTO_NS + 2000000);
	assert_true(f->rec.rts > rts);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.peer_silent, 0);
	run_until(f, t0 + busy + 4 * RTO_NS + 4000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.peer_silent, 1);
	fx_free(f);
}

/* ... but no more than RTO_MAX_NS (1 s) of what it says is believed: a
 * receiver that said 4 s (the field holds 4.29) and died is taken for
 * silent within a second and a few RTOs, not after 4 s. */
static void rto__believes_a_busy_time_up_to_a_second(void **state)
{
	struct fx *f = fx_new();
	uint32_t isn;
	uint64_t t0;

	local(f, BDP / MTU);
	run_until(f, 1000000);
	isn = f->rec.data_seq[0];
	ctl_busy(f, EQ_T_PULL, isn, 100, 4000000000u);
	t0 = f->now;
	run_until(f, t0 + 1000000000ULL);
	assert_int_equal(stats_silent(f), 0);
	run_until(f, t0 + 2000000000ULL);
	assert_int_equal(stats_silent(f), 1);
	fx_free(f);
}

/* Freeing an idle tunnel (or a flush) must not reset the peer's counters:
 * `bpftool map dump` readers see them only grow. */
static void counters__survive_the_tunnel(void **state)
{
	struct fx *f = fx_new();
	struct eqds_peer_stats st;
	uint32_t isn;

	local(f, 4);
	run_until(f, 1000000);
	assert_int_equal(f->rec.n_data, 4);
	isn = f->rec.data_seq[0];
	pull(f, 100, isn + 4);		/* acknowledges all four */
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.inflight_bytes, 0);
	assert_int_equal(st.tx_state, EQDS_TX_ESTABLISHED);
	run_until(f, f->now + 10000000000ULL + 1000000);	/* idle_ns: freed */
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.tx_state, EQDS_TX_CLOSED);
	assert_int_equal(st.tx_data, 4);
	eqds_flush(f->e, PEER, f->now);
	local(f, 2);				/* a new epoch adds to them */
	run_until(f, f->now + 1000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.tx_data, 6);
	fx_free(f);
}

/* The arbiter visits peers through live_next(): from any start it must
 * find the next set bit, wrapping, against a plain scan; for a table of
 * 1024 slots and for sizes max_peers may give that are not whole words. */
static void live_next__matches_a_scan(void **state)
{
	static const uint32_t sizes[] = { EQDS_MAX_PEERS, 16, 100, 1000, 16385 };
	uint64_t a[16385 / 64 + 1], b[16385 / 64 + 1];
	struct eqds e = {};

	rng_state = 3;
	for (int round = 0; round < 200; round++) {
		uint32_t density = 1 + rnd32() % 200, n = sizes[round % 5];

		e.npeers = n;
		e.live_words = (n + 63) / 64;
		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		for (uint32_t i = 0; i < n; i++) {
			if (rnd32() % 1000 < density)
				live_set(a, i);
			if (rnd32() % 1000 < density / 2)
				live_set(b, i);
		}
		if (round % 10 == 0)
			memset(a, 0, sizeof(a));
		for (int k = 0; k < 20; k++) {
			uint32_t from = rnd32() % (n + 70), want = n;
			bool with_b = k % 2;

			for (uint32_t j = 0; j < n; j++) {
				uint32_t i = (from % n + j) % n;

				if ((a[i / 64] | (with_b ? b[i / 64] : 0)) >> (i % 64) & 1) {
					want = i;
					break;
				}
			}
			assert_int_equal(live_next(&e, a, with_b ? b : NULL, from), want);
		}
	}
}

static struct eqds_peer_stats stats(struct fx *f)
{
	struct eqds_peer_stats st;

	eqds_peer_stats(f->e, PEER, &st);
	return st;
}

static void nack(struct fx *f, uint32_t seq, uint32_t pull_no)
{
	struct eqt_hdr h = { .type = EQ_T_NACK, .seq_ack = seq, .pull = pull_no };

	eqds_wire(f->e, PEER, &h, NULL, f->now);
}

/* bdp_auto: the BDP follows the smoothed RTT and its variation; while the
 * path trims, not beyond twice the lowest RTT: round trips that grew are
 * then the switches' queues, and a BDP that followed them filled them
 * further (a 2:1 core's went to the 16 ms cap).  At 1 Gbit/s: round trips
 * of 0.3 ms, then of 10 ms without a trim (followed), with trims (held),
 * and again without for TRIM_MEMORY_RTTS (followed again). */
static void credit__bdp_auto_keeps_to_the_lowest_rtt_while_trimmed(void **state)
{
	struct eqds_cfg c = cfg0;
	uint32_t pull_no = 100, low_srtt, low_bdp, cap, free_bdp, seq;
	struct eqds_peer_stats st;
	struct fx *f;

	c.bdp_auto = true;
	f = fx_new_cfg(&c, 1024);
	for (int k = 0; k < 30; k++)
		exchange(f, &pull_no, 200000);
	eqds_peer_stats(f->e, PEER, &st);
	low_srtt = st.srtt_us;
	low_bdp = st.bdp;
	/* Each sample is the 100 us exchange() waits before the 200 us
	 * delay, and the 10 us after it at most: the lowest is at most 310. */
	cap = (uint32_t)(2 * 310 * (c.link_bps / 8) / 1000000) + MTU;
	for (int k = 0; k < 20; k++)
		exchange(f, &pull_no, 10000000);
	eqds_peer_stats(f->e, PEER, &st);
	free_bdp = st.bdp;
	/* A trim: the packet's NACK (with the pull that pays for its
	 * resend), the resend's ACK (no sample: Karn). */
	local(f, 1);
	run_until(f, f->now + 100000);
	seq = f->rec.data_seq[f->rec.n_data - 1];
	nack(f, seq, ++pull_no);
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.data_seq[f->rec.n_data - 1], seq);	/* it went again */
	ack(f, seq, pull_no);
	for (int k = 0; k < 20; k++)
		exchange(f, &pull_no, 10000000);
	eqds_peer_stats(f->e, PEER, &st);
	print_message("# srtt %u us: BDP %u; 10 ms: %u untrimmed, %u trimmed (at most %u)\n",
		      low_srtt, low_bdp, free_bdp, st.bdp, cap);
	assert_true(low_srtt >= 200 && low_srtt <= 310);
	assert_true(low_bdp > BDP);		/* it followed the RTT up from the floor */
	assert_true(free_bdp > 4 * cap);	/* untrimmed, it follows the RTT */
	assert_true(st.srtt_us > 9000);
	assert_true(st.bdp <= cap);		/* trimmed, it keeps to the lowest */
	/* TRIM_MEMORY_RTTS (64) round trips of 10 ms without a trim. */
	for (int k = 0; k < 70; k++)
		exchange(f, &pull_no, 10000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_true(st.bdp > 4 * cap);
	fx_free(f);
}

/* An RST: the floor of the next epoch, and the seq of ours that drew it. */
static void rst(struct fx *f, uint32_t floor, uint32_t echo)
{
	struct eqt_hdr h = { .type = EQ_T_RST, .seq_ack = floor, .pull = echo };

	eqds_wire(f->e, PEER, &h, NULL, f->now);
}


/* ---- NACKs ---- */

static void nack_lost(struct fx *f, uint32_t seq, uint32_t pull_no)
{
	struct eqt_hdr h = { .type = EQ_T_NACK, .flags = EQ_F_LOST, .seq_ack = seq,
			      .pull = pull_no };

	eqds_wire(f->e, PEER, &h, NULL, f->now);
}

/* A BDP sent unscheduled, no credit left.  A trimmed packet's NACK puts
 * it first in line, for the receiver's pulls to pay (it counted the
 * header); a lost packet's NACK gives its credit back (nobody counted
 * it): a resend goes at once, and the credit in the loop stays a BDP. */
static void nack__a_lost_packet_goes_again_on_its_own_credit(void **state)
{
	struct fx *f = fx_new();
	uint32_t isn, n;

	local(f, 12);
	run_until(f, 1000000);
	assert_int_equal(f->rec.n_data, BDP / MTU);
	isn = f->rec.data_seq[0];
	pull(f, 100, isn);		/* established; one MTU: one packet more */
	run_until(f, f->now + 1000000);
	n = f->rec.n_data;
	assert_int_equal(n, BDP / MTU + 1);
	nack(f, isn + 2, 100);		/* trimmed: waits for a pull */
	run_until(f, f->now + 1000000);
	assert_int_equal(f->rec.n_data, n);
	/* Lost: its credit comes back, and a resend goes now, ahead of new
	 * data (resends keep their order: the trimmed one is first). */
	nack_lost(f, isn + 3, 100);
	run_until(f, f->now + 1000000);
	assert_int_equal(f->rec.n_data, n + 1);
	assert_int_equal(f->rec.data_seq[n], isn + 2);
	assert_int_equal(stats(f).credit, 0);
	pull(f, 101, isn + 1);		/* the pull for the trimmed header */
	run_until(f, f->now + 1000000);
	assert_int_equal(f->rec.n_data, n + 2);
	assert_int_equal(f->rec.data_seq[n + 1], isn + 3);
	assert_int_equal(stats(f).tx_rtx, 2);
	assert_int_equal(stats(f).rx_nacks, 2);
	fx_free(f);
}

/* RTS mode: a tunnel's pull target runs ahead of its queue by what it
 * sent in the last round trip, so that the receiver keeps pulling, one
 * pull per packet that arrives, while the flow feeds the tunnel in bursts
 * (a TCP flow between its ACKs): a target that covered the queue alone
 * let the tokens die whenever the queue ran empty, and the next burst
 * waited a round trip for its RTS (a lone flow at 150 Mbit/s over 1 ms
 * links took 245 ms for 2 MB, cubic 137).  Nothing runs ahead while the
 * receiver says its link is busy for longer than a round trip (its pulls
 * are spoken for), nor after a round trip without a send.  An RTS gives
 * the sender's limit once the receiver has answered. */
static void pull_target__rts_mode_runs_ahead_by_a_round_trip(void **state)
{
	struct eqds_cfg cfg = cfg0;
	struct fx *f;
	uint32_t isn;

	cfg.rts = true;
	f = fx_new_cfg(&cfg, 1024);
	local(f, 3);
	run_until(f, f->now + 10000);
	assert_int_equal(f->rec.rts, 1);
	assert_int_equal(f->rec.rts_target, 3);		/* relative: no answer yet */
	assert_int_equal(f->rec.rts_aux, 0);		/* so no limit */
	isn = stats(f).tx_epoch;
	ack(f, isn - 1, 0);				/* the answer: pull number 0 */
	pull(f, 3, isn - 1);
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.n_data, 3);
	/* The last of the three: nothing queued behind it, 2 sent before
	 * it in this round trip (the RTO's floor before any RTT sample). */
	assert_int_equal(f->rec.data_target, 3 + 2);
	/* Busy for 50 ms: nothing ahead. */
	ctl_busy(f, EQ_T_ACK, isn, 3, 50000000);
	local(f, 1);
	ctl_busy(f, EQ_T_PULL, isn, 4, 50000000);
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.n_data, 4);
	assert_int_equal(f->rec.data_target, 4);
	/* Everything acknowledged, then idle past the busy time: nothing
	 * ahead. */
	pull(f, 4, isn + 4);
	f->now += 60000000;
	local(f, 1);
	run_until(f, f->now + 10000);
	assert_int_equal(f->rec.rts, 2);
	/* Its limit: the highest pull and 1 BDP + 1 MTU, nothing held. */
	assert_int_equal(f->rec.rts_aux, 4 + BDP / MTU + 1);
	pull(f, 5, isn + 4);
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.n_data, 5);
	assert_int_equal(f->rec.data_target, 5);
	fx_free(f);
}

/* RTS mode, a fixed BDP (8 MTUs): a queue waiting for credit, with the
 * loop short of 1 BDP + 1 MTU by the sender's count, asks once a round
 * trip (the smoothed RTT), not more often; and not at all while the
 * receiver says its link is busy beyond a round trip.
 * Pulls come one per packet that arrives, so only an RTS grows a loop;
 * before this only a rise of the BDP sent one, and with a fixed BDP a
 * loop that started with 2 packets kept 2. */
static void rts_regrow__a_round_trip_after_a_pull_backing_off_without_not_when_busy(void **state)
{
	struct eqds_cfg cfg = cfg0;
	struct fx *f;
	uint32_t isn;
	unsigned rts;

	cfg.rts = true;
	f = fx_new_cfg(&cfg, 1024);
	local(f, 2);
	run_until(f, f->now + 10000);
	isn = stats(f).tx_epoch;
	ack(f, isn - 1, 0);
	pull(f, 2, isn - 1);			/* the 2 packets go */
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.n_data, 2);
	/* Both arrived (a PULL acknowledging them, no new pull), and the
	 * receiver is busy for 50 ms.  A queue comes: the restart asks. */
	ctl_busy(f, EQ_T_PULL, isn + 2, 2, 50000000);
	local(f, 20);
	run_until(f, f->now + 10000);
	rts = f->rec.rts;
	/* 14 ms, the receiver busy and talking every 2 ms (so that the
	 * quiet tunnel's RTS never falls due): nothing. */
	for (int k = 0; k < 7; k++) {
		ctl_busy(f, EQ_T_PULL, isn + 2, 2, 50000000);
		run_until(f, f->now + 2000000);
	}
	assert_int_equal(f->rec.rts, rts);
	/* 14 ms more, not busy, and the receiver grants nothing: one at
	 * once (a round trip has passed since the last), then after 2, 4,
	 * 8, ... round trips (the smoothed RTT): about log2(14 ms / srtt)
	 * of them, where one a round trip made 14 ms / srtt (175). */
	uint32_t srtt_us = stats(f).srtt_us;
	unsigned doublings = 0;

	assert_true(srtt_us > 0);
	while ((srtt_us << doublings) < 14000)
		doublings++;
	for (int k = 0; k < 7; k++) {
		ctl_busy(f, EQ_T_PULL, isn + 2, 2, 0);
		run_until(f, f->now + 2000000);
	}
	print_message("# regrowth RTSs in 14 ms, srtt %u us, no pull: %u\n", srtt_us,
		      f->rec.rts - rts);
	assert_true(f->rec.rts >= rts + 3);
	assert_true(f->rec.rts <= rts + doublings + 1);
	assert_true(f->rec.rts_aux != 0);	/* with the limit */
	/* A new pull: the next comes a round trip after the last, at once
	 * here, then again after two without one. */
	rts = f->rec.rts;
	ctl_busy(f, EQ_T_PULL, isn + 2, 3, 0);
	run_until(f, f->now + srtt_us * 1000ULL / 2);
	assert_int_equal(f->rec.rts, rts + 1);
	run_until(f, f->now + srtt_us * 1000ULL);
	assert_int_equal(f->rec.rts, rts + 1);
	run_until(f, f->now + srtt_us * 1000ULL * 2);
	assert_int_equal(f->rec.rts, rts + 2);
	fx_free(f);
}

/* RTS mode: the receiver answers an RTS at once, echoing its TSTAMP, and
 * the answer is the tunnel's first RTT sample, a round trip before its
 * first DATA's ACK: its BDP follows the path from then on.  Without it
 * the BDP stayed at its floor until the first DATA's ACK (a SYN's, held
 * by the ACK delay, gives none): on the fabric a 2 MB flow over 1 ms
 * links went at 4 packets a round trip for two round trips.  An answer
 * that echoes something else, or an older RTS, gives no sample. */
static void rtt__an_rts_answer_echoing_it_is_a_sample(void **state)
{
	struct eqds_cfg cfg = cfg0;
	struct eqt_hdr h = { .type = EQ_T_ACK, .opts = EQT_OPT(EQ_OPT_TSTAMP) };
	struct fx *f;
	uint32_t isn;

	cfg.rts = true;
	cfg.bdp_auto = true;
	f = fx_new_cfg(&cfg, 1024);
	local(f, 3);
	run_until(f, f->now + 10000);
	assert_int_equal(f->rec.rts, 1);
	assert_true(f->rec.rts_ts != 0);
	isn = stats(f).tx_epoch;
	uint32_t bdp0 = stats(f).bdp;

	f->now += 2000000;	/* the answer comes 2 ms later, echoing another */
	h.seq_ack = isn - 1;
	h.ts_echo = f->rec.rts_ts + 1;
	eqds_wire(f->e, PEER, &h, NULL, f->now);
	assert_int_equal(stats(f).srtt_us, 0);
	h.ts_echo = f->rec.rts_ts;	/* now its own */
	eqds_wire(f->e, PEER, &h, NULL, f->now);
	assert_true(stats(f).srtt_us >= 1900 && stats(f).srtt_us <= 2100);
	/* 2 ms at the link rate, and twice the first sample's variation. */
	assert_true(stats(f).bdp > bdp0);
	/* Once: the same echo again gives no second sample. */
	f->now += 3000000;
	eqds_wire(f->e, PEER, &h, NULL, f->now);
	assert_true(stats(f).srtt_us <= 2100);
	fx_free(f);
}

/* ---- the wire arbiter ---- */

/* Both classes loaded, credit for all of it: DRR shares the link between
 * them by bytes, whatever the quantum.  With a quantum below a packet's
 * size (64 bytes; config takes 64 upward) the arbiter added a quantum,
 * found it short, passed the turn and zeroed what it had just added:
 * nothing ever went.  With the default 3000, a class refilled its deficit
 * within its own turn and kept the link until its queue was empty. */
static void drr__classes_share_the_link_whatever_the_quantum(void **state)
{
	static const uint32_t quanta[] = { 1, 64, 1000, 3000 };

	for (unsigned k = 0; k < sizeof(quanta) / sizeof(quanta[0]); k++) {
		struct eqds_cfg cfg = cfg0;
		int64_t bytes[EQT_NCLS] = { 0 }, gap = 0;
		struct fx *f;
		uint32_t isn;

		cfg.rts = true;			/* no credit until the test pulls */
		cfg.bdp_bytes = 64 * MTU;
		cfg.drr_quantum = quanta[k];
		f = fx_new_cfg(&cfg, 1024);
		local_cls(f, 30, EQT_CLS_TCP);
		local_cls(f, 30, EQT_CLS_OTHER);
		assert_int_equal(f->rec.n_data, 0);
		isn = stats(f).tx_epoch;
		pull(f, 100, isn);
		pull(f, 200, isn);		/* credit for all 60 (capped at 65) */
		run_until(f, f->now + 2000000);
		assert_int_equal(f->rec.n_data, 60);
		for (unsigned i = 0; i < f->rec.n_data; i++) {
			int64_t d;

			bytes[f->rec.data_cls[i]] += f->rec.data_len[i];
			d = bytes[0] > bytes[1] ? bytes[0] - bytes[1] : bytes[1] - bytes[0];
			if (d > gap)
				gap = d;
		}
		print_message("# drr_quantum %u: TCP and other apart by %lld bytes at most\n",
			      quanta[k], (long long)gap);
		/* DRR's bound: a quantum and a packet. */
		assert_true(gap <= (int64_t)quanta[k] + MTU);
		fx_free(f);
	}
}

/* ---- the in-flight ring ---- */

/* A BDP of more than 4096 packets (bdp takes up to 16 MiB), all of it in
 * flight at once.  The ring had 4096 slots, and a packet whose slot a
 * later one took was freed unACKed, and not counted: 904 of these 5000. */
static void infl__holds_a_bdp_of_more_than_4096_packets(void **state)
{
	const uint32_t n = 5000;
	struct eqds_cfg cfg = cfg0;
	struct eqds_peer_stats st;
	struct fx *f;
	uint32_t isn;

	cfg.link_bps = 100000000000ULL;	/* the burst leaves in 0.6 ms */
	cfg.bdp_bytes = n * MTU;
	cfg.edge_limit = cfg.edge_ecn = 8192;
	f = fx_new_cfg(&cfg, 8192);
	local(f, n);
	run_until(f, 1000000);
	/* No SYN packet past the epoch's first 1024 seqs before the
	 * receiver answers (core/epoch.h); then the rest goes. */
	assert_int_equal(f->rec.n_data, EQT_EPOCH_SYN_NEW);
	isn = f->rec.data_seq[0];
	ack(f, isn, 100);
	run_until(f, 2000000);
	st = stats(f);
	assert_int_equal(f->rec.n_data, n);
	assert_int_equal(st.inflight_bytes, (uint64_t)(n - 1) * MTU);
	assert_int_equal(st.infl_given_up, 0);
	for (uint32_t i = 1; i < n; i++)	/* each ACK finds its packet */
		ack(f, isn + i, 100);
	st = stats(f);
	assert_int_equal(st.inflight_bytes, 0);
	assert_int_equal(f->pool.in_use, 0);
	assert_int_equal(st.rto_fired, 0);
	fx_free(f);
}

/* One packet trimmed (NACKed) again and again while the packets after it
 * go and are ACKed: its resends keep its seq, so the seqs in flight span
 * more than the ring holds at first (64 here), and then more than 4096.
 * The ring grows.  It once gave the packet up when a later seq took its
 * slot, and the next NACK found nothing to resend. */
static void infl__a_resend_far_behind_the_rest(void **state)
{
	struct fx *f = fx_new();
	struct eqds_peer_stats st;
	uint32_t a, pull_no = 100;

	local(f, 1);
	run_until(f, f->now + 100000);
	a = f->rec.data_seq[0];
	for (unsigned round = 0; round < 200; round++) {
		for (unsigned i = 0; i < 25; i++) {
			unsigned n = f->rec.n_data;

			local(f, 1);		/* a new packet goes, and is ACKed */
			run_until(f, f->now + 20000);
			assert_int_equal(f->rec.n_data, n + 1);
			ack(f, f->rec.data_seq[n], pull_no);
			pull(f, ++pull_no, a);	/* and a pull pays for it */
		}
		nack(f, a, pull_no);		/* the first is trimmed again: resent */
		pull(f, ++pull_no, a);
		run_until(f, f->now + 20000);
		assert_int_equal(f->rec.data_seq[f->rec.n_data - 1], a);
	}
	st = stats(f);
	assert_int_equal(f->rec.n_data, 1 + 200 * 26);
	assert_int_equal(st.tx_rtx, 200);
	assert_int_equal(st.infl_given_up, 0);
	assert_int_equal(st.inflight_bytes, MTU);
	ack(f, a, pull_no);
	assert_int_equal(stats(f).inflight_bytes, 0);
	assert_int_equal(f->pool.in_use, 0);
	fx_free(f);
}

/* ---- epochs ---- */

/* A new epoch starts past every seq the last one used, and past the SYN
 * window of the receiver's (EQT_EPOCH_SYN_SEQS): an epoch lives as long as its
 * tunnel and may use any number of seqs.  New epochs were stepped from the
 * old ISN by at most 8191 epochs of 1024 (8.4 million seqs): one that had
 * used more started among the seqs of the last, after an RST and after a
 * flush alike. */
static void epoch__a_new_one_starts_past_every_seq_the_last_used(void **state)
{
	struct fx *f = fx_new();
	struct tx_tunnel *t;
	uint32_t isn, last, isn2, isn3;

	local(f, 1);
	run_until(f, 1000000);
	isn = f->rec.data_seq[0];
	pull(f, 100, isn + 1);			/* ACKed: nothing in flight */
	t = f->e->tx[PEER];
	t->core.next_seq = isn + 9000000;		/* a long life (nothing in flight) */
	local(f, 1);
	last = f->rec.data_seq[f->rec.n_data - 1];
	assert_int_equal(last, isn + 9000000);
	rst(f, 0, last);			/* the receiver lost its state */
	isn2 = stats(f).tx_epoch;
	assert_int_equal(isn2 & 0x3ff, 0);
	assert_true((int32_t)(isn2 - last) > (int32_t)EQT_EPOCH_SYN_SEQS);
	assert_int_equal(f->rec.data_seq[f->rec.n_data - 1], isn2);	/* resent, renumbered */
	ack(f, isn2, 200);
	assert_int_equal(stats(f).inflight_bytes, 0);
	t = f->e->tx[PEER];
	t->core.next_seq = isn2 + 9000000;
	eqds_flush(f->e, PEER, f->now);
	local(f, 1);
	isn3 = stats(f).tx_epoch;
	assert_int_equal(isn3 & 0x3ff, 0);
	assert_true((int32_t)(isn3 - (isn2 + 9000000)) > (int32_t)EQT_EPOCH_SYN_SEQS);
	fx_free(f);
}

/* An agent that restarted numbers its tunnel from a random ISN, and a
 * receiver that kept its state refuses a SYN that is not where it expects
 * the next epoch with an RST giving its next seq.  The next epoch starts
 * exactly where the receiver expects it, eqt_epoch_after() that seq, however
 * far behind us it lies (a few packets in flight, or anywhere after a
 * restart): counted from our own next seq, it lay as far away again, was
 * refused again, and the tunnel went from RST to RST for ever. */
static void epoch__after_a_restart_the_next_starts_within_the_receivers_reach(void **state)
{
	static const uint32_t behind[] = { 40, 1u << 23, 1u << 30, 3u << 30 };

	for (unsigned k = 0; k < sizeof(behind) / sizeof(behind[0]); k++) {
		struct fx *f = fx_new();
		uint32_t isn, floor, isn2;

		local(f, 1);
		run_until(f, 1000000);
		isn = f->rec.data_seq[0];
		floor = isn - behind[k] + 1;	/* the receiver's next: far behind us */
		rst(f, floor, isn);
		isn2 = stats(f).tx_epoch;
		assert_int_equal(stats(f).rsts, 1);
		assert_int_equal(isn2 & 0x3ff, 0);
		assert_true(isn2 - floor > 3 * EQT_EPOCH_SYN_SEQS);
		assert_int_equal(isn2, eqt_epoch_after(floor));
		run_until(f, f->now + 1000000);
		assert_int_equal(f->rec.data_seq[f->rec.n_data - 1], isn2);
		fx_free(f);
	}
}

/* ... and no SYN packet is numbered past the epoch's first 1024 seqs (a
 * receiver with no state takes the ISN from the first SYN that reaches it,
 * core/epoch.h): beyond them, new data waits for the receiver's answer.  (The start's one BDP never reaches it in
 * practice: the test jumps to its edge.) */
static void epoch__syn_packets_stay_in_the_window(void **state)
{
	struct fx *f = fx_new();
	struct tx_tunnel *t;
	uint32_t isn;

	local(f, 1);
	run_until(f, 1000000);
	isn = f->rec.data_seq[0];
	t = f->e->tx[PEER];
	t->core.next_seq = isn + EQT_EPOCH_SYN_NEW - 1;
	local(f, 2);
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.n_data, 2);
	assert_int_equal(f->rec.data_seq[1], isn + EQT_EPOCH_SYN_NEW - 1);
	assert_int_equal(stats(f).tx_state, EQDS_TX_SYN_SENT);
	ack(f, isn, 100);			/* the answer: established */
	run_until(f, f->now + 100000);
	assert_int_equal(f->rec.n_data, 3);
	assert_int_equal(f->rec.data_seq[2], isn + EQT_EPOCH_SYN_NEW);
	fx_free(f);
}

/* ---- What a control packet may change (ctl_in_window) ---- */

/* A tunnel with one BDP sent and answered once: established, its pull
 * numbering known (100), nothing asked beyond. */
static uint32_t window_fx(struct fx *f)
{
	uint32_t isn;

	local(f, 12);
	run_until(f, 1000000);
	isn = f->rec.data_seq[0];
	pull(f, 100, isn + 1);
	run_until(f, f->now + 1000000);
	return isn;
}

/* An ack past the next seq, or far behind the cumulative one, cannot be
 * the receiver's: refused, counted, and nothing changes (no credit from
 * its pulls, nothing taken out of flight). */
static void window__ack_past_what_was_sent_is_refused(void **state)
{
	struct fx *f = fx_new();
	uint32_t isn = window_fx(f), hi = isn + f->rec.n_data;
	struct eqds_peer_stats before = stats(f), st;

	pull(f, 110, hi + 1);			/* one past the next seq */
	pull(f, 110, isn + 0x40000000u);	/* 2^30 ahead */
	ack(f, hi + 5, 110);
	pull(f, 110, isn - 1 - 5000);		/* older than the window allows... */
	st = stats(f);
	assert_int_equal(st.bad_ack, 3);	/* ... is another epoch's: ignored */
	assert_int_equal(st.credit, before.credit);
	assert_int_equal(st.highest_pull, 100);
	assert_int_equal(st.inflight_bytes, before.inflight_bytes);
	pull(f, 101, hi);			/* the receiver's: everything ACKed */
	st = stats(f);
	assert_int_equal(st.bad_ack, 3);
	assert_int_equal(st.highest_pull, 101);
	assert_int_equal(st.inflight_bytes, MTU);	/* one more, on its pull */
	assert_int_equal(f->rec.data_seq[f->rec.n_data - 1], hi);
	fx_free(f);
}

/* Pulls beyond what was asked and two BDPs: refused, so that one spoofed
 * PULL cannot move the pull numbering past the receiver's (its genuine
 * PULLs would then grant nothing) nor hand out credit. */
static void window__pulls_past_what_was_asked_are_refused(void **state)
{
	struct fx *f = fx_new();
	uint32_t isn = window_fx(f), hi = isn + f->rec.n_data;
	/* What the queue asked for past pull 100, two BDPs, 16 more, and one
	 * for each packet in flight. */
	uint32_t room = f->e->tx[PEER]->told_target - 100 + 2 * BDP / MTU + 16 +
			f->e->tx[PEER]->core.infl.n;
	int64_t credit = stats(f).credit;

	assert_true(f->e->tx[PEER]->told_target - 100 < 16);

	pull(f, 100 + 0x40000000u, hi);
	pull(f, 100 + room + 1, hi);
	assert_int_equal(stats(f).bad_pull, 2);
	assert_int_equal(stats(f).highest_pull, 100);
	assert_int_equal(stats(f).credit, credit);
	pull(f, 100 + room, hi);		/* at the edge: taken */
	assert_int_equal(stats(f).bad_pull, 2);
	assert_int_equal(stats(f).highest_pull, 100 + room);
	fx_free(f);
}

/* Packets sent while the receiver was taken for silent asked for no
 * pulls; a receiver that was only slow (an agent restarting, starved)
 * pulls for them when it comes back, hundreds at once.  Those pulls are
 * taken, as far as what went unasked, and no further; credit stays
 * capped.  Refused (bench/agent_outage.sh: 60-960 a run), the tunnel got
 * no credit until its new targets caught up, up to 0.2 s. */
static void window__pulls_for_what_went_while_silent_are_taken(void **state)
{
	struct fx *f = fx_new();
	uint32_t asked, n, hi;
	struct tx_tunnel *t;

	window_fx(f);
	local(f, 40);
	run_until(f, f->now + 8 * RTO_NS);	/* silent: they went unasked */
	assert_int_equal(stats(f).peer_silent, 1);
	t = f->e->tx[PEER];
	n = t->unasked;
	assert_true(n >= 40);
	hi = t->core.next_seq;			/* every seq sent, acknowledged */
	asked = after(t->told_target, 100) ? t->told_target - 100 : 0;
	/* Beyond what was asked, two BDPs, the slack and what went unasked,
	 * with room to spare: refused. */
	pull(f, 100 + asked + 4 * tx_bdp(f->e, t) / MTU + 100 + n, hi);
	assert_int_equal(stats(f).bad_pull, 1);
	assert_int_equal(stats(f).highest_pull, 100);
	/* The receiver, back, pulls for what was asked and all that went:
	 * taken, the credit capped, those pulls answered. */
	pull(f, 100 + asked + n, hi);
	assert_int_equal(stats(f).bad_pull, 1);
	assert_int_equal(stats(f).highest_pull, 100 + asked + n);
	assert_true(stats(f).credit <= tx_bdp(f->e, t) + MTU);
	assert_int_equal(f->e->tx[PEER]->unasked, 0);
	fx_free(f);
}

/* eqds_wire() says whether it took a packet as the peer's: the agent
 * learns the peer's route only from those (agent.c, from_wire()). */
static bool taken(struct fx *f, uint8_t type, uint32_t ack, uint32_t pull_no)
{
	struct eqt_hdr h = { .type = type, .seq_ack = ack, .pull = pull_no };

	return eqds_wire(f->e, PEER, &h, NULL, f->now);
}

static void window__only_packets_in_the_windows_are_taken(void **state)
{
	struct fx *f = fx_new();
	uint32_t isn = window_fx(f), hi = isn + f->rec.n_data;

	assert_false(taken(f, EQ_T_PULL, hi + 1, 101));		/* ack past what was sent */
	assert_false(taken(f, EQ_T_PULL, hi, 100 + 0x40000000u));	/* pulls not asked for */
	assert_false(taken(f, EQ_T_ACK, isn - 2, 100));		/* an older epoch's */
	assert_false(taken(f, EQ_T_RST, 0, isn - 1));		/* echoes no seq of ours */
	assert_true(taken(f, EQ_T_ACK, isn + 1, 100));
	assert_true(taken(f, EQ_T_PULL, hi, 101));
	assert_true(taken(f, EQ_T_RST, 0, isn + 2));
	fx_free(f);
}

/* An RST must echo a seq of this epoch: one that does not (spoofed, or
 * drawn by a packet of an epoch already ended) neither ends the epoch nor
 * resends what is in flight. */
static void window__rst_must_echo_a_seq_of_the_epoch(void **state)
{
	struct fx *f = fx_new();
	uint32_t isn = window_fx(f), hi = isn + f->rec.n_data;
	unsigned sent = f->rec.n_data;

	rst(f, 0, isn - 1);			/* before the epoch */
	rst(f, 0, hi + 1);			/* past what was sent */
	rst(f, 0, isn + 0x40000000u);
	assert_int_equal(stats(f).bad_rst, 3);
	assert_int_equal(stats(f).rsts, 0);
	assert_int_equal(stats(f).tx_epoch, isn);
	assert_int_equal(stats(f).tx_state, EQDS_TX_ESTABLISHED);
	assert_int_equal(f->rec.n_data, sent);
	rst(f, 0, isn + 3);			/* the receiver's: a new epoch */
	assert_int_equal(stats(f).bad_rst, 3);
	assert_int_equal(stats(f).rsts, 1);
	assert_true(stats(f).tx_epoch != isn);
	assert_int_equal(stats(f).tx_state, EQDS_TX_SYN_SENT);
	assert_true(f->rec.n_data > sent);	/* what was in flight goes again */
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nack__a_lost_packet_goes_again_on_its_own_credit),
		cmocka_unit_test(rto__retransmits_only_on_new_credit),
		cmocka_unit_test(credit__a_shrunk_window_grows_back_when_the_receiver_is_idle),
		cmocka_unit_test(rto__adapts_to_ack_delays),
		cmocka_unit_test(credit__bdp_growth_credited_once),
	cmocka_unit_test(credit__bdp_auto_keeps_to_the_lowest_rtt_while_trimmed),
		cmocka_unit_test(rto__a_lost_retransmission_times_out_again),
		cmocka_unit_test(rto__silent_receiver_does_not_stop_the_tunnel),
		cmocka_unit_test(silent__goes_on_at_the_rate_its_pulls_came),
		cmocka_unit_test(rts__an_unanswered_rts_with_nothing_in_flight_finds_the_receiver_silent),
		cmocka_unit_test(silent__a_receiver_waiting_at_a_hole_gets_a_new_epoch),
		cmocka_unit_test(silent__all_delivered_keeps_the_epoch),
		cmocka_unit_test(rto__waits_for_a_busy_receiver),
		cmocka_unit_test(rto__believes_a_busy_time_up_to_a_second),
		cmocka_unit_test(counters__survive_the_tunnel),
		cmocka_unit_test(live_next__matches_a_scan),
		cmocka_unit_test(pull_target__rts_mode_runs_ahead_by_a_round_trip),
		cmocka_unit_test(rtt__an_rts_answer_echoing_it_is_a_sample),
		cmocka_unit_test(rts_regrow__a_round_trip_after_a_pull_backing_off_without_not_when_busy),
		cmocka_unit_test(drr__classes_share_the_link_whatever_the_quantum),
		cmocka_unit_test(infl__holds_a_bdp_of_more_than_4096_packets),
		cmocka_unit_test(infl__a_resend_far_behind_the_rest),
		cmocka_unit_test(epoch__a_new_one_starts_past_every_seq_the_last_used),
		cmocka_unit_test(epoch__after_a_restart_the_next_starts_within_the_receivers_reach),
		cmocka_unit_test(epoch__syn_packets_stay_in_the_window),
		cmocka_unit_test(window__ack_past_what_was_sent_is_refused),
		cmocka_unit_test(window__pulls_past_what_was_asked_are_refused),
		cmocka_unit_test(window__pulls_for_what_went_while_silent_are_taken),
		cmocka_unit_test(window__rst_must_echo_a_seq_of_the_epoch),
		cmocka_unit_test(window__only_packets_in_the_windows_are_taken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
