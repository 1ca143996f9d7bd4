// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/eqds/direct.c, and the parts of the receiver and
 * the sender that go with it, through the module's interface with a
 * mocked clock and recording I/O.  The test plays XDP on the shared eq_rx
 * array exactly as xdp_ingress.bpf.c does (eq_rx_take(), then the counts
 * and the doorbell):
 *  - the word opens once the tunnel is established and nothing is held,
 *    at the next seq in order; XDP's deliveries are then accounted as the
 *    agent's would be (rx_data, the bytes pulled for, the pull target) and
 *    acknowledged with one cumulative ACK, or by the PULL of the same
 *    look: one frame per look;
 *  - DATA through the agent closes the word first: out of order it is
 *    held while XDP delivers nothing, and the word opens again, past it,
 *    once the queue is empty and what the agent delivered is up the
 *    host's stack (io.delivered); a count XDP adds after the close is
 *    taken at the next look;
 *  - the sender frees everything before a cumulative ACK, and a fast
 *    send's copy that comes after one is not kept;
 *  - the pull pacer grants several pulls per PULL at high rates, never
 *    more than the link drains (frames and Ethernet framing), and control
 *    frames that reach the link come out of its budget.
 */
#include "testlib.h"
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "edgeq/rx.h"
#include "eqds.h"
#include "eqds_int.h"

#define MTU		1500
#define ISN		(7u << 10)
#define PEER		2
#define WIRE		(MTU + 14 + EQ_ETH_FRAMING)	/* what one pull lets in */

struct rec {
	uint32_t	delivered[8192];
	unsigned	n_delivered;
	unsigned	pull_pkts, pulls, acks, cum_acks, data;
	uint32_t	pull_no, last_cum;
	uint32_t	pull_ack;	/* the last PULL's cumulative ack ... */
	uint8_t		pull_flags;	/* ... and flags */
	uint8_t		ack_flags;	/* the flags of the last frame with a
					 * cumulative ack, PULL or ACK */
	bool		on_the_way;	/* deliveries not yet up the stack */
};

static struct eq_rx rxmap[EQDS_MAX_PEERS];

static void rec_send_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	((struct rec *)ctx)->data++;
}

static void rec_send_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	struct rec *r = ctx;

	if (h->type == EQ_T_PULL) {
		r->pull_pkts++;
		r->pulls += h->pull - r->pull_no;
		r->pull_no = h->pull;
		r->pull_ack = h->seq_ack;
		r->pull_flags = h->flags;
		r->ack_flags = h->flags;
	} else if (h->type == EQ_T_ACK && (h->flags & EQ_F_CUM)) {
		r->cum_acks++;
		r->last_cum = h->seq_ack;
		r->ack_flags = h->flags;
	} else if (h->type == EQ_T_ACK) {
		r->acks++;
	}
}

static void rec_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	struct rec *r = ctx;
	uint32_t seq;

	memcpy(&seq, p->data, sizeof(seq));
	assert_true(r->n_delivered < 8192);
	r->delivered[r->n_delivered++] = seq;
}

static bool rec_delivered(void *ctx)
{
	return !((struct rec *)ctx)->on_the_way;
}

struct fx {
	struct rec	rec;
	struct eqt_pool	pool;
	struct eqds	*e;
	uint64_t	now;
};

static struct fx *fx_new_delay(uint64_t link_bps, uint64_t ack_delay_ns)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct eqt_io io = { &f->rec, rec_send_data, rec_send_ctl, rec_deliver, rec_delivered };
	struct eqds_cfg cfg = {
		.link_bps = link_bps, .mtu = MTU, .framing = EQ_ETH_FRAMING, .bdp_bytes = 64 * MTU,
		.edge_limit = 100, .edge_ecn = 30, .reorder_limit = 64,
		.reorder_ns = 2000000, .rto_ns = 10000000, .drr_quantum = 3000,
		.idle_ns = 10000000000ULL, .ack_delay_ns = ack_delay_ns,
	};

	assert_non_null(f);
	memset(rxmap, 0, sizeof(rxmap));
	assert_int_equal(eqt_pool_init(&f->pool, 8192), 0);
	f->e = eqds_new(&cfg, &io, &f->pool, 0, 42);
	assert_non_null(f->e);
	eqds_set_rxmap(f->e, rxmap);
	return f;
}

static struct fx *fx_new(uint64_t link_bps)
{
	return fx_new_delay(link_bps, 0);
}

static void fx_free(struct fx *f)
{
	eqds_free(f->e);
	eqt_pool_fini(&f->pool);
	free(f);
}

/* DATA seq ISN + i through the agent (the first with SYN), wanting pulls
 * up to `target`. */
static void agent_data(struct fx *f, uint32_t i, uint32_t target)
{
	struct eqt_pkt *p = eqt_pkt_get(&f->pool);
	uint32_t seq = ISN + i;
	struct eqt_hdr h = { .type = EQ_T_DATA, .flags = i ? 0 : EQ_F_SYN, .seq_ack = seq,
			      .pull = target, .aux = MTU, .wire_len = MTU };

	assert_non_null(p);
	memcpy(p->data, &seq, sizeof(seq));
	p->len = MTU;
	eqds_wire(f->e, PEER, &h, p, f->now);
}

/* XDP, for DATA seq ISN + i of `bytes`: 1 if it delivered it. */
static int xdp_bytes(uint32_t i, uint32_t target, bool ce, uint32_t bytes)
{
	struct eq_rx *m = &rxmap[PEER];

	if (!eq_rx_take(&m->order.word, ISN + i))
		return 0;
	__sync_fetch_and_add(&m->pkts, 1);
	__sync_fetch_and_add(&m->bytes, bytes);
	if (ce)
		__sync_fetch_and_add(&m->ce, 1);
	if ((int32_t)(target - m->pull_target) > 0)
		m->pull_target = target;
	m->dirty = 1;
	return 1;
}

/* ... of a full-size packet. */
static int xdp(uint32_t i, uint32_t target, bool ce)
{
	return xdp_bytes(i, target, ce, MTU);
}

static union eq_rx_word word(void)
{
	return (union eq_rx_word){ .word = rxmap[PEER].order.word };
}

static struct eqds_peer_stats stats(struct fx *f)
{
	struct eqds_peer_stats st;

	eqds_peer_stats(f->e, PEER, &st);
	return st;
}

/* ---- receiver ---- */

static void direct__opens_in_order_once_established(void **state)
{
	struct fx *f = fx_new(1000000000ULL);

	assert_int_equal(word().word, 0);
	assert_false(xdp(0, 0, false));		/* nothing open before the tunnel */
	agent_data(f, 0, 4);
	assert_int_equal(f->rec.n_delivered, 1);
	assert_int_equal(word().parts.next, ISN + 1);
	assert_int_equal(word().parts.flags, EQ_RX_OPEN);
	fx_free(f);
}

/* XDP delivers 20 packets: the module counts them, owes their bytes (its
 * pulls follow), raises the pull target, and acknowledges all of them
 * with one cumulative ACK, ECE for the CE mark. */
static void direct__deliveries_are_pulled_for_and_acked(void **state)
{
	struct fx *f = fx_new(1000000000ULL);
	struct eqds_peer_stats st;
	struct eqt_hdr ce_ack;

	(void)ce_ack;
	agent_data(f, 0, 4);
	for (uint32_t i = 1; i <= 20; i++)
		assert_true(xdp(i, 0, i == 7));
	/* Relative target 4 from the SYN: pulls 0..4; these want 30. */
	rxmap[PEER].pull_target = 30;
	f->now += 1000;
	eqds_run(f->e, f->now);
	st = stats(f);
	assert_int_equal(st.rx_data, 21);
	assert_int_equal(st.rx_direct, 20);
	assert_int_equal(st.rx_expected, ISN + 21);
	assert_int_equal(st.pull_target, 30);
	assert_int_equal(f->rec.cum_acks, 1);
	assert_int_equal(f->rec.last_cum, ISN + 21);
	assert_int_equal(rxmap[PEER].dirty, 0);
	/* Pulls for the 21 packets' bytes, paced: all of them after 1 ms. */
	for (int k = 0; k < 100; k++) {
		f->now += 10000;
		eqds_run(f->e, f->now);
	}
	assert_int_equal(f->rec.pulls, 21);
	/* Nothing new: no more ACKs. */
	eqds_run(f->e, f->now + 1000);
	assert_int_equal(f->rec.cum_acks, 1);
	fx_free(f);
}

/* A pull target XDP kept from an earlier tunnel (an agent before a
 * restart: another pull numbering) is not this one's: the word opens
 * with the module's own target, so that XDP's deliveries raise it from
 * there, and the module pulls for what the sender asked, not for every
 * packet that came. */
static void direct__a_stale_target_is_not_taken(void **state)
{
	struct fx *f = fx_new(1000000000ULL);

	rxmap[PEER].pull_target = 0x40000000;	/* far ahead, from before */
	agent_data(f, 0, 4);			/* pulls 0..4 asked; the word opens */
	assert_int_equal(word().parts.flags, EQ_RX_OPEN);
	assert_int_equal(rxmap[PEER].pull_target, stats(f).pull_target);
	for (uint32_t i = 1; i <= 20; i++)
		assert_true(xdp(i, 0, false));	/* fast sends: asking nothing more */
	for (int k = 0; k < 100; k++) {
		f->now += 10000;
		eqds_run(f->e, f->now);
	}
	assert_int_equal(stats(f).pull_target, 4);
	assert_int_equal(f->rec.pulls, 4);	/* what was asked, not 21 */
	fx_free(f);
}

/* One look, one frame to the peer.  XDP delivered three packets (one
 * CE-marked) while the agent slept: one PULL grants the pulls for all
 * four packets so far (the SYN's too), and its cumulative ack frees the
 * three with ECE, no ACK beside it (it sent an ACK and a PULL for each
 * pull back to back; on the fabric, one flow's receiver sent 1.2 control
 * frames per DATA).  A look with no pull due (the pacer's bucket
 * spent) says the ACK alone. */
static void direct__one_look_one_frame(void **state)
{
	struct fx *f = fx_new(100000000ULL);	/* 100 Mbit/s: one pull per batch */
	unsigned pkts, pulls, acks;

	agent_data(f, 0, 40);
	f->now += 1000;
	eqds_run(f->e, f->now);
	pkts = f->rec.pull_pkts, pulls = f->rec.pulls, acks = f->rec.cum_acks;
	for (uint32_t i = 1; i <= 3; i++)
		assert_true(xdp(i, 40, i == 2));
	f->now += 5000000;
	eqds_run(f->e, f->now);
	assert_int_equal(f->rec.pull_pkts, pkts + 1);
	assert_int_equal(f->rec.pulls, pulls + 4);
	assert_int_equal(f->rec.pull_ack, ISN + 4);
	assert_int_equal(f->rec.pull_flags, EQ_F_ECE);
	assert_int_equal(f->rec.cum_acks, acks);
	assert_int_equal(stats(f).pull_pkts, f->rec.pull_pkts);
	/* What is left in the bucket goes to four more, in one PULL ... */
	for (uint32_t i = 4; i <= 7; i++)
		assert_true(xdp(i, 40, false));
	f->now += 1000;
	eqds_run(f->e, f->now);
	assert_int_equal(f->rec.pull_pkts, pkts + 2);
	assert_int_equal(f->rec.pull_flags, 0);
	assert_int_equal(f->rec.cum_acks, acks);
	/* ... and with the bucket empty, the next delivery's ACK goes alone. */
	assert_true(xdp(8, 40, false));
	f->now += 1000;
	eqds_run(f->e, f->now);
	assert_int_equal(f->rec.pull_pkts, pkts + 2);
	assert_int_equal(f->rec.cum_acks, acks + 1);
	assert_int_equal(f->rec.last_cum, ISN + 9);
	fx_free(f);
}

/* What XDP needs to time the doorbell (rx.h): the word opens with
 * wake_bytes, what the link delivers in half the ack delay but at most one
 * MTU (a full-size packet rings at once), and every look leaves read_bytes
 * at the bytes it read. */
static void direct__the_agent_says_when_to_ring(void **state)
{
	struct fx *f = fx_new_delay(1000000000ULL, 4000);	/* 250 bytes in 2 us */

	agent_data(f, 0, 4);
	assert_int_equal(rxmap[PEER].wake_bytes, 250);
	assert_int_equal(rxmap[PEER].read_bytes, 0);
	assert_true(xdp(1, 0, false));
	assert_true(xdp(2, 0, false));
	f->now += 1000;
	eqds_run(f->e, f->now);
	assert_int_equal(rxmap[PEER].read_bytes, 2 * MTU);
	assert_int_equal(rxmap[PEER].dirty, 0);
	fx_free(f);
	f = fx_new_delay(10000000000ULL, 100000);	/* 62,500 bytes: one MTU */
	agent_data(f, 0, 4);
	assert_int_equal(rxmap[PEER].wake_bytes, MTU);
	fx_free(f);
	f = fx_new(10000000000ULL);			/* no delay: always */
	agent_data(f, 0, 4);
	assert_int_equal(rxmap[PEER].wake_bytes, 0);
	fx_free(f);
}

/* Before it sleeps the agent tells XDP when it looks next (look_ns), and
 * does not sleep if XDP delivered something meanwhile; awake, it says 1
 * (XDP then arms no timer: rx.h). */
static void direct__the_agent_says_when_it_looks(void **state)
{
	struct fx *f = fx_new_delay(1000000000ULL, 300000);

	agent_data(f, 0, 4);
	assert_int_equal(rxmap[PEER].look_ns, 1);		/* opened awake */
	assert_false(eqds_rx_direct_sleep(f->e, 5000000));
	assert_int_equal(rxmap[PEER].look_ns, 5000000);
	eqds_rx_direct_awake(f->e);
	assert_int_equal(rxmap[PEER].look_ns, 1);
	assert_true(xdp(1, 0, false));				/* dirty */
	assert_true(eqds_rx_direct_sleep(f->e, 7000000));	/* no sleep */
	assert_int_equal(rxmap[PEER].look_ns, 1);
	f->now += 1000;
	eqds_run(f->e, f->now);					/* reads it */
	assert_false(eqds_rx_direct_sleep(f->e, 7000000));
	assert_int_equal(rxmap[PEER].look_ns, 7000000);
	fx_free(f);
}

/* A bulk flow XDP delivers is polled (cfg.rx_poll_ns, rx.h): the word
 * opens with poll_ns, so that XDP need not ring while the agent looks
 * that soon, and a look that found a full-size packet or more asks to
 * look again within it; one that found nothing new does not, nor does a
 * module that does not poll. */
/* The module's next deadline after XDP delivered three full-size packets
 * at `f->now` + 1 us, once the pulls for them are out. */
static uint64_t after_bulk(struct fx *f)
{
	agent_data(f, 0, 4);
	for (uint32_t i = 1; i <= 3; i++)
		assert_true(xdp(i, 0, false));
	f->now += 1000;
	f->now = eqds_run(f->e, f->now);	/* the pull pacer's next */
	return eqds_run(f->e, f->now);
}

static void direct__a_bulk_flow_is_polled(void **state)
{
	struct fx *f = fx_new_delay(10000000000ULL, 300000);	/* wake_bytes: one MTU */
	uint64_t next;

	f->e->cfg.rx_poll_ns = 50000;
	next = after_bulk(f);
	assert_int_equal(rxmap[PEER].poll_ns, 50000);
	assert_int_equal(next, 1000 + 50000);
	/* The poll: nothing new came, so none after it. */
	f->now = next;
	assert_true(eqds_run(f->e, f->now) > f->now + 50000);
	/* More comes: polled again. */
	assert_true(xdp(4, 0, false));
	f->now += 1000;
	assert_int_equal(eqds_run(f->e, f->now), f->now + 50000);
	fx_free(f);
	/* A module that does not poll leaves it to XDP's doorbell. */
	f = fx_new_delay(10000000000ULL, 300000);
	next = after_bulk(f);
	assert_int_equal(rxmap[PEER].poll_ns, 0);
	assert_true(next > f->now + 50000);
	fx_free(f);
}

/* Less than a full-size packet since the last look may have waited the
 * ACK delay: the frame that acks it says so (EQ_F_HELD), and the sender
 * takes no RTT sample from it.  A full-size packet rang at once: no
 * flag; nor without an ACK delay. */
static void direct__a_late_ack_says_it_was_held(void **state)
{
	for (int delay = 0; delay < 2; delay++) {
		struct fx *f = fx_new_delay(1000000000ULL, delay ? 300000 : 0);

		agent_data(f, 0, 40);
		f->now += 1000;
		eqds_run(f->e, f->now);
		assert_true(word().parts.flags & EQ_RX_OPEN);
		assert_true(xdp_bytes(1, 40, false, 100));
		assert_true(xdp_bytes(2, 40, false, 100));
		f->now += 300000;
		eqds_run(f->e, f->now);
		assert_int_equal(f->rec.ack_flags & EQ_F_HELD, delay ? EQ_F_HELD : 0);
		assert_true(xdp(3, 40, false));
		f->now += 1000;
		eqds_run(f->e, f->now);
		assert_int_equal(f->rec.ack_flags & EQ_F_HELD, 0);
		assert_int_equal(stats(f).rx_direct, 3);
		fx_free(f);
	}
}

/* Out of order through the agent: the word closes at once, XDP delivers
 * nothing while the packet is held, the gap filled drains the queue, and
 * the word opens past it. */
static void direct__held_packets_close_the_word(void **state)
{
	struct fx *f = fx_new(1000000000ULL);

	agent_data(f, 0, 4);
	assert_true(xdp(1, 0, false));
	agent_data(f, 3, 4);			/* 2 is missing */
	assert_int_equal(word().parts.flags, 0);
	assert_int_equal(word().parts.next, 0);
	assert_false(xdp(2, 0, false));		/* closed: the agent's */
	agent_data(f, 2, 4);
	assert_int_equal(f->rec.n_delivered, 3);	/* 0, 2, 3 by the agent */
	assert_int_equal(f->rec.delivered[1], ISN + 2);
	assert_int_equal(f->rec.delivered[2], ISN + 3);
	assert_int_equal(word().parts.flags, EQ_RX_OPEN);
	assert_int_equal(word().parts.next, ISN + 4);
	assert_true(xdp(4, 0, false));
	eqds_run(f->e, f->now);
	assert_int_equal(stats(f).rx_data, 5);
	assert_int_equal(stats(f).rx_expected, ISN + 5);
	assert_int_equal(stats(f).rx_dup, 0);
	fx_free(f);
}

/* The agent delivered the packets it held; while they are on their way up
 * (the host socket, the internal veth, tc_deliver), the word stays shut,
 * and what comes meanwhile goes up through the agent behind them: XDP's
 * next delivery would overtake them.  It opens at the lease sync after
 * they are up.  Opened at once, it let the inner TCP see 2,100
 * out-of-order arrivals in 4 s on a veth pair. */
static void direct__opens_only_once_the_agents_deliveries_are_up(void **state)
{
	struct fx *f = fx_new(1000000000ULL);

	agent_data(f, 0, 4);
	assert_int_equal(word().parts.flags, EQ_RX_OPEN);	/* nothing on its way */
	assert_true(xdp(1, 0, false));
	agent_data(f, 3, 4);			/* 2 is missing: closed */
	f->rec.on_the_way = true;		/* the agent's deliveries are */
	agent_data(f, 2, 4);
	assert_int_equal(f->rec.n_delivered, 3);	/* 0, 2, 3 */
	assert_int_equal(word().parts.flags, 0);	/* nothing held, but shut */
	assert_false(xdp(4, 0, false));
	agent_data(f, 4, 8);			/* in order, through the agent */
	assert_int_equal(f->rec.n_delivered, 4);
	assert_int_equal(f->rec.delivered[3], ISN + 4);
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.flags, 0);	/* still on their way */
	f->rec.on_the_way = false;
	eqds_lease_sync(f->e, f->now);
	assert_int_equal(word().parts.flags, EQ_RX_OPEN);
	assert_int_equal(word().parts.next, ISN + 5);
	assert_true(xdp(5, 0, false));
	eqds_run(f->e, f->now);
	assert_int_equal(stats(f).rx_data, 6);
	assert_int_equal(stats(f).rx_dup, 0);
	fx_free(f);
}

/* XDP took a seq, the agent closed the word before XDP added its count:
 * the count is taken at the next look all the same, and the packet is
 * in the order the agent continues from. */
static void direct__a_count_after_the_close_is_taken(void **state)
{
	struct fx *f = fx_new(1000000000ULL);
	struct eq_rx *m = &rxmap[PEER];

	agent_data(f, 0, 4);
	assert_true(eq_rx_take(&m->order.word, ISN + 1));	/* XDP, halfway */
	agent_data(f, 3, 4);					/* closes at ISN + 2 */
	assert_int_equal(stats(f).rx_expected, ISN + 2);
	__sync_fetch_and_add(&m->pkts, 1);			/* XDP, the rest */
	__sync_fetch_and_add(&m->bytes, MTU);
	m->dirty = 1;
	eqds_run(f->e, f->now);
	assert_int_equal(stats(f).rx_data, 3);
	assert_int_equal(stats(f).rx_direct, 1);
	assert_int_equal(stats(f).rx_expected, ISN + 2);	/* 2 still missing */
	fx_free(f);
}

/* A flushed tunnel closes its word: nothing is delivered past the state
 * the agent dropped. */
static void direct__flush_closes_the_word(void **state)
{
	struct fx *f = fx_new(1000000000ULL);

	agent_data(f, 0, 4);
	assert_int_equal(word().parts.flags, EQ_RX_OPEN);
	eqds_flush(f->e, PEER, f->now);
	assert_int_equal(word().parts.flags, 0);
	assert_false(xdp(1, 0, false));
	fx_free(f);
}

/* A sender that restarted starts a new epoch with an RTS (it has no
 * credit), which carries no packet.  The word, open at the old epoch's
 * next seq, closes all the same, and opens again at the new one: left
 * open, the next look put the old next back, and the new epoch's DATA
 * was refused as out of window (a restarted agent carried nothing). */
static void direct__an_rts_of_a_new_epoch_moves_the_word(void **state)
{
	struct fx *f = fx_new(1000000000ULL);
	struct eqt_hdr rts = { .type = EQ_T_RTS, .flags = EQ_F_SYN, .pull = 4 };
	struct eqt_pkt *p;
	uint32_t isn2;

	agent_data(f, 0, 4);
	assert_true(xdp(1, 0, false));
	isn2 = eqt_epoch_after(stats(f).rx_expected);	/* where the next epoch starts */
	rts.seq_ack = isn2;
	eqds_wire(f->e, PEER, &rts, NULL, f->now);
	assert_int_equal(stats(f).rx_expected, isn2);
	assert_int_equal(word().parts.next, isn2);
	assert_int_equal(word().parts.flags, EQ_RX_OPEN);
	f->now += 1000;
	eqds_run(f->e, f->now);			/* the look that put it back */
	assert_int_equal(stats(f).rx_expected, isn2);
	assert_int_equal(stats(f).rx_direct, 1);	/* XDP's, still counted */
	p = eqt_pkt_get(&f->pool);
	assert_non_null(p);
	memcpy(p->data, &isn2, sizeof(isn2));
	p->len = MTU;
	rts = (struct eqt_hdr){ .type = EQ_T_DATA, .flags = EQ_F_SYN, .seq_ack = isn2,
				.aux = MTU, .wire_len = MTU };
	eqds_wire(f->e, PEER, &rts, p, f->now);
	assert_int_equal(stats(f).rx_bad_seq, 0);
	assert_int_equal(f->rec.delivered[f->rec.n_delivered - 1], isn2);
	assert_int_equal(word().parts.next, isn2 + 1);
	fx_free(f);
}

/* ---- the pull pacer ---- */

/* At 10 Gbit/s a PULL carries what the link drains in 16 us (13 pulls of
 * 1538 wire bytes); over 2 ms the pulls stay within the link rate and its
 * burst, counted in wire bytes. */
static void pull__several_per_pull_at_high_rates(void **state)
{
	struct fx *f = fx_new(10000000000ULL);
	uint64_t bound;

	agent_data(f, 0, 4);
	for (uint32_t i = 1; i < 2000; i++)
		assert_true(xdp(i, 0, false));
	rxmap[PEER].pull_target = 1000000;
	for (int k = 0; k < 200; k++) {
		f->now += 10000;
		eqds_run(f->e, f->now);
	}
	bound = 10000000000ULL / 8 * f->now / 1000000000ULL / WIRE + 150 * 10000 / 8 / WIRE + 1;
	assert_true(f->rec.pulls <= bound);
	assert_true(f->rec.pulls >= bound * 9 / 10);
	assert_true(f->rec.pull_pkts * 10 <= f->rec.pulls);	/* about 13 each */
	assert_int_equal(stats(f).pull_pkts, f->rec.pull_pkts);
	assert_int_equal(stats(f).pulls_sent, f->rec.pulls);
	fx_free(f);
}

/* Control frames reach the same link: their bytes and framing come out
 * of the pulls' budget. */
static void pull__control_frames_use_the_budget(void **state)
{
	unsigned pulls[2];

	for (int with = 0; with < 2; with++) {
		struct fx *f = fx_new(1000000000ULL);

		agent_data(f, 0, 4);
		for (uint32_t i = 1; i < 2000; i++)
			assert_true(xdp(i, 0, false));
		rxmap[PEER].pull_target = 1000000;
		for (int k = 0; k < 1000; k++) {
			f->now += 10000;
			/* 625 wire bytes of control frames per 10 us: half
			 * the link's 1250 */
			if (with) {
				struct eqt_hdr h = { .type = EQ_T_ACK, .seq_ack = 0,
						      .wire_len = 625 - EQ_ETH_FRAMING };

				eqds_wire(f->e, PEER + 1, &h, NULL, f->now);
			}
			eqds_run(f->e, f->now);
		}
		pulls[with] = f->rec.pulls;
		fx_free(f);
	}
	/* 10 ms at 1 Gbit/s: 812 pulls alone, about 406 beside the ACKs. */
	assert_in_range(pulls[0], 790, 813);
	assert_in_range(pulls[1], 380, 420);
}

/* ---- sender: cumulative ACKs ---- */

struct sfx {
	struct rec	rec;
	struct eqt_pool	pool;
	struct eqds	*e;
};

static struct eqt_pkt *spkt(struct sfx *f)
{
	struct eqt_pkt *p = eqt_pkt_get(&f->pool);

	assert_non_null(p);
	memset(p->data, 0, 64);
	p->len = MTU;
	p->cls = EQT_CLS_TCP;
	return p;
}

static void sctl(struct sfx *f, uint8_t type, uint8_t flags, uint32_t ack, uint32_t pull,
		 uint64_t now)
{
	struct eqt_hdr h = { .type = type, .flags = flags, .seq_ack = ack, .pull = pull };

	eqds_wire(f->e, PEER, &h, NULL, now);
}

/* A sender with six packets sent at 100 us; their first seq. */
static uint32_t sfx_six_sent(struct sfx *f)
{
	static struct eqt_io io;
	struct eqds_cfg cfg = {
		.link_bps = 1000000000ULL, .mtu = MTU, .framing = EQ_ETH_FRAMING, .bdp_bytes = 8 * MTU,
		.edge_limit = 100, .edge_ecn = 30, .reorder_limit = 64, .reorder_ns = 2000000,
		.rto_ns = 10000000, .drr_quantum = 3000, .idle_ns = 10000000000ULL,
	};
	struct eqds_peer_stats st;

	io = (struct eqt_io){ &f->rec, rec_send_data, rec_send_ctl, rec_deliver, NULL };
	assert_int_equal(eqt_pool_init(&f->pool, 1024), 0);
	f->e = eqds_new(&cfg, &io, &f->pool, 0, 42);
	for (int i = 0; i < 6; i++)
		assert_int_equal(eqds_local(f->e, PEER, spkt(f), 0), 0);
	eqds_run(f->e, 100000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(f->rec.data, 6);
	assert_int_equal(st.inflight_bytes, 6 * MTU);
	return st.tx_epoch;
}

static void cum_ack__frees_everything_before(void **state)
{
	struct sfx f = { 0 };
	struct eqds_peer_stats st;
	uint32_t isn = sfx_six_sent(&f);
	/* The receiver's first word, then "everything before isn + 4 came". */
	sctl(&f, EQ_T_ACK, 0, isn - 1, 0, 200000);
	sctl(&f, EQ_T_ACK, EQ_F_CUM, isn + 4, 0, 300000);
	eqds_peer_stats(f.e, PEER, &st);
	assert_int_equal(st.inflight_bytes, 2 * MTU);
	/* Not cumulative: one packet only. */
	sctl(&f, EQ_T_ACK, 0, isn + 5, 0, 300000);
	eqds_peer_stats(f.e, PEER, &st);
	assert_int_equal(st.inflight_bytes, MTU);
	/* A cumulative ACK behind what was acked frees nothing more, and
	 * one past it everything. */
	sctl(&f, EQ_T_ACK, EQ_F_CUM, isn + 2, 0, 300000);
	eqds_peer_stats(f.e, PEER, &st);
	assert_int_equal(st.inflight_bytes, MTU);
	sctl(&f, EQ_T_ACK, EQ_F_CUM, isn + 6, 0, 300000);
	eqds_peer_stats(f.e, PEER, &st);
	assert_int_equal(st.inflight_bytes, 0);
	assert_int_equal(st.rto_fired, 0);
	eqds_free(f.e);
	eqt_pool_fini(&f.pool);
}

/* A cumulative ACK the receiver held (EQ_F_HELD) frees what it covers
 * but its timing is no round trip: 5 ms of it would have been the
 * tunnel's RTT, and the BDP with it.  The next one that was not held is
 * a sample. */
static void cum_ack__a_held_one_is_no_rtt_sample(void **state)
{
	struct sfx f = { 0 };
	struct eqds_peer_stats st;
	uint32_t isn = sfx_six_sent(&f);

	sctl(&f, EQ_T_ACK, EQ_F_CUM | EQ_F_HELD, isn + 3, 0, 5100000);
	eqds_peer_stats(f.e, PEER, &st);
	assert_int_equal(st.inflight_bytes, 3 * MTU);
	assert_int_equal(st.srtt_us, 0);
	/* The same as a PULL's cumulative ack. */
	sctl(&f, EQ_T_PULL, EQ_F_HELD, isn + 4, 1, 5100000);
	eqds_peer_stats(f.e, PEER, &st);
	assert_int_equal(st.inflight_bytes, 2 * MTU);
	assert_int_equal(st.srtt_us, 0);
	sctl(&f, EQ_T_ACK, EQ_F_CUM, isn + 6, 0, 300000);
	eqds_peer_stats(f.e, PEER, &st);
	assert_int_equal(st.inflight_bytes, 0);
	assert_int_equal(st.srtt_us, 200);
	eqds_free(f.e);
	eqt_pool_fini(&f.pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(direct__opens_in_order_once_established),
		cmocka_unit_test(direct__deliveries_are_pulled_for_and_acked),
		cmocka_unit_test(direct__a_stale_target_is_not_taken),
		cmocka_unit_test(direct__one_look_one_frame),
		cmocka_unit_test(direct__the_agent_says_when_to_ring),
		cmocka_unit_test(direct__the_agent_says_when_it_looks),
		cmocka_unit_test(direct__a_bulk_flow_is_polled),
		cmocka_unit_test(direct__a_late_ack_says_it_was_held),
		cmocka_unit_test(direct__held_packets_close_the_word),
		cmocka_unit_test(direct__opens_only_once_the_agents_deliveries_are_up),
		cmocka_unit_test(direct__a_count_after_the_close_is_taken),
		cmocka_unit_test(direct__flush_closes_the_word),
		cmocka_unit_test(direct__an_rts_of_a_new_epoch_moves_the_word),
		cmocka_unit_test(pull__several_per_pull_at_high_rates),
		cmocka_unit_test(pull__control_frames_use_the_budget),
		cmocka_unit_test(cum_ack__frees_everything_before),
		cmocka_unit_test(cum_ack__a_held_one_is_no_rtt_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
