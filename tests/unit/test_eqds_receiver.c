// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/eqds/receiver.c through the module's interface, one
 * receiver with a mocked clock and recording I/O:
 *  - the reorder queue: any arrival order within the queue is delivered in
 *    order; a gap is given up exactly at reorder_ns; duplicates and late
 *    packets are counted, never delivered; a random mix of reordering,
 *    loss and duplication never delivers out of order or twice, and every
 *    packet is either delivered or counted;
 *  - the Active Sender List and the pull pacer: closed-loop senders (each
 *    PULL answered by one DATA) get equal pulls under FIFO and pulls in
 *    proportion to their weights under the weighted policy, and the pulls
 *    never exceed the link rate plus the pacer's burst;
 *  - epochs: a first-RTT burst of SYN packets is one epoch however long
 *    it is; an RTS is answered without acknowledging what has not come;
 *  - losses: a seq still missing a loss window after a later one came is
 *    NACKed as lost, once, and a trimmed one is not; its first send coming
 *    late brings no pulls (the sender took its credit back) and widens the
 *    window; loss_ns 0 turns it off;
 *  - what a packet may change: DATA far from the next seq in order and a
 *    SYN further ahead than a new epoch starts are refused, counted, and
 *    change nothing; every RST echoes the seq that drew it.
 */
#include "testlib.h"
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "eqds.h"
#include "eqds_int.h"

#define MTU		1500
#define ISN		(7u << 10)	/* an epoch: low 10 bits 0 */
#define NPEERS		4

struct rec {
	uint32_t	delivered[4096];
	unsigned	n_delivered;
	unsigned	pulls[NPEERS];	/* pulls granted (a PULL may grant several) */
	unsigned	pull_pkts[NPEERS];
	uint32_t	pull_no[NPEERS];	/* the last PULL's pull number */
	unsigned	acks, nacks, rsts;
	uint32_t	lost[64];	/* seqs NACKed with EQ_F_LOST, in order */
	unsigned	n_lost;
	uint32_t	pull_acked;	/* the highest cumulative ack of a PULL, less ISN */
	uint32_t	last_ack;	/* the seq of the last ACK */
	uint32_t	last_ack_echo;	/* ... its TSTAMP echo (0: none) */
	uint32_t	last_ack_busy;	/* ... its busy time (aux, ns) */
	uint32_t	rst_floor, rst_echo;	/* the last RST's */
};

static void rec_send_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	fail_msg("a receiver-only test sent data");
}

static void rec_send_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	struct rec *r = ctx;

	if (h->type == EQ_T_PULL && peer < NPEERS) {
		/* Pull numbers count from 0 in each tunnel the receiver
		 * makes: one that went back started again. */
		r->pulls[peer] += (int32_t)(h->pull - r->pull_no[peer]) > 0 ? h->pull - r->pull_no[peer]
									     : h->pull;
		r->pull_no[peer] = h->pull;
		r->pull_pkts[peer]++;
		if (h->seq_ack - ISN > r->pull_acked)
			r->pull_acked = h->seq_ack - ISN;
	} else if (h->type == EQ_T_ACK) {
		r->acks++;
		r->last_ack_echo = h->opts & EQT_OPT(EQ_OPT_TSTAMP) ? h->ts_echo : 0;
		r->last_ack_busy = h->aux;
		r->last_ack = h->seq_ack;
	}
	else if (h->type == EQ_T_NACK && (h->flags & EQ_F_LOST)) {
		assert_true(r->n_lost < 64);
		r->lost[r->n_lost++] = h->seq_ack;
	} else if (h->type == EQ_T_NACK)
		r->nacks++;
	else if (h->type == EQ_T_RST) {
		r->rsts++;
		r->rst_floor = h->seq_ack;
		r->rst_echo = h->pull;
	}
}

static void rec_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	struct rec *r = ctx;
	uint32_t seq;

	memcpy(&seq, p->data, sizeof(seq));	/* the test wrote its seq there */
	assert_true(r->n_delivered < 4096);
	r->delivered[r->n_delivered++] = seq;
}

struct fx {
	struct rec	rec;
	struct eqt_pool	pool;
	struct eqds	*e;
	struct eqds_cfg	cfg;
};

static struct fx *fx_new(uint32_t reorder_limit, enum eqds_asl_policy policy)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct eqt_io io = { &f->rec, rec_send_data, rec_send_ctl, rec_deliver, NULL };

	assert_non_null(f);
	f->cfg = (struct eqds_cfg){
		.link_bps = 1000000000ULL, .mtu = MTU, .framing = EQ_ETH_FRAMING, .bdp_bytes = 8 * MTU,
		.edge_limit = 100, .edge_ecn = 30, .reorder_limit = reorder_limit,
		.reorder_ns = 2000000, .rto_ns = 10000000, .drr_quantum = 3000,
		.policy = policy, .idle_ns = 10000000000ULL,
	};
	assert_int_equal(eqt_pool_init(&f->pool, 8192), 0);
	f->e = eqds_new(&f->cfg, &io, &f->pool, 0, 42);
	assert_non_null(f->e);
	return f;
}

static void fx_free(struct fx *f)
{
	eqds_free(f->e);
	eqt_pool_fini(&f->pool);
	free(f);
}

/* DATA number i of the epoch from peer, SYN set (zero-RTT: the sender
 * keeps it until it hears back; it changes nothing once established),
 * from a backlogged sender: it wants a BDP (8 pulls) beyond what it has
 * heard (relative while SYN is set). */
/* DATA number i, of the first RTT (SYN): it asks for `want` pulls. */
static void data_wanting(struct fx *f, uint32_t peer, uint32_t i, uint32_t want, uint64_t now)
{
	struct eqt_pkt *p = eqt_pkt_get(&f->pool);
	uint32_t seq = ISN + i;
	struct eqt_hdr h = { .type = EQ_T_DATA, .flags = EQ_F_SYN, .seq_ack = seq,
			      .pull = want, .aux = MTU };

	assert_non_null(p);
	memcpy(p->data, &seq, sizeof(seq));
	p->len = MTU;
	eqds_wire(f->e, peer, &h, p, now);
}

static void data(struct fx *f, uint32_t peer, uint32_t i, uint64_t now)
{
	data_wanting(f, peer, i, 8, now);
}

/* DATA number i with the given flags (EQ_F_RTX: a resend), or its
 * trimmed header (type EQ_T_TRIMMED, no packet). */
static void data_as(struct fx *f, uint32_t peer, uint32_t i, uint8_t type, uint8_t flags,
		    uint64_t now)
{
	struct eqt_pkt *p = NULL;
	uint32_t seq = ISN + i;
	struct eqt_hdr h = { .type = type, .flags = flags, .seq_ack = seq, .pull = 8, .aux = MTU };

	if (type == EQ_T_DATA) {
		p = eqt_pkt_get(&f->pool);
		assert_non_null(p);
		memcpy(p->data, &seq, sizeof(seq));
		p->len = MTU;
	}
	eqds_wire(f->e, peer, &h, p, now);
}

static struct eqds_peer_stats stats(struct fx *f, uint32_t peer)
{
	struct eqds_peer_stats st;

	eqds_peer_stats(f->e, peer, &st);
	return st;
}

static void assert_delivered_in_order(const struct rec *r, uint32_t first, unsigned n)
{
	assert_int_equal(r->n_delivered, n);
	for (unsigned i = 0; i < n; i++)
		if (r->delivered[i] != ISN + first + i)
			fail_msg("delivery %u: seq +%u, wanted +%u", i, r->delivered[i] - ISN, first + i);
}

/* ---- reorder queue ---- */

static void reorder__any_order_within_the_queue_delivered_in_order(void **state)
{
	rng_state = 1;

	for (int round = 0; round < 50; round++) {
		struct fx *f = fx_new(32, EQDS_ASL_FIFO);
		uint32_t order[256];

		/* Blocks of 16, each shuffled: never more than 15 ahead of a gap. */
		for (uint32_t i = 0; i < 256; i++)
			order[i] = i;
		for (uint32_t b = 0; b < 256; b += 16)
			for (uint32_t i = 15; i > 0; i--) {
				uint32_t j = (uint32_t)(rnd64() % (i + 1));
				uint32_t t = order[b + i];

				order[b + i] = order[b + j];
				order[b + j] = t;
			}
		for (uint32_t i = 0; i < 256; i++)
			data(f, 1, order[i], 1000 + i);
		assert_delivered_in_order(&f->rec, 0, 256);
		struct eqds_peer_stats st = stats(f, 1);

		assert_int_equal(st.reorder_pkts, 0);
		assert_int_equal(st.reorder_gaps, 0);
		assert_int_equal(st.rx_dup, 0);
		assert_int_equal(st.rx_data, 256);
		assert_int_equal(f->rec.acks, 256);	/* one ACK per DATA */
		fx_free(f);
	}
}

static void reorder__gap_given_up_exactly_at_the_timeout(void **state)
{
	struct fx *f = fx_new(32, EQDS_ASL_FIFO);
	uint64_t t0 = 5000000;

	data(f, 1, 0, t0);
	for (uint32_t i = 2; i < 6; i++)
		data(f, 1, i, t0 + i);	/* 1 is missing: the gap opens at t0 + 2 */
	assert_delivered_in_order(&f->rec, 0, 1);
	assert_int_equal(stats(f, 1).reorder_pkts, 4);
	eqds_run(f->e, t0 + 2 + f->cfg.reorder_ns - 1);
	assert_int_equal(f->rec.n_delivered, 1);
	eqds_run(f->e, t0 + 2 + f->cfg.reorder_ns);
	assert_int_equal(f->rec.n_delivered, 5);
	for (uint32_t i = 1; i < 5; i++)
		assert_int_equal(f->rec.delivered[i], ISN + i + 1);
	assert_int_equal(stats(f, 1).reorder_gaps, 1);
	/* The lost one, late: behind the queue, counted and not delivered. */
	data(f, 1, 1, t0 + 3 * f->cfg.reorder_ns);
	assert_int_equal(f->rec.n_delivered, 5);
	assert_int_equal(stats(f, 1).rx_dup, 1);
	fx_free(f);
}

static void reorder__duplicates_counted_not_delivered(void **state)
{
	struct fx *f = fx_new(32, EQDS_ASL_FIFO);

	data(f, 1, 0, 1);
	data(f, 1, 1, 2);
	data(f, 1, 1, 3);	/* in-order duplicate */
	data(f, 1, 3, 4);
	data(f, 1, 3, 5);	/* duplicate of a held packet */
	assert_delivered_in_order(&f->rec, 0, 2);
	assert_int_equal(stats(f, 1).rx_dup, 2);
	assert_int_equal(stats(f, 1).reorder_pkts, 1);
	data(f, 1, 2, 6);
	assert_delivered_in_order(&f->rec, 0, 4);
	fx_free(f);
}

static void reorder__beyond_the_queue_gives_up_the_oldest_gap(void **state)
{
	struct fx *f = fx_new(8, EQDS_ASL_FIFO);

	data(f, 1, 0, 1);
	data(f, 1, 2, 2);	/* held, gap at 1 */
	data(f, 1, 12, 3);	/* 11 ahead of the gap, the queue holds 8 */
	/* 2 went up when the gap at 1 was given up; 12 is held, the queue
	 * now starting at most 7 behind it. */
	assert_true(f->rec.n_delivered >= 2);
	assert_int_equal(f->rec.delivered[0], ISN + 0);
	assert_int_equal(f->rec.delivered[1], ISN + 2);
	assert_true(stats(f, 1).reorder_gaps >= 1);
	eqds_run(f->e, 3 + f->cfg.reorder_ns);
	assert_int_equal(f->rec.delivered[f->rec.n_delivered - 1], ISN + 12);
	fx_free(f);
}

/* Property: random reordering (displacement < 3x the queue), loss and
 * duplication, random time steps.  Never out of order, never twice; at the
 * end every distinct packet that arrived was delivered or counted. */
static void reorder__random_arrivals_keep_order_and_account(void **state)
{
	rng_state = 99;

	for (int round = 0; round < 200; round++) {
		struct fx *f = fx_new(16, EQDS_ASL_FIFO);
		static uint32_t arr[1200];
		static bool seen[600];
		unsigned n = 0, distinct = 0;
		uint64_t now = 1000;

		memset(seen, 0, sizeof(seen));
		for (uint32_t i = 0; i < 600; i++) {
			if (rnd64() % 100 < 3)
				continue;			/* lost */
			arr[n++] = i;
			if (rnd64() % 100 < 3)
				arr[n++] = i;			/* duplicated */
		}
		for (unsigned i = 0; i + 1 < n; i++) {		/* local displacement */
			unsigned j = i + (unsigned)(rnd64() % 48);

			if (j < n && rnd64() % 4 == 0) {
				uint32_t t = arr[i];

				arr[i] = arr[j];
				arr[j] = t;
			}
		}
		for (unsigned i = 0; i < n; i++) {
			if (!seen[arr[i]])
				distinct++;
			seen[arr[i]] = true;
			now += rnd64() % 200000;	/* up to 0.2 ms */
			data(f, 1, arr[i], now);
			eqds_run(f->e, now);
		}
		/* Gaps are given up one at a time, each after its own timeout. */
		for (int k = 1; k <= 64 && stats(f, 1).reorder_pkts; k++)
			eqds_run(f->e, now + (uint64_t)k * f->cfg.reorder_ns);
		for (unsigned i = 1; i < f->rec.n_delivered; i++)
			if (!eq_seq_before(f->rec.delivered[i - 1], f->rec.delivered[i]))
				fail_msg("round %d: delivery %u (+%u) after +%u", round, i,
					 f->rec.delivered[i] - ISN, f->rec.delivered[i - 1] - ISN);
		struct eqds_peer_stats st = stats(f, 1);

		assert_int_equal(st.reorder_pkts, 0);
		/* Arrivals = delivered + duplicates (true ones, and late ones
		 * behind a gap that was given up). */
		assert_int_equal(f->rec.n_delivered + st.rx_dup, n);
		assert_true(f->rec.n_delivered <= distinct);
		fx_free(f);
	}
}

/* ---- Active Sender List and the pull pacer ---- */

/* Closed loop for `ms` milliseconds: each PULL to a peer is answered at
 * once by its next DATA; the first DATA of each peer opens the loop. */
/* Senders answer each PULL with one DATA at once; the receiver's module
 * runs every `step` ns (its agent's wake-ups); each sender opens with
 * `window` packets, each asking for as many pulls. */
static void closed_loop_window(struct fx *f, unsigned npeers, unsigned ms, uint64_t step,
			       uint32_t window)
{
	unsigned answered[NPEERS] = { 0 }, next[NPEERS] = { 0 };
	uint64_t now = 1000;

	for (uint32_t p = 1; p <= npeers; p++)
		for (unsigned k = 0; k < window; k++)	/* a first RTT's worth */
			data_wanting(f, p, next[p]++, window, now);
	for (; now < (uint64_t)ms * 1000000; now += step) {
		eqds_run(f->e, now);
		for (uint32_t p = 1; p <= npeers; p++)
			while (answered[p] < f->rec.pulls[p]) {
				answered[p]++;
				data_wanting(f, p, next[p]++, window, now);
			}
	}
}

static void closed_loop_every(struct fx *f, unsigned npeers, unsigned ms, uint64_t step)
{
	closed_loop_window(f, npeers, ms, step, 8);
}

static void closed_loop(struct fx *f, unsigned npeers, unsigned ms)
{
	closed_loop_every(f, npeers, ms, 7000);		/* a 7 us clock */
}

static void asl__fifo_gives_equal_pulls(void **state)
{
	struct fx *f = fx_new(128, EQDS_ASL_FIFO);
	unsigned lo, hi;

	closed_loop(f, 3, 20);
	lo = hi = f->rec.pulls[1];
	for (int p = 2; p <= 3; p++) {
		lo = f->rec.pulls[p] < lo ? f->rec.pulls[p] : lo;
		hi = f->rec.pulls[p] > hi ? f->rec.pulls[p] : hi;
	}
	print_message("# FIFO pulls over 20 ms: %u %u %u\n", f->rec.pulls[1], f->rec.pulls[2],
		      f->rec.pulls[3]);
	assert_true(lo > 300);
	assert_true(hi - lo <= 2);
	fx_free(f);
}

static void asl__weighted_pulls_follow_weights(void **state)
{
	struct fx *f = fx_new(128, EQDS_ASL_WEIGHTED);
	double r;

	assert_int_equal(eqds_set_weight(f->e, 1, 3), 0);
	assert_int_equal(eqds_set_weight(f->e, 2, 1), 0);
	closed_loop(f, 2, 20);
	r = (double)f->rec.pulls[1] / f->rec.pulls[2];
	print_message("# weighted 3:1 pulls over 20 ms: %u %u (%.2f)\n", f->rec.pulls[1],
		      f->rec.pulls[2], r);
	assert_true(r > 2.7 && r < 3.3);
	fx_free(f);
}

static void asl__pulls_never_beat_the_link_rate(void **state)
{
	unsigned total[2];

	/* 20 ms at 1 Gbit/s in full frames on the wire (MTU, Ethernet
	 * header and its framing: what one pull lets in), plus the pacer's
	 * burst (150 us at the rate: 12 of them) and the first pull; with
	 * Ethernet's framing (24 bytes) and with none (link_framing 0: a
	 * veth, the test fabric), where the same link takes 1.6 % more. */
	for (int k = 0; k < 2; k++) {
		uint32_t framing = k ? 0 : EQ_ETH_FRAMING;
		struct fx *f = fx_new(128, EQDS_ASL_FIFO);
		double wire = MTU + 14 + framing, rate = 20e-3 * 1e9 / 8 / wire;
		double bound = rate + 150e-6 * 1e9 / 8 / wire + 1;

		f->cfg.framing = framing;
		eqds_free(f->e);
		f->e = eqds_new(&f->cfg, &(struct eqt_io){ &f->rec, rec_send_data, rec_send_ctl,
							    rec_deliver, NULL }, &f->pool, 0, 42);
		assert_non_null(f->e);
		closed_loop(f, 3, 20);
		total[k] = f->rec.pulls[1] + f->rec.pulls[2] + f->rec.pulls[3];
		print_message("# pulls over 20 ms, framing %u: %u (bound %.0f; %.0f at the link "
			      "rate)\n", framing, total[k], bound, rate);
		assert_true(total[k] <= bound);
		assert_true(total[k] >= 0.95 * rate);	/* and keep up with it */
		fx_free(f);
	}
	/* 1514 against 1538 bytes a pull: 25 more in 20 ms. */
	assert_true(total[1] >= total[0] + 12);
}

/* Wake-ups 250 us apart (the agent's timer comes late on a busy host):
 * a bucket of 150 us at the link rate pulls for 150 us of each 250 and
 * throws the rest away; one of pacer_burst_us 1000 holds the lateness
 * and keeps the link rate, still never beating it. */
static void asl__a_bucket_that_holds_the_lateness_keeps_the_rate(void **state)
{
	double wire = MTU + 14 + EQ_ETH_FRAMING, rate = 20e-3 * 1e9 / 8 / wire;
	unsigned got[2];

	/* Three senders, wake-ups 800 us apart: the default bucket holds the
	 * 150 us burst (more only for a lone sender: pull_burst()). */
	for (int big = 0; big < 2; big++) {
		struct fx *f = fx_new(128, EQDS_ASL_FIFO);

		f->cfg.burst_ns = big ? 1000000 : 0;
		eqds_free(f->e);
		f->e = eqds_new(&f->cfg, &(struct eqt_io){ &f->rec, rec_send_data, rec_send_ctl,
							    rec_deliver, NULL }, &f->pool, 0, 42);
		assert_non_null(f->e);
		closed_loop_window(f, 3, 20, 800000, 64);
		got[big] = f->rec.pulls[1] + f->rec.pulls[2] + f->rec.pulls[3];
		fx_free(f);
	}
	print_message("# pulls over 20 ms, 3 senders, wake-ups 800 us apart: %u with the default "
		      "bucket, %u with 1 ms (%.0f at the link rate)\n", got[0], got[1], rate);
	assert_true(got[0] < 0.25 * rate);	/* 150 of each 800 us */
	assert_true(got[0] > 0.12 * rate);
	assert_true(got[1] >= 0.95 * rate);
	assert_true(got[1] <= rate + 1e-3 * 1e9 / 8 / wire + 1);
}

/* A lone sender's pulls make up a late wake-up of up to PULL_LATE_NS
 * with the default bucket: the link rate, wake-ups 900 us apart (it got
 * 150 of each 900 us: on the fabric, one flow ran at 65-75 % of the link
 * while the agents took turns on one CPU). */
static void asl__a_lone_senders_pulls_make_up_lateness(void **state)
{
	double wire = MTU + 14 + EQ_ETH_FRAMING, rate = 20e-3 * 1e9 / 8 / wire;
	struct fx *f = fx_new(128, EQDS_ASL_FIFO);
	unsigned got;

	closed_loop_window(f, 1, 20, 900000, 128);
	got = f->rec.pulls[1];
	print_message("# pulls over 20 ms, 1 sender, wake-ups 900 us apart: %u (%.0f at the "
		      "link rate)\n", got, rate);
	assert_true(got >= 0.95 * rate);
	assert_true(got <= rate + 1e-3 * 1e9 / 8 / wire + 1);
	fx_free(f);
}

static void asl__bad_weights_refused(void **state)
{
	struct fx *f = fx_new(128, EQDS_ASL_WEIGHTED);

	assert_int_not_equal(eqds_set_weight(f->e, 1, 0), 0);
	assert_int_not_equal(eqds_set_weight(f->e, 1, 1001), 0);
	assert_int_not_equal(eqds_set_weight(f->e, EQDS_MAX_PEERS, 1), 0);
	assert_int_equal(eqds_set_weight(f->e, 1, 1000), 0);
	fx_free(f);
}

/* ---- epochs ---- */

/* A first-RTT burst of more than 1024 packets (a BDP of 2000 MTUs): all
 * of them carry SYN, and the ISN's 10 zero bits span only 1024 seqs.  The
 * receiver took seq & ~1023 for a SYN packet's epoch: packet 1024 looked
 * like a new epoch, what the reorder queue held behind a lost packet went
 * up, the PULLs' cumulative ack passed the loss (the sender freed it), and
 * its resend, "of an older epoch", got an RST.  A later epoch is still
 * one, and an older one still gets its RST. */
static void epoch__a_syn_burst_of_more_than_1024(void **state)
{
	const uint32_t n = 3000, lost = 1500, later = eqt_epoch_after(ISN + n) - ISN;

	for (int lose = 0; lose <= 1; lose++) {
		struct fx *f = fx_new(4096, EQDS_ASL_FIFO);
		uint64_t now = 0;

		for (uint32_t i = 0; i < n; i++, now += 500) {
			if (!(lose && i == lost))
				data(f, 0, i, now);
			eqds_run(f->e, now);	/* the pull pacer */
		}
		if (lose) {
			assert_delivered_in_order(&f->rec, 0, lost);
			assert_int_equal(f->rec.pull_acked, lost);
			data(f, 0, lost, now);	/* its resend: SYN still, nothing came back */
		}
		assert_delivered_in_order(&f->rec, 0, n);
		assert_int_equal(f->rec.rsts, 0);
		assert_int_equal(stats(f, 0).rx_dup, 0);
		assert_int_equal(stats(f, 0).reorder_gaps, 0);
		data(f, 0, later, now);		/* a new epoch, where the next starts */
		assert_int_equal(f->rec.n_delivered, n + 1);
		assert_int_equal(f->rec.delivered[n], ISN + later);
		data(f, 0, n, now);		/* a late SYN packet of the old one */
		assert_int_equal(f->rec.rsts, 1);
		assert_int_equal(f->rec.n_delivered, n + 1);
		fx_free(f);
	}
}

static void rts(struct fx *f, uint32_t peer, uint32_t seq, uint8_t flags, uint32_t pull, uint64_t now)
{
	struct eqt_hdr h = { .type = EQ_T_RTS, .flags = flags, .seq_ack = seq, .pull = pull };

	eqds_wire(f->e, peer, &h, NULL, now);
}

/* An RTS carries the sender's next seq, and its answer acknowledged that
 * seq: the packet that took it, sent before the answer came and trimmed,
 * was freed by it, and its NACK then found nothing to resend.  The answer
 * acknowledges the last seq delivered in order (ISN - 1 before any), as a
 * PULL's cumulative ack does. */
static void rts__answer_acknowledges_only_what_came(void **state)
{
	struct fx *f = fx_new(128, EQDS_ASL_FIFO);

	rts(f, 0, ISN, EQ_F_SYN, 2, 1000);	/* RTS mode: asks first */
	assert_int_equal(f->rec.acks, 1);
	assert_int_equal(f->rec.last_ack, ISN - 1);
	for (uint32_t i = 0; i < 5; i++)
		data(f, 0, i, 2000);
	rts(f, 0, ISN + 5, 0, 0, 3000);
	assert_int_equal(f->rec.acks, 7);
	assert_int_equal(f->rec.last_ack, ISN + 4);
	assert_int_equal(f->rec.rsts, 0);
	fx_free(f);
}

/* The answer to an RTS goes at once and echoes the RTS's TSTAMP: the
 * sender's first RTT sample in RTS mode (test_eqds_sender.c,
 * rtt__an_rts_answer_echoing_it_is_a_sample).  An RTS without one gets an
 * answer without one. */
static void rts__answer_echoes_its_timestamp(void **state)
{
	struct fx *f = fx_new(128, EQDS_ASL_FIFO);
	struct eqt_hdr h = { .type = EQ_T_RTS, .flags = EQ_F_SYN, .seq_ack = ISN, .pull = 2,
			      .opts = EQT_OPT(EQ_OPT_TSTAMP), .ts = 123457 };

	eqds_wire(f->e, 0, &h, NULL, 1000);
	assert_int_equal(f->rec.acks, 1);
	assert_int_equal(f->rec.last_ack_echo, 123457);
	rts(f, 0, ISN, 0, 2, 2000);
	assert_int_equal(f->rec.acks, 2);
	assert_int_equal(f->rec.last_ack_echo, 0);
	fx_free(f);
}

/* An RTS gives, beside its target, the sender's limit: the pull number
 * up to which its credit may be out of its hands (its highest pull, plus
 * 1 BDP + 1 MTU less what it holds).  Out of its hands are its DATA in
 * flight, what we owe it and our pulls on their way to it; we know the
 * last two, and the first from its next seq.  Read from the target alone
 * (sized by the sender from what it has in flight, which counts what has
 * arrived, and from its highest pull, behind ours by the pulls on their
 * way), an RTS asked for nothing we had not granted, and a tunnel in RTS
 * mode never grew its loop.  Here packets 0-3 came and were pulled for;
 * the sender had heard of 2 pulls and sent packet 4 (in flight), and
 * gives a limit of 2 + 7 and a target of 10: we may owe it 9 - 4 - 1 =
 * 4 MTUs, and pull 4 more, short of the target. */
static void rts__the_limit_counts_what_is_out_of_the_senders_hands(void **state)
{
	struct fx *f = fx_new(128, EQDS_ASL_FIFO);
	struct eqt_hdr h = { .type = EQ_T_RTS, .seq_ack = ISN + 5, .pull = 10, .aux = 2 + 7 };
	uint64_t t = 1000;

	for (uint32_t i = 0; i < 4; i++)
		data(f, 0, i, t);
	for (; t < 1000000; t += 10000)
		eqds_run(f->e, t);
	assert_int_equal(f->rec.pulls[0], 4);		/* one per packet */
	eqds_wire(f->e, 0, &h, NULL, t);
	for (; t < 2000000; t += 10000)
		eqds_run(f->e, t);
	assert_int_equal(f->rec.pulls[0], 8);		/* 4 more: the limit */
	assert_int_equal(stats(f, 0).pull_target, 10);
	/* Without a limit, the target decides: 10 is ahead of 8 by 2. */
	h.aux = 0;
	eqds_wire(f->e, 0, &h, NULL, t);
	for (; t < 3000000; t += 10000)
		eqds_run(f->e, t);
	assert_int_equal(f->rec.pulls[0], 10);
	/* A limit our pulls and its DATA in flight already reach: nothing. */
	h.aux = 10 + 1;
	h.pull = 10 + 8;
	eqds_wire(f->e, 0, &h, NULL, t);
	for (; t < 4000000; t += 10000)
		eqds_run(f->e, t);
	assert_int_equal(f->rec.pulls[0], 10);
	fx_free(f);
}

/* The busy time a receiver gives (aux of its ACKs and PULLs) is how long
 * the pulls it will still send keep its link busy: what it owes, up to
 * each sender's target.  An RTS's limit lets it owe up to a BDP beyond
 * the target, and counted whole, that told a lone RTS-mode flow which
 * had asked for 2 more pulls that the link stayed busy for a BDP (a
 * sender told "busy beyond a round trip" stops asking ahead: sender.c,
 * busy_beyond_rtt()), and the inner TCP's next windows each waited a
 * round trip for credit.  Here packets 0-3 came and were pulled for
 * (their target: 8); the RTS's limit would let us owe 8 MTUs, the target
 * leaves 4 more pulls: busy for 4 MTUs (at 1 Gbit/s 12 us each), then,
 * pulled, for none. */
static void rts__busy_time_counts_only_what_will_be_pulled(void **state)
{
	struct fx *f = fx_new(128, EQDS_ASL_FIFO);
	struct eqt_hdr h = { .type = EQ_T_RTS, .seq_ack = ISN + 4, .pull = 8, .aux = 4 + 8 };
	uint64_t t = 1000;

	for (uint32_t i = 0; i < 4; i++)
		data(f, 0, i, t);
	for (; t < 1000000; t += 10000)
		eqds_run(f->e, t);
	assert_int_equal(f->rec.pulls[0], 4);
	eqds_wire(f->e, 0, &h, NULL, t);
	assert_int_equal(f->rec.last_ack_busy, 4 * MTU * 8);	/* ns at 1 Gbit/s */
	for (; t < 2000000; t += 10000)
		eqds_run(f->e, t);
	assert_int_equal(f->rec.pulls[0], 8);
	rts(f, 0, ISN + 4, 0, 8, t);
	assert_int_equal(f->rec.last_ack_busy, 0);
	fx_free(f);
}

/* ---- losses ---- */

#define LOSS_NS	300000ULL

static struct fx *fx_loss(void)
{
	struct fx *f = fx_new(64, EQDS_ASL_FIFO);

	f->cfg.loss_ns = LOSS_NS;
	eqds_free(f->e);
	f->e = eqds_new(&f->cfg, &(struct eqt_io){ &f->rec, rec_send_data, rec_send_ctl,
						    rec_deliver, NULL }, &f->pool, 0, 42);
	assert_non_null(f->e);
	return f;
}

/* Seq 1 missing, 2 to 5 here: it is NACKed as lost exactly one window
 * after 2 came, again one re-report interval later, and nothing else
 * is. */
static void loss__a_gap_is_nacked_lost_after_the_window(void **state)
{
	struct fx *f = fx_loss();
	uint64_t t0 = 5000000;

	data(f, 1, 0, t0);
	for (uint32_t i = 2; i < 6; i++)
		data(f, 1, i, t0 + i);
	eqds_run(f->e, t0 + 2 + LOSS_NS - 1);
	assert_int_equal(f->rec.n_lost, 0);
	eqds_run(f->e, t0 + 2 + LOSS_NS);
	assert_int_equal(f->rec.n_lost, 1);
	assert_int_equal(f->rec.lost[0], ISN + 1);
	/* Asked once per re-report interval: two windows here (more than a
	 * quarter of reorder_ns), within the reorder timeout. */
	eqds_run(f->e, t0 + 2 + 3 * LOSS_NS - 1);
	assert_int_equal(f->rec.n_lost, 1);
	eqds_run(f->e, t0 + 2 + 3 * LOSS_NS);
	assert_int_equal(f->rec.n_lost, 2);		/* the NACK or its resend was lost */
	assert_int_equal(f->rec.lost[1], ISN + 1);
	assert_int_equal(stats(f, 1).rx_lost, 1);	/* one seq */
	assert_int_equal(f->rec.nacks, 0);
	/* The resend fills the gap: everything goes up in order. */
	data_as(f, 1, 1, EQ_T_DATA, EQ_F_SYN | EQ_F_RTX, t0 + 6 * LOSS_NS);
	assert_delivered_in_order(&f->rec, 0, 6);
	assert_int_equal(stats(f, 1).rx_late, 0);
	fx_free(f);
}

/* Each missing seq is asked for once (until the re-report interval), a
 * trimmed one (NACKed already) not at all.  Seqs found missing when the window ends are the ones missing
 * when it began (below the highest then held); gaps that opened since
 * get a window from then: a gap is asked for one to two windows after a
 * later packet came. */
static void loss__each_missing_seq_once_and_trimmed_ones_not(void **state)
{
	struct fx *f = fx_loss();
	uint64_t t0 = 5000000;

	data(f, 1, 0, t0);
	data_as(f, 1, 1, EQ_T_TRIMMED, EQ_F_SYN, t0 + 1);
	data(f, 1, 3, t0 + 2);		/* the window starts: 2 missing */
	data(f, 1, 5, t0 + 3);		/* 4 missing, from now */
	data(f, 1, 8, t0 + LOSS_NS / 2);	/* 6 and 7 too */
	assert_int_equal(f->rec.nacks, 1);	/* the trimmed header */
	eqds_run(f->e, t0 + 2 + LOSS_NS - 1);
	assert_int_equal(f->rec.n_lost, 0);
	eqds_run(f->e, t0 + 2 + LOSS_NS);
	assert_int_equal(f->rec.n_lost, 1);
	assert_int_equal(f->rec.lost[0], ISN + 2);
	eqds_run(f->e, t0 + 2 + 2 * LOSS_NS - 1);
	assert_int_equal(f->rec.n_lost, 1);
	eqds_run(f->e, t0 + 2 + 2 * LOSS_NS);
	assert_int_equal(f->rec.n_lost, 4);
	assert_int_equal(f->rec.lost[1], ISN + 4);
	assert_int_equal(f->rec.lost[2], ISN + 6);
	assert_int_equal(f->rec.lost[3], ISN + 7);
	eqds_run(f->e, t0 + 2 + 3 * LOSS_NS - 1);	/* before the re-report interval */
	assert_int_equal(f->rec.n_lost, 4);
	assert_int_equal(stats(f, 1).rx_lost, 4);
	assert_int_equal(f->rec.nacks, 1);
	fx_free(f);
}

/* The sender takes back the credit of a packet NACKed as lost and resends
 * it on that: its resend brings pulls as any packet does, but its first
 * send, should it come after all, must not (those bytes would be counted
 * twice), and the window was too short: it doubles. */
static void loss__late_first_send_brings_no_pulls_and_widens_the_window(void **state)
{
	struct fx *f = fx_loss();
	uint64_t t0 = 5000000, t;
	unsigned p0, p1;

	data(f, 1, 0, t0);
	data(f, 1, 2, t0 + 1);
	eqds_run(f->e, t0 + 1 + LOSS_NS);
	assert_int_equal(f->rec.n_lost, 1);
	t = t0 + 2 * LOSS_NS;
	eqds_run(f->e, t);	/* the pull pacer pays what is owed so far */
	p0 = f->rec.pulls[1];
	/* The first send of 1, late: delivered, but no pull for it. */
	data(f, 1, 1, t + 1);
	eqds_run(f->e, t + 1000000);
	assert_delivered_in_order(&f->rec, 0, 3);
	assert_int_equal(f->rec.pulls[1], p0);
	assert_int_equal(stats(f, 1).rx_late, 1);
	/* Its resend: a duplicate now, but sent on credit: pulled for. */
	data_as(f, 1, 1, EQ_T_DATA, EQ_F_SYN | EQ_F_RTX, t + 1000001);
	eqds_run(f->e, t + 2000000);
	p1 = f->rec.pulls[1];
	assert_int_equal(p1, p0 + 1);
	assert_int_equal(stats(f, 1).rx_dup, 1);
	/* The next gap waits twice as long. */
	t += 3000000;
	data(f, 1, 4, t);
	eqds_run(f->e, t + LOSS_NS);
	assert_int_equal(f->rec.n_lost, 1);
	eqds_run(f->e, t + 2 * LOSS_NS);
	assert_int_equal(f->rec.n_lost, 2);
	assert_int_equal(f->rec.lost[1], ISN + 3);
	fx_free(f);
}

/* loss_ns 0: gaps wait for the sender's RTO or the reorder timeout. */
static void loss__off_without_a_window(void **state)
{
	struct fx *f = fx_new(32, EQDS_ASL_FIFO);

	data(f, 1, 0, 1000);
	data(f, 1, 2, 2000);
	eqds_run(f->e, f->cfg.reorder_ns / 2);
	assert_int_equal(f->rec.n_lost, 0);
	assert_int_equal(stats(f, 1).rx_lost, 0);
	fx_free(f);
}

/* ---- What a packet may change ---- */

/* DATA neither ahead of the next seq in order nor behind it by what the
 * tunnel can have in flight cannot be the peer's: before, one such packet
 * made the queue give up every seq before it, and the peer's next ones
 * were dropped as duplicates.  Now it is dropped, unanswered. */
static void window__data_far_from_the_next_seq_is_refused(void **state)
{
	struct fx *f = fx_new(32, EQDS_ASL_FIFO);
	unsigned acks;

	data(f, 1, 0, 1000);
	data(f, 1, 1, 1001);
	acks = f->rec.acks;
	data_as(f, 1, 0x40000000u, EQ_T_DATA, 0, 2000);		/* 2^30 ahead */
	data_as(f, 1, 0x40000000u, EQ_T_TRIMMED, 0, 2001);
	data_as(f, 1, (uint32_t)-0x40000000, EQ_T_DATA, 0, 2002);	/* 2^30 behind */
	assert_int_equal(stats(f, 1).rx_bad_seq, 3);
	assert_int_equal(f->rec.acks, acks);
	assert_int_equal(f->rec.nacks, 0);
	assert_int_equal(stats(f, 1).rx_expected, ISN + 2);
	data(f, 1, 2, 3000);
	assert_delivered_in_order(&f->rec, 0, 3);
	assert_int_equal(stats(f, 1).rx_dup, 0);
	/* At the window's edge (reorder queue, two BDPs, 4096): held. */
	data_as(f, 1, 3 + 32 + 16 + 4096 - 1, EQ_T_DATA, 0, 4000);
	assert_int_equal(stats(f, 1).rx_bad_seq, 3);
	fx_free(f);
}

/* A SYN anywhere but where the peer's next epoch starts is answered with
 * an RST the peer alone takes (it echoes the SYN's seq), and changes
 * nothing: far ahead, and 6 Mi ahead, which a random start of 4-8 Mi
 * took for a new epoch (one forged packet in 300 moved a tunnel, and its
 * data went up out of order).  One where the next starts (eqt_epoch_after()
 * of our next in order) is a new epoch, as before. */
static void window__syn_of_a_far_epoch_is_answered_not_taken(void **state)
{
	static const uint32_t wrong[] = { 0x40000000u, 6u << 20, (4096u - 1) << 10 };
	struct fx *f = fx_new(32, EQDS_ASL_FIFO);
	uint32_t near;

	data(f, 1, 0, 1000);
	data(f, 1, 1, 1001);
	for (unsigned k = 0; k < sizeof(wrong) / sizeof(wrong[0]); k++) {
		data_as(f, 1, wrong[k], EQ_T_DATA, EQ_F_SYN, 2000);
		assert_int_equal(stats(f, 1).rx_bad_epoch, k + 1);
		assert_int_equal(f->rec.rsts, k + 1);
		assert_int_equal(f->rec.rst_floor, ISN + 2);
		assert_int_equal(f->rec.rst_echo, ISN + wrong[k]);
		assert_int_equal(stats(f, 1).rx_expected, ISN + 2);
	}
	data(f, 1, 2, 3000);
	assert_delivered_in_order(&f->rec, 0, 3);
	near = eqt_epoch_after(ISN + 3) - ISN;
	data_as(f, 1, near, EQ_T_DATA, EQ_F_SYN, 4000);
	assert_int_equal(stats(f, 1).rx_bad_epoch, 3);
	assert_int_equal(stats(f, 1).rx_expected, ISN + near + 1);
	assert_int_equal(f->rec.n_delivered, 4);
	fx_free(f);
}

/* eqds_wire() takes as the peer's only what lies in the windows (the
 * agent learns the peer's route from nothing else). */
static void window__only_data_in_the_window_is_taken(void **state)
{
	struct fx *f = fx_new(32, EQDS_ASL_FIFO);
	struct eqt_hdr h = { .type = EQ_T_DATA, .pull = 8, .aux = MTU };
	struct eqt_pkt *p;
	static const struct { uint32_t seq; uint8_t flags; bool taken; } pkts[] = {
		{ ISN, EQ_F_SYN, true },			/* the epoch starts */
		{ ISN + 0x40000000u, 0, false },		/* DATA far ahead */
		{ ISN + 0x40000000u, EQ_F_SYN, false },		/* an epoch far ahead */
		{ ISN + 1, 0, true },
	};

	for (size_t i = 0; i < sizeof(pkts) / sizeof(pkts[0]); i++) {
		h.seq_ack = pkts[i].seq;
		h.flags = pkts[i].flags;
		p = eqt_pkt_get(&f->pool);
		assert_non_null(p);
		memcpy(p->data, &h.seq_ack, sizeof(h.seq_ack));
		p->len = MTU;
		assert_int_equal(eqds_wire(f->e, 1, &h, p, 1000 + i), pkts[i].taken);
	}
	assert_delivered_in_order(&f->rec, 0, 2);
	fx_free(f);
}

/* Without state (a restarted agent), the RST says so (floor 0) and
 * echoes the seq; the DATA goes up as XDP delivered it while the agent
 * was down, unordered: dropped, it cost the inner TCP a window and an
 * RTO of its own at every restart. */
static void window__rst_echoes_the_seq_that_drew_it(void **state)
{
	struct fx *f = fx_new(32, EQDS_ASL_FIFO);

	data_as(f, 1, 5, EQ_T_DATA, 0, 1000);	/* no SYN, no state */
	data_as(f, 1, 3, EQ_T_DATA, 0, 1001);
	assert_int_equal(f->rec.rsts, 2);
	assert_int_equal(f->rec.rst_floor, 0);
	assert_int_equal(f->rec.rst_echo, ISN + 3);
	assert_int_equal(f->rec.n_delivered, 2);
	assert_int_equal(f->rec.delivered[0], ISN + 5);
	assert_int_equal(f->rec.delivered[1], ISN + 3);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reorder__any_order_within_the_queue_delivered_in_order),
		cmocka_unit_test(reorder__gap_given_up_exactly_at_the_timeout),
		cmocka_unit_test(reorder__duplicates_counted_not_delivered),
		cmocka_unit_test(reorder__beyond_the_queue_gives_up_the_oldest_gap),
		cmocka_unit_test(reorder__random_arrivals_keep_order_and_account),
		cmocka_unit_test(asl__fifo_gives_equal_pulls),
		cmocka_unit_test(asl__weighted_pulls_follow_weights),
		cmocka_unit_test(asl__pulls_never_beat_the_link_rate),
		cmocka_unit_test(asl__a_bucket_that_holds_the_lateness_keeps_the_rate),
		cmocka_unit_test(asl__a_lone_senders_pulls_make_up_lateness),
		cmocka_unit_test(asl__bad_weights_refused),
		cmocka_unit_test(epoch__a_syn_burst_of_more_than_1024),
		cmocka_unit_test(rts__answer_acknowledges_only_what_came),
		cmocka_unit_test(rts__answer_echoes_its_timestamp),
		cmocka_unit_test(rts__the_limit_counts_what_is_out_of_the_senders_hands),
		cmocka_unit_test(rts__busy_time_counts_only_what_will_be_pulled),
		cmocka_unit_test(loss__a_gap_is_nacked_lost_after_the_window),
		cmocka_unit_test(loss__each_missing_seq_once_and_trimmed_ones_not),
		cmocka_unit_test(loss__late_first_send_brings_no_pulls_and_widens_the_window),
		cmocka_unit_test(loss__off_without_a_window),
		cmocka_unit_test(window__data_far_from_the_next_seq_is_refused),
		cmocka_unit_test(window__syn_of_a_far_epoch_is_answered_not_taken),
		cmocka_unit_test(window__rst_echoes_the_seq_that_drew_it),
		cmocka_unit_test(window__only_data_in_the_window_is_taken),
	};

	return cmocka_run_group_tests_name("eqds_receiver", tests, NULL, NULL);
}
