// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/eqds/fastpath.c (and the fast-path rules in
 * sender.c) through the module's interface: one sender with a mocked
 * clock, recording I/O and its own eq_credit bucket array; the test plays
 * TC (eq_lease_take() on the bucket, then the copy to eqds_sent()) and
 * the receiver (control headers into eqds_wire()).
 *
 * The fast path must keep the module's two promises while TC spends
 * credit behind its back: every seq is used once and in order (a lease
 * starts at the tunnel's next seq, the agent numbers on after every seq
 * TC took, a copy from an ended epoch goes again as new data), and the
 * credit stays one quantity (what is lent comes back when the lease is
 * taken back, the start rule's one BDP counts what is on lease and what
 * TC sent but the agent has not seen yet).  The two-instance tests check
 * the credit invariant of docs/eqds.md with a real receiver: a sender and
 * a receiver joined by a model network, TC played on the sender's bucket,
 * the sum checked after every event.
 *
 * The tests at the end began as repros of what these checks found wrong
 * in the module's first version: copies of a closed lease ignored by the
 * start rule, a shut lease reopened before its packet, the credit cap
 * without the lease, an RTS that put two windows in play, trimmed fast
 * sends waiting an RTO, and the invariant over random bursts, of MTU-sized
 * packets and of random sizes (docs/eqds.md has the bound for those).
 */
#include "testlib.h"
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "eqds.h"
#include "eqds_int.h"	/* the RTT estimator: not in the stats */

#define MTU	1500
#define BDP	(8 * MTU)
#define RTO_NS	10000000ULL
#define PEER	3		/* not 0: the bucket must be indexed by peer */
#define PULL0	100		/* the receiver's pull number at our first word */

/* The shared eq_credit map, as the agent mmaps it. */
static struct eq_credit bucket[EQDS_MAX_PEERS];

struct sent {
	uint32_t	seq, pull, len;
	uint8_t		flags;
};

struct rec {
	struct sent	data[256];
	unsigned	n_data;
	struct eqt_hdr	rts[64];
	unsigned	n_rts;
};

static void rec_send_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	struct rec *r = ctx;

	assert_int_equal(peer, PEER);
	assert_true(r->n_data < 256);
	r->data[r->n_data++] = (struct sent){ h->seq_ack, h->pull, p->len, h->flags };
}

static void rec_send_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	struct rec *r = ctx;

	if (h->type == EQ_T_RTS) {
		assert_true(r->n_rts < 64);
		r->rts[r->n_rts++] = *h;
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

static struct fx *fx_new(bool rts)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct eqt_io io = { &f->rec, rec_send_data, rec_send_ctl, rec_deliver, NULL };
	struct eqds_cfg cfg = {
		.link_bps = 1000000000ULL, .mtu = MTU, .framing = EQ_ETH_FRAMING, .bdp_bytes = BDP, .rts = rts,
		.edge_limit = 100, .edge_ecn = 30, .reorder_limit = 128,
		.reorder_ns = 12000000, .rto_ns = RTO_NS, .drr_quantum = 3000,
		.policy = EQDS_ASL_FIFO, .idle_ns = 10000000000ULL,
	};

	assert_non_null(f);
	memset(bucket, 0, sizeof(bucket));
	assert_int_equal(eqt_pool_init(&f->pool, 1024), 0);
	f->now = 1000000;
	f->e = eqds_new(&cfg, &io, &f->pool, 0, 42);	/* the pacer fills up by f->now */
	assert_non_null(f->e);
	eqds_set_bucket(f->e, bucket);
	return f;
}

static void fx_free(struct fx *f)
{
	eqds_free(f->e);
	eqt_pool_fini(&f->pool);
	free(f);
}

static struct eqt_pkt *pkt(struct fx *f, uint16_t len)
{
	struct eqt_pkt *p = eqt_pkt_get(&f->pool);

	assert_non_null(p);
	memset(p->data, 0, 64);	/* no IP header: never CE-marked */
	p->len = len;
	p->l3_off = 0;
	p->cls = EQT_CLS_TCP;
	return p;
}

/* TC hands n packets to the agent (counting them in the bucket, as the
 * BPF program does), and the agent reads them. */
static void local(struct fx *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		bucket[PEER].handed++;
		assert_int_equal(eqds_local(f->e, PEER, pkt(f, MTU), f->now), 0);
	}
}

static void ctl(struct fx *f, uint8_t type, uint32_t seq, uint32_t pull_no, uint32_t busy_ns)
{
	struct eqt_hdr h = { .type = type, .seq_ack = seq, .pull = pull_no, .aux = busy_ns };

	eqds_wire(f->e, PEER, &h, NULL, f->now);
}

static union eq_lease_word word(void)
{
	return (union eq_lease_word){ .word = __atomic_load_n(&bucket[PEER].lease.word,
							      __ATOMIC_ACQUIRE) };
}

/* TC: one MTU packet on the lease.  Its copy (to hand to copy() when the
 * test wants it to reach the agent), or NULL when TC could not send it. */
static struct eqt_pkt *tc(struct fx *f, uint32_t *seq)
{
	struct eqt_pkt *p;

	if (!eq_lease_take(&bucket[PEER].lease.word, MTU, seq))
		return NULL;
	p = pkt(f, MTU);
	p->seq = *seq;
	return p;
}

static void copy(struct fx *f, struct eqt_pkt *p)
{
	assert_int_equal(eqds_sent(f->e, PEER, p, p->seq, f->now), 0);
}

static struct eqds_peer_stats stats(struct fx *f)
{
	struct eqds_peer_stats st;

	eqds_peer_stats(f->e, PEER, &st);
	return st;
}

/* The tunnel established: 1 + unacked packets sent on the start credit,
 * the first ACKed (pull number PULL0, which grants nothing).  Its ISN. */
static uint32_t establish(struct fx *f, unsigned unacked)
{
	uint32_t isn;

	local(f, 1 + unacked);
	assert_int_equal(f->rec.n_data, 1 + unacked);
	isn = f->rec.data[0].seq;
	assert_true(f->rec.data[0].flags & EQ_F_SYN);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().word, 0);	/* SYN_SENT: the SYN flag is the agent's */
	f->now += 20000;
	ctl(f, EQ_T_ACK, isn, PULL0, 0);
	assert_int_equal(stats(f).tx_state, EQDS_TX_ESTABLISHED);
	assert_int_equal(stats(f).credit, BDP - (1 + unacked) * MTU);
	return isn;
}

static void lease__opens_once_established_with_the_agents_credit(void **state)
{
	struct fx *f = fx_new(false);
	struct eqds_peer_stats st;
	uint32_t isn;

	/* Two packets out, one ACKed: something in flight, so the start
	 * rule adds nothing and the lease is exactly what the agent had. */
	isn = establish(f, 1);
	st = stats(f);
	assert_int_equal(st.lease_bytes, 0);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | (BDP - 2 * MTU));
	assert_int_equal(word().parts.seq, isn + 2);
	/* The fast path asks for no more pulls than the agent did. */
	assert_int_equal(bucket[PEER].pull_target, PULL0);
	st = stats(f);
	assert_int_equal(st.credit, BDP - 2 * MTU);	/* one quantity: nothing made */
	assert_int_equal(st.lease_bytes, BDP - 2 * MTU);
	/* The invariant's sender side counts it too (no receiver here: what
	 * is on lease plus the packet in flight). */
	assert_int_equal(eqds_credit_sum(f->e, PEER, f->e, PEER), BDP - MTU);
	assert_int_equal(st.tx_fast, 0);
	for (int i = 0; i < EQDS_MAX_PEERS; i++)
		if (i != PEER)
			assert_int_equal(bucket[i].lease.word, 0);
	/* Syncing again changes nothing: all the credit is out already. */
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | (BDP - 2 * MTU));
	/* Turning the fast path off takes the lease back. */
	eqds_set_bucket(f->e, NULL);
	assert_int_equal(word().word, 0);
	st = stats(f);
	assert_int_equal(st.credit, BDP - 2 * MTU);
	assert_int_equal(st.lease_bytes, 0);
	fx_free(f);
}

static void fast_send__is_in_flight_until_acked(void **state)
{
	struct fx *f = fx_new(false);
	struct eqds_peer_stats st;
	struct eqt_pkt *p;
	uint32_t isn, seq;
	unsigned sent;

	isn = establish(f, 1);
	eqds_lease_sync(f->e, f->now);
	sent = f->rec.n_data;
	assert_non_null(p = tc(f, &seq));
	assert_int_equal(seq, isn + 2);
	copy(f, p);
	st = stats(f);
	assert_int_equal(f->rec.n_data, sent);	/* on the wire already: not again */
	assert_int_equal(st.inflight_bytes, 2 * MTU);
	assert_int_equal(st.tx_fast, 1);
	assert_int_equal(st.tx_data, 3);
	assert_int_equal(st.credit, BDP - 3 * MTU);
	/* ACKed like the agent's own sends; then nothing is left to time out. */
	f->now += 20000;
	ctl(f, EQ_T_ACK, seq, PULL0, 0);
	assert_int_equal(stats(f).inflight_bytes, MTU);
	ctl(f, EQ_T_ACK, isn + 1, PULL0, 0);
	assert_int_equal(stats(f).inflight_bytes, 0);
	f->now += 2 * RTO_NS;
	eqds_run(f->e, f->now);
	st = stats(f);
	assert_int_equal(st.rto_fired, 0);
	assert_int_equal(f->rec.n_data, sent);
	fx_free(f);
}

/* The tunnel established with nothing else in flight and its lease open:
 * its smoothed RTT, establish()'s one sample. */
static uint64_t established_leased(struct fx *f)
{
	uint64_t srtt;

	establish(f, 0);
	srtt = f->e->tx[PEER]->core.rtt.srtt_ns;
	assert_int_equal(srtt, 20000);		/* establish()'s ACK, 20 us after */
	eqds_lease_sync(f->e, f->now);
	return srtt;
}

/* The copy of a fast send is read when the agent next wakes, maybe long
 * after the packet left: its ACK is no RTT sample (an RTO from short
 * samples fired for packets that were only queued).  The agent's own
 * sends still are. */
static void fast_send__gives_no_rtt_sample(void **state)
{
	struct fx *f = fx_new(false);
	struct eqt_pkt *p;
	uint32_t seq;
	uint64_t srtt;

	srtt = established_leased(f);
	assert_non_null(p = tc(f, &seq));
	f->now += 4000000;			/* the copy is read 4 ms late */
	copy(f, p);
	f->now += 1000;
	ctl(f, EQ_T_ACK, seq, PULL0, 0);
	assert_int_equal(stats(f).inflight_bytes, 0);
	assert_int_equal(f->e->tx[PEER]->core.rtt.srtt_ns, srtt);
	/* An agent send, ACKed 5 ms later, is a sample. */
	eq_lease_shut(&bucket[PEER].lease.word);
	local(f, 1);
	seq = f->rec.data[f->rec.n_data - 1].seq;
	f->now += 5000000;
	ctl(f, EQ_T_ACK, seq, PULL0, 0);
	assert_true(f->e->tx[PEER]->core.rtt.srtt_ns > srtt);
	fx_free(f);
}

/* TC's probe (lease.h: one fast send's seq and send time) is what times
 * a fast path: the ACK that covers it is a sample, and clears it for the
 * next.  An ACK the receiver held for its ACK delay (EQ_F_HELD) clears it
 * too, with no sample: 3 ms of delay are no round trip. */
static void fast_send__the_probe_is_a_sample_unless_held(void **state)
{
	struct fx *f = fx_new(false);
	struct eqt_pkt *p;
	uint32_t seq;
	uint64_t srtt;

	srtt = established_leased(f);
	for (int held = 1; held >= 0; held--) {
		assert_non_null(p = tc(f, &seq));
		bucket[PEER].probe = (uint64_t)seq << 32 | (uint32_t)(f->now / 1000);
		copy(f, p);
		f->now += held ? 3000000 : 40000;
		struct eqt_hdr h = { .type = EQ_T_ACK, .flags = EQ_F_CUM | (held ? EQ_F_HELD : 0),
				      .seq_ack = seq + 1, .pull = PULL0 };

		eqds_wire(f->e, PEER, &h, NULL, f->now);
		assert_int_equal(stats(f).inflight_bytes, 0);
		assert_int_equal(bucket[PEER].probe, 0);
		if (held)
			assert_int_equal(f->e->tx[PEER]->core.rtt.srtt_ns, srtt);
		else	/* 20 us, then 40: 7/8 of one and 1/8 of the other */
			assert_int_equal(f->e->tx[PEER]->core.rtt.srtt_ns, 22500);
	}
	fx_free(f);
}

/* The clone can be slower than the round trip (its veth's NAPI runs
 * late on a busy CPU): an ACK or NACK that comes before the copy is
 * remembered, and the copy obeys it when it comes.  Seen on the fabric:
 * 2 of 173 trimmed fast sends NACKed before their copy, then resent only
 * by inner TCP after the reorder timeout. */
static void fast_send__ack_or_nack_before_its_copy(void **state)
{
	struct fx *f = fx_new(false);
	struct eqds_peer_stats st;
	struct eqt_pkt *a, *n;
	uint32_t sa, sn;
	unsigned sent;

	establish(f, 0);
	eqds_lease_sync(f->e, f->now);
	assert_non_null(a = tc(f, &sa));
	assert_non_null(n = tc(f, &sn));
	sent = f->rec.n_data;
	f->now += 20000;
	ctl(f, EQ_T_ACK, sa, PULL0, 0);
	ctl(f, EQ_T_NACK, sn, PULL0, 0);
	assert_int_equal(stats(f).rx_nacks, 0);		/* nothing to act on yet */
	copy(f, a);
	st = stats(f);
	assert_int_equal(st.inflight_bytes, 0);		/* ACKed: not kept */
	assert_int_equal(st.tx_fast, 1);
	copy(f, n);
	st = stats(f);
	assert_int_equal(st.rx_nacks, 1);
	assert_int_equal(f->rec.n_data, sent + 1);	/* resent at once, on the lease's bytes */
	assert_int_equal(f->rec.data[sent].seq, sn);
	assert_int_equal(f->rec.data[sent].flags, EQ_F_RTX);
	assert_int_equal(word().word, 0);		/* the lease taken back first */
	assert_int_equal(st.inflight_bytes, MTU);
	fx_free(f);
}

/* A fast send lost unACKed is repaired by the RTO from its copy. */
static void fast_send__times_out_from_its_copy(void **state)
{
	struct fx *f = fx_new(false);
	struct eqt_pkt *p;
	uint32_t seq;
	unsigned sent;

	establish(f, 0);
	eqds_lease_sync(f->e, f->now);
	sent = f->rec.n_data;
	assert_non_null(p = tc(f, &seq));
	copy(f, p);
	/* The receiver is alive: it repeats its last PULL (no new credit,
	 * nothing acknowledged) every 2 ms, but never ACKs the fast send. */
	for (uint64_t end = f->now + RTO_NS + 1000000, k = 0; f->now < end; f->now += 100000)
		if (eqds_run(f->e, f->now), ++k % 20 == 0)
			ctl(f, EQ_T_PULL, seq, PULL0, 0);
	assert_int_equal(stats(f).rto_fired, 1);
	/* So the resend waits for a pull. */
	f->now += 10000;
	ctl(f, EQ_T_PULL, seq, PULL0 + 1, 0);
	eqds_run(f->e, f->now);
	assert_int_equal(f->rec.n_data, sent + 1);
	assert_int_equal(f->rec.data[sent].seq, seq);
	assert_true(f->rec.data[sent].flags & EQ_F_RTX);
	fx_free(f);
}

/* A fast send NACKed as lost (EQ_F_LOST: missing at the receiver while
 * later packets came) before its copy got here: when the copy comes it is
 * put first in line with the credit it had spent given back, one MTU more
 * than a trimmed one's NACK gives (the receiver pulls for that one), and
 * it goes at once. */
static void fast_send__nacked_lost_before_its_copy(void **state)
{
	int64_t credit[2];

	for (int lost = 0; lost <= 1; lost++) {
		struct fx *f = fx_new(false);
		struct eqt_pkt *p[64], *q;
		uint32_t seq[64];
		unsigned n = 0, sent;

		establish(f, 0);
		eqds_lease_sync(f->e, f->now);
		while (n < 64 && (p[n] = tc(f, &seq[n])))	/* the whole lease */
			n++;
		assert_true(n >= 2);
		for (unsigned i = 0; i + 1 < n; i++)
			copy(f, p[i]);
		q = p[n - 1];
		sent = f->rec.n_data;
		f->now += 20000;
		{
			struct eqt_hdr h = { .type = EQ_T_NACK, .flags = lost ? EQ_F_LOST : 0,
					      .seq_ack = seq[n - 1], .pull = PULL0 };

			eqds_wire(f->e, PEER, &h, NULL, f->now);
		}
		assert_int_equal(stats(f).rx_nacks, 0);		/* nothing to act on yet */
		copy(f, q);					/* obeys the NACK */
		assert_int_equal(stats(f).rx_nacks, 1);
		/* Resent at once, on the credit the NACK gave back or on what
		 * the lease had left, less what is in flight: the bytes in
		 * flight and the credit the tunnel holds tell the two apart. */
		credit[lost] = stats(f).credit + (int64_t)stats(f).inflight_bytes;
		if (lost) {
			eqds_run(f->e, f->now);
			assert_int_equal(f->rec.n_data, sent + 1);
			assert_int_equal(f->rec.data[sent].seq, seq[n - 1]);
			assert_true(f->rec.data[sent].flags & EQ_F_RTX);
		}
		fx_free(f);
	}
	assert_int_equal(credit[1] - credit[0], MTU);
}

static void fast_send__nack_takes_the_lease_back_and_resends(void **state)
{
	struct fx *f = fx_new(false);
	struct eqds_peer_stats st;
	struct eqt_pkt *p;
	uint32_t isn, s0, s1;
	unsigned sent;

	isn = establish(f, 1);
	eqds_lease_sync(f->e, f->now);
	sent = f->rec.n_data;
	assert_non_null(p = tc(f, &s0));
	copy(f, p);
	assert_non_null(p = tc(f, &s1));
	copy(f, p);
	assert_int_equal(s1, s0 + 1);
	f->now += 20000;
	ctl(f, EQ_T_NACK, s0, PULL0, 0);
	/* The resend goes ahead of any fast send: the lease is closed, its
	 * bytes pay for the resend at once. */
	assert_int_equal(word().word, 0);
	assert_int_equal(f->rec.n_data, sent + 1);
	assert_int_equal(f->rec.data[sent].seq, s0);
	assert_int_equal(f->rec.data[sent].flags, EQ_F_RTX);
	st = stats(f);
	assert_int_equal(st.rx_nacks, 1);
	assert_int_equal(st.tx_rtx, 1);
	assert_int_equal(st.lease_bytes, 0);
	assert_int_equal(st.credit, BDP - 5 * MTU);
	assert_int_equal(st.inflight_bytes, 3 * MTU);
	/* Reopened after every seq in use: the NACKed one is not reused. */
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.seq, isn + 4);
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | (BDP - 5 * MTU));
	fx_free(f);
}

static void local__takes_the_lease_back_and_numbers_after_tc(void **state)
{
	struct fx *f = fx_new(false);
	struct eqds_peer_stats st;
	struct eqt_pkt *p[3];
	uint32_t isn, seq[3];
	unsigned sent;

	isn = establish(f, 1);
	eqds_lease_sync(f->e, f->now);
	sent = f->rec.n_data;
	for (int i = 0; i < 3; i++) {
		assert_non_null(p[i] = tc(f, &seq[i]));
		assert_int_equal(seq[i], isn + 2 + i);
	}
	copy(f, p[0]);	/* the others' copies are still on their way */
	local(f, 1);	/* say the fourth did not fit (GSO): it went to the agent */
	assert_int_equal(word().word, 0);
	assert_int_equal(f->rec.n_data, sent + 1);
	assert_int_equal(f->rec.data[sent].seq, isn + 5);
	assert_int_equal(f->rec.data[sent].flags, 0);
	st = stats(f);
	assert_int_equal(st.lease_bytes, 0);
	/* Lent 6 MTUs, TC spent 3, the agent 1. */
	assert_int_equal(st.credit, BDP - 2 * MTU - 3 * MTU - MTU);
	/* The late copies join what is in flight, below the agent's seq. */
	copy(f, p[1]);
	copy(f, p[2]);
	st = stats(f);
	assert_int_equal(st.inflight_bytes, 5 * MTU);
	assert_int_equal(st.tx_fast, 3);
	assert_int_equal(f->rec.n_data, sent + 1);
	local(f, 1);
	assert_int_equal(f->rec.data[sent + 1].seq, isn + 6);
	fx_free(f);
}

static void shut__lease_is_taken_back_by_sync(void **state)
{
	struct fx *f = fx_new(false);
	struct eqds_peer_stats st;
	struct eqt_pkt *p;
	uint32_t isn, seq;
	unsigned sent;

	isn = establish(f, 1);
	eqds_lease_sync(f->e, f->now);
	sent = f->rec.n_data;
	assert_non_null(p = tc(f, &seq));
	copy(f, p);
	/* TC sent a packet to the agent: nothing may overtake it. */
	assert_true(eq_lease_shut(&bucket[PEER].lease.word));
	assert_null(tc(f, &seq));
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().word, 0);
	st = stats(f);
	assert_int_equal(st.lease_bytes, 0);
	assert_int_equal(st.credit, BDP - 3 * MTU);
	/* The packet that shut it arrives: numbered after TC's. */
	local(f, 1);
	assert_int_equal(f->rec.n_data, sent + 1);
	assert_int_equal(f->rec.data[sent].seq, isn + 3);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | (BDP - 4 * MTU));
	assert_int_equal(word().parts.seq, isn + 4);
	fx_free(f);
}

/* A packet TC hands the agent while no lease is open shuts nothing: the
 * agent must not open a lease, whose fast sends would overtake it, before
 * it has read every packet TC counted as handed.  One lost on its way is
 * waited for an RTO.  Meanwhile the bucket shows TC what waits (taken,
 * queued): its backpressure. */
static void lease__waits_for_what_tc_handed_while_closed(void **state)
{
	struct fx *f = fx_new(false);
	uint32_t sent;

	establish(f, 1);
	eqds_lease_sync(f->e, f->now);
	assert_true(word().parts.bytes & EQ_LEASE_OPEN);
	/* A packet through the agent takes the lease back; the agent sends
	 * it at once (it has credit), and its queue is empty again. */
	local(f, 1);
	assert_int_equal(word().word, 0);
	/* TC hands one more while the lease is closed (nothing to shut);
	 * the agent has not read it yet. */
	bucket[PEER].handed++;
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().word, 0);
	assert_int_equal(bucket[PEER].handed - bucket[PEER].taken, 1);
	/* Read: it goes, in order, and only then a lease, numbered after it. */
	sent = f->rec.n_data;
	assert_int_equal(eqds_local(f->e, PEER, pkt(f, MTU), f->now), 0);
	assert_int_equal(f->rec.n_data, sent + 1);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(bucket[PEER].handed, bucket[PEER].taken);
	assert_int_equal(bucket[PEER].queued, 0);
	assert_true(word().parts.bytes & EQ_LEASE_OPEN);
	assert_true(after(word().parts.seq, f->rec.data[sent].seq));
	/* One that never comes (dropped on its way): an RTO, then a lease. */
	local(f, 1);
	bucket[PEER].handed++;
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().word, 0);
	f->now += RTO_NS - 1;
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().word, 0);
	f->now += 1;
	eqds_lease_sync(f->e, f->now);
	assert_true(word().parts.bytes & EQ_LEASE_OPEN);
	fx_free(f);
}

/* A packet TC handed over and the agent never read (lost on its way),
 * and the tunnel goes idle and is freed before any lease sync adopted
 * the count: the freed tunnel leaves TC's count reconciled, or TC, which
 * holds back TCP packets with data in flight while handed - taken says
 * something waits, would hold them for ever with no tunnel to ask; and
 * it leaves TC no cap to hold any back by until a tunnel is here again. */
static void free__leaves_nothing_waiting_for_tc(void **state)
{
	struct fx *f = fx_new(false);
	uint32_t isn = establish(f, 0);

	(void)isn;
	bucket[PEER].handed++;		/* lost on its way */
	assert_int_equal(bucket[PEER].handed - bucket[PEER].taken, 1);
	for (int k = 0; k < 12 && stats(f).tx_state != EQDS_TX_CLOSED; k++) {
		f->now += 1000000000ULL;
		eqds_run(f->e, f->now);
	}
	assert_int_equal(stats(f).tx_state, EQDS_TX_CLOSED);	/* freed */
	assert_int_equal(bucket[PEER].handed, bucket[PEER].taken);
	assert_int_equal(bucket[PEER].queued, 0);
	/* And TC holds nothing back for a peer with no tunnel to ask. */
	assert_int_equal(bucket[PEER].cap, 0);
	fx_free(f);
}

/* Nothing in flight, trimming mode, receiver not busy: the lease is
 * topped up to one BDP as restart() would start an idle tunnel.  Only
 * when nothing is in flight, copies on their way to the agent included. */
static void topup__to_one_bdp_only_when_nothing_is_in_flight(void **state)
{
	struct fx *f = fx_new(false);
	struct eqt_pkt *p[2];
	uint32_t seq[2];

	establish(f, 0);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | BDP);
	assert_int_equal(stats(f).credit, BDP);
	assert_non_null(p[0] = tc(f, &seq[0]));
	assert_non_null(p[1] = tc(f, &seq[1]));
	eqds_lease_sync(f->e, f->now);		/* the copies are on their way */
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | (BDP - 2 * MTU));
	copy(f, p[0]);
	eqds_lease_sync(f->e, f->now);		/* one in flight, one on its way */
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | (BDP - 2 * MTU));
	copy(f, p[1]);
	f->now += 20000;
	ctl(f, EQ_T_ACK, seq[0], PULL0, 0);
	eqds_lease_sync(f->e, f->now);		/* one in flight */
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | (BDP - 2 * MTU));
	ctl(f, EQ_T_ACK, seq[1], PULL0, 0);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | BDP);
	assert_int_equal(stats(f).credit, BDP);
	fx_free(f);
}

/* A busy receiver (its ACKs say how long its ASL takes to drain) gets no
 * unscheduled burst until that time has passed. */
static void topup__waits_out_a_busy_receiver(void **state)
{
	struct fx *f = fx_new(false);
	uint32_t isn;

	local(f, 1);
	isn = f->rec.data[0].seq;
	f->now += 20000;
	ctl(f, EQ_T_ACK, isn, PULL0, 1000000);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | (BDP - MTU));
	f->now += 999000;
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | (BDP - MTU));
	f->now += 1000;
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | BDP);
	fx_free(f);
}

/* RTS mode sends nothing unscheduled, fast path or not. */
static void topup__never_in_rts_mode(void **state)
{
	struct fx *f = fx_new(true);
	uint32_t isn;

	local(f, 1);
	assert_int_equal(f->rec.n_data, 0);
	eqds_run(f->e, f->now);
	assert_int_equal(f->rec.n_rts, 1);
	isn = f->rec.rts[0].seq_ack;
	f->now += 20000;
	ctl(f, EQ_T_ACK, isn, PULL0, 0);		/* the RTS's answer */
	ctl(f, EQ_T_PULL, isn, PULL0 + 1, 0);
	ctl(f, EQ_T_PULL, isn, PULL0 + 2, 0);
	assert_int_equal(f->rec.n_data, 1);
	assert_int_equal(stats(f).credit, MTU);
	f->now += 20000;
	ctl(f, EQ_T_ACK, isn, PULL0 + 2, 0);
	assert_int_equal(stats(f).inflight_bytes, 0);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | MTU);
	assert_int_equal(stats(f).credit, MTU);
	fx_free(f);
}


/* TC sends what the lease holds, each copy reaching the agent, as the
 * agent's loop runs, every 100 us until `end`: how many went (the last
 * one's seq in tc_last). */
static uint32_t tc_last;

static unsigned tc_runs(struct fx *f, uint64_t end)
{
	struct eqt_pkt *p;
	uint32_t seq;
	unsigned sent = 0;

	for (; f->now < end; f->now += 100000) {
		eqds_run(f->e, f->now);
		eqds_lease_sync(f->e, f->now);
		while ((p = tc(f, &seq))) {
			copy(f, p);
			tc_last = seq;
			sent++;
		}
	}
	return sent;
}

/* A silent receiver: TC's lease is kept full at the rate the receiver's
 * pulls came at (a BDP at most), not a BDP at every sync, which the
 * restart from idle also gave, nothing being held in flight: a pull a
 * millisecond, then silence, and a packet a millisecond after it. */
static void silent__the_lease_fills_at_the_pulls_rate(void **state)
{
	struct fx *f = fx_new(false);
	uint32_t pn = PULL0, sent;

	tc_last = establish(f, 0);
	for (int i = 0; i < 30; i++) {	/* from a receiver busy with others' pulls */
		tc_runs(f, f->now + 1000000);
		ctl(f, EQ_T_PULL, tc_last + 1, ++pn, 3000000);
	}
	tc_runs(f, f->now + 3 * RTO_NS + 5000000);
	assert_int_equal(stats(f).peer_silent, 1);
	sent = tc_runs(f, f->now + 20000000);
	print_message("# silent for 20 ms after pulls at a packet a millisecond: TC sent %u\n", sent);
	assert_in_range(sent, 15, 25);
	fx_free(f);
}

/* A copy that reaches the agent after an RST ended its epoch: the
 * receiver will not take its seq into the new epoch, so it goes again as
 * new data with a seq of the new one.  Either with data left in flight
 * (a new epoch at once) or without (the tunnel closed, the copy opens
 * the next). */
static void copy_after_rst__goes_again_as_new_data(void **state)
{
	for (unsigned unacked = 0; unacked <= 1; unacked++) {
		struct fx *f = fx_new(false);
		struct eqds_peer_stats st;
		struct eqt_pkt *p;
		uint32_t isn, isn2, seq;
		unsigned sent;

		isn = establish(f, unacked);
		eqds_lease_sync(f->e, f->now);
		assert_non_null(p = tc(f, &seq));
		assert_int_equal(seq, isn + 1 + unacked);
		sent = f->rec.n_data;
		f->now += 20000;
		ctl(f, EQ_T_RST, 0, seq, 0);		/* the receiver lost its state
							 * (it echoes the fast send's seq) */
		assert_int_equal(word().word, 0);
		if (unacked) {
			/* What was in flight went again, renumbered. */
			assert_int_equal(f->rec.n_data, sent + 1);
			isn2 = f->rec.data[sent].seq;
			assert_int_equal(stats(f).tx_state, EQDS_TX_SYN_SENT);
		} else {
			assert_int_equal(f->rec.n_data, sent);
			assert_int_equal(stats(f).tx_state, EQDS_TX_CLOSED);
		}
		copy(f, p);
		assert_int_equal(f->rec.n_data, sent + 1 + unacked);
		if (!unacked)
			isn2 = f->rec.data[sent].seq;
		assert_int_equal(isn2 & 0x3ff, 0);
		assert_true((int32_t)(isn2 - seq) > 0);
		assert_int_equal(f->rec.data[sent + unacked].seq, isn2 + unacked);
		assert_int_equal(f->rec.data[sent + unacked].flags, EQ_F_SYN);
		st = stats(f);
		assert_int_equal(st.tx_fast, 0);	/* it counts as the agent's send */
		assert_int_equal(st.tx_epoch, isn2);
		assert_int_equal(st.inflight_bytes, (1 + unacked) * MTU);
		fx_free(f);
	}
}

/* The lease ran out: TC's packets asked for nothing (pull target =
 * highest pull), the next packet went to the agent, which has no credit,
 * and no PULL is coming for it.  The tunnel starts again as from idle,
 * one BDP less what is in flight: nothing while the whole BDP is out, a
 * packet's worth as soon as an ACK takes one out of flight, not an RTO
 * later.  With the receiver busy, an RTS at once instead, asking for no
 * more than the invariant leaves beside what is in flight (one MTU). */
static void restart__when_nothing_is_owed(void **state)
{
	for (int busy = 0; busy <= 1; busy++) {
		struct fx *f = fx_new(false);
		struct eqt_pkt *p;
		uint32_t seq, seq0 = 0;
		bool first = true;
		unsigned sent;

		establish(f, 0);
		eqds_lease_sync(f->e, f->now);
		while ((p = tc(f, &seq))) {
			if (first)
				seq0 = seq;
			first = false;
			copy(f, p);
		}
		assert_int_equal(stats(f).inflight_bytes, BDP);
		if (busy)	/* an ACK of nothing in flight (one ACKed before), saying
				 * the link stays busy 1 s */
			ctl(f, EQ_T_ACK, seq0 - 1, PULL0, 1000000000);
		eq_lease_shut(&bucket[PEER].lease.word);
		sent = f->rec.n_data;
		local(f, 1);
		eqds_run(f->e, f->now);
		assert_int_equal(f->rec.n_data, sent);	/* the whole BDP is out */
		if (busy) {
			assert_int_equal(f->rec.n_rts, 1);
			assert_int_equal(f->rec.rts[0].seq_ack, seq + 1);
			assert_int_equal(f->rec.rts[0].pull, PULL0 + 1);
		} else {
			assert_int_equal(f->rec.n_rts, 0);
			f->now += 20000;
			ctl(f, EQ_T_ACK, seq0, PULL0, 0);
			eqds_run(f->e, f->now);
			assert_int_equal(f->rec.n_data, sent + 1);
			assert_int_equal(f->rec.data[sent].seq, seq + 1);
			assert_int_equal(f->rec.data[sent].pull, PULL0);	/* nothing queued behind */
			assert_int_equal(f->rec.n_rts, 0);
		}
		fx_free(f);
	}
}

/* ... but not when the receiver already knows: packets that went with a
 * queue behind them asked for pulls that have not all come. */
static void rts__not_while_pulls_are_owed(void **state)
{
	struct fx *f = fx_new(false);
	uint32_t isn;

	local(f, BDP / MTU + 2);		/* one BDP out, two queued */
	assert_int_equal(f->rec.n_data, BDP / MTU);
	isn = f->rec.data[0].seq;
	f->now += 20000;
	ctl(f, EQ_T_ACK, isn, PULL0, 0);
	ctl(f, EQ_T_PULL, isn, PULL0 + 1, 0);	/* one sent, asking for one more */
	assert_int_equal(f->rec.n_data, BDP / MTU + 1);
	assert_int_equal(f->rec.data[BDP / MTU].pull, PULL0 + 2);
	local(f, 1);
	eqds_run(f->e, f->now);
	assert_int_equal(f->rec.n_rts, 0);
	/* The pull comes and pays. */
	ctl(f, EQ_T_PULL, isn, PULL0 + 2, 0);
	assert_int_equal(f->rec.n_data, BDP / MTU + 2);
	eqds_run(f->e, f->now);
	assert_int_equal(f->rec.n_rts, 0);
	fx_free(f);
}

/* ---- What the first version got wrong ---- */

/* The start rule's one BDP must count the sends of a lease already
 * taken back whose copies are still on their way: they are on the wire,
 * but neither in flight at the module nor on lease.  Here the lease is
 * taken back by a packet from the host, that packet is ACKed, and the
 * next sync finds nothing in flight and tops up while two MTUs the
 * module has not seen are on the wire. */
static void topup__counts_copies_of_a_closed_lease(void **state)
{
	struct fx *f = fx_new(false);
	struct eqt_pkt *p[2];
	uint32_t seq[2];
	unsigned sent;

	establish(f, 0);
	eqds_lease_sync(f->e, f->now);
	assert_non_null(p[0] = tc(f, &seq[0]));
	assert_non_null(p[1] = tc(f, &seq[1]));
	sent = f->rec.n_data;
	local(f, 1);				/* takes the lease back */
	assert_int_equal(f->rec.n_data, sent + 1);
	f->now += 20000;
	ctl(f, EQ_T_ACK, f->rec.data[sent].seq, PULL0, 0);
	eqds_lease_sync(f->e, f->now);
	/* Lent BDP, TC spent 2 MTUs (copies not here), the agent 1. */
	assert_int_equal(stats(f).credit, BDP - 3 * MTU);
	copy(f, p[0]);
	copy(f, p[1]);
	fx_free(f);
}

/* TC shut the lease because a packet went to the agent; nothing may
 * overtake it on the fast path.  The agent takes the lease back, but the
 * next sync (the packet still on its way through the veth) opens it
 * again, and TC's next packet goes ahead of the one that shut it. */
static void shut__no_new_lease_before_the_packet_that_shut_it(void **state)
{
	struct fx *f = fx_new(false);
	struct eqt_pkt *p;
	uint32_t seq;

	establish(f, 0);
	eqds_lease_sync(f->e, f->now);
	assert_non_null(p = tc(f, &seq));
	copy(f, p);
	eq_lease_shut(&bucket[PEER].lease.word);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().word, 0);
	f->now += 1000;
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().word, 0);	/* not before the packet came */
	local(f, 1);
	eqds_lease_sync(f->e, f->now);
	assert_true(word().parts.bytes & EQ_LEASE_OPEN);
	fx_free(f);
}

/* "A sender never holds more than 1 BDP + 1 MTU of credit" (docs/eqds.md):
 * eqds_tx_control() caps the agent's part only, the lease comes on top. */
static void credit_cap__counts_the_lease(void **state)
{
	struct fx *f = fx_new(false);
	uint32_t isn;

	isn = establish(f, 0);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(stats(f).lease_bytes, BDP);
	f->now += 20000;
	ctl(f, EQ_T_PULL, isn + 1, PULL0 + 20, 0);	/* pulls for packets thought lost */
	assert_true(stats(f).credit <= BDP + MTU);
	fx_free(f);
}

/* The copies of a lease's sends are due from when the lease is taken
 * back.  They were dated from the tunnel's last use by the agent: after an
 * idle spell longer than an RTO they counted as lost at once, and the
 * start rule lent a whole BDP again beside the fast sends still on their
 * way (1 BDP + 3 MTUs out here).  The test knows the sends the module has
 * not seen; the sum with them stays within 1 BDP + 1 MTU. */
static void copies_due__dated_from_the_lease_taken_back(void **state)
{
	struct fx *f = fx_new(false);
	struct eqt_pkt *p[3];
	uint32_t seq[3];

	establish(f, 0);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.bytes, EQ_LEASE_OPEN | BDP);
	f->now += 3 * RTO_NS;			/* idle */
	eqds_run(f->e, f->now);
	eqds_lease_sync(f->e, f->now);
	for (int i = 0; i < 3; i++)		/* TC sends; the copies are on their way */
		assert_non_null(p[i] = tc(f, &seq[i]));
	f->now += 10000;
	local(f, 1);				/* the next one goes to the agent: lease back */
	assert_int_equal(word().word, 0);
	assert_true(eqds_credit_sum(f->e, PEER, f->e, PEER) + 3 * MTU <= BDP + MTU);
	eqds_run(f->e, f->now);
	eqds_lease_sync(f->e, f->now);		/* no top-up while they are due */
	assert_true(eqds_credit_sum(f->e, PEER, f->e, PEER) + 3 * MTU <= BDP + MTU);
	assert_int_equal(stats(f).credit, BDP - 4 * MTU);
	f->now += 10000;
	for (int i = 0; i < 3; i++)
		copy(f, p[i]);
	assert_true(eqds_credit_sum(f->e, PEER, f->e, PEER) <= BDP + MTU);
	assert_int_equal(stats(f).inflight_bytes, 4 * MTU);
	fx_free(f);
}

/* ---- Two instances: the credit invariant with the fast path ---- */

#define PROP		10000ULL	/* one way, ns */
#define COPY_NS		2000ULL		/* TC -> agent: less than a round trip */
#define RATE		1000000000ULL
#define NPKT		2000
#define NO_TRIM		UINT32_MAX

enum { EV_TO_R, EV_TO_S, EV_COPY, EV_SLOW, EV_OFFER };

struct ev {
	uint64_t	t;
	int		kind;
	struct eqt_hdr	h;
	uint16_t	len;		/* DATA, COPY, SLOW; NACK: what was trimmed; OFFER: 0 = random */
	uint32_t	id;		/* DATA, COPY, SLOW: the packet; OFFER: how many */
	struct eqt_pkt	*p;		/* COPY, SLOW */
};

static struct sim {
	struct ev	*ev;
	size_t		nev, cap;
	uint64_t	now;
	struct eqds	*s, *r;		/* sender, receiver: each is peer 0 of the other */
	struct eqt_pool	sp, rp;
	uint32_t	trim_at;	/* DATA packets queued at the port */
	uint64_t	port_free;
	uint32_t	port_q;
	uint32_t	npkt, offered, got, dups, ooo, fast, slow, shuts, trims;
	uint32_t	gso_pct;	/* of packets TC may not send itself */
	uint64_t	done_at;
	int64_t		unseen;		/* fast sends whose copy the agent has not got */
	int64_t		trimmed;	/* trimmed, NACK not yet at the sender */
	uint16_t	nack_len;	/* of the header being NACKed */
	int64_t		max_sum;
	int64_t		max_out;	/* ... with the receiver's pulls ahead of arrivals */
	bool		small;		/* a packet smaller than an MTU was offered */
	uint8_t		seen[NPKT];
} S;

static void push(struct ev e)
{
	size_t i;

	if (S.nev == S.cap) {
		S.cap = S.cap ? S.cap * 2 : 1024;
		S.ev = realloc(S.ev, S.cap * sizeof(*S.ev));
		assert_non_null(S.ev);
	}
	i = S.nev++;
	while (i && S.ev[i - 1].t > e.t) {	/* sorted, stable */
		S.ev[i] = S.ev[i - 1];
		i--;
	}
	S.ev[i] = e;
}

/* The receiver's access port: FIFO at the link rate, DATA trimmed to a
 * header at trim_at packets queued (headers and control overtake data).
 * TC sends a lease's burst at once, so a low trim_at trims fast sends. */
static void port(const struct eqt_hdr *h, uint16_t len, uint32_t id)
{
	struct ev e = { .kind = EV_TO_R, .h = *h, .len = len, .id = id };
	uint64_t arrive = S.now + PROP, start;

	if (S.port_q >= S.trim_at) {
		e.h.type = EQ_T_TRIMMED;
		e.t = arrive + PROP + 64 * 8 * 1000000000ULL / RATE;
		S.trims++;
		push(e);
		return;
	}
	start = arrive > S.port_free ? arrive : S.port_free;
	S.port_free = start + (uint64_t)len * 8 * 1000000000ULL / RATE;
	S.port_q++;
	e.t = S.port_free + PROP;
	push(e);
}

static uint32_t id_of(const struct eqt_pkt *p)
{
	uint32_t id;

	memcpy(&id, p->data, 4);
	return id;
}

static void s_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	assert_true(h->type == EQ_T_DATA && !(h->flags & EQ_F_FAST));
	port(h, p->len, id_of(p));
}

static void s_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	push((struct ev){ .t = S.now + 2 * PROP, .kind = EV_TO_R, .h = *h });
}

static void s_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p) { fail(); }
static void r_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h) { fail(); }

static void r_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	push((struct ev){ .t = S.now + 2 * PROP, .kind = EV_TO_S, .h = *h,
			  .len = h->type == EQ_T_NACK ? S.nack_len : 0 });
}

static void r_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	uint32_t id = id_of(p);

	assert_true(id < S.npkt);
	if (S.seen[id]++) {
		S.dups++;
		return;
	}
	if (id != S.got)	/* the host offered them in id order */
		S.ooo++;
	if (++S.got == S.npkt)
		S.done_at = S.now;
}

/* The host's packets, one after the other: TC sends each on the lease
 * or, shutting it, to the agent; either way the agent hears of it
 * COPY_NS later.  len 0: random sizes. */
static void offer(uint32_t n, uint16_t fixed_len)
{
	for (uint32_t i = 0; i < n && S.offered < S.npkt; i++) {
		uint32_t id = S.offered++, seq;
		uint16_t len = fixed_len ? fixed_len : (uint16_t)(64 + rnd32() % (MTU - 63));
		struct eqt_pkt *p = eqt_pkt_get(&S.sp);
		struct ev e = { .t = S.now + COPY_NS, .len = len, .id = id };

		assert_non_null(p);
		memset(p->data, 0, 64);
		memcpy(p->data, &id, 4);
		p->len = len;
		p->l3_off = 0;
		p->cls = EQT_CLS_TCP;
		e.p = p;
		S.small |= len < MTU;
		if (rnd32() % 100 >= S.gso_pct && eq_lease_take(&bucket[0].lease.word, len, &seq)) {
			struct eqt_hdr h = { .type = EQ_T_DATA, .seq_ack = seq,
					      .pull = bucket[0].pull_target, .aux = len };

			port(&h, len, id);
			p->seq = seq;
			e.kind = EV_COPY;
			S.unseen += len;
			S.fast++;
		} else {
			if ((bucket[0].lease.parts.bytes & EQ_LEASE_OPEN) &&
			    eq_lease_shut(&bucket[0].lease.word))
				S.shuts++;
			bucket[0].handed++;	/* on its way to the agent */
			e.kind = EV_SLOW;
			S.slow++;
		}
		push(e);
	}
}

static void offer_at(uint64_t t, uint32_t n, uint16_t len)
{
	push((struct ev){ .t = t, .kind = EV_OFFER, .id = n, .len = len });
}

static void check_invariant(void)
{
	/* eqds_credit_sum() sees the module's side; the test knows what it
	 * cannot: fast sends on the wire whose copy has not reached the
	 * agent (counted nowhere: COPY_NS < PROP, so none has reached the
	 * receiver), and trimmed packets, both in flight at the sender and in
	 * the receiver's entry until the NACK is back (counted twice).  The
	 * receiver's entry counts negative when its pulls (whole MTUs) went
	 * beyond what arrived; what is out (credit, in flight, pulls in
	 * flight) then exceeds the sum by that, less than an MTU, and only
	 * with packets smaller than an MTU. */
	int64_t sum = eqds_credit_sum(S.s, 0, S.r, 0) + S.unseen - S.trimmed;
	int64_t ahead = S.r->rx[0] && S.r->rx[0]->owed < 0 ? -S.r->rx[0]->owed : 0;

	if (sum > S.max_sum)
		S.max_sum = sum;
	if (sum + ahead > S.max_out)
		S.max_out = sum + ahead;
	if (ahead > (S.small ? MTU - 1 : 0))
		fail_msg("t=%llu the receiver's pulls are %lld bytes ahead", (unsigned long long)S.now,
			 (long long)ahead);
	if (sum > BDP + MTU) {
		struct eqds_peer_stats a, b;

		eqds_peer_stats(S.s, 0, &a);
		eqds_peer_stats(S.r, 0, &b);
		fail_msg("t=%llu credit sum %lld > %d: credit %lld (lease %llu) in flight %llu, "
			 "unseen %lld, trimmed %lld, highest pull %u, pull_no %u, target %u, "
			 "backlog %llu", (unsigned long long)S.now, (long long)sum, BDP + MTU,
			 (long long)a.credit, (unsigned long long)a.lease_bytes,
			 (unsigned long long)a.inflight_bytes, (long long)S.unseen,
			 (long long)S.trimmed, a.highest_pull, b.pull_no, b.pull_target,
			 (unsigned long long)a.backlog_bytes);
	}
}

static void step(struct ev *e)
{
	struct eqt_pkt *p = NULL;

	switch (e->kind) {
	case EV_OFFER:
		offer(e->id, e->len);
		break;
	case EV_COPY:
		S.unseen -= e->len;
		assert_int_equal(eqds_sent(S.s, 0, e->p, e->p->seq, S.now), 0);
		break;
	case EV_SLOW:
		assert_int_equal(eqds_local(S.s, 0, e->p, S.now), 0);
		break;
	case EV_TO_S:
		if (e->h.type == EQ_T_NACK)
			S.trimmed -= e->len;
		eqds_wire(S.s, 0, &e->h, NULL, S.now);
		break;
	case EV_TO_R:
		if (e->h.type == EQ_T_DATA) {
			S.port_q--;
			p = eqt_pkt_get(&S.rp);
			assert_non_null(p);
			p->len = e->len;
			memcpy(p->data, &e->id, 4);
		} else if (e->h.type == EQ_T_TRIMMED) {
			S.trimmed += e->len;
			S.nack_len = e->len;
		}
		eqds_wire(S.r, 0, &e->h, p, S.now);
		break;
	}
}

static void sim_setup(uint32_t npkt, uint32_t trim_at, uint64_t rto_ns, uint64_t seed,
		      bool fast_path)
{
	struct eqds_cfg c = {
		.link_bps = RATE, .mtu = MTU, .framing = EQ_ETH_FRAMING, .bdp_bytes = BDP, .edge_limit = 1000,
		.edge_ecn = 1000, .reorder_limit = 128, .reorder_ns = 2 * rto_ns,
		.rto_ns = rto_ns, .drr_quantum = 3000, .policy = EQDS_ASL_FIFO,
		.idle_ns = 10000000000ULL,
	};
	struct eqt_io sio = { NULL, s_data, s_ctl, s_deliver, NULL };
	struct eqt_io rio = { NULL, r_data, r_ctl, r_deliver, NULL };

	rng_state = seed;
	memset(&S, 0, sizeof(S));
	memset(bucket, 0, sizeof(bucket));
	S.npkt = npkt;
	S.trim_at = trim_at;
	assert_int_equal(eqt_pool_init(&S.sp, 4096), 0);
	assert_int_equal(eqt_pool_init(&S.rp, 4096), 0);
	S.s = eqds_new(&c, &sio, &S.sp, 0, seed + 1);
	S.r = eqds_new(&c, &rio, &S.rp, 0, seed + 2);
	assert_non_null(S.s);
	assert_non_null(S.r);
	if (fast_path)
		eqds_set_bucket(S.s, bucket);
}

static void sim_teardown(void)
{
	eqds_free(S.s);
	eqds_free(S.r);
	eqt_pool_fini(&S.sp);
	eqt_pool_fini(&S.rp);
	free(S.ev);
}

/* Until every packet is delivered: the invariant after every event. */
static void sim_run(void)
{
	uint64_t next_tick = 0;

	while (S.got < S.npkt && S.now < 10000000000ULL) {
		uint64_t d;

		S.now = S.nev && S.ev[0].t < next_tick ? S.ev[0].t : next_tick;
		/* What arrived by now, as one batch per ring would. */
		while (S.nev && S.ev[0].t <= S.now) {
			struct ev e = S.ev[0];

			memmove(S.ev, S.ev + 1, --S.nev * sizeof(*S.ev));
			step(&e);
		}
		/* The agents' loops: the module's run, then the leases (only
		 * once what the run sent is on the wire). */
		d = eqds_run(S.r, S.now);
		next_tick = eqds_run(S.s, S.now);
		eqds_lease_sync(S.s, S.now);
		if (d < next_tick)
			next_tick = d;
		if (next_tick <= S.now)
			next_tick = S.now + 1;
		check_invariant();
	}
	print_message("# %u fast, %u slow, %u shuts, %u trims; credit sum max %lld (bound %d), "
		      "out at most %lld; done at %.3f ms\n", S.fast, S.slow, S.shuts, S.trims,
		      (long long)S.max_sum, BDP + MTU, (long long)S.max_out, S.done_at / 1e6);
	assert_int_equal(S.got, S.npkt);
	assert_int_equal(S.dups, 0);
	assert_int_equal(S.ooo, 0);
}

/* Bursts that a full lease covers, with pauses that let every burst be
 * ACKed and the lease topped up again; one packet in ten is one TC may not
 * send (GSO): it shuts the lease and goes through the agent, which takes
 * the lease back, sends it on the credit returned and lends the rest
 * again.  Random sizes, copies a little behind their packets: the top-up
 * rule and the copies' seqs are exercised at every burst. */
static void invariant__holds_on_both_paths(void **state)
{
	uint64_t t = 0;

	sim_setup(NPKT, NO_TRIM, 10000000, 21, true);
	S.gso_pct = 10;
	offer_at(0, 1, MTU);
	for (uint32_t n = 1; n < NPKT;) {
		uint32_t k = 1 + rnd32() % (BDP / MTU);

		t += 200000 + rnd32() % 200000;
		offer_at(t, k, 0);
		n += k;
	}
	sim_run();
	assert_true(S.fast > NPKT / 2);	/* after a shut, the rest of its burst goes slow */
	assert_true(S.slow > NPKT / 20);
	assert_true(S.shuts > NPKT / 20);
	/* The start rule, through the lease, is what lets a burst go: an
	 * idle tunnel holds exactly one BDP, counted on lease. */
	assert_int_equal(S.max_sum, BDP);
	sim_teardown();
}

/* The invariant when a queue forms behind a burst that asked for nothing
 * (sender.c, not only the fast path).  An idle tunnel gets a burst of 12
 * MTUs: one BDP goes out unscheduled (on the lease, or from the edge queue
 * packet by packet as the host hands them over, each with an empty queue
 * behind it: pull target = highest pull), the rest waits with no credit.
 * A first fix sent an RTS for the queue at once; it overtook the burst,
 * the receiver pulled for the queue, and 1 BDP + 4 MTUs were out.  The
 * restart counts what is in flight. */
static void invariant__restart_after_a_burst_that_asked_nothing(void **state)
{
	for (int fast = 1; fast >= 0; fast--) {
		sim_setup(1 + 12, NO_TRIM, 10000000, 22, fast);
		offer_at(0, 1, MTU);
		offer_at(500000, 12, MTU);
		sim_run();
		sim_teardown();
	}
}

/* Fast sends trimmed at a congested port (a whole lease goes
 * at once: the first RTT of an incast) are NACKed, and queued to go again
 * "on the receiver's pulls", but they asked for no pulls (pull target =
 * highest pull): the receiver drops their bytes, nothing pays for the
 * resend until an RTS, which eqds_tx_timers() sends only after rto_ns without
 * a word from the receiver: 10.7 ms here in the first version.  The
 * receiver now pulls for a trimmed packet whatever its target said. */
static void trimmed_fast_sends__go_again_within_a_round_trip(void **state)
{
	sim_setup(1 + 8, 4, 10000000, 23, true);
	offer_at(0, 1, MTU);
	offer_at(500000, 8, MTU);	/* 4 queue at the port, 4 are trimmed */
	sim_run();
	assert_true(S.trims > 0);
	/* ~0.25 ms of serialization, propagation and one resend; 10 ms
	 * (rto_ns) as it is. */
	assert_true(S.done_at < 500000 + 1000000);
	sim_teardown();
}

/* What the ones above add up to.  Random bursts of 1-16 packets,
 * some that the lease covers, some that overflow it, some back to back (a
 * queue builds), on a port that trims.  MTU-sized packets, then random
 * sizes (64 bytes to an MTU).  The runs of random sizes are the ones that
 * found, first, an RTS's answer acknowledging the seq the sender gave its
 * next packet (trimmed, that packet was freed by it and never resent:
 * seed 24); then the sum 1 BDP + 1 MTU exceeded by an RTS that made owed
 * bytes of all the pull target asked, rounded up to whole pulls for
 * trimmed packets (seed 32: 14185 bytes), and by an RTS that wrote over
 * the bytes the receiver's pulls had run ahead (seed 8: 13889). */
static void invariant__bursts_that_overflow_the_lease(void **state)
{
	static const struct {
		uint16_t	len;		/* 0: random */
		uint32_t	trim_at;
		uint64_t	rto_ns, seed;
	} runs[] = {
		{ MTU, 4, 2000000, 24 },
		{ 0, 4, 2000000, 24 },
		{ 0, 3, 2000000, 32 },
		{ 0, 3, 500000, 8 },
	};

	for (unsigned r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		uint64_t t = 0;

		sim_setup(NPKT, runs[r].trim_at, runs[r].rto_ns, runs[r].seed, true);
		for (uint32_t n = 0; n < NPKT;) {
			uint32_t k = 1 + rnd32() % 16;

			t += rnd32() % 4 ? 1000 + rnd32() % 10000 : 100000 + rnd32() % 1000000;
			offer_at(t, k, runs[r].len);
			n += k;
		}
		sim_run();
		assert_true(S.fast > NPKT / 20);
		assert_true(S.shuts > 20);
		assert_true(S.trims > 20);
		sim_teardown();
	}
}

/* The CI flake of tests/fabric/test_edgeq.sh ("NACKs 143 + RTOs 0 >= 144;
 * retransmissions 143"): a trimmed fast send whose copy reaches the agent
 * after its NACK must still go again.  If the NACK is forgotten, the copy
 * joins what is in flight unNACKed; the receiver gives its gap up after
 * reorder_timeout (12 ms), before the RTO (timed from the late copy, and
 * longer under load) fires, and its next PULL's cumulative ack frees the
 * packet: no NACK counted, no RTO, no resend; inner TCP repairs the loss.
 * Two ways the NACK was forgotten, then what it costs end to end. */

/* 1. The lease was open through an idle spell and closed after it: the
 * copies still due were dated from the tunnel's last use, before the
 * spell, so they counted as lost at once and the NACK was not noted. */
static void late_copy__nack_noted_after_an_idle_spell(void **state)
{
	struct fx *f = fx_new(false);
	struct eqt_pkt *a;
	uint32_t sa;
	unsigned sent;

	establish(f, 0);
	eqds_lease_sync(f->e, f->now);
	f->now += 50000000;		/* 50 ms idle: longer than an RTO */
	eqds_run(f->e, f->now);
	eqds_lease_sync(f->e, f->now);
	assert_non_null(a = tc(f, &sa));
	f->now += 10000;
	local(f, 1);			/* the next packet went to the agent: lease back */
	assert_int_equal(word().word, 0);
	sent = f->rec.n_data;
	f->now += 20000;
	ctl(f, EQ_T_NACK, sa, PULL0, 0);	/* trimmed; the copy is not here yet */
	f->now += 20000;
	copy(f, a);
	assert_int_equal(stats(f).rx_nacks, 1);
	eqds_run(f->e, f->now);
	assert_int_equal(f->rec.n_data, sent + 1);	/* resent, on the credit it had */
	assert_int_equal(f->rec.data[sent].seq, sa);
	assert_int_equal(f->rec.data[sent].flags, EQ_F_RTX);
	fx_free(f);
}

/* 2. More ACKs and NACKs came before their copies than the notes hold
 * (EARLY_SLOTS): the later ACK notes overwrote the NACK's (fastpath.c,
 * eqds_tx_early_note()).  A lost ACK note costs a resend at worst (the PULLs'
 * cumulative ack frees the copy first, as a rule); a lost NACK note costs
 * the packet. */
static void late_copy__nack_outlives_more_acks_than_the_notes_hold(void **state)
{
	struct fx *f = fx_new(false);
	struct eqt_pkt *p[12];
	uint32_t seq[12];
	unsigned sent;

	establish(f, 0);
	eqds_lease_sync(f->e, f->now);
	for (int i = 0; i < 6; i++)
		assert_non_null(p[i] = tc(f, &seq[i]));
	f->now += 20000;
	ctl(f, EQ_T_NACK, seq[0], PULL0, 0);
	for (int i = 1; i < 6; i++)		/* each ACK brings a pull */
		ctl(f, EQ_T_ACK, seq[i], PULL0 + i, 0);
	eqds_lease_sync(f->e, f->now);		/* ... which tops the lease up */
	for (int i = 6; i < 12; i++)
		assert_non_null(p[i] = tc(f, &seq[i]));
	f->now += 20000;
	for (int i = 6; i < 12; i++)
		ctl(f, EQ_T_ACK, seq[i], PULL0 + 5, 0);
	assert_int_equal(stats(f).rx_nacks, 0);	/* no copy here yet */
	sent = f->rec.n_data;
	f->now += 20000;
	for (int i = 0; i < 12; i++)		/* 12 notes were made, the NACK's first */
		copy(f, p[i]);
	assert_int_equal(stats(f).rx_nacks, 1);
	eqds_run(f->e, f->now);
	assert_int_equal(f->rec.n_data, sent + 1);
	assert_int_equal(f->rec.data[sent].seq, seq[0]);
	assert_int_equal(f->rec.data[sent].flags, EQ_F_RTX);
	fx_free(f);
}

/* 3. End to end, sender and receiver joined by the model network, with
 * every copy reaching the agent 1 ms after its packet left (a round trip
 * is some 50 us here): the ACKs and NACKs of a burst, and of the bursts
 * the lease's top-ups let go meanwhile, come first.  Bursts of up to 16
 * into a port that trims above 4: every trim must be acted on (NACKed
 * and resent), none left to an RTO or to the receiver to give up.  With
 * NACK notes lost to later ACK notes: 392 trims, 366 NACKs acted on, 11
 * gaps given up, 24 packets never delivered. */
#define LATE_COPY_NS	1000000ULL

static void sim_run_late_copies(void)
{
	uint64_t next_tick = 0;

	while (S.got < S.npkt && S.now < 10000000000ULL) {
		uint64_t d;
		bool moved = false;

		/* Copies pushed since the last pass come LATE_COPY_NS later
		 * (h.flags marks them: a copy's header is not used). */
		for (size_t i = 0; i < S.nev; i++)
			if (S.ev[i].kind == EV_COPY && !S.ev[i].h.flags) {
				S.ev[i].t += LATE_COPY_NS - COPY_NS;
				S.ev[i].h.flags = 1;
				moved = true;
			}
		if (moved) {	/* sorted again, stable */
			for (size_t i = 1; i < S.nev; i++)
				for (size_t j = i; j && S.ev[j - 1].t > S.ev[j].t; j--) {
					struct ev x = S.ev[j];

					S.ev[j] = S.ev[j - 1];
					S.ev[j - 1] = x;
				}
		}
		S.now = S.nev && S.ev[0].t < next_tick ? S.ev[0].t : next_tick;
		while (S.nev && S.ev[0].t <= S.now) {
			struct ev e = S.ev[0];

			memmove(S.ev, S.ev + 1, --S.nev * sizeof(*S.ev));
			step(&e);
		}
		d = eqds_run(S.r, S.now);
		next_tick = eqds_run(S.s, S.now);
		eqds_lease_sync(S.s, S.now);
		if (d < next_tick)
			next_tick = d;
		if (next_tick <= S.now)
			next_tick = S.now + 1;
	}
}

static void late_copy__trimmed_fast_sends_go_again_end_to_end(void **state)
{
	struct eqds_peer_stats st, rs;
	uint64_t t = 0;

	sim_setup(NPKT, 4, 10000000, 25, true);
	offer_at(0, 1, MTU);
	for (uint32_t n = 1; n < NPKT;) {
		uint32_t k = 1 + rnd32() % 16;

		t += 400000 + rnd32() % 400000;
		offer_at(t, k, MTU);
		n += k;
	}
	sim_run_late_copies();
	eqds_peer_stats(S.s, 0, &st);
	eqds_peer_stats(S.r, 0, &rs);
	print_message("# late copies: %u fast, %u trims, %llu NACKs acted on, %llu RTOs, "
		      "%llu gaps given up, %u of %u delivered\n", S.fast, S.trims,
		      (unsigned long long)st.rx_nacks, (unsigned long long)st.rto_fired,
		      (unsigned long long)rs.reorder_gaps, S.got, S.npkt);
	assert_true(S.trims > 20);
	assert_int_equal(st.rx_nacks, S.trims);
	assert_int_equal(st.rto_fired, 0);
	assert_int_equal(rs.reorder_gaps, 0);
	assert_int_equal(S.got, S.npkt);
	assert_int_equal(S.dups, 0);
	assert_int_equal(S.ooo, 0);
	sim_teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lease__opens_once_established_with_the_agents_credit),
		cmocka_unit_test(fast_send__is_in_flight_until_acked),
		cmocka_unit_test(fast_send__times_out_from_its_copy),
		cmocka_unit_test(fast_send__ack_or_nack_before_its_copy),
		cmocka_unit_test(fast_send__nacked_lost_before_its_copy),
		cmocka_unit_test(fast_send__gives_no_rtt_sample),
		cmocka_unit_test(fast_send__the_probe_is_a_sample_unless_held),
		cmocka_unit_test(fast_send__nack_takes_the_lease_back_and_resends),
		cmocka_unit_test(local__takes_the_lease_back_and_numbers_after_tc),
		cmocka_unit_test(shut__lease_is_taken_back_by_sync),
		cmocka_unit_test(lease__waits_for_what_tc_handed_while_closed),
		cmocka_unit_test(free__leaves_nothing_waiting_for_tc),
		cmocka_unit_test(topup__to_one_bdp_only_when_nothing_is_in_flight),
		cmocka_unit_test(topup__waits_out_a_busy_receiver),
		cmocka_unit_test(topup__never_in_rts_mode),
		cmocka_unit_test(silent__the_lease_fills_at_the_pulls_rate),
		cmocka_unit_test(copy_after_rst__goes_again_as_new_data),
		cmocka_unit_test(restart__when_nothing_is_owed),
		cmocka_unit_test(rts__not_while_pulls_are_owed),
		cmocka_unit_test(invariant__holds_on_both_paths),
		cmocka_unit_test(topup__counts_copies_of_a_closed_lease),
		cmocka_unit_test(shut__no_new_lease_before_the_packet_that_shut_it),
		cmocka_unit_test(credit_cap__counts_the_lease),
		cmocka_unit_test(copies_due__dated_from_the_lease_taken_back),
		cmocka_unit_test(invariant__restart_after_a_burst_that_asked_nothing),
		cmocka_unit_test(trimmed_fast_sends__go_again_within_a_round_trip),
		cmocka_unit_test(invariant__bursts_that_overflow_the_lease),
		cmocka_unit_test(late_copy__nack_noted_after_an_idle_spell),
		cmocka_unit_test(late_copy__nack_outlives_more_acks_than_the_notes_hold),
		cmocka_unit_test(late_copy__trimmed_fast_sends_go_again_end_to_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
