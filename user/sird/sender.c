// SPDX-License-Identifier: GPL-2.0-only
/*
 * SIRD's sending tunnels (sird.h; docs/sird.md): the core's half
 * (core/tx.h), which sends a new burst's first bytes unscheduled and the
 * rest on the credit its receiver grants, asks for that credit in every
 * DATA (or an RTS), and says when it holds more credit than it can spend
 * (csn).
 */
#include <errno.h>
#include <stdlib.h>
#include "edgeq/wire.h"
#include "sird_int.h"

/* The base RTT before the first sample, when nothing is configured: the
 * agents' round trip on an idle host, about. */
#define RTT_GUESS_NS	50000ULL

/* The round trip the credit loop takes: the smoothed RTT, not the lowest
 * measured.  The paper's BDP is the link's rate times the fabric's base
 * RTT, and its hosts answer credit at once; ours answer when their agent
 * runs, and that (hundreds of microseconds to milliseconds on a busy host)
 * is most of the loop.  B on the lowest RTT, the luckiest packet's, left a
 * receiver's link a third idle on the fabric (docs/sird.md, "The BDP"). */
static uint64_t loop_rtt(const struct sird_txt *t)
{
	return t->c.rtt.srtt_ns ? t->c.rtt.srtt_ns : t->c.min_rtt_ns;
}

/* What this tunnel's BDP is: the configured base RTT's, else the loop's,
 * else the configured `bdp`, else a guess. */
uint64_t sird_tx_bdp(const struct sird *s, const struct sird_txt *t)
{
	if (s->cfg.base_rtt_ns)
		return sird_bdp_of(s, s->cfg.base_rtt_ns);
	if (loop_rtt(t))
		return sird_bdp_of(s, loop_rtt(t));
	if (s->cfg.bdp_bytes)
		return s->cfg.bdp_bytes;
	return sird_bdp_of(s, RTT_GUESS_NS);
}

/* The largest frame that goes without credit when the tunnel is empty,
 * burst or not: a 64-byte RPC through the tunnel is about 150. */
#define LONE_SMALL_BYTES	256u

/* What the path alone holds: the lowest RTT measured (else as the BDP). */
static uint64_t path_bdp(const struct sird *s, const struct sird_txt *t)
{
	if (!s->cfg.base_rtt_ns && t->c.min_rtt_ns)
		return sird_bdp_of(s, t->c.min_rtt_ns);
	return sird_tx_bdp(s, t);
}

/* The tunnel's round trip: smoothed, else the base RTT its BDP is on. */
static uint64_t tx_rtt(const struct sird *s, const struct sird_txt *t)
{
	if (t->c.rtt.srtt_ns)
		return t->c.rtt.srtt_ns;
	if (s->cfg.base_rtt_ns)
		return s->cfg.base_rtt_ns;
	return t->c.min_rtt_ns ? t->c.min_rtt_ns : RTT_GUESS_NS;
}

static uint32_t held_of(const struct sird_txt *t)
{
	int32_t h = (int32_t)(t->granted - t->spent);

	return h > 0 ? (uint32_t)h : 0;
}

struct sird_txt *sird_tx_get(struct sird *s, uint32_t peer, uint64_t now)
{
	struct sird_txt *t = s->tx[peer];
	uint32_t seq0;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	/* A peer's first tunnel numbers from a random epoch; a later one
	 * past what the last used (core/epoch.h). */
	seq0 = s->last_seq[peer] ? s->last_seq[peer] : eqt_epoch_first((uint32_t)eqt_rand(&s->rng));
	if (eqt_tx_init(&t->c, 2 * (uint32_t)(sird_tx_bdp(s, t) / s->cfg.mtu + 1), seq0)) {
		free(t);
		return NULL;
	}
	t->c.used = s->last_seq[peer] != 0;
	t->last_use_ns = now;
	s->tx[peer] = t;
	eqt_live_set(s->tx_live, peer);
	return t;
}

/* What the peer's edge queue holds, for TC's backpressure. */
void sird_tx_show(struct sird *s, uint32_t peer)
{
	const struct sird_txt *t = s->tx[peer];

	if (s->bucket)
		eqt_edge_show(&s->bucket[peer], s->host_taken[peer],
			      t ? t->c.q[0].pkts + t->c.q[1].pkts + t->c.rtx.pkts : 0);
}

void sird_tx_free(struct sird *s, uint32_t peer)
{
	struct sird_txt *t = s->tx[peer];

	if (!t)
		return;
	s->held -= held_of(t);
	s->last_seq[peer] = t->c.next_seq ? t->c.next_seq : 1;
	eqt_tx_fini(&t->c, s->pool);
	free(t);
	s->tx[peer] = NULL;
	eqt_live_clear(s->tx_live, peer);
	if (s->bucket)
		eqt_edge_adopt(&s->bucket[peer], &s->host_taken[peer]);
	sird_tx_show(s, peer);	/* nothing queued, nor on its way, any more */
}

/* The epoch's counts.  A new epoch's receiver counts from 0 (its old
 * state, and the credit it gave, are gone): ours start again too, and ask
 * for what waits on credit.  Resends go on the credit their first sends
 * took (sird.h), so only the queue's packets count. */
static void tx_epoch(struct sird *s, struct sird_txt *t)
{
	if (!t->c.open)
		eqt_tx_open(&t->c, 0);
	if (t->ep_began && t->ep_isn == t->c.isn)
		return;
	t->ep_began = true;
	t->ep_isn = t->c.isn;
	s->held -= held_of(t);
	t->granted = t->spent = t->asked = t->told = 0;
	t->rts_sent = false;
	/* What an RST sent back to go again (eqt_tx_reset()) went on the last
	 * epoch's credit, which the receiver gave back (rx_epoch(), or it
	 * restarted): it goes on none of this one's, and says so, or its
	 * arrival would return credit granted for other packets. */
	for (struct eqt_pkt *p = t->c.rtx.head; p; p = p->next)
		p->flags = (uint8_t)((p->flags | SIRD_PF_UNSCHED) & ~SIRD_PF_ON_CREDIT);
	for (int c = 0; c < EQT_NCLS; c++)
		for (const struct eqt_pkt *p = t->c.q[c].head; p; p = p->next)
			if (!(p->flags & SIRD_PF_UNSCHED))
				t->asked += p->len;
}

int sird_tx_queue(struct sird *s, uint32_t peer, struct eqt_pkt *p, uint64_t now)
{
	struct sird_txt *t = sird_tx_get(s, peer, now);
	struct eqt_q *q;
	bool quiet, empty;

	if (!t) {
		eqt_pkt_put(s->pool, p);
		return -ENOBUFS;
	}
	q = &t->c.q[p->cls < EQT_NCLS ? p->cls : EQT_CLS_OTHER];
	/* The edge queue is the host's: beyond its limit the packet is
	 * dropped, counted, and the inner transport repairs it. */
	if (eqt_edge_full(q->pkts, s->cfg.edge_limit)) {
		t->edge_drops++;
		eqt_pkt_put(s->pool, p);
		return -ENOBUFS;
	}
	/* A burst begins when nothing waits, nothing is in flight and the
	 * tunnel has been idle for two round trips (or never sent): its first
	 * min(BDP, UnschT) bytes go without credit (the tunnel knows no
	 * message sizes: a burst is what comes while it is busy).  Not at
	 * every moment the tunnel drains: an inner TCP flow held back by its
	 * window drains it every round trip, and 32 senders each sending a
	 * free BDP every round trip trimmed 10,240 packets in an incast
	 * (docs/sird.md, "Departures"). */
	empty = !eqt_tx_backlog(&t->c) && !t->c.infl.n;
	/* Nor only then: the tunnel's first bulk packet begins one however
	 * recently its small ones went (an inner TCP handshake's, a round
	 * trip before its first window).  Only that packet: small ones
	 * alone begin none, or a tunnel of small messages would send a
	 * fresh BDP unscheduled each time it drained. */
	quiet = empty && (!t->c.st.data || now - t->last_use_ns >= 2 * tx_rtt(s, t) ||
			  (!t->bulk && p->len > LONE_SMALL_BYTES));
	if (p->len > LONE_SMALL_BYTES)
		t->bulk = true;
	tx_epoch(s, t);
	if (quiet) {
		/* The path's BDP, not the loop's: a burst fills the wire for
		 * the first round trip, and what it sends beyond the path
		 * queues at the receiver's port (with the loop's, an incast
		 * of 16 or 32 trimmed thousands of packets). */
		uint64_t bdp = path_bdp(s, t), u = sird_bdps(bdp, s->cfg.unsch_bdps);

		t->unsch_left = u < bdp ? u : bdp;
	}
	p->tx_count = 0;
	p->t_ns = now;
	if (p->len <= t->unsch_left) {
		p->flags |= SIRD_PF_UNSCHED;
		t->unsch_left -= p->len;
	} else if (empty && p->len <= LONE_SMALL_BYTES && s->cfg.unsch_bdps) {
		/* Alone in an empty tunnel and small (an RPC, a handshake, an
		 * ACK): at once, whatever the burst rule says.  A tunnel busy
		 * a round trip ago is seldom quiet for two under load, and
		 * small RPCs behind bulk flows waited for a grant each: 2.9
		 * times their idle latency (docs/sird.md).  A full-sized
		 * packet of a window-held TCP flow is not small. */
		p->flags |= SIRD_PF_UNSCHED;
	} else {
		p->flags &= (uint8_t)~SIRD_PF_UNSCHED;
		t->unsch_left = 0;	/* the rest of the burst is scheduled */
		t->asked += p->len;
	}
	eqt_q_push(q, p);
	t->last_use_ns = now;
	return 0;
}

/* Credit in a PULL, ACK or NACK: the receiver's count of what it granted
 * this epoch.  Never more than we asked for: a count beyond it is not the
 * receiver's (docs/security.md), and changes nothing. */
static void take_credit(struct sird *s, struct sird_txt *t, const struct eqt_hdr *h, uint64_t now)
{
	int32_t up;

	if (!(h->opts & EQT_OPT(EQ_OPT_CREDIT)))
		return;
	up = (int32_t)(h->credit - t->granted);
	if (up <= 0)
		return;		/* old news: a later count came first */
	if ((int32_t)(h->credit - t->asked) > 0) {
		t->pub.bad_credit++;
		return;
	}
	t->granted = h->credit;
	s->held += (uint32_t)up;
	t->credit_at = now;
}

/* An ACK, NACK, PULL or RST from the receiver of our tunnel to peer: true
 * if it was within what this tunnel sent (nothing a spoofer off the path
 * could guess), and then taken. */
bool sird_tx_control(struct sird *s, uint32_t peer, const struct eqt_hdr *h, uint64_t now)
{
	struct sird_txt *t = s->tx[peer];
	bool rst = h->type == EQ_T_RST;
	struct eqt_tx_acked a;

	if (!t)
		return false;
	/* An RST an RTS drew echoes the seq the RTS said: the next to number,
	 * which no packet carried yet, and the core's check refuses it.  Ours
	 * if it is just what our last RTS of the epoch said (else a receiver
	 * that restarted while we waited for credit with nothing in flight
	 * would answer every RTS with an RST we refuse, for ever). */
	if (rst && t->c.open && t->rts_sent && h->pull == t->rts_seq && h->pull == t->c.next_seq) {
		t->last_use_ns = now;
		if (eqt_tx_reset(&t->c, h->seq_ack))
			tx_epoch(s, t);
		return true;
	}
	switch (eqt_tx_check(&t->c, rst, rst ? h->pull : h->seq_ack, h->pull)) {
	case EQT_TX_ADMIT:
		break;
	case EQT_TX_OLD_EPOCH:
		return true;	/* late, changes nothing */
	default:
		return false;
	}
	t->last_use_ns = now;
	switch (h->type) {
	case EQ_T_ACK:
		eqt_tx_ack(&t->c, h->seq_ack, h->pull, s->pool, s->cfg.rto_ns, now, &a);
		break;
	case EQ_T_PULL:
		/* Credit, with the receiver's cumulative ack: it answers a
		 * SYN as an ACK would. */
		eqt_tx_cum(&t->c, h->pull, s->pool, now, &a);
		break;
	case EQ_T_NACK: {
		/* Trimmed, an unscheduled packet goes again on credit, as
		 * the paper's receiver schedules the RESEND of a lost
		 * unscheduled packet: sent again at once, unscheduled, into
		 * the queue that trimmed it, the first windows of a 32 -> 1
		 * incast were trimmed 3,000 times over.  Not one NACKed as
		 * lost (EQ_F_LOST): it may only be late, and arriving first
		 * it would make the resend a duplicate, whose credit the
		 * receiver takes back only after 4 RTOs. */
		struct eqt_pkt *p = eqt_infl_get(&t->c.infl, h->seq_ack);

		if (p && (p->flags & SIRD_PF_UNSCHED) && !(h->flags & EQ_F_LOST)) {
			p->flags = (uint8_t)((p->flags & ~SIRD_PF_UNSCHED) | SIRD_PF_ON_CREDIT);
			t->asked += p->len;
		}
		eqt_tx_nack(&t->c, h->seq_ack);
		break;
	}
	case EQ_T_RST:
		/* The receiver has no state for this epoch: what was in
		 * flight goes first in a new one past its floor, and the
		 * counts start again. */
		if (eqt_tx_reset(&t->c, h->seq_ack))
			tx_epoch(s, t);
		return true;
	default:
		return false;
	}
	take_credit(s, t, h, now);
	return true;
}

/* A request without DATA: the epoch's asked count (and, to the receiver,
 * where it stands in our numbering: an RTS is admitted as DATA is), with
 * the loop's RTT, on which the receiver sizes its bucket. */
static void ask(struct sird *s, uint32_t peer, struct sird_txt *t, uint64_t now)
{
	struct eqt_hdr h = { .type = EQ_T_RTS };

	tx_epoch(s, t);
	h.flags = t->c.syn ? EQ_F_SYN : 0;
	h.seq_ack = t->c.syn ? t->c.isn : t->c.next_seq;
	h.pull = t->asked;
	h.aux = loop_rtt(t) < UINT32_MAX ? (uint32_t)loop_rtt(t) : UINT32_MAX;
	if (loop_rtt(t))
		t->rtt_told = loop_rtt(t);
	t->told = t->asked;
	t->rts_at = now;
	t->rts_seq = h.seq_ack;
	t->rts_sent = true;
	t->pub.rts_sent++;
	s->io.send_ctl(s->io.ctx, peer, &h);
}

/* After the arbiter sent what it could: a request for credit no DATA
 * carried, one the receiver did not answer within an RTO (it or its
 * credit was lost), or a loop RTT the receiver should hear (it moved by
 * an eighth or more since it last heard one).  The time of the next
 * look. */
static uint64_t tx_ask(struct sird *s, uint32_t peer, struct sird_txt *t, uint64_t now)
{
	uint64_t last = t->rts_at > t->credit_at ? t->rts_at : t->credit_at;
	uint64_t rto = eqt_rtt_rto(&t->c.rtt, s->cfg.rto_ns);
	bool unanswered = t->asked != t->granted;
	uint64_t rtt = loop_rtt(t);
	bool rtt_news = rtt && (!t->rtt_told || rtt * 8 < t->rtt_told * 7 || rtt * 8 > t->rtt_told * 9);

	if (!eqt_tx_backlog(&t->c) && !rtt_news)
		return EQT_NO_DEADLINE;
	if (t->asked != t->told || (rtt_news && unanswered) || (unanswered && now >= last + rto))
		ask(s, peer, t, now);
	if (t->asked == t->granted)
		return EQT_NO_DEADLINE;
	last = t->rts_at > t->credit_at ? t->rts_at : t->credit_at;
	return last + rto;
}

uint64_t sird_tx_timers(struct sird *s, uint32_t peer, uint64_t now)
{
	struct sird_txt *t = s->tx[peer];

	if (!t)
		return EQT_NO_DEADLINE;
	/* A timeout: the newest packet in flight goes again, on its first
	 * credit, as a probe; its ACK sends again what went before it and
	 * is still missing (core/tx.h).  Sending all of it again made ACKs
	 * that were only late into duplicates, as EQDS found (docs/eqds.md,
	 * "RTO"). */
	eqt_tx_probe(&t->c, s->cfg.rto_ns, now);
	/* Credit held with nothing to spend it on, for long: its receiver
	 * took it back (receiver.c), so it is gone here too. */
	if (held_of(t) && !eqt_tx_backlog(&t->c) && !t->c.infl.n &&
	    now > t->last_use_ns + 4 * s->cfg.rto_ns) {
		t->pub.credit_dropped += held_of(t);
		s->held -= held_of(t);
		t->spent = t->granted;
	}
	return eqt_tx_deadline(&t->c);
}

/* May q's head go now: a resend (on its first send's credit), a burst's
 * unscheduled bytes, or credit held for it. */
static bool may_go(const struct sird_txt *t, const struct eqt_q *q)
{
	const struct eqt_pkt *p = q->head;

	if ((q == &t->c.rtx && !(p->flags & SIRD_PF_ON_CREDIT)) || (p->flags & SIRD_PF_UNSCHED))
		return true;
	return held_of(t) >= p->len;
}

/* The wire arbiter's question: the first peer of class c from `from` on
 * whose head packet may go. */
static uint32_t pick(void *ctx, uint32_t c, uint32_t from, struct eqt_q **head, bool *queued)
{
	struct sird *s = ctx;
	uint32_t n = s->cfg.npeers, live = eqt_live_count(s->tx_live, n), peer = from;

	*queued = false;
	for (uint32_t i = 0; i < live; i++, peer++) {
		struct sird_txt *t;
		struct eqt_q *q;

		peer = eqt_live_next(s->tx_live, NULL, n, peer);
		t = s->tx[peer];
		if (!t || !(q = eqt_tx_head(&t->c, c)))
			continue;
		*queued = true;
		if (!may_go(t, q) || !eqt_tx_syn_room(&t->c, q))
			continue;
		*head = q;
		return peer;
	}
	return n;
}

static void send_head(void *ctx, uint32_t peer, struct eqt_q *q, uint64_t now)
{
	struct sird *s = ctx;
	struct sird_txt *t = s->tx[peer];
	bool resend = q == &t->c.rtx;
	struct eqt_hdr h;
	struct eqt_pkt *p;

	tx_epoch(s, t);
	p = eqt_tx_take(&t->c, q, &h, s->pool, s->cfg.rto_ns, now);
	if (!p)
		return;
	if (p->flags & SIRD_PF_UNSCHED) {
		h.flags |= EQ_F_UNSCHED;
		if (!resend)
			t->pub.unsched_bytes += p->len;
	} else if (!resend || (p->flags & SIRD_PF_ON_CREDIT)) {
		p->flags &= (uint8_t)~SIRD_PF_ON_CREDIT;	/* once: later resends on it */
		t->spent += p->len;
		s->held -= p->len;
		if (!resend)
			t->pub.sched_bytes += p->len;
	}
	h.ect = 1;	/* the fabric marks, the receiver's limits react */
	h.pull = t->asked;
	t->told = t->asked;
	/* Informed overcommitment: the receivers hear that this host holds
	 * more of their credit than it can spend. */
	if (s->held > sird_bdps(sird_tx_bdp(s, t), s->cfg.sthr_bdps)) {
		h.flags |= EQ_F_CSN;
		t->pub.csn_sent++;
	}
	t->last_use_ns = now;
	s->io.send_data(s->io.ctx, peer, p, &h);
}

uint64_t sird_tx_arbiter(struct sird *s, uint64_t now)
{
	const struct eqt_arbiter_io io = { s, pick, send_head };
	uint64_t next = eqt_arbiter_run(&s->arbiter, &io, now);
	uint32_t n = s->cfg.npeers, live = eqt_live_count(s->tx_live, n), peer = 0;

	for (uint32_t i = 0; i < live; i++, peer++) {
		uint64_t t;

		peer = eqt_live_next(s->tx_live, NULL, n, peer);
		t = tx_ask(s, peer, s->tx[peer], now);
		if (t < next)
			next = t;
	}
	return next;
}
