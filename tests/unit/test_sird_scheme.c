// SPDX-License-Identifier: GPL-2.0-only
/*
 * SIRD as a scheme, end to end in one process: N senders and one
 * receiver (each a sird instance with its own pool and a mocked clock)
 * joined by a model fabric: 10 us of propagation each way and, towards
 * the receiver, one bottleneck port at the link rate that CE-marks DATA
 * queued above K packets and trims DATA above a threshold (or drops it,
 * for a fabric that cannot trim); DATA can also be lost on the way.
 * Control packets (RTS, PULL, ACK, NACK, RST) and trimmed headers are
 * not queued at the port: a switch gives them priority.
 *
 * Checked after every event: the receiver grants nothing beyond B, b is
 * the sum of the senders' shares, what a sender holds unspent is never
 * more than the receiver counts outstanding to it (else the receiver
 * under-counts and grants beyond B in truth), and no sender's limit is
 * under a grain (it would never be granted again).  And per test: a new
 * burst's first BDP goes unscheduled and the rest on credit, every
 * packet delivered exactly once and in order, the incast's queue bounded
 * by the overcommitment and the unscheduled bursts, B sized on the
 * senders' smoothed round trips (a slow agent's included), fair
 * completion, an RTS first with UnschT 0, losses repaired without a
 * trimming switch, forged credit ignored, csn from a
 * sender that cannot spend its credit, a credit pacer that pays for the
 * frames that came without credit, and a receiver restart survived,
 * mid-transfer or while a sender waits for credit, a given-up gap's
 * credit back once (not again by the silence rule, nor discounted by
 * what the silence rule took for another); credit all back to 0
 * at the end, every packet back in its pool.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "sird.h"
#include "sird_int.h"

#define MAXS	9
#define MTU	1500
#define RATE	1000000000ULL
#define PROP	10000ULL
#define NPKT	700			/* ~1 MB per sender */
/* A packet is a whole frame (eqt_pkt.len): an MTU of IP and its
 * Ethernet header, which is also the receiver's credit grain (scheme.c);
 * on the wire the link's framing comes on top. */
#define FRAME	(MTU + 14)
#define WIRE(len)	((uint64_t)(len) + EQ_ETH_FRAMING)
#define SER(len)	(WIRE(len) * 8 * 1000000000ULL / RATE)	/* at the port */
#define MARK_AT	8			/* the port's ECN threshold, packets */
#define TRIM_AT	64			/* ... and where it trims */
#define RTO	1000000ULL
/* What the sender's BDP is before any RTT sample (sender.c: 50 us). */
#define BDP_GUESS	(RATE / 8 * 50000 / 1000000000ULL)
/* The fabric's base RTT, a full frame's (DATA: to the port, through it,
 * to the receiver; its ACK back), and its BDP: 52.3 us, 6,538 bytes. */
#define BASE_RTT	(4 * PROP + SER(FRAME))
#define BDP_TRUE	(RATE / 8 * BASE_RTT / 1000000000ULL)

struct ev {
	uint64_t	t;
	int		to;		/* 0..n-1 senders, MAXS the receiver */
	int		from;
	struct eqt_hdr	h;
	uint16_t	len;
	uint32_t	id;
};

static struct sim {
	struct ev	*ev;
	size_t		nev, cap;
	uint64_t	now;
	int		n;
	struct sird	*s[MAXS], *r;
	struct eqt_pool	sp[MAXS], rp;
	uint64_t	port_free;
	uint32_t	port_q, port_qmax, trim_at, trims, drops, marks, data_lost;
	uint32_t	refused;	/* control packets a sender did not take */
	uint64_t	q_area, q_last;		/* the queue's time integral */
	bool		drop_tail;
	double		data_loss;
	uint32_t	got[MAXS], dups[MAXS], ooo[MAXS];
	uint8_t		seen[MAXS][NPKT];
	uint64_t	done_at[MAXS];
	int		first[MAXS];	/* the type of what each sender sent first */
	uint32_t	data_sent[MAXS], rts[MAXS];
	int		unsched_hi;	/* the highest id that went unscheduled first */
	uint64_t	b_max, b_prev;	/* the bucket's most; b after the last event */
	uint32_t	over_b;		/* events after which b > B (B fell) */
	uint64_t	lim_min;	/* sender 0's least limit */
	uint32_t	sent_ep[MAXS][NPKT];	/* the epoch of each packet's first send, + 1 */
	uint32_t	stale;		/* resends of an earlier epoch that claimed credit */
	uint32_t	black_lo, black_n;	/* sender 0's ids lost on every send */
	uint32_t	rtx_unsched, rtx_sched;	/* resends flagged unscheduled, not */
	uint64_t	ctl_delay;	/* the receiver's control packets wait up to
					 * twice this (at random) before the sender
					 * acts on them: its agent's reaction time */
	uint64_t	ctl_last[MAXS];	/* ... and acts on them in order */
	uint32_t	once_lo, once_n;	/* sender 0's ids lost on their first send */
	uint64_t	asleep_to;	/* sender 0's agent runs not before then:
					 * what comes for it waits */
} S;

/* What sender i's receiver can get: all but its black-holed packets. */
static uint32_t deliverable(int i)
{
	return NPKT - (i == 0 ? S.black_n : 0);
}

static void push(struct ev e)
{
	if (S.nev == S.cap) {
		S.cap = S.cap ? S.cap * 2 : 1024;
		S.ev = realloc(S.ev, S.cap * sizeof(*S.ev));
	}
	size_t i = S.nev++;

	while (i && S.ev[i - 1].t > e.t) {
		S.ev[i] = S.ev[i - 1];
		i--;
	}
	S.ev[i] = e;
}

static void queue_to(uint32_t q)
{
	S.q_area += (uint64_t)S.port_q * (S.now - S.q_last);
	S.q_last = S.now;
	S.port_q = q;
	if (q > S.port_qmax)
		S.port_qmax = q;
}

static void sent_first(int i, uint8_t type)
{
	if (S.first[i] < 0)
		S.first[i] = type;
}

static void s_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	int i = (int)(intptr_t)ctx;
	struct ev e = { .to = MAXS, .from = i, .h = *h, .len = p->len };
	uint64_t arrive = S.now + PROP, start;
	uint32_t ep;

	assert_int_equal(peer, 0);
	assert_int_equal(h->type, EQ_T_DATA);
	assert_true(h->ect);		/* the fabric is to mark it, not drop it */
	assert_false(h->path_set);	/* SIRD has no paths of its own */
	sent_first(i, EQ_T_DATA);
	S.data_sent[i]++;
	memcpy(&e.id, p->data, 4);
	/* A packet sent again in a later epoch than its first send (an RST
	 * sent it back) went on that epoch's credit, not on this one's: it
	 * must say so (unscheduled), or it returns credit the receiver
	 * granted for another. */
	ep = S.s[i]->tx[0]->ep_isn + 1;		/* 0: not sent yet */
	if (S.sent_ep[i][e.id] && S.sent_ep[i][e.id] != ep && !(h->flags & EQ_F_UNSCHED))
		S.stale++;
	if (!S.sent_ep[i][e.id])
		S.sent_ep[i][e.id] = ep;
	if ((h->flags & EQ_F_UNSCHED) && !(h->flags & EQ_F_RTX) && (int)e.id > S.unsched_hi)
		S.unsched_hi = (int)e.id;
	if (h->flags & EQ_F_RTX) {
		if (h->flags & EQ_F_UNSCHED)
			S.rtx_unsched++;
		else
			S.rtx_sched++;
	}
	if (S.data_loss > 0 && rnd32() % 10000 < S.data_loss * 10000) {
		S.data_lost++;
		return;
	}
	if (i == 0 && e.id - S.once_lo < S.once_n && !(h->flags & EQ_F_RTX)) {
		S.data_lost++;
		return;
	}
	if (i == 0 && e.id - S.black_lo < S.black_n) {
		S.data_lost++;
		return;		/* never arrives, however often it is sent */
	}
	if (S.port_q >= S.trim_at) {
		if (S.drop_tail) {
			S.drops++;
			return;
		}
		e.h.type = EQ_T_TRIMMED;
		S.trims++;
		e.t = arrive + PROP + SER(64);
		push(e);
		return;
	}
	if (S.port_q >= MARK_AT) {
		e.h.ce = 1;
		S.marks++;
	}
	start = arrive > S.port_free ? arrive : S.port_free;
	S.port_free = start + SER(p->len);
	queue_to(S.port_q + 1);
	e.t = S.port_free + PROP;
	push(e);
}

/* A sender's control packets are its requests for credit. */
static void s_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	int i = (int)(intptr_t)ctx;

	assert_int_equal(peer, 0);
	assert_int_equal(h->type, EQ_T_RTS);
	assert_false(h->path_set);
	sent_first(i, EQ_T_RTS);
	S.rts[i]++;
	push((struct ev){ .t = S.now + 2 * PROP, .to = MAXS, .from = i, .h = *h });
}

/* Nothing goes up at a sender, and the receiver sends no DATA. */
static void s_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p) { fail(); }
static void r_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h) { fail(); }

static void r_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	(void)ctx;
	assert_true(peer < (uint32_t)S.n);
	assert_false(h->path_set);
	if (h->type == EQ_T_RST)
		assert_int_equal(h->opts, 0);
	else	/* PULL, ACK, NACK: each with the receiver's credit count */
		assert_true(h->opts & EQT_OPT(EQ_OPT_CREDIT));
	uint64_t t = S.now + 2 * PROP;

	if (peer == 0 && t < S.asleep_to)
		t = S.asleep_to;
	if (S.ctl_delay) {	/* an agent acts on what came in order */
		t += rnd32() % (2 * S.ctl_delay);
		if (t < S.ctl_last[peer])
			t = S.ctl_last[peer];
		S.ctl_last[peer] = t;
	}
	push((struct ev){ .t = t, .to = (int)peer, .from = MAXS, .h = *h });
}

static void r_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	uint32_t id;

	(void)ctx;
	memcpy(&id, p->data, 4);
	assert_true(peer < (uint32_t)S.n && id < NPKT);
	if (S.seen[peer][id]++) {
		S.dups[peer]++;
	} else {
		if (id != S.got[peer])
			S.ooo[peer]++;
		S.got[peer]++;
	}
	if (S.got[peer] == deliverable((int)peer) && !S.done_at[peer])
		S.done_at[peer] = S.now;
}

static struct sird_cfg cfg(uint64_t loss_ns)
{
	return (struct sird_cfg){
		.link_bps = RATE, .mtu = MTU, .framing = EQ_ETH_FRAMING, .npeers = MAXS,
		.edge_limit = 1000, .reorder_limit = 256, .reorder_ns = 4000000,
		.loss_ns = loss_ns, .rto_ns = RTO, .drr_quantum = 3000,
		.idle_ns = 10000000000ULL, .b_bdps = SIRD_ONE * 3 / 2, .sthr_bdps = SIRD_ONE / 2,
		.unsch_bdps = SIRD_ONE, .rho_pct = 95, .policy = SIRD_ROUND_ROBIN,
	};
}

/* Senders with sc, the receiver with rc. */
static void setup_with(int n, const struct sird_cfg *sc, const struct sird_cfg *rc)
{
	memset(&S, 0, sizeof(S));
	S.n = n;
	S.trim_at = TRIM_AT;
	S.lim_min = UINT64_MAX;
	S.unsched_hi = -1;
	for (int i = 0; i < MAXS; i++)
		S.first[i] = -1;
	for (int i = 0; i < n; i++) {
		struct eqt_io io = { (void *)(intptr_t)i, s_data, s_ctl, s_deliver, NULL };

		assert_int_equal(eqt_pool_init(&S.sp[i], 4096), 0);
		S.s[i] = sird_new(sc, &io, &S.sp[i], 0, 1000 + i);
		assert_non_null(S.s[i]);
	}
	struct eqt_io rio = { NULL, r_data, r_ctl, r_deliver, NULL };

	assert_int_equal(eqt_pool_init(&S.rp, 4096), 0);
	S.r = sird_new(rc, &rio, &S.rp, 0, 7);
	assert_non_null(S.r);
}

static void setup(int n, uint64_t loss_ns)
{
	struct sird_cfg c = cfg(loss_ns);

	setup_with(n, &c, &c);
}

/* Every packet the modules took from their pools went back. */
static void teardown_sim(void)
{
	for (int i = 0; i < S.n; i++) {
		sird_free(S.s[i]);
		assert_int_equal(S.sp[i].in_use, 0);
		eqt_pool_fini(&S.sp[i]);
	}
	sird_free(S.r);
	assert_int_equal(S.rp.in_use, 0);
	eqt_pool_fini(&S.rp);
	free(S.ev);
}

static void offer_len(int i, uint32_t id, uint16_t len)
{
	struct eqt_pkt *p = eqt_pkt_get(&S.sp[i]);

	assert_non_null(p);
	p->len = len;
	p->l3_off = 0;
	p->flags = 0;
	memset(p->data, 0, 64);
	memcpy(p->data, &id, 4);
	p->cls = EQT_CLS_TCP;
	assert_int_equal(sird_local(S.s[i], 0, p, S.now), 0);
}

static void offer(int i, uint32_t id)
{
	offer_len(i, id, FRAME);
}

static void offer_all(void)
{
	for (int i = 0; i < S.n; i++)
		for (uint32_t id = 0; id < NPKT; id++)
			offer(i, id);
}

/* The credit invariants, after every event. */
static void check_credit(void)
{
	const struct sird_rx *c = sird_credit_of(S.r);
	uint64_t sum = 0;

	for (int k = 0; k < SIRD_MAX_SENDERS; k++)
		sum += c->s[k].sb;
	assert_int_equal(c->b, sum);
	/* Nothing granted beyond the bucket in force (B, less what the
	 * downlink's marks took).  It falls when the senders' RTTs do
	 * (receiver.c) and on marks, below what is outstanding already:
	 * then b may not grow until it is under it again. */
	if (c->b > sird_rx_bucket(c) && c->b > S.b_prev)
		fail_msg("b %llu > the bucket %llu (B %llu) at %llu ns", (unsigned long long)c->b,
			 (unsigned long long)sird_rx_bucket(c), (unsigned long long)c->B,
			 (unsigned long long)S.now);
	S.over_b += c->b > c->B;
	S.b_prev = c->b;
	if (c->b > S.b_max)
		S.b_max = c->b;
	for (int i = 0; i < S.n; i++) {
		const struct sird_txt *t = S.s[i]->tx[0];
		const struct sird_rxt *r = S.r->rx[i];
		uint64_t lim;
		int32_t held;

		if (!t || !r || r->slot == SIRD_NO_SLOT)
			continue;
		lim = sird_limit_bytes(&c->s[r->slot].lim);
		if (i == 0 && lim < S.lim_min)
			S.lim_min = lim;
		/* A limit under a grain grants a sender with nothing
		 * outstanding nothing, and no DATA comes to raise it. */
		if (lim < c->grain)
			fail_msg("sender %d's limit %llu is under a grain at %llu ns", i,
				 (unsigned long long)lim, (unsigned long long)S.now);
		/* Both ends in the same epoch, and the sender busy (idle, the
		 * receiver takes stale credit back first: receiver.c). */
		if (!t->c.open || !r->c.est || t->ep_isn != r->c.isn ||
		    (!eqt_tx_backlog(&t->c) && !t->c.infl.n))
			continue;
		held = (int32_t)(t->granted - t->spent);
		if (held > 0 && (uint64_t)held > c->s[r->slot].sb)
			fail_msg("sender %d holds %d, its share at the receiver is %llu at %llu ns",
				 i, held, (unsigned long long)c->s[r->slot].sb,
				 (unsigned long long)S.now);
	}
}

static bool all_done(void)
{
	for (int i = 0; i < S.n; i++)
		if (S.got[i] < deliverable(i))
			return false;
	return true;
}

/* The simulation until `until` (or, if stop, until everything came); the
 * receiver forgets everything at flush_at (0: never). */
static void run(uint64_t until, uint64_t flush_at, bool stop)
{
	uint64_t next_tick = S.now;

	while (S.now < until) {
		uint64_t t = S.nev ? S.ev[0].t : until;

		if (next_tick < t)
			t = next_tick;
		if (t > until) {
			S.now = until;	/* nothing before it: time passes */
			break;
		}
		S.now = t;
		if (flush_at && S.now >= flush_at) {
			sird_flush(S.r, MAXS, S.now);	/* the receiver forgets */
			flush_at = 0;
		}
		if (S.nev && S.ev[0].t <= S.now) {
			struct ev e = S.ev[0];

			memmove(S.ev, S.ev + 1, --S.nev * sizeof(*S.ev));
			if (e.to == MAXS) {
				struct eqt_pkt *p = NULL;

				if (e.h.type == EQ_T_DATA) {
					queue_to(S.port_q - 1);
					p = eqt_pkt_get(&S.rp);
					assert_non_null(p);
					p->len = e.len;
					p->flags = 0;
					memcpy(p->data, &e.id, 4);
				}
				sird_wire(S.r, (uint32_t)e.from, &e.h, p, S.now);
			} else if (!sird_wire(S.s[e.to], 0, &e.h, NULL, S.now)) {
				S.refused++;	/* nothing genuine should be */
			}
		}
		uint64_t d = sird_run(S.r, S.now);

		for (int i = 0; i < S.n; i++) {
			uint64_t x = i == 0 && S.now < S.asleep_to ? S.asleep_to :
				     sird_run(S.s[i], S.now);

			if (x < d)
				d = x;
		}
		check_credit();
		next_tick = d > S.now ? d : S.now + 1;
		if (stop && all_done())
			break;
	}
}

static void expect_credit_back(void);

/* A gap of black_n packets that never arrive, however often they are
 * sent (UnschT 0: every packet goes on credit): the transfer completes
 * without them, and their credit came back once, either when the reorder
 * queue gave the gap up or by the silence rule (when the gap held the
 * sender at its limit), not both.  When its transfer was done. */
static uint64_t given_up_gap(struct sird_cfg *c, uint32_t black_n)
{
	struct sird_published rx;

	c->unsch_bdps = 0;
	setup_with(1, c, c);
	S.black_lo = 100;
	S.black_n = black_n;
	offer_all();
	run(500000000ULL, 0, true);
	assert_int_equal(S.got[0], NPKT - S.black_n);
	assert_int_equal(S.refused, 0);
	sird_peer_state(S.r, 0, NULL, &rx);
	assert_int_equal(rx.credit_reclaimed, S.black_n * (MTU + 14));
	assert_int_equal(rx.granted, 0);
	assert_int_equal(rx.bucket_out, 0);
	return S.done_at[0];
}

/* About the sender's whole limit (4.3 grains) lost: kept (as it was, seen
 * on the fabric), the sender's share stayed at its limit with nothing on
 * the way: no grant ever again, the sender asking for ever. */
static void test_given_up_gap(void **state)
{
	struct sird_cfg c = cfg(0);
	uint64_t done;

	(void)state;
	done = given_up_gap(&c, 4);
	printf("# a gap of %u given up: done at %.2f ms (the reorder timeout %.1f ms), lost %u\n",
	       S.black_n, done / 1e6, c.reorder_ns / 1e6, S.data_lost);
	/* Within the gap's timeout and the transfer's time, not an RTO
	 * backoff or 4 RTOs of silence on top. */
	assert_true(done > 0 && done < c.reorder_ns + 20000000ULL);
	run(S.now + 8 * RTO, 0, false);
	expect_credit_back();
	teardown_sim();
}

/* Two packets lost, well within the sender's limit: it goes on sending,
 * never silent for 4 RTOs, and the gap's credit comes back when the gap
 * is given up.  Before, it stayed out until the transfer ended, and with
 * it that much of B (given_up_gap() checks it at the end). */
static void test_given_up_gap_within_the_limit(void **state)
{
	struct sird_cfg c = cfg(0);

	(void)state;
	given_up_gap(&c, 2);
	run(S.now + 8 * RTO, 0, false);
	expect_credit_back();
	teardown_sim();
}

/* The silence rule takes back the credit of packets lost at a burst's
 * tail (no later packet: no gap), while the sender's agent does not run
 * to resend them; its resends then fill the tail in order.  A gap given
 * up later, in the next burst, gives its credit back whole: what the
 * silence rule took was the tail's, not this gap's.  It was kept, and
 * discounted the gap's, whose credit stayed out of B until the transfer
 * was done (given_up_gap() checks it then). */
static void test_silence_then_a_later_gap(void **state)
{
	struct sird_cfg c = cfg(0);
	struct sird_published rx;
	uint64_t silenced;
	uint32_t first = 50;

	(void)state;
	c.unsch_bdps = 0;
	setup_with(1, &c, &c);
	S.once_lo = first - 2;
	S.once_n = 2;
	S.black_lo = 200;
	S.black_n = 2;
	for (uint32_t id = 0; id < first; id++)
		offer(0, id);
	while (S.data_sent[0] < first)
		run(S.now + 1000, 0, false);
	S.asleep_to = S.now + 6 * RTO;
	run(S.asleep_to, 0, false);
	sird_peer_state(S.r, 0, NULL, &rx);
	silenced = rx.credit_reclaimed;
	assert_int_equal(silenced, 2 * FRAME);	/* the tail's, by the silence rule */
	for (uint32_t id = first; id < NPKT; id++)
		offer(0, id);
	run(500000000ULL, 0, true);
	assert_int_equal(S.got[0], NPKT - S.black_n);
	sird_peer_state(S.r, 0, NULL, &rx);
	assert_int_equal(rx.credit_reclaimed, silenced + S.black_n * FRAME);
	assert_int_equal(rx.granted, 0);
	assert_int_equal(rx.bucket_out, 0);
	run(S.now + 8 * RTO, 0, false);
	expect_credit_back();
	teardown_sim();
}

/* A burst is what comes after the tunnel was idle two round trips: an
 * inner flow that refills it the moment it drains (TCP held by its
 * window, every round trip) gets no new unscheduled bytes, or every
 * sender of an incast sent a free BDP each round trip.  A small packet
 * alone in the drained tunnel (an RPC) goes unscheduled all the same. */
static uint32_t queued_unsched(const struct sird_txt *t)
{
	uint32_t n = 0;

	for (const struct eqt_pkt *p = t->c.q[EQT_CLS_TCP].head; p; p = p->next)
		n += !!(p->flags & SIRD_PF_UNSCHED);
	return n;
}

static void test_burst_needs_idle(void **state)
{
	struct sird_published own;
	const struct sird_txt *t;
	uint32_t id = 0;

	(void)state;
	setup(1, 0);
	for (; id < 10; id++)
		offer(0, id);
	t = S.s[0]->tx[0];
	assert_int_equal(queued_unsched(t), 4);	/* a first burst: the BDP guess's 4 frames */
	/* Until it drains: nothing waits, nothing in flight. */
	while ((eqt_tx_backlog(&t->c) || t->c.infl.n || S.got[0] < id) && S.now < 100000000ULL)
		run(S.now + 5000, 0, false);
	sird_peer_state(S.s[0], 0, NULL, &own);
	uint64_t un = own.unsched_bytes;

	assert_true(un > 0);
	for (; id < 20; id++)		/* at once: the same burst, on credit */
		offer(0, id);
	assert_int_equal(queued_unsched(t), 0);
	while (S.got[0] < id && S.now < 100000000ULL)
		run(S.now + 5000, 0, false);
	sird_peer_state(S.s[0], 0, NULL, &own);
	assert_int_equal(own.unsched_bytes, un);
	/* Drained, not idle for two round trips: a small packet alone (an
	 * RPC) goes at once all the same; a full frame behind it does not. */
	while ((eqt_tx_backlog(&t->c) || t->c.infl.n) && S.now < 100000000ULL)
		run(S.now + 5000, 0, false);
	offer_len(0, id++, 150);
	assert_int_equal(queued_unsched(t), 1);
	offer(0, id++);
	assert_int_equal(queued_unsched(t), 1);
	while ((S.got[0] < id || t->c.infl.n) && S.now < 100000000ULL)
		run(S.now + 5000, 0, false);
	sird_peer_state(S.s[0], 0, NULL, &own);
	assert_int_equal(own.unsched_bytes, un + 150);
	un = own.unsched_bytes;
	run(S.now + 1000000, 0, false);		/* idle 1 ms: many round trips */
	/* A smoothed RTT eight times the lowest, as a slow agent makes it:
	 * the burst still goes unscheduled up to the path's BDP (the lowest
	 * RTT's, 4 frames here), not the loop's (8 times that), which would
	 * only queue at the receiver's port. */
	struct sird_txt *tw = S.s[0]->tx[0];
	uint32_t path_pkts = (uint32_t)(RATE / 8 * tw->c.min_rtt_ns / 1000000000ULL / FRAME);

	tw->c.rtt.srtt_ns = 8 * tw->c.min_rtt_ns;
	for (uint32_t end = id + 40; id < end; id++)	/* a new burst */
		offer(0, id);
	assert_true(queued_unsched(tw) > 0);
	assert_true(queued_unsched(tw) <= path_pkts + 1);
	while (S.got[0] < id)
		run(S.now + 100000, 0, false);
	sird_peer_state(S.s[0], 0, NULL, &own);
	printf("# bursts: unscheduled %llu after the first, %llu after an immediate refill, %llu after 1 ms idle\n",
	       (unsigned long long)un, (unsigned long long)un, (unsigned long long)own.unsched_bytes);
	assert_true(own.unsched_bytes > un);
	run(S.now + 8 * RTO, 0, false);
	expect_credit_back();
	teardown_sim();
}

/* An inner TCP connection's first window comes a round trip after its
 * handshake (here, as a TLS one, a few exchanges of small packets), whose
 * small packets went alone, unscheduled, and left the tunnel busy less
 * than two round trips before: that window is still the tunnel's first
 * burst, and its first path BDP goes unscheduled.  Counted as a burst
 * only after two idle round trips since any packet, it waited a round
 * trip for credit whenever the handshake had used the unscheduled bytes
 * of the tunnel's first packet (on the fabric at 150 Mbit/s the guess's
 * BDP is less than a frame: always), and each window after it too: a lone
 * flow over 1 ms links took 189-205 ms against cubic's 135-143
 * (docs/sird.md). */
static void test_first_burst_after_a_handshake(void **state)
{
	const struct sird_txt *t;
	uint32_t id = 0;

	(void)state;
	setup(1, 0);
	/* The handshake: more small packets than the first one's
	 * unscheduled bytes (the BDP guess's) cover. */
	for (; id < 60; id++) {
		offer_len(0, id, 120);
		t = S.s[0]->tx[0];
		assert_int_equal(queued_unsched(t), 1);
		while ((S.got[0] < id + 1 || t->c.infl.n) && S.now < 100000000ULL)
			run(S.now + 5000, 0, false);
	}
	/* Small packets together in the drained tunnel begin no burst:
	 * the first goes alone (the rule for small packets), the others on
	 * credit. */
	for (uint32_t end = id + 3; id < end; id++)
		offer_len(0, id, 120);
	assert_int_equal(queued_unsched(t), 1);
	while ((S.got[0] < id || t->c.infl.n) && S.now < 100000000ULL)
		run(S.now + 5000, 0, false);
	for (uint32_t end = id + 10; id < end; id++)	/* the first window, at once */
		offer(0, id);
	/* The path's BDP (its lowest RTT, the SYN's): 3 whole frames here. */
	uint32_t path_pkts = (uint32_t)(RATE / 8 * t->c.min_rtt_ns / 1000000000ULL / FRAME);

	assert_true(path_pkts >= 2);
	assert_int_equal(queued_unsched(t), path_pkts);
	while (S.got[0] < id && S.now < 100000000ULL)
		run(S.now + 5000, 0, false);
	assert_int_equal(S.got[0], id);
	run(S.now + 8 * RTO, 0, false);
	expect_credit_back();
	teardown_sim();
}

/* An unscheduled packet the fabric trimmed goes again on credit, as the
 * paper's receiver schedules the RESEND of a lost unscheduled packet:
 * sent again at once, unscheduled, into the queue that trimmed it, the
 * first windows of a 32 -> 1 incast on the fabric were trimmed 3,000
 * times over.  Here the switch trims everything until the burst's
 * unscheduled packets are trimmed; their resends must say they went on
 * credit (the receiver gives that credit back when they come), and all
 * the credit comes back when the transfer is done. */
static void test_trimmed_unscheduled_resent_on_credit(void **state)
{
	const struct sird_txt *t;
	uint32_t id = 0;

	(void)state;
	setup(1, 0);
	S.trim_at = 0;
	for (; id < 10; id++)
		offer(0, id);
	t = S.s[0]->tx[0];
	assert_int_equal(queued_unsched(t), 4);
	while (S.trims < 4 && S.now < 100000000ULL)
		run(S.now + 1000, 0, false);
	S.trim_at = TRIM_AT;
	while (S.got[0] < id && S.now < 100000000ULL)
		run(S.now + 5000, 0, false);
	printf("# 4 unscheduled packets trimmed: resent %u on credit, %u unscheduled, trims %u\n",
	       S.rtx_sched, S.rtx_unsched, S.trims);
	assert_int_equal(S.got[0], id);
	assert_int_equal(S.rtx_unsched, 0);
	assert_true(S.rtx_sched >= 4);
	run(S.now + 8 * RTO, 0, false);
	expect_credit_back();
	teardown_sim();
}

static void expect_complete(bool exact)
{
	assert_int_equal(S.refused, 0);
	for (int i = 0; i < S.n; i++) {
		assert_int_equal(S.got[i], NPKT);
		if (exact) {
			assert_int_equal(S.dups[i], 0);
			assert_int_equal(S.ooo[i], 0);
		}
	}
}

/* Idle again: the bucket empty, no sender holding or wanting credit. */
static void expect_credit_back(void)
{
	const struct sird_rx *c = sird_credit_of(S.r);
	struct sird_published own;

	assert_int_equal(c->b, 0);
	for (int k = 0; k < SIRD_MAX_SENDERS; k++) {
		assert_int_equal(c->s[k].sb, 0);
		assert_int_equal(c->s[k].rem, 0);
	}
	for (int i = 0; i < S.n; i++) {
		sird_peer_state(S.s[i], 0, NULL, &own);
		assert_int_equal(own.credit_held, 0);
		assert_int_equal(own.credit_wanted, 0);
	}
}

/* When the last sender's packets were all delivered, and the first's. */
static uint64_t last_done(uint64_t *first)
{
	uint64_t last = 0, f = UINT64_MAX;

	for (int i = 0; i < S.n; i++) {
		last = S.done_at[i] > last ? S.done_at[i] : last;
		f = S.done_at[i] < f ? S.done_at[i] : f;
	}
	if (first)
		*first = f;
	return last;
}

static void test_one_sender(void **state)
{
	struct sird_published own, rown;
	/* The burst's unscheduled bytes: min(BDP, UnschT) with UnschT a
	 * BDP, the 50 us guess's (no sample before the first packet goes),
	 * in whole packets: a packet goes unscheduled only if it fits. */
	uint64_t unsched = BDP_GUESS / FRAME * FRAME;
	double ideal = NPKT * WIRE(FRAME) * 8 / 1e9, bound;

	(void)state;
	rng_state = 1;
	setup(1, 0);
	offer_all();
	run(2000000000ULL, 0, true);
	expect_complete(true);
	run(S.now + 1000000, 0, false);		/* the last ACKs come back */
	sird_peer_state(S.s[0], 0, NULL, &own);
	sird_peer_state(S.r, 0, NULL, &rown);
	/* Credit is paced at 95 % of the link, and a lone sender's limit
	 * is a BDP: within 1.3 times the wire's time, and a few RTTs. */
	bound = 1.3 * ideal + 5 * BASE_RTT / 1e9;
	printf("# one sender: done at %.2f ms (ideal %.2f, %.2fx, bound %.2f), unscheduled %llu, "
	       "scheduled %llu, RTS %u, queue max %u, marks %u, bucket max %llu of B %llu, "
	       "BDP %llu\n", S.done_at[0] / 1e6, ideal * 1e3, S.done_at[0] / 1e9 / ideal,
	       bound * 1e3, (unsigned long long)own.unsched_bytes,
	       (unsigned long long)own.sched_bytes, S.rts[0], S.port_qmax, S.marks,
	       (unsigned long long)S.b_max, (unsigned long long)sird_credit_of(S.r)->B,
	       (unsigned long long)rown.bdp);
	assert_int_equal(own.unsched_bytes, unsched);		/* the first packets */
	assert_int_equal(S.unsched_hi, (int)(unsched / FRAME) - 1);
	assert_int_equal(own.unsched_bytes + own.sched_bytes, (uint64_t)NPKT * FRAME);
	assert_int_equal(S.trims, 0);
	assert_true(S.done_at[0] / 1e9 <= bound);
	expect_credit_back();
	teardown_sim();
}

/* A sender whose agent reacts late, and not always as late (0 to 400 us
 * after each control packet arrives, 200 on average: four times the
 * fabric's round trip): the credit loop's round trip is mostly that, and
 * B must cover it, or a lone sender runs at B over that loop.  The
 * lowest RTT it measures is near the fabric's (its luckiest packet); B on
 * that gave a third of the link.  The sender reports its smoothed RTT
 * (sender.c, loop_rtt()), and the receiver's BDP follows it. */
static void test_slow_agent(void **state)
{
	struct sird_published rown, own;
	uint64_t loop = BASE_RTT + 200000, loop_bdp = RATE / 8 * loop / 1000000000ULL;
	double ideal = NPKT * WIRE(FRAME) * 8 / 1e9;

	(void)state;
	rng_state = 8;
	setup(1, 0);
	S.ctl_delay = 200000;
	offer_all();
	run(2000000000ULL, 0, true);
	expect_complete(true);
	run(S.now + 2000000, 0, false);
	sird_peer_state(S.r, 0, NULL, &rown);
	sird_peer_state(S.s[0], 0, NULL, &own);
	printf("# slow agent: done at %.2f ms (ideal %.2f, %.2fx), BDP %llu (the loop's %llu, "
	       "the fabric's %llu), queue max %u, csn %llu, least limit %llu\n", S.done_at[0] / 1e6,
	       ideal * 1e3, S.done_at[0] / 1e9 / ideal, (unsigned long long)rown.bdp,
	       (unsigned long long)loop_bdp, (unsigned long long)BDP_TRUE, S.port_qmax,
	       (unsigned long long)own.csn_sent, (unsigned long long)S.lim_min);
	assert_true(rown.bdp >= loop_bdp * 7 / 8);
	/* Credit paced at 95 %, a first round trip or two without: */
	assert_true(S.done_at[0] / 1e9 <= 1.2 * ideal + 4 * loop / 1e9);
	assert_int_equal(S.trims, 0);
	expect_credit_back();
	teardown_sim();
}

static void test_incast(void **state)
{
	const struct sird_rx *c;
	struct sird_published own;
	uint64_t unsched = 0, bdp, first, last;
	double ideal = 8.0 * NPKT * WIRE(FRAME) * 8 / 1e9, mean, spread, qbound;

	(void)state;
	rng_state = 2;
	setup(8, 0);
	offer_all();
	run(5000000000ULL, 0, true);
	expect_complete(true);
	run(S.now + 1000000, 0, false);
	expect_credit_back();
	c = sird_credit_of(S.r);
	sird_peer_state(S.r, 0, NULL, &own);
	bdp = own.bdp;
	for (int i = 0; i < S.n; i++) {
		sird_peer_state(S.s[i], 0, NULL, &own);
		unsched += own.unsched_bytes;
	}
	mean = (double)S.q_area / (double)S.q_last;
	last = last_done(&first);
	spread = (double)first / (double)last;
	/* The port holds at most the credit beyond what the pipe holds,
	 * B - BDP (the fabric's), and the eight unscheduled bursts that met
	 * there; plus 2 packets of slack: port_q counts a packet until it
	 * reaches the receiver, the one being serialised and the one on the
	 * last 10 us of wire (less than a frame's 12.3 us). */
	qbound = (double)(c->B - BDP_TRUE) / WIRE(FRAME) + (double)unsched / FRAME + 2;
	printf("# incast 8->1: first %.2f ms, last %.2f ms (ideal %.2f), first/last %.3f, "
	       "queue mean %.1f max %u (bound %.1f), marks %u, trims %u, unscheduled %llu pkts, "
	       "bucket max %llu, B %llu at the end (b over B after %u events), BDP %llu (the "
	       "fabric's %llu)\n",
	       first / 1e6, last / 1e6, ideal * 1e3, spread, mean, S.port_qmax,
	       qbound, S.marks, S.trims, (unsigned long long)(unsched / FRAME),
	       (unsigned long long)S.b_max, (unsigned long long)c->B, S.over_b,
	       (unsigned long long)bdp, (unsigned long long)BDP_TRUE);
	/* The bucket runs on the senders' smoothed RTTs (each reports its
	 * own again once it moved by an eighth: sender.c), which the queue
	 * the overcommitment allows lengthens, but not for good: not on a
	 * first sample that waited behind the unscheduled bursts (2.6 BDPs
	 * when the receiver kept the largest ever reported). */
	assert_true(bdp >= BDP_TRUE && bdp <= BDP_TRUE * 3 / 2);
	assert_true(S.port_qmax <= qbound);
	assert_true(spread >= 0.8);
	assert_true(last / 1e9 <= 1.3 * ideal);
	assert_int_equal(S.trims, 0);
	teardown_sim();
}

/* UnschT 0: every byte waits for credit, so the sender's first word is
 * an RTS. */
static void test_no_unscheduled(void **state)
{
	struct sird_cfg c = cfg(0);
	struct sird_published own;

	(void)state;
	rng_state = 3;
	c.unsch_bdps = 0;
	setup_with(1, &c, &c);
	offer_all();
	run(2000000000ULL, 0, true);
	expect_complete(true);
	run(S.now + 1000000, 0, false);
	sird_peer_state(S.s[0], 0, NULL, &own);
	printf("# UnschT 0: done at %.2f ms, RTS %u, first sent %s\n", S.done_at[0] / 1e6,
	       S.rts[0], S.first[0] == EQ_T_RTS ? "RTS" : "DATA");
	assert_int_equal(S.first[0], EQ_T_RTS);
	assert_int_equal(own.unsched_bytes, 0);
	assert_int_equal(own.sched_bytes, (uint64_t)NPKT * FRAME);
	expect_credit_back();
	teardown_sim();
}

/* Without a trimming switch: a drop-tail port and 1 % of DATA lost on the
 * way; the receiver's loss window and the RTO repair it, every resend on
 * its first send's credit, which comes back when it arrives. */
static void test_losses_without_trimming(void **state)
{
	struct eq_agent_peer v;
	uint64_t nacks = 0, rtx = 0;

	(void)state;
	rng_state = 4;
	setup(4, 200000);
	S.drop_tail = true;
	S.trim_at = 12;		/* the four unscheduled bursts overflow it */
	S.data_loss = 0.01;
	offer_all();
	run(10000000000ULL, 0, true);
	expect_complete(true);
	for (int i = 0; i < S.n; i++) {
		sird_peer_state(S.s[i], 0, &v, NULL);
		nacks += v.rx_nacks;
		rtx += v.tx_rtx;
	}
	/* Quiet for longer than the stale reclaim (4 RTOs). */
	run(S.now + 6 * RTO, 0, false);
	printf("# 4->1, drop-tail, 1 %% loss: last %.2f ms, lost %u, dropped %u, NACKs %llu, "
	       "retransmissions %llu\n", last_done(NULL) / 1e6, S.data_lost, S.drops,
	       (unsigned long long)nacks, (unsigned long long)rtx);
	assert_true(S.data_lost > 0);
	assert_true(S.drops > 0);
	assert_true(rtx >= S.data_lost + S.drops);
	assert_true(nacks > 0);
	expect_credit_back();
	teardown_sim();
}

/* The credit the receiver granted, to every sender. */
static uint64_t credit_sent(void)
{
	struct sird_published own;
	uint64_t sum = 0;

	for (int i = 0; i < S.n; i++) {
		sird_peer_state(S.r, (uint32_t)i, NULL, &own);
		sum += own.credit_sent;
	}
	return sum;
}

/* The credit granted over 200 steps of 10 us, each followed (h not NULL)
 * by a frame of `len` bytes from peer at the receiver: DATA comes with a
 * seq half the seq space from the next one in order, which the receiver
 * refuses (REFUSE_WINDOW), having used its link all the same.  *extra:
 * the wire bytes those frames took. */
static uint64_t granted_beside(const struct eqt_hdr *h, uint32_t peer, uint16_t len,
			       uint64_t *extra)
{
	uint64_t c = credit_sent();

	*extra = 0;
	for (int k = 0; k < 200; k++) {
		run(S.now + 10000, 0, false);
		if (!h)
			continue;
		struct eqt_hdr x = *h;
		struct eqt_pkt *p = NULL;

		x.wire_len = len;
		if (x.type == EQ_T_DATA) {
			struct eq_agent_peer v;

			sird_peer_state(S.r, peer, &v, NULL);
			x.seq_ack = v.rx_expected + 0x80000000u;
			p = eqt_pkt_get(&S.rp);
			assert_non_null(p);
			p->len = len;
		}
		sird_wire(S.r, peer, &x, p, S.now);
		*extra += WIRE(len);
	}
	return credit_sent() - c;
}

/* Frames that reach the receiver's link without its credit come out of
 * the credit pacer's budget: the downlink drains them too.  Over 2 ms of
 * two senders wanting more than the link, 200 frames of 1,000 bytes
 * every 10 us (82 % of the link) leave the senders what the pacer has
 * beyond them, whether they are control frames (from a host the receiver
 * grants nothing) or DATA sent unscheduled; DATA on credit was paid for
 * when the credit was granted, and takes nothing more.  Counted nowhere,
 * as before, the grants went on at 95 % of the link and the frames
 * queued on top. */
static void test_pacer_pays_for_what_came_uncredited(void **state)
{
	const struct eqt_hdr ack = { .type = EQ_T_ACK };
	const struct eqt_hdr unsched = { .type = EQ_T_DATA, .flags = EQ_F_UNSCHED };
	const struct eqt_hdr sched = { .type = EQ_T_DATA };
	uint64_t quiet, loud, extra, data_u, extra_u, data_s, extra_s;

	(void)state;
	rng_state = 9;
	setup(2, 0);
	offer_all();
	run(3000000, 0, false);		/* past the unscheduled bursts */
	quiet = granted_beside(NULL, 0, 0, &extra);
	loud = granted_beside(&ack, MAXS - 1, 1000, &extra);
	data_u = granted_beside(&unsched, 0, 1000, &extra_u);
	data_s = granted_beside(&sched, 0, 1000, &extra_s);
	printf("# credit granted in 2 ms: %llu bytes alone, %llu beside %llu bytes of control "
	       "frames, %llu beside unscheduled DATA, %llu beside DATA on credit\n",
	       (unsigned long long)quiet, (unsigned long long)loud, (unsigned long long)extra,
	       (unsigned long long)data_u, (unsigned long long)data_s);
	/* Alone, the pacer's rate (95 % of the link, less a few grains). */
	assert_true(quiet >= RATE / 8 * 2000000 / 1000000000ULL * 90 / 100);
	/* Beside uncredited frames, what is left of it: within two grains
	 * and the last frame, whose bytes the pacer may still owe (a debt)
	 * when the window ends. */
	assert_true(loud + extra <= quiet + 2 * WIRE(FRAME) + WIRE(1000));
	assert_true(loud + extra + 2 * WIRE(FRAME) + WIRE(1000) >= quiet);
	assert_true(data_u + extra_u <= quiet + 2 * WIRE(FRAME) + WIRE(1000));
	assert_true(data_u + extra_u + 2 * WIRE(FRAME) + WIRE(1000) >= quiet);
	/* Beside DATA on credit, all of it. */
	assert_true(data_s + 2 * WIRE(FRAME) >= quiet && data_s <= quiet + 2 * WIRE(FRAME));
	run(5000000000ULL, 0, true);
	expect_complete(true);
	teardown_sim();
}

static struct eqt_hdr pull(uint32_t ack, uint32_t cum, uint32_t credit)
{
	return (struct eqt_hdr){ .type = EQ_T_PULL, .seq_ack = ack, .pull = cum,
				 .opts = EQT_OPT(EQ_OPT_CREDIT), .credit = credit };
}

/* Sender i alone, its clock to `until`: what it sends goes nowhere. */
static void run_alone(int i, uint64_t until)
{
	for (uint64_t t = S.now; t <= until;) {
		uint64_t d = sird_run(S.s[i], t);

		t = d > t ? d : t + 1;
	}
	S.now = until;
}

/* Credit no receiver granted: a count beyond what the sender asked for
 * is counted and ignored, a PULL acking no seq of the epoch refused; a
 * genuine one is then spent, and only it. */
static void test_forged_credit(void **state)
{
	struct eq_agent_peer v;
	struct sird_published own;
	struct eqt_hdr h;
	uint32_t unsched = BDP_GUESS / FRAME, asked = (8 - unsched) * FRAME;

	(void)state;
	rng_state = 5;
	setup(1, 0);
	for (uint32_t id = 0; id < 8; id++)
		offer(0, id);
	run_alone(0, 100000);		/* the unscheduled burst goes */
	assert_int_equal(S.data_sent[0], unsched);
	sird_peer_state(S.s[0], 0, &v, &own);
	assert_int_equal(own.credit_wanted, asked);

	/* Beyond what was asked, with the ack the receiver would send. */
	h = pull(v.tx_next_seq - 1, v.tx_next_seq, asked + FRAME);
	assert_true(sird_wire(S.s[0], 0, &h, NULL, S.now));
	run_alone(0, S.now + 100000);
	sird_peer_state(S.s[0], 0, NULL, &own);
	assert_int_equal(own.bad_credit, 1);
	assert_int_equal(own.credit_held, 0);
	assert_int_equal(own.credit_wanted, asked);
	assert_int_equal(S.data_sent[0], unsched);
	/* Credit within what was asked, on an ack past what was sent. */
	h = pull(v.tx_next_seq + 100, v.tx_next_seq + 101, 2 * FRAME);
	assert_false(sird_wire(S.s[0], 0, &h, NULL, S.now));
	run_alone(0, S.now + 100000);
	sird_peer_state(S.s[0], 0, &v, &own);
	assert_int_equal(v.bad_ack, 1);
	assert_int_equal(own.credit_held, 0);
	assert_int_equal(S.data_sent[0], unsched);
	/* The genuine one: two packets go on it, and no more. */
	h = pull(v.tx_next_seq - 1, v.tx_next_seq, 2 * FRAME);
	assert_true(sird_wire(S.s[0], 0, &h, NULL, S.now));
	run_alone(0, S.now + 100000);
	sird_peer_state(S.s[0], 0, NULL, &own);
	assert_int_equal(S.data_sent[0], unsched + 2);
	assert_int_equal(own.credit_held, 0);
	assert_int_equal(own.credit_wanted, asked - 2 * FRAME);
	assert_int_equal(own.bad_credit, 1);
	teardown_sim();
}

/* A sender whose uplink runs at a quarter of the receiver's link cannot
 * spend the credit the receiver paces at 95 % of its own: it holds more
 * than SThr, says so (csn), and the receiver's limit for it falls. */
static void test_csn(void **state)
{
	struct sird_cfg sc = cfg(0), rc = cfg(0);
	struct sird_published own, rown;

	(void)state;
	rng_state = 6;
	sc.link_bps = RATE / 4;
	setup_with(1, &sc, &rc);
	offer_all();
	/* Half way (the uplink takes 34 ms): the limit, while csn comes. */
	run(15000000, 0, false);
	sird_peer_state(S.s[0], 0, NULL, &own);
	sird_peer_state(S.r, 0, NULL, &rown);
	printf("# csn at %.0f ms: csn sent %llu seen %llu of %u DATA, credit held %llu, "
	       "limit %llu (least %llu) of BDP %llu\n", S.now / 1e6,
	       (unsigned long long)own.csn_sent, (unsigned long long)rown.csn_seen,
	       S.data_sent[0], (unsigned long long)own.credit_held,
	       (unsigned long long)rown.limit, (unsigned long long)S.lim_min,
	       (unsigned long long)rown.bdp);
	assert_true(own.csn_sent > 0);
	assert_true(rown.csn_seen > 0);
	assert_true(rown.csn_seen <= own.csn_sent);	/* some are on their way */
	assert_true(rown.limit < rown.bdp);
	run(2000000000ULL, 0, true);
	expect_complete(true);
	printf("# csn: done at %.2f ms (its uplink's time %.2f)\n", S.done_at[0] / 1e6,
	       NPKT * WIRE(FRAME) * 8 / (RATE / 4.0) * 1e3);
	run(S.now + 1000000, 0, false);
	expect_credit_back();
	teardown_sim();
}

/* The receiver forgets everything mid-transfer (its agent restarted):
 * DATA in flight draws RSTs, each sender sends what was in flight again
 * in a new epoch, on no credit (the new receiver gave none for it), and
 * asks anew for the rest.  What the receiver delivered before may come
 * again (its inner transport drops duplicates). */
static void test_receiver_restart(void **state)
{
	struct eq_agent_peer v;
	uint32_t dups = 0;

	(void)state;
	rng_state = 7;
	setup(4, 0);
	offer_all();
	run(5000000000ULL, 3000000, true);
	expect_complete(false);
	run(S.now + 6 * RTO, 0, false);
	for (int i = 0; i < S.n; i++) {
		sird_peer_state(S.s[i], 0, &v, NULL);
		assert_true(v.rsts >= 1);
		assert_int_equal(v.bad_rst, 0);
		dups += S.dups[i];
	}
	printf("# receiver restart: last %.2f ms, duplicates %u, refused %u\n",
	       last_done(NULL) / 1e6, dups, S.refused);
	assert_int_equal(S.stale, 0);
	expect_credit_back();
	teardown_sim();
}

/* The receiver restarts while its sender, its epoch answered and nothing
 * in flight, waits for credit (UnschT 0: a new burst asks first).  Its
 * RTS draws an RST echoing the seq the RTS said, the next to number:
 * taken (not refused as one no packet carried), the sender starts a new
 * epoch and asks again. */
static void test_restart_while_asking(void **state)
{
	struct sird_cfg c = cfg(0);
	struct eq_agent_peer v;

	(void)state;
	rng_state = 8;
	c.unsch_bdps = 0;
	setup_with(1, &c, &c);
	for (uint32_t id = 0; id < 4; id++)
		offer(0, id);
	run(RTO, 0, false);
	assert_int_equal(S.got[0], 4);
	sird_peer_state(S.s[0], 0, &v, NULL);
	assert_int_equal(v.inflight_bytes, 0);
	sird_flush(S.r, MAXS, S.now);
	for (uint32_t id = 4; id < NPKT; id++)
		offer(0, id);
	run(S.now + 1000000000ULL, 0, true);
	sird_peer_state(S.s[0], 0, &v, NULL);
	printf("# restart while asking: done at %.2f ms, RTS %u, RSTs %llu, refused as forged "
	       "%llu\n", S.done_at[0] / 1e6, S.rts[0], (unsigned long long)v.rsts,
	       (unsigned long long)v.bad_rst);
	expect_complete(true);
	assert_int_equal(v.rsts, 1);
	assert_int_equal(v.bad_rst, 0);
	run(S.now + 1000000, 0, false);
	expect_credit_back();
	teardown_sim();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_sender),
		cmocka_unit_test(test_slow_agent),
		cmocka_unit_test(test_incast),
		cmocka_unit_test(test_no_unscheduled),
		cmocka_unit_test(test_losses_without_trimming),
		cmocka_unit_test(test_forged_credit),
		cmocka_unit_test(test_csn),
		cmocka_unit_test(test_receiver_restart),
		cmocka_unit_test(test_restart_while_asking),
		cmocka_unit_test(test_given_up_gap),
		cmocka_unit_test(test_given_up_gap_within_the_limit),
		cmocka_unit_test(test_silence_then_a_later_gap),
		cmocka_unit_test(test_burst_needs_idle),
		cmocka_unit_test(test_first_burst_after_a_handshake),
		cmocka_unit_test(test_trimmed_unscheduled_resent_on_credit),
		cmocka_unit_test(test_pacer_pays_for_what_came_uncredited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
