// SPDX-License-Identifier: GPL-2.0-only
/*
 * SMaRTT as a scheme, end to end in one process: N senders and one
 * receiver (each a smartt instance with its own pool and a mocked clock)
 * joined by a model fabric: 10 us of propagation each way and, towards
 * the receiver, one bottleneck port at the link rate that CE-marks DATA
 * queued above K packets and trims DATA above a threshold (or drops it,
 * for a fabric that cannot trim); DATA can also be lost on the way.
 * Checked: every packet delivered exactly once and in order (or at least
 * once after the receiver lost its state), the incast is fair and its
 * queue held near the marking threshold by the windows, losses repaired
 * without a trimming switch, and control packets a stranger sends change
 * nothing.
 */
#include "testlib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "smartt.h"
#include "smartt_int.h"	/* the sender's REPS state */

#define MAXS	9
#define MTU	1500
#define RATE	1000000000ULL
#define PROP	10000ULL
#define NPKT	700			/* ~1 MB per sender */
#define WIRE(len)	((uint64_t)(len) + 14 + EQ_ETH_FRAMING)
#define MARK_AT	8			/* the port's ECN threshold, packets */

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
	struct smartt	*s[MAXS], *r;
	struct eqt_pool	sp[MAXS], rp;
	uint64_t	port_free;
	uint32_t	port_q, port_qmax, trim_at, trims, drops, marks, data_lost;
	uint32_t	refused;	/* control packets a sender did not take */
	uint64_t	q_area, q_last;		/* the queue's time integral */
	bool		drop_tail;
	double		data_loss;
	uint64_t	lose_until;	/* every DATA sent before it is lost */
	uint64_t	first_rtx_at;	/* when the first resend went (0: none) */
	uint32_t	got[MAXS], dups[MAXS], ooo[MAXS];
	/* REPS: entropies in use (0: off, every DATA keeps TC's path), the
	 * path each seq last went by, and paths that lose everything sent
	 * on them (path % dead_mod == 1; 0: none). */
	uint32_t	entropies, dead_mod, sends, dead_sends, nfirst;
	/* ... paths that lose every ACK and NACK back (path % back_mod ==
	 * 2), ACKs sent by them, the sends on them from back_from on, and
	 * a random delay of up to ack_jitter ns on every ACK (they overtake
	 * each other, as on sprayed paths of different queues). */
	uint32_t	back_mod, acks, back_acks, sends_late, back_late;
	uint64_t	back_from, ack_jitter;
	/* Entropies a clean ACK went back by (not lost), per sender, and the
	 * DATA that said their entropy's round trip works (EQ_F_PROVEN). */
	bool		came_back[MAXS][16];
	uint32_t	proven, lost_nacks;
	uint16_t	seq_path[MAXS][4096], first[16];
	uint8_t		seen[MAXS][NPKT];
	uint64_t	done_at[MAXS];
} S;

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

static void s_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	int i = (int)(intptr_t)ctx;
	struct ev e = { .to = MAXS, .from = i, .h = *h, .len = p->len };
	uint64_t arrive = S.now + PROP, start;

	(void)peer;
	assert_true(h->ect);	/* the fabric is to mark it, not drop it */
	memcpy(&e.id, p->data, 4);
	if ((h->flags & EQ_F_RTX) && !S.first_rtx_at)
		S.first_rtx_at = S.now;
	assert_int_equal(h->path_set, S.entropies != 0);
	if (h->path_set) {
		assert_true(h->path_id < S.entropies);
		S.seq_path[i][h->seq_ack & 4095] = h->path_id;
		/* Proven: a clean ACK came back by it (it may be lost since:
		 * ACKs of later sends by it are then still on their way). */
		if (h->flags & EQ_F_PROVEN) {
			assert_true(h->path_id < 16 && S.came_back[i][h->path_id]);
			S.proven++;
		}
		if (S.nfirst < 16)
			S.first[S.nfirst++] = h->path_id;
		S.sends++;
		if (S.dead_mod && h->path_id % S.dead_mod == 1) {
			S.dead_sends++;
			return;		/* a black hole */
		}
		if (S.back_mod && S.now >= S.back_from) {
			S.sends_late++;
			S.back_late += h->path_id % S.back_mod == 2;
		}
	}
	if (S.now < S.lose_until ||
	    (S.data_loss > 0 && rnd32() % 10000 < S.data_loss * 10000)) {
		S.data_lost++;
		return;
	}
	if (S.port_q >= S.trim_at) {
		if (S.drop_tail) {
			S.drops++;
			return;
		}
		e.h.type = EQ_T_TRIMMED;
		S.trims++;
		e.t = arrive + PROP + WIRE(64) * 8 * 1000000000ULL / RATE;
		push(e);
		return;
	}
	if (S.port_q >= MARK_AT) {
		e.h.ce = 1;
		S.marks++;
	}
	start = arrive > S.port_free ? arrive : S.port_free;
	S.port_free = start + WIRE(p->len) * 8 * 1000000000ULL / RATE;
	queue_to(S.port_q + 1);
	e.t = S.port_free + PROP;
	push(e);
}

static void s_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	(void)ctx; (void)peer; (void)h;
	fail();		/* a sender says nothing */
}

static void s_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	(void)ctx; (void)peer; (void)p;
	fail();
}

static void r_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	(void)ctx; (void)peer; (void)p; (void)h;
	fail();
}

static void r_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	(void)ctx;
	/* An ACK, or a trimmed header's NACK, echoes its DATA's path. */
	if (h->type == EQ_T_ACK || (h->type == EQ_T_NACK && !(h->flags & EQ_F_LOST))) {
		assert_true(h->opts & EQT_OPT(EQ_OPT_PATH));
		if (S.entropies) {
			assert_int_equal(h->path_echo, S.seq_path[peer][h->seq_ack & 4095]);
			/* ... and goes back by it (its own path, REPS's) */
			assert_true(h->path_set);
			assert_int_equal(h->path_id, h->path_echo);
		}
	}
	/* A LOST NACK goes by a path whose way back works (the lost DATA's
	 * own may be dead): REPS's, not the agent's one path per peer. */
	if (S.entropies && h->type == EQ_T_NACK && (h->flags & EQ_F_LOST)) {
		assert_true(h->path_set && h->path_id < S.entropies);
		S.lost_nacks++;
	}
	if (S.back_mod && h->path_set) {
		S.acks++;
		if (h->path_id % S.back_mod == 2) {
			S.back_acks++;
			return;		/* a black hole on the way back */
		}
	}
	if (h->type == EQ_T_ACK && h->path_set && !(h->flags & EQ_F_ECE) && h->path_id < 16)
		S.came_back[peer][h->path_id] = true;
	push((struct ev){ .t = S.now + 2 * PROP + (S.ack_jitter ? rnd32() % S.ack_jitter : 0),
			  .to = (int)peer, .from = MAXS, .h = *h });
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
	if (S.got[peer] == NPKT && !S.done_at[peer])
		S.done_at[peer] = S.now;
}

static bool variant_nscc;	/* the next setup()'s rules: NSCC's */
static uint64_t base_rtt;	/* ... and its base RTT (0: measured) */

static struct smartt_cfg cfg(bool trimming, uint64_t loss_ns)
{
	struct smartt_cfg c = {
		.link_bps = RATE, .mtu = MTU, .framing = EQ_ETH_FRAMING, .npeers = MAXS,
		.edge_limit = 1000, .reorder_limit = 256, .reorder_ns = 4000000,
		.loss_ns = loss_ns, .rto_ns = 1000000, .drr_quantum = 3000,
		.idle_ns = 10000000000ULL,
	};

	smartt_settings_default(&c.rules);
	c.rules.trimming = trimming;
	smartt_nscc_settings_default(&c.nscc_rules);
	c.nscc_rules.trimming = trimming;
	c.nscc = variant_nscc;
	c.base_rtt_ns = base_rtt;
	return c;
}

static void setup_with(int n, const struct smartt_cfg *c)
{
	memset(&S, 0, sizeof(S));
	S.n = n;
	S.trim_at = 24;
	for (int i = 0; i < n; i++) {
		struct eqt_io io = { (void *)(intptr_t)i, s_data, s_ctl, s_deliver, NULL };

		assert_int_equal(eqt_pool_init(&S.sp[i], 4096), 0);
		S.s[i] = smartt_new(c, &io, &S.sp[i], 0, 1000 + i);
		assert_non_null(S.s[i]);
	}
	struct eqt_io rio = { NULL, r_data, r_ctl, r_deliver, NULL };

	assert_int_equal(eqt_pool_init(&S.rp, 4096), 0);
	S.r = smartt_new(c, &rio, &S.rp, 0, 7);
	assert_non_null(S.r);
}

static void setup(int n, bool trimming)
{
	struct smartt_cfg c = cfg(trimming, trimming ? 0 : 200000);

	setup_with(n, &c);
}

/* Every packet the modules took from their pools went back. */
static void teardown_sim(void)
{
	for (int i = 0; i < S.n; i++) {
		smartt_free(S.s[i]);
		assert_int_equal(S.sp[i].in_use, 0);
		eqt_pool_fini(&S.sp[i]);
	}
	smartt_free(S.r);
	assert_int_equal(S.rp.in_use, 0);
	eqt_pool_fini(&S.rp);
	free(S.ev);
}

static void offer(int i, uint32_t id)
{
	struct eqt_pkt *p = eqt_pkt_get(&S.sp[i]);

	assert_non_null(p);
	p->len = MTU;
	p->l3_off = 0;
	memset(p->data, 0, 64);
	memcpy(p->data, &id, 4);
	p->cls = EQT_CLS_TCP;
	assert_int_equal(smartt_local(S.s[i], 0, p, S.now), 0);
}

static void offer_all(void)
{
	for (int i = 0; i < S.n; i++)
		for (uint32_t id = 0; id < NPKT; id++)
			offer(i, id);
}

static void run(uint64_t until, uint64_t flush_at)
{
	uint64_t next_tick = 0;

	while (S.now < until) {
		uint64_t t = S.nev ? S.ev[0].t : until;

		if (next_tick < t)
			t = next_tick;
		S.now = t;
		if (flush_at && S.now >= flush_at) {
			smartt_flush(S.r, MAXS, S.now);	/* the receiver forgets */
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
				smartt_wire(S.r, (uint32_t)e.from, &e.h, p, S.now);
			} else {
				/* Nothing genuine is refused (late RSTs of an
				 * ended epoch are taken as late, not forged). */
				if (!smartt_wire(S.s[e.to], 0, &e.h, NULL, S.now))
					S.refused++;
			}
		}
		uint64_t d = smartt_run(S.r, S.now);

		for (int i = 0; i < S.n; i++) {
			uint64_t x = smartt_run(S.s[i], S.now);

			if (x < d)
				d = x;
		}
		next_tick = d > S.now ? d : S.now + 1;
		bool all = true;

		for (int i = 0; i < S.n; i++)
			all &= S.got[i] == NPKT;
		if (all)
			break;
	}
}

static void expect_complete(bool exact)
{
	for (int i = 0; i < S.n; i++) {
		assert_int_equal(S.got[i], NPKT);
		if (exact) {
			assert_int_equal(S.refused, 0);
			assert_int_equal(S.dups[i], 0);
			assert_int_equal(S.ooo[i], 0);
		}
	}
}

static uint64_t last_done(void)
{
	uint64_t last = 0;

	for (int i = 0; i < S.n; i++)
		last = S.done_at[i] > last ? S.done_at[i] : last;
	return last;
}

static double jain_of_done(void)
{
	double s = 0, q = 0;

	for (int i = 0; i < S.n; i++) {
		double x = 1.0 / (double)S.done_at[i];

		s += x;
		q += x * x;
	}
	return s * s / (S.n * q);
}

static void peer_state(struct smartt *m, uint32_t peer, struct eq_agent_peer *v,
		       struct smartt_published *own)
{
	smartt_peer_state(m, peer, v, own);
}

static void test_one_sender_fills_the_link(void **state)
{
	struct smartt_published own;
	double ideal = NPKT * WIRE(MTU) * 8 / 1e9;

	(void)state;
	rng_state = 1;
	setup(1, true);
	offer_all();
	run(2000000000ULL, 0);
	expect_complete(true);
	peer_state(S.s[0], 0, NULL, &own);
	printf("# one sender: done at %.2f ms (ideal %.2f), queue max %u, marks %u, trims %u, "
	       "window %llu bytes, base RTT %.1f us, BDP %llu\n", S.done_at[0] / 1e6, ideal * 1e3,
	       S.port_qmax, S.marks, S.trims, (unsigned long long)own.cwnd,
	       own.base_rtt / 1e3, (unsigned long long)own.bdp);
	/* The window starts at a BDP of the measured path, and a lone flow
	 * keeps the port busy: within 10 % of the wire's time. */
	assert_true(S.done_at[0] / 1e9 < ideal * 1.10);
	assert_int_equal(S.trims, 0);
	assert_true(own.base_rtt > 2 * PROP && own.base_rtt < 20 * PROP);
	teardown_sim();
}

/* n senders with REPS over 8 entropies (rng seed `seed`); TC's buckets of
 * the first sender and of the receiver in sb and rb, for the paths the
 * agents give TC. */
static void reps_setup(struct smartt_cfg *c, int n, uint64_t seed, struct eq_credit *sb,
		       struct eq_credit *rb)
{
	rng_state = seed;
	c->entropies = 8;
	setup_with(n, c);
	memset(sb, 0, MAXS * sizeof(*sb));
	memset(rb, 0, MAXS * sizeof(*rb));
	smartt_set_bucket(S.s[0], sb);
	smartt_set_bucket(S.r, rb);
	S.entropies = 8;
}

/* REPS (reps.h) on the scheme's DATA: exploration over the first BDP in
 * turn, every ACK echoing its packet's path, and two black-holed paths of
 * eight left: oblivious spraying would send a quarter of the packets into
 * them. */
static void test_reps_leaves_dead_paths(void **state)
{
	struct smartt_cfg c = cfg(true, 200000);
	struct smartt_published own;
	static struct eq_credit sb[MAXS], rb[MAXS];

	(void)state;
	reps_setup(&c, 1, 3, sb, rb);
	S.dead_mod = 4;			/* paths 1 and 5 */
	offer_all();
	run(4000000000ULL, 0);
	expect_complete(true);
	/* What TC sends itself (bare TCP ACKs) goes by a path that works:
	 * the sender's current one, and at the receiver, which sends no
	 * DATA back, the path of the last DATA that came. */
	smartt_sync(S.s[0], S.now);
	smartt_sync(S.r, S.now);
	assert_true(sb[0].path & EQ_PATH_SET);
	assert_true((sb[0].path & 0xffff) < 8 && (sb[0].path & 0xffff) % 4 != 1);
	assert_true(rb[0].path & EQ_PATH_SET);
	assert_true((rb[0].path & 0xffff) < 8 && (rb[0].path & 0xffff) % 4 != 1);
	peer_state(S.s[0], 0, NULL, &own);
	printf("# REPS: %u of %u DATA sent into the 2 dead paths of 8, %llu repaths, "
	       "%llu explorations, done at %.2f ms\n", S.dead_sends, S.sends,
	       (unsigned long long)own.repaths, (unsigned long long)own.explores,
	       S.done_at[0] / 1e6);
	/* The first BDP (50 us at 1 Gbit/s before any sample: 4 packets)
	 * explores 0, 1, 2, 3. */
	for (uint16_t i = 0; i < 4; i++)
		assert_int_equal(S.first[i], i);
	assert_true(S.dead_sends * 20 < S.sends);
	assert_true(own.repaths > 0);
	assert_int_equal(own.explores, 1);
	/* The receiver's LOST NACKs named the dead paths' entropies, at most
	 * those two (REPS keeps them out of its fresh picks, and lets them
	 * back one at a time later: reps.h); no ACK went missing. */
	assert_in_range(own.paths_lost, 1, 2);
	assert_true(S.lost_nacks >= own.paths_lost);
	assert_int_equal(own.ack_paths_lost, 0);
	teardown_sim();
}

/* REPS's working set (smartt.paths_kept): four senders to one receiver,
 * so that marks come, and two of eight paths black holes from the start.
 * Without it every mark takes the next fresh entropy in turn, and the
 * dead ones come round again as they are let back; with a set of 3, a
 * mark moves among the entropies that came back. */
static unsigned reps_incast_dead_sends(uint32_t keep, uint32_t *kept)
{
	struct smartt_cfg c = cfg(true, 200000);
	static struct eq_credit sb[MAXS], rb[MAXS];
	unsigned dead;

	c.paths_kept = keep;
	reps_setup(&c, 4, 7, sb, rb);
	S.dead_mod = 4;			/* paths 1 and 5 */
	offer_all();
	run(4000000000ULL, 0);
	expect_complete(true);
	*kept = S.s[0]->tx[0]->reps.keep;
	dead = S.dead_sends;
	teardown_sim();
	return dead;
}

static void test_reps_working_set(void **state)
{
	uint32_t k0, k3;
	unsigned seed = reps_incast_dead_sends(0, &k0), kept = reps_incast_dead_sends(3, &k3);

	(void)state;
	printf("# REPS, 4 -> 1, 2 dead paths of 8: %u DATA into them with the seed's rule, %u with a "
	       "working set of 3\n", seed, kept);
	assert_int_equal(k0, 0);
	assert_int_equal(k3, 3);
	assert_true(kept < seed);
}

/* The same, with the two dead paths dead only on the way back: the DATA
 * arrives, its ACK (which goes back by the DATA's entropy) does not, and
 * no LOST NACK names them.  The sender finds the ACKs lost (ackpath.h)
 * and leaves those entropies (without: 79 ACKs lost, 65 DATA sent on
 * them late).  ACKs also overtake each other, by up to 14 us. */
static void test_reps_leaves_dead_ways_back(void **state)
{
	struct smartt_cfg c = cfg(true, 200000);
	static struct eq_credit sb[MAXS], rb[MAXS];
	uint64_t named = 0;

	(void)state;
	reps_setup(&c, 4, 5, sb, rb);	/* an incast: marks send REPS to fresh entropies */
	S.back_mod = 4;			/* paths 2 and 6 */
	S.back_from = 2000000;		/* 2 ms: 100 round trips in */
	S.ack_jitter = 14000;
	offer_all();
	run(4000000000ULL, 0);
	expect_complete(true);
	for (int i = 0; i < S.n; i++) {
		struct smartt_published one;

		peer_state(S.s[i], 0, NULL, &one);
		named += one.ack_paths_lost;
		assert_int_equal(one.paths_lost, 0);
	}
	printf("# REPS: %u of %u ACKs into the 2 dead ways back of 8, DATA on them %u of %u "
	       "from 2 ms, %llu entropies named by lost ACKs, done at %.2f ms\n", S.back_acks,
	       S.acks, S.back_late, S.sends_late, (unsigned long long)named, S.done_at[0] / 1e6);
	assert_true(named >= 4);
	/* What TC sends itself goes by paths whose round trip works: the
	 * sender's, the last a clean ACK came back by; the receiver's, one
	 * the DATA said works (EQ_F_PROVEN: most of them did). */
	assert_true(S.proven * 2 > S.sends);
	smartt_sync(S.s[0], S.now);
	smartt_sync(S.r, S.now);
	assert_true(sb[0].path & EQ_PATH_SET);
	assert_true(S.came_back[0][sb[0].path & 0xffff]);
	assert_true(rb[0].path & EQ_PATH_SET);
	assert_true(S.came_back[0][rb[0].path & 0xffff]);		/* 79 without the rule */
	assert_true(S.back_late * 100 < S.sends_late);
	teardown_sim();
}

/* ACKs that overtake each other (a delay of up to 14 us each, more than a
 * frame's 12) name no path: every own ACK comes within the reordering
 * window, the smoothed round trip (74 us here).  With no window, four
 * would be named. */
static void test_reps_reordered_acks_name_nothing(void **state)
{
	struct smartt_cfg c = cfg(true, 200000);
	struct smartt_published own;

	(void)state;
	rng_state = 6;
	c.entropies = 8;
	setup_with(1, &c);
	S.entropies = 8;
	S.ack_jitter = 14000;
	offer_all();
	run(4000000000ULL, 0);
	expect_complete(true);
	peer_state(S.s[0], 0, NULL, &own);
	assert_int_equal(own.ack_paths_lost, 0);
	assert_int_equal(own.paths_lost, 0);
	teardown_sim();
}

/* What TC counts as waiting for the agent (handed - taken, core/edge.h)
 * comes back to 0 when a packet TC handed over never reached the agent:
 * an RTO after a sync saw it handed, and at once when the tunnel is
 * freed.  Left counted, it would have refused the peer's packets for
 * ever once `edge_queue` of them were lost so. */
static void test_edge_count_settles(void **state)
{
	static struct eq_credit sb[MAXS];
	uint32_t taken;

	(void)state;
	rng_state = 5;
	setup(1, true);
	memset(sb, 0, sizeof(sb));
	smartt_set_bucket(S.s[0], sb);
	offer_all();
	run(4000000000ULL, 0);
	expect_complete(true);
	smartt_sync(S.s[0], S.now);
	taken = sb[0].taken;
	assert_int_equal(taken, NPKT);
	sb[0].handed = taken + 2;		/* TC handed 2 more; both lost */
	S.now += 1000000;			/* a sync an RTO after the last: */
	smartt_sync(S.s[0], S.now);		/* its mark sees them */
	S.now += 1000000 - 1;			/* the RTO, less a ns: they may come */
	smartt_sync(S.s[0], S.now);
	assert_int_equal(sb[0].taken, taken);
	S.now += 1;
	smartt_sync(S.s[0], S.now);
	assert_int_equal(sb[0].taken, taken + 2);
	/* One more lost, and the tunnel freed (flushed here; idle, or a
	 * peer removed, alike): counted at once. */
	sb[0].handed++;
	smartt_flush(S.s[0], 0, S.now);
	assert_int_equal(sb[0].taken, sb[0].handed);
	assert_int_equal(sb[0].queued, 0);
	teardown_sim();
}

static void test_incast_windows_hold_the_queue(void **state)
{
	struct smartt_published own;
	uint64_t dec = 0, ce = 0;
	double ideal = 8.0 * NPKT * WIRE(MTU) * 8 / 1e9, mean;

	(void)state;
	rng_state = 2;
	setup(8, true);
	offer_all();
	run(5000000000ULL, 0);
	expect_complete(true);
	for (int i = 0; i < S.n; i++) {
		peer_state(S.s[i], 0, NULL, &own);
		dec += own.decreases;
		ce += own.acks_ce;
	}
	mean = (double)S.q_area / (double)S.q_last;
	printf("# incast 8->1: last %.2f ms (ideal %.2f), Jain %.4f, queue mean %.1f max %u "
	       "(marks from %u), marks %u, trims %u, ACKs with CE %llu, decreases %llu\n",
	       last_done() / 1e6, ideal * 1e3, jain_of_done(), mean, S.port_qmax, MARK_AT,
	       S.marks, S.trims, (unsigned long long)ce, (unsigned long long)dec);
	assert_true(last_done() / 1e9 < ideal * 1.10);
	assert_true(jain_of_done() >= (variant_nscc ? 0.90 : 0.95));
	/* Marks reach the windows (every mark is echoed), which shrink: the
	 * queue stays around the threshold, not at the trimming limit. */
	assert_int_equal(ce, S.marks);
	assert_true(dec > 0);
	assert_true(mean < 2.0 * MARK_AT);
	teardown_sim();
}

/* Without a trimming switch: a drop-tail port and 1 % of DATA lost on the
 * way; the receiver's loss window and the RTO repair it all. */
static void test_losses_without_trimming(void **state)
{
	struct eq_agent_peer v;
	uint64_t nacks = 0, rtx = 0;

	(void)state;
	rng_state = 3;
	setup(4, false);
	S.drop_tail = true;
	S.trim_at = 12;		/* the first round trip's windows overflow it */
	S.data_loss = 0.01;
	offer_all();
	run(10000000000ULL, 0);
	expect_complete(true);
	for (int i = 0; i < S.n; i++) {
		peer_state(S.s[i], 0, &v, NULL);
		nacks += v.rx_nacks;
		rtx += v.tx_rtx;
	}
	printf("# 4->1, drop-tail, 1 %% loss: last %.2f ms, lost %u, dropped %u, NACKs %llu, "
	       "retransmissions %llu\n", last_done() / 1e6, S.data_lost, S.drops,
	       (unsigned long long)nacks, (unsigned long long)rtx);
	assert_true(S.data_lost > 0);
	assert_true(S.drops > 0);
	assert_true(rtx >= S.data_lost + S.drops);
	assert_true(nacks > 0);
	teardown_sim();
}

/* The first window is lost whole, silently (no trim, nothing arrives to
 * show a gap): only the RTO finds it.  Its probe goes at once, though the
 * packets still counted in flight fill the window the loss shrank, and
 * its ACK sends the rest again: one RTO.  Held back by that window, the
 * probe waited for every further RTO, backed off, to move the packets out
 * of flight one by one. */
static void test_rto_probe_goes_whatever_the_window(void **state)
{
	struct eq_agent_peer v;

	(void)state;
	setup(1, false);
	S.lose_until = 500000;
	offer_all();
	run(1000000000ULL, 0);
	expect_complete(true);
	peer_state(S.s[0], 0, &v, NULL);
	printf("# first window lost: %u DATA lost, the first resend at %.2f ms (RTO 1 ms), "
	       "%llu resent by the RTO, done at %.2f ms\n", S.data_lost, S.first_rtx_at / 1e6,
	       (unsigned long long)v.rto_fired, S.done_at[0] / 1e6);
	assert_true(S.data_lost >= 3);
	/* One RTO after the last loss went; held back, 1 + 2 + 4 + 8 ms. */
	assert_true(S.first_rtx_at > 1000000 && S.first_rtx_at < 1100000);
	assert_int_equal(v.rto_fired, S.data_lost);
	teardown_sim();
}

/* The receiver forgets everything mid-transfer (its agent restarted):
 * the next DATA draws an RST, and the sender sends what was in flight
 * again in a new epoch (the RSTs the rest of it drew come late, and are
 * taken as such, not as forged).  What the receiver delivered before may come
 * again (its inner transport drops duplicates). */
static void test_receiver_restart(void **state)
{
	struct eq_agent_peer v;

	(void)state;
	rng_state = 4;
	setup(1, true);
	offer_all();
	run(2000000000ULL, 3000000);
	expect_complete(false);
	peer_state(S.s[0], 0, &v, NULL);
	printf("# receiver restart: done at %.2f ms, RSTs %llu, refused %u, duplicates %u\n",
	       S.done_at[0] / 1e6, (unsigned long long)v.rsts, S.refused, S.dups[0]);
	assert_int_equal(S.refused, 0);		/* its late RSTs included */
	assert_int_equal(v.bad_rst, 0);
	assert_true(v.rsts >= 1);
	teardown_sim();
}

/* Control packets a stranger sends: an ACK beyond what was sent, a NACK
 * beyond it, an RST echoing no seq of the epoch: each is refused and
 * counted; and a NACK of an older epoch is ignored.  None changes the
 * window or what is in flight. */
static void test_forged_control_changes_nothing(void **state)
{
	struct eq_agent_peer before, after;
	struct smartt_published ob, oa;
	struct eqt_hdr h;

	(void)state;
	rng_state = 5;
	setup(1, true);
	for (uint32_t id = 0; id < 8; id++)
		offer(0, id);
	smartt_run(S.s[0], 1000000);	/* the first window goes */
	peer_state(S.s[0], 0, &before, &ob);
	assert_true(before.inflight_bytes > 0);

	h = (struct eqt_hdr){ .type = EQ_T_ACK, .seq_ack = before.tx_next_seq + 100000,
			      .pull = before.tx_next_seq + 100001 };
	assert_false(smartt_wire(S.s[0], 0, &h, NULL, 1001000));
	h = (struct eqt_hdr){ .type = EQ_T_ACK, .seq_ack = before.tx_next_seq - 1,
			      .pull = before.tx_next_seq + 5000 };	/* a cumulative ack too far */
	assert_false(smartt_wire(S.s[0], 0, &h, NULL, 1001000));
	h = (struct eqt_hdr){ .type = EQ_T_NACK, .seq_ack = before.tx_next_seq + 10,
			      .pull = before.tx_cum_ack };
	assert_false(smartt_wire(S.s[0], 0, &h, NULL, 1001000));
	/* Far behind: an older epoch's, taken as late and ignored. */
	h = (struct eqt_hdr){ .type = EQ_T_NACK, .seq_ack = before.tx_cum_ack - 1000000,
			      .pull = before.tx_cum_ack - 999999 };
	smartt_wire(S.s[0], 0, &h, NULL, 1001000);
	h = (struct eqt_hdr){ .type = EQ_T_RST, .seq_ack = 0, .pull = before.tx_next_seq + 7 };
	assert_false(smartt_wire(S.s[0], 0, &h, NULL, 1001000));

	peer_state(S.s[0], 0, &after, &oa);
	assert_int_equal(after.bad_ack, before.bad_ack + 3);
	assert_true(after.bad_rst == before.bad_rst + 1);
	assert_int_equal(after.inflight_bytes, before.inflight_bytes);
	assert_int_equal(after.tx_epoch, before.tx_epoch);
	assert_int_equal(after.rsts, 0);
	assert_int_equal(oa.cwnd, ob.cwnd);
	/* ... and the genuine ACK of the first packet is taken. */
	h = (struct eqt_hdr){ .type = EQ_T_ACK, .seq_ack = before.tx_epoch,
			      .pull = before.tx_epoch + 1 };
	assert_true(smartt_wire(S.s[0], 0, &h, NULL, 1050000));
	peer_state(S.s[0], 0, &after, NULL);
	assert_int_equal(after.inflight_bytes, before.inflight_bytes - MTU);
	teardown_sim();
}

/* DATA a stranger sends to the receiver: outside the window of an
 * established tunnel, or a SYN not where the next epoch starts: dropped,
 * counted, delivered never. */
static void test_forged_data_refused(void **state)
{
	struct eq_agent_peer v;
	struct eqt_hdr h;
	struct eqt_pkt *p;

	(void)state;
	rng_state = 6;
	setup(1, true);
	for (uint32_t id = 0; id < 4; id++)
		offer(0, id);
	run(1000000ULL, 0);
	assert_int_equal(S.got[0], 4);
	peer_state(S.r, 0, &v, NULL);

	p = eqt_pkt_get(&S.rp);
	p->len = MTU;
	memset(p->data, 0, 8);
	h = (struct eqt_hdr){ .type = EQ_T_DATA, .seq_ack = v.rx_expected + (1u << 30) };
	assert_false(smartt_wire(S.r, 0, &h, p, S.now));
	p = eqt_pkt_get(&S.rp);
	p->len = MTU;
	memset(p->data, 0, 8);
	h = (struct eqt_hdr){ .type = EQ_T_DATA, .flags = EQ_F_SYN,
			      .seq_ack = v.rx_expected + (1u << 29) };
	assert_false(smartt_wire(S.r, 0, &h, p, S.now));
	peer_state(S.r, 0, &v, NULL);
	assert_int_equal(v.rx_bad_seq, 1);
	assert_int_equal(v.rx_bad_epoch, 1);
	assert_int_equal(S.got[0], 4);
	assert_int_equal(S.dups[0], 0);
	teardown_sim();
}

/* The same runs with NSCC's rules (smartt.variant nscc).  In the incast
 * its base RTT is configured, as UEC's is: measured, each flow's first
 * sample includes the queue the others' first windows built, its target
 * delay (0.75 base RTTs) differs from the others', and a flow marked
 * below its target does not decrease (the path's problem, for REPS):
 * Jain 0.926 measured against 0.944 configured.  Its completion times
 * spread more than SMaRTT's either way (0.987), as test_smartt_sim's model
 * incast found: NSCC decreases on the average delay, once per base RTT,
 * where SMaRTT's fair decrease takes from each flow by its share. */
static void test_nscc_one_sender(void **state)
{
	variant_nscc = true;
	test_one_sender_fills_the_link(state);
	variant_nscc = false;
}

static void test_nscc_incast(void **state)
{
	variant_nscc = true;
	base_rtt = 52000;
	test_incast_windows_hold_the_queue(state);
	base_rtt = 0;
	variant_nscc = false;
}

static void test_nscc_losses_without_trimming(void **state)
{
	variant_nscc = true;
	test_losses_without_trimming(state);
	variant_nscc = false;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_sender_fills_the_link),
		cmocka_unit_test(test_incast_windows_hold_the_queue),
		cmocka_unit_test(test_losses_without_trimming),
		cmocka_unit_test(test_rto_probe_goes_whatever_the_window),
		cmocka_unit_test(test_receiver_restart),
		cmocka_unit_test(test_forged_control_changes_nothing),
		cmocka_unit_test(test_forged_data_refused),
		cmocka_unit_test(test_nscc_one_sender),
		cmocka_unit_test(test_nscc_incast),
		cmocka_unit_test(test_nscc_losses_without_trimming),
		cmocka_unit_test(test_reps_leaves_dead_paths),
		cmocka_unit_test(test_reps_working_set),
		cmocka_unit_test(test_reps_leaves_dead_ways_back),
		cmocka_unit_test(test_reps_reordered_acks_name_nothing),
		cmocka_unit_test(test_edge_count_settles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
