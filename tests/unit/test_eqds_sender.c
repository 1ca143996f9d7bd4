// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/eqds/sender.c through the module's interface, one
 * sender with a mocked clock and recording I/O, the receiver played by the
 * test: the retransmission timeout.  Packets that time out go again ahead
 * of new data but only on new credit, after an RTS: a packet that was only
 * late must not be sent twice on one pull (docs/eqds.md, "Sending").
 * The RTO adapts to how late ACKs come, never below rto_us.  And the
 * counters: a peer's survive its tunnels (idle, flushed).
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

struct rec {
	uint32_t	data_seq[256];
	unsigned	n_data, rts;
};

static void rec_send_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqds_hdr *h)
{
	struct rec *r = ctx;

	assert_true(r->n_data < 256);
	r->data_seq[r->n_data++] = h->seq_ack;
}

static void rec_send_ctl(void *ctx, uint32_t peer, const struct eqds_hdr *h)
{
	struct rec *r = ctx;

	if (h->type == EQ_T_RTS)
		r->rts++;
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

static struct fx *fx_new(void)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct eqds_io io = { &f->rec, rec_send_data, rec_send_ctl, rec_deliver };
	struct eqds_cfg cfg = {
		.link_bps = 1000000000ULL, .mtu = MTU, .bdp_bytes = BDP,
		.edge_limit = 100, .edge_ecn = 30, .reorder_limit = 128,
		.reorder_ns = 12000000, .rto_ns = RTO_NS, .drr_quantum = 3000,
		.policy = EQDS_ASL_FIFO, .idle_ns = 10000000000ULL,
	};

	assert_non_null(f);
	assert_int_equal(eqt_pool_init(&f->pool, 1024), 0);
	f->e = eqds_new(&cfg, &io, &f->pool, 0, 42);
	assert_non_null(f->e);
	return f;
}

static void fx_free(struct fx *f)
{
	eqds_free(f->e);
	eqt_pool_fini(&f->pool);
	free(f);
}

static void local(struct fx *f, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct eqt_pkt *p = eqt_pkt_get(&f->pool);

		assert_non_null(p);
		memset(p->data, 0, 64);
		p->len = MTU;
		p->l3_off = 0;
		p->cls = EQT_CLS_OTHER;
		assert_int_equal(eqds_local(f->e, PEER, p, f->now), 0);
	}
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
	struct eqds_hdr h = { .type = EQ_T_PULL, .seq_ack = ack, .pull = pull_no };

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
	 * last PULL (no new credit) every 2 ms.  Every packet times out. */
	while (f->now < 2000000 + RTO_NS + 1000000) {
		run_until(f, f->now + 2000000);
		pull(f, 100, isn);
	}
	run_until(f, f->now + 10000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, BDP / MTU + 1);
	assert_int_equal(f->rec.n_data, sent);	/* no credit: nothing resent yet */
	assert_true(f->rec.rts >= 1);		/* the receiver is asked to pull */
	assert_true(st.credit <= 0);

	/* Each new pull pays for one retransmission, oldest first. */
	for (uint32_t k = 1; k <= 3; k++) {
		pull(f, 100 + k, isn);
		run_until(f, f->now + 100000);
		assert_int_equal(f->rec.n_data, sent + k);
		assert_int_equal(f->rec.data_seq[sent + k - 1], isn + k - 1);
	}
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.tx_rtx, 3);
	fx_free(f);
}

static void ack(struct fx *f, uint32_t seq, uint32_t pull_no)
{
	struct eqds_hdr h = { .type = EQ_T_ACK, .seq_ack = seq, .pull = pull_no };

	eqds_wire(f->e, PEER, &h, NULL, f->now);
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

/* ACKs that come later than rto_us (a busy host's agent) raise the RTO
 * instead of sending every packet twice; fast ACKs bring it back down to
 * rto_us, never below. */
static void rto__adapts_to_ack_delays(void **state)
{
	struct fx *f = fx_new();
	struct eqds_peer_stats st;
	uint32_t pull_no = 100;
	uint64_t t0;

	/* The first ACK comes after 15 ms: one RTO, then backed off. */
	exchange(f, &pull_no, 15000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 1);
	for (int k = 0; k < 10; k++)
		exchange(f, &pull_no, 15000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 1);	/* learnt: no more */
	for (int k = 0; k < 40; k++)
		exchange(f, &pull_no, 1000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 1);
	/* Now a packet that is never ACKed times out after rto_us again. */
	local(f, 1);
	t0 = f->now;
	while (st.rto_fired == 1 && f->now < t0 + 100000000) {
		run_until(f, f->now + 100000);
		eqds_peer_stats(f->e, PEER, &st);
	}
	assert_int_equal(st.rto_fired, 2);
	assert_true(f->now - t0 >= RTO_NS);
	assert_true(f->now - t0 <= RTO_NS + 1000000);
	fx_free(f);
}

/* A retransmission lost again times out again: its seq lies below the
 * lowest seq still in flight when it is resent, and the RTO must still
 * see it (it once did not, and the tunnel stalled). */
static void rto__a_lost_retransmission_times_out_again(void **state)
{
	struct fx *f = fx_new();
	struct eqds_peer_stats st;
	uint32_t isn;

	local(f, 2);
	run_until(f, 1000000);
	assert_int_equal(f->rec.n_data, 2);
	isn = f->rec.data_seq[0];
	run_until(f, RTO_NS + 2000000);		/* both time out, both resent */
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 2);
	assert_int_equal(f->rec.n_data, 4);
	ack(f, isn + 1, 100);			/* the second arrives; the first is lost again */
	run_until(f, RTO_NS + 2000000 + 2 * RTO_NS + 2000000);	/* backed off: 20 ms */
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, 3);
	assert_int_equal(f->rec.data_seq[f->rec.n_data - 1], isn);
	fx_free(f);
}

/* A receiver that says nothing at all for an RTO has no agent (its XDP
 * delivers our DATA itself): the packets go again on their own credit
 * rather than wait for pulls that will not come, and RTSs keep asking
 * at the floor RTO, so that a restarted agent is heard from at once. */
static void rto__silent_receiver_resends_on_own_credit(void **state)
{
	struct fx *f = fx_new();
	struct eqds_peer_stats st;

	local(f, BDP / MTU);
	run_until(f, 1000000);
	assert_int_equal(f->rec.n_data, BDP / MTU);
	run_until(f, RTO_NS + 2000000);
	eqds_peer_stats(f->e, PEER, &st);
	assert_int_equal(st.rto_fired, BDP / MTU);
	assert_int_equal(f->rec.n_data, 2 * BDP / MTU);	/* resent without a pull */
	local(f, 1);					/* no credit left for new data */
	f->rec.rts = 0;
	run_until(f, f->now + 100000000);		/* 100 ms; the RTO backs off meanwhile */
	assert_true(f->rec.rts >= 100000000 / RTO_NS - 1);
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
 * find the next set bit, wrapping, against a plain scan. */
static void live_next__matches_a_scan(void **state)
{
	uint64_t a[EQDS_LIVE_WORDS], b[EQDS_LIVE_WORDS];

	rng_state = 3;
	for (int round = 0; round < 200; round++) {
		uint32_t density = 1 + rnd32() % 200;

		memset(a, 0, sizeof(a));
		memset(b, 0, sizeof(b));
		for (uint32_t i = 0; i < EQDS_MAX_PEERS; i++) {
			if (rnd32() % 1000 < density)
				live_set(a, i);
			if (rnd32() % 1000 < density / 2)
				live_set(b, i);
		}
		if (round % 10 == 0)
			memset(a, 0, sizeof(a));
		for (int k = 0; k < 20; k++) {
			uint32_t from = rnd32() % (EQDS_MAX_PEERS + 70), want = EQDS_MAX_PEERS;
			bool with_b = k % 2;

			for (uint32_t j = 0; j < EQDS_MAX_PEERS; j++) {
				uint32_t i = (from + j) % EQDS_MAX_PEERS;

				if ((a[i / 64] | (with_b ? b[i / 64] : 0)) >> (i % 64) & 1) {
					want = i;
					break;
				}
			}
			assert_int_equal(live_next(a, with_b ? b : NULL, from), want);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rto__retransmits_only_on_new_credit),
		cmocka_unit_test(rto__adapts_to_ack_delays),
		cmocka_unit_test(rto__a_lost_retransmission_times_out_again),
		cmocka_unit_test(rto__silent_receiver_resends_on_own_credit),
		cmocka_unit_test(counters__survive_the_tunnel),
		cmocka_unit_test(live_next__matches_a_scan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
