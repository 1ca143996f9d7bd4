// SPDX-License-Identifier: GPL-2.0-only
/*
 * EQDS, the sending side: per-peer edge queues released against credit
 * from the receiver's PULLs, in-flight packets kept until ACKed, NACKed
 * packets retransmitted ahead of new data, an RTO, zero-RTT tunnel setup
 * with epochs, and the wire arbiter (DRR between traffic classes, paced
 * at the link rate).  docs/eqds.md has the protocol.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "edgeq/ecn.h"
#include "edgeq/csum.h"
#include "eqds_int.h"

/* What EQDS's own state starts an epoch with: the receiver's pull
 * numbering unknown, no copies due, no lease shut, nothing sent unasked. */
static void epoch_opened(struct tx_tunnel *t)
{
	t->hp_known = false;
	t->st.tx_epoch = t->core.isn;
	t->copies_due = 0;
	t->shut_wait = false;
	t->silent_gap = false;
	t->unasked = 0;
}

/* A new epoch: past every seq this peer's tunnels used (next_seq, which
 * eqds_tx_get() takes from last_seq after a flush), or, after an RST that
 * gives one, counted from `floor`, the receiver's next in order (0: it
 * has no state).  The step is counted from that seq, not from the old
 * ISN: an epoch lives as long as its tunnel and may use any number of
 * seqs.  It is EQT_EPOCH_GAP epochs of 1024 on, so the new ISN lies more than
 * 3 * EQT_EPOCH_SYN_SEQS past the old epoch's SYN window and its last seq,
 * and the receiver cannot take it for the old epoch; and no more, so
 * that the receiver knows where to expect it (eqt_epoch_after()). */
static void new_epoch(struct tx_tunnel *t, uint32_t floor)
{
	/* From the receiver's floor when it gives one (epoch.h). */
	eqt_tx_open(&t->core, floor);
	epoch_opened(t);
}

struct tx_tunnel *eqds_tx_get(struct eqds *e, uint32_t peer, uint64_t now)
{
	struct tx_tunnel *t = e->tx[peer];
	uint32_t seq0;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	/* The in-flight ring starts with a window of MTU-sized packets twice
	 * over (resends and fast sends beside it); smaller packets or a
	 * resend far behind the rest make it grow.  The peer's first tunnel
	 * starts at a random ISN; a later one past the seqs the last used. */
	seq0 = e->last_seq[peer] ? e->last_seq[peer] : eqt_epoch_first((uint32_t)eqds_rand(e));
	if (!t || eqt_tx_init(&t->core, 2 * (uint32_t)(((uint64_t)e->cfg.bdp_bytes + e->cfg.mtu) /
						     e->cfg.mtu), seq0)) {
		free(t);
		return NULL;
	}
	t->core.used = e->last_seq[peer] != 0;
	t->last_use_ns = now;
	e->tx[peer] = t;
	live_set(e->tx_live, peer);
	return t;
}

static void to_pool(void *pool, struct eqt_pkt *p)
{
	eqt_pkt_put(pool, p);
}

void eqds_tx_free(struct eqds *e, uint32_t peer, uint64_t now)
{
	struct tx_tunnel *t = e->tx[peer];

	if (!t)
		return;
	eqds_tx_lease_close(e, peer, t, now);
	if (e->bucket) {
		/* Nothing queued any more, for TC, and nothing on its way to
		 * us: a packet TC handed over and we never read (its socket
		 * was full) is long lost once the tunnel is idle.  Only live
		 * tunnels reconcile the count (fastpath.c), and left behind,
		 * handed - taken kept TC holding back every TCP packet with
		 * data in flight to the peer, with no tunnel to ask for
		 * credit: a connection that had stalled for the idle time
		 * stalled for good.  Nor may TC hold any back while no tunnel
		 * is here to ask for it (a cap of 0 holds nothing): one lost
		 * on its way after this would count again. */
		eqt_edge_adopt(&e->bucket[peer], &e->host_taken[peer]);
		eqt_edge_show(&e->bucket[peer], e->host_taken[peer], 0);
		__atomic_store_n(&e->bucket[peer].cap, 0, __ATOMIC_RELAXED);
	}
	e->last_seq[peer] = t->core.next_seq;
	eqds_counters_add(&e->retired[peer], &t->st);
	eqt_tx_fini(&t->core, e->pool);
	free(t);
	e->tx[peer] = NULL;
	live_clear(e->tx_live, peer);
}

/* How long after a trim the BDP keeps to twice the lowest RTT, in smoothed
 * RTTs: long enough for the queues that trimmed to drain, and for the
 * trims of a burst to come back (bdp_follow). */
#define TRIM_MEMORY_RTTS	64

static uint64_t rto(const struct eqds *e, const struct tx_tunnel *t)
{
	return eqt_rtt_rto(&t->core.rtt, e->cfg.rto_ns);
}

/* An ACK of a packet sent once (Karn: a retransmission's ACK could be
 * the first send's) is an RTT sample, scheduling delays of both agents
 * included: RFC 6298's estimator, with the configured RTO as its floor.
 * Under bdp_auto the tunnel's BDP follows it: the link rate times the
 * smoothed RTT, between the configured floor and bdp_max.  The RTT here
 * is the credit loop's (two agents' wake-ups, 100-300 us on a shared
 * host, not only the network's), and a BDP below it cannot fill the
 * link: on a veth pair with the 50 us default a 64 KiB GSO packet never
 * fit the lease. */
static void bdp_follow(const struct eqds *e, struct tx_tunnel *t, uint64_t now)
{
	if (e->cfg.bdp_auto) {
		/* The loop's round trip varies with the agents' wake-ups: the
		 * smoothed RTT and twice its variation, so that credit is not
		 * short for the slower half of the round trips.  While the
		 * path trims (a switch queue past its threshold), at most
		 * twice the lowest RTT, as BBR caps what it keeps in flight:
		 * the RTT then holds the queues this BDP builds, and a BDP
		 * following them grew with them (on a 2:1 core to the 16 ms
		 * cap, and every restart's burst was trimmed).  Not always:
		 * on a veth pair the lowest RTT is a lucky wake-up, a tenth of
		 * the usual, and capped so, TCP through the tunnel fell from
		 * 2.6 Gbit/s to 0.6-1.4. */
		uint64_t r = t->core.rtt.srtt_ns + 2 * t->core.rtt.rttvar_ns;
		uint64_t b;

		if (t->trim_ns && now < t->trim_ns + TRIM_MEMORY_RTTS * t->core.rtt.srtt_ns &&
		    t->core.min_rtt_ns && r > 2 * t->core.min_rtt_ns)
			r = 2 * t->core.min_rtt_ns;
		b = e->cfg.link_bps / 8 * r / 1000000000ULL;

		uint32_t old = tx_bdp(e, t);

		b = (b + e->cfg.mtu - 1) / e->cfg.mtu * e->cfg.mtu;
		t->bdp = b < e->cfg.bdp_bytes ? e->cfg.bdp_bytes : b > e->bdp_max ? e->bdp_max :
			 (uint32_t)b;
		/* Credit only recycles: a loop that started with the floor's
		 * BDP would keep it.  What the BDP grew by beyond the largest
		 * it has been goes now, as the start rule's burst would
		 * (trimming mode), or is asked for (RTS mode).  Beyond, not
		 * above the last: a BDP that went down and up again with the
		 * RTT samples was credited each time it rose, nothing took it
		 * back when no pulls came, and a tunnel carrying TCP ACKs at
		 * MTU 9000 held 436 MB of credit at a BDP of 4 MB. */
		if (!t->bdp_hi)
			t->bdp_hi = old;
		if (tx_state(t) == EQDS_TX_ESTABLISHED) {
			/* An RTS asks for no more than the window allows, so in
			 * RTS mode every rise asks: that is also what regrows
			 * a window there (only beyond bdp_hi, one 1 ms flow took
			 * 2.5x as long). */
			if (e->cfg.rts && t->bdp > old)
				t->rts_due = true;
			else if (!e->cfg.rts && t->bdp > t->bdp_hi)
				t->credit += t->bdp - t->bdp_hi;
		}
		if (t->bdp > t->bdp_hi)
			t->bdp_hi = t->bdp;
	}
}

/* A sample the core did not take itself (TC's probe, fastpath.c). */
void eqds_tx_rtt_sample(const struct eqds *e, struct tx_tunnel *t, uint64_t r, uint64_t now)
{
	eqt_tx_rtt_sample(&t->core, r, e->cfg.rto_ns, now);
	bdp_follow(e, t, now);
}


/* CE-mark the inner packet (ECT only), fixing the IPv4 checksum. */
static bool mark_ce(struct eqt_pkt *p)
{
	uint8_t *ip = p->data + p->l3_off;

	if (p->l3_off + 40u > p->len && p->l3_off + 20u > p->len)
		return false;
	if ((ip[0] >> 4) == 4) {
		uint16_t old, new_, check;

		if ((ip[1] & EQ_ECN_MASK) == EQ_ECN_NOT_ECT)
			return false;
		memcpy(&old, ip, 2);
		ip[1] |= EQ_ECN_CE;
		memcpy(&new_, ip, 2);
		memcpy(&check, ip + 10, 2);
		check = eq_csum_replace2(check, old, new_);
		memcpy(ip + 10, &check, 2);
		return true;
	}
	if ((ip[0] >> 4) == 6 && p->l3_off + 40u <= p->len) {
		if (((ip[1] >> 4) & EQ_ECN_MASK) == EQ_ECN_NOT_ECT)
			return false;
		ip[1] |= EQ_ECN_CE << 4;
		return true;
	}
	return false;
}

/* What is in flight, fast sends whose copy has not come included (an
 * MTU each: their sizes are not known yet). */
static int64_t in_flight(const struct eqds *e, const struct tx_tunnel *t, uint64_t now)
{
	return (int64_t)t->core.infl.bytes + (int64_t)tx_copies_due(e, t, now) * e->cfg.mtu;
}

/* The credit a tunnel starting (or restarting) from idle may spend.  Idle
 * as far as credit goes: what is still in flight asked for no pulls, so
 * its bytes leave the loop when they arrive, and one BDP less them may
 * go without breaking the invariant. */
static void restart(struct eqds *e, struct tx_tunnel *t, uint32_t peer, uint64_t now)
{
	/* NDP mode: one BDP unscheduled, unless the receiver said its link
	 * stays busy (then an RTS, so that our burst does not land on a
	 * full queue).  RTS mode: always ask first. */
	if (!e->cfg.rts && now >= t->busy_until) {
		int64_t c = (int64_t)tx_bdp(e, t) - in_flight(e, t, now);

		if (c > t->credit)
			t->credit = c;
	} else {
		t->rts_due = true;	/* ask at once */
	}
}

/* The head of what this tunnel would send next: retransmissions first. */
static struct eqt_q *head_q(struct tx_tunnel *t, uint32_t cls)
{
	if (t->core.rtx.head)
		return &t->core.rtx;
	return t->core.q[cls].head ? &t->core.q[cls] : NULL;
}

/* A queue waits for credit, and either every pull target this tunnel has
 * sent is reached (what is in flight went on the fast path or with an
 * empty queue behind it and asked for nothing, so no PULL is coming), or,
 * in trimming mode, the window has shrunk and the receiver says it will
 * have pulled all it owes by now.  The receiver pulls once per packet
 * that arrives, so the credit loop carries as many packets as were in
 * flight when the queue began, and the tokens of packets that asked for
 * nothing (a TCP flow's, sent as they came) die at the receiver: a bulk
 * TCP flow kept 5 of its 100 packets in flight that way, at a tenth of
 * the link, with every target ahead of the pulls.  Not with resends
 * waiting: after an RTO nothing is in flight as far as we know, but the
 * packets may only be late, and their pulls may come.  (RTS mode has no
 * such regrowth yet: an RTS sized from our highest pull asks for nothing
 * the receiver, whose pull numbers run ahead of ours by the PULLs on
 * their way, has not already granted.)  The tunnel starts again as from
 * idle, one BDP less what is in flight (trimming mode, receiver not busy)
 * or with an RTS; without this the queue would wait for the RTS of a
 * quiet tunnel, an RTO later.  Called again as packets queue and as ACKs
 * take packets out of flight. */
static void restart_if_stalled(struct eqds *e, struct tx_tunnel *t, uint32_t peer, uint64_t now)
{
	struct eqt_q *q = head_q(t, 0) ? head_q(t, 0) : head_q(t, 1);

	/* Silent, the pulls' rate decides (eqds_tx_silent_credit()). */
	if (!q || t->credit >= (int64_t)q->head->len || t->rts_due || !t->hp_known ||
	    t->peer_silent)
		return;
	if (after(t->told_target, t->highest_pull) &&
	    (e->cfg.rts || t->core.rtx.head || now < t->busy_until ||
	     in_flight(e, t, now) + t->credit + (int64_t)e->cfg.mtu > (int64_t)tx_bdp(e, t)))
		return;
	restart(e, t, peer, now);
}

int eqds_tx_local(struct eqds *e, uint32_t peer, struct eqt_pkt *p, uint64_t now)
{
	struct tx_tunnel *t = eqds_tx_get(e, peer, now);
	uint32_t n;

	if (!t) {
		eqt_pkt_put(e->pool, p);
		return -ENOMEM;
	}
	/* TC could not send this one itself: whatever it had on lease comes
	 * back, and the edge queue decides from here. */
	eqds_tx_lease_close(e, peer, t, now);
	t->shut_wait = false;
	n = tx_backlog_pkts(t);
	if (eqt_edge_full(n, e->cfg.edge_limit)) {
		t->st.edge_drops++;
		eqt_pkt_put(e->pool, p);
		return -ENOBUFS;
	}
	if (n >= e->cfg.edge_ecn && mark_ce(p))
		t->st.edge_marks++;
	if (tx_state(t) == EQDS_TX_CLOSED) {
		new_epoch(t, 0);
		restart(e, t, peer, now);
	} else if (!n && !t->core.infl.n && !t->peer_silent) {
		restart(e, t, peer, now);
	}
	p->t_ns = now;
	p->tx_count = 0;
	eqt_q_push(&t->core.q[p->cls < EQT_NCLS ? p->cls : EQT_CLS_OTHER], p);
	t->last_use_ns = now;
	restart_if_stalled(e, t, peer, now);
	return 0;
}

/* The round trip the tunnel's send rate is measured over: the smoothed
 * RTT, or the RTO's floor before any sample. */
static uint64_t rate_window(const struct eqds *e, const struct tx_tunnel *t)
{
	return t->core.rtt.srtt_ns ? t->core.rtt.srtt_ns : e->cfg.rto_ns;
}

/* The receiver said its link stays busy beyond a round trip from now:
 * its pulls are spoken for, and ours are its fair share.  RTS mode then
 * neither asks ahead, nor regrows, nor gives a limit. */
static bool busy_beyond_rtt(const struct eqds *e, const struct tx_tunnel *t, uint64_t now)
{
	return t->busy_until > now + rate_window(e, t);
}

/* len bytes left on this tunnel (the agent's sends, TC's as their copies
 * come): the send rate per round trip. */
static void note_sent(const struct eqds *e, struct tx_tunnel *t, uint32_t len, uint64_t now)
{
	uint64_t w = rate_window(e, t);

	if (now >= t->rate_at + w) {
		/* A round trip or more without a send: the last one held nothing. */
		t->rate_prev = now >= t->rate_at + 2 * w ? 0 : t->rate_cur;
		t->rate_cur = 0;
		t->rate_at = now;
	}
	t->rate_cur += len;
}

/* RTS mode: what the flow will bring within a round trip, asked for ahead
 * of the queue, in MTUs: the bytes sent in the last round trip (or the
 * current one, if more), none once a round trip passed without a send.
 * The receiver pulls once per packet that arrives, up to the target; a
 * target that only covers the queue lets the tokens of a flow's packets
 * die whenever its queue runs empty between the inner TCP's bursts, and
 * the next burst waits a round trip for the answer to its RTS.  Asked
 * ahead, the pulls keep coming while the flow lasts, as credit in hand for
 * what comes next (at most a BDP: the invariant holds). */
static uint32_t tx_ahead_pkts(const struct eqds *e, const struct tx_tunnel *t, uint64_t now)
{
	uint64_t w = rate_window(e, t);
	uint32_t b;

	if (busy_beyond_rtt(e, t, now))
		return 0;
	if (now >= t->rate_at + 2 * w)
		b = 0;				/* a round trip without a send */
	else if (now >= t->rate_at + w)
		b = t->rate_cur;		/* the round trip just ended */
	else
		b = t->rate_cur > t->rate_prev ? t->rate_cur : t->rate_prev;

	return (b + e->cfg.mtu - 1) / e->cfg.mtu;
}

/* The pull number this tunnel wants reached: what its queue needs, in
 * RTS mode what it sent in the last round trip, and a BDP while TC holds
 * TCP packets back for want of credit, all at most a BDP past the highest
 * pull. */
uint32_t eqds_tx_pull_target(const struct eqds *e, const struct tx_tunnel *t, uint64_t now)
{
	uint64_t want = (tx_backlog_bytes(t) + e->cfg.mtu - 1) / e->cfg.mtu;

	if (e->cfg.rts)
		want += tx_ahead_pkts(e, t, now);
	if (t->tc_demand)
		want += tx_bdp(e, t) / e->cfg.mtu;
	if (want > tx_bdp(e, t) / e->cfg.mtu)
		want = tx_bdp(e, t) / e->cfg.mtu;
	/* Before the receiver's first answer our highest_pull is not in its
	 * numbering: a SYN packet's pull target is relative (docs/eqds.md). */
	return t->hp_known ? t->highest_pull + (uint32_t)want : (uint32_t)want;
}

/* p went while the receiver was silent: delivered as far as we know. */
static void sent_silent(struct eqds *e, struct tx_tunnel *t, struct eqt_pkt *p)
{
	eqt_pkt_put(e->pool, p);
	t->silent_gap = true;
	if (t->unasked < UINT32_MAX)
		t->unasked++;
}

/* Keeps p (a fast send's copy, seq set by TC) until it is ACKed, and arms
 * the RTO. */
void eqds_tx_infl_put(struct eqds *e, struct tx_tunnel *t, struct eqt_pkt *p, uint64_t now)
{
	/* A silent receiver acknowledges nothing: what goes counts as
	 * delivered at once, as the RTO would count it, without filling the
	 * ring (and the pool) meanwhile. */
	if (t->peer_silent) {
		t->last_use_ns = now;
		sent_silent(e, t, p);
		return;
	}
	/* A resend keeps its seq, which can lie below everything else in
	 * flight by now: the ring keeps its span (the RTO scans it all), and
	 * grows when the seqs in flight span more than it; only at its cap
	 * is a packet given up, and counted. */
	struct eqt_pkt *old = eqt_infl_put(&t->core.infl, p);

	note_sent(e, t, p->len, now);

	if (old) {
		eqt_pkt_put(e->pool, old);
		t->st.infl_given_up++;
	}
	if (!t->core.rto_at || t->core.rto_at > now + rto(e, t))
		t->core.rto_at = now + rto(e, t);
	t->last_use_ns = now;
}

/* p was NACKed: it goes again, before new data.  Trimmed, it left the
 * network as a header, which the receiver counted: its pulls pay for the
 * resend, as in EQDS.  Lost (EQ_F_LOST: missing at the receiver while
 * later packets came), nobody counted it and no pull will come for it:
 * its credit is ours again, and the resend goes on it at once.  (Were
 * it only late, the receiver knows it NACKed it and takes no pulls from
 * its arrival: receiver.c.) */
static void nacked(struct tx_tunnel *t, uint32_t len, bool lost, uint64_t now)
{
	if (lost)
		t->credit += len;
	else
		t->trim_ns = now;	/* a switch on the path queues (bdp_follow) */
	t->st.rx_nacks++;
}

void eqds_tx_nacked(struct tx_tunnel *t, struct eqt_pkt *p, bool lost, uint64_t now)
{
	eqt_q_push(&t->core.rtx, p);
	nacked(t, p->len, lost, now);
}

static void told(struct tx_tunnel *t, uint32_t target)
{
	if (t->hp_known && after(target, t->told_target))
		t->told_target = target;
}

/* q's head goes on the wire, on the tunnel's credit: the core numbers it
 * (a resend of this epoch keeps its seq), holds it in flight and arms the
 * RTO; the pull target is EQDS's. */
static void send_one(struct eqds *e, uint32_t peer, struct tx_tunnel *t, struct eqt_q *q,
		     uint64_t now)
{
	uint64_t given_up = t->core.st.given_up;
	struct eqt_hdr h;
	struct eqt_pkt *p = eqt_tx_take(&t->core, q, &h, e->pool, e->cfg.rto_ns, now);

	if (!p)
		return;
	t->st.infl_given_up += t->core.st.given_up - given_up;
	t->credit -= p->len;
	h.pull = eqds_tx_pull_target(e, t, now);
	if (h.flags & EQ_F_RTX)
		t->st.tx_rtx++;
	else
		t->st.tx_data++;
	e->io.send_data(e->io.ctx, peer, p, &h);
	told(t, h.pull);
	t->last_use_ns = now;
	/* A silent receiver acknowledges nothing: what goes counts as
	 * delivered at once (eqds_tx_infl_put()). */
	if (t->peer_silent) {
		eqt_infl_take(&t->core.infl, p->seq);
		if (!t->core.infl.n)
			t->core.rto_at = 0;
		sent_silent(e, t, p);
		return;
	}
	note_sent(e, t, p->len, now);
}

/* How many MTUs an RTS may ask for: what the invariant leaves beside the
 * credit in hand and what is in flight.  Packets in flight that asked for
 * nothing lose their bytes on arrival, and until they do, pulls asked
 * for on top of them would put two windows in play. */
static uint32_t rts_room(const struct eqds *e, const struct tx_tunnel *t, uint64_t now)
{
	int64_t room = (int64_t)tx_bdp(e, t) + e->cfg.mtu - t->credit - in_flight(e, t, now);

	return room > 0 ? (uint32_t)(room / e->cfg.mtu) : 0;
}

/* The seq an RTS gives as our next: the one after the last we sent, less
 * the packets of this epoch waiting to go again.  The receiver counts
 * the seqs between its next in order and this one as DATA in flight, and
 * grants only what the limit leaves beside them (receiver.c); a resend
 * waiting for credit is not in flight, and counted so it kept the
 * tunnel's credit from ever coming: after an RTO with more packets in
 * flight than the BDP holds (7 against 6 in the soak), every RTS asked
 * for less than nothing, and the tunnel sat with its edge queue full,
 * sending RTS after RTS (tests/unit/test_eqds_sim.c,
 * test_rto_of_more_than_a_bdp).  A resend below what the receiver has
 * (late, not lost) only makes the count smaller: the receiver, which
 * knows its next in order, takes no less than 0. */
static uint32_t rts_next_seq(const struct eqds *e, uint32_t peer, const struct tx_tunnel *t)
{
	uint32_t seq = eqds_tx_sent_hi(e, peer, t);

	if (tx_state(t) != EQDS_TX_ESTABLISHED)
		return seq;		/* a SYN's seq says where the epoch starts */
	for (const struct eqt_pkt *p = t->core.rtx.head; p; p = p->next)
		if (p->tx_count && eqt_tx_in_epoch(&t->core, p->seq))
			seq--;
	return seq;
}

void eqds_tx_ask(struct eqds *e, uint32_t peer, struct tx_tunnel *t, uint64_t now)
{
	struct eqt_hdr h = { .type = EQ_T_RTS };
	uint32_t base = t->hp_known ? t->highest_pull : 0, room = rts_room(e, t, now);

	h.flags = tx_state(t) == EQDS_TX_SYN_SENT ? EQ_F_SYN : 0;
	/* The receiver's answer echoes it: an RTT sample (control()). */
	h.opts = EQT_OPT(EQ_OPT_TSTAMP);
	h.ts = (uint32_t)now | 1;	/* never 0: 0 is no RTS timed */
	h.seq_ack = rts_next_seq(e, peer, t);
	h.pull = eqds_tx_pull_target(e, t, now);
	/* The limit (aux): the pull number up to which the tunnel's credit
	 * may be out of our hands, our highest pull plus 1 BDP + 1 MTU less
	 * what we hold (credit, lease, fast sends whose copy has not come).
	 * The receiver, which knows its pull number, what it owes us and
	 * which of our seqs have come, grants up to it (receiver.c).  Sized
	 * here from what we have in flight instead, an RTS counted the
	 * packets that had arrived, and the pulls on their way, twice: a
	 * tunnel in RTS mode never grew its loop past what it had when its
	 * first pulls came (one flow kept 42 packets going round with a BDP
	 * of 60, the rest waiting in the edge queue).  Before the receiver's
	 * first word our pull numbers are not its: the target, relative,
	 * asks for what the room allows.  Nor to a receiver busy for more
	 * than a round trip: its pulls are spoken for, and ours stay its
	 * fair share (credit__a_shrunk_window_grows_back_when_the_receiver_is_idle). */
	if (t->hp_known && !busy_beyond_rtt(e, t, now)) {
		int64_t held = t->credit + eqds_tx_lease_bytes(e, peer, t) +
			       (int64_t)tx_copies_due(e, t, now) * e->cfg.mtu;
		int64_t free = (int64_t)tx_bdp(e, t) + e->cfg.mtu - held;

		h.aux = t->highest_pull + (free > 0 ? (uint32_t)(free / e->cfg.mtu) : 0);
	}
	if (!h.aux && h.pull - base > room)
		h.pull = base + room;
	e->io.send_ctl(e->io.ctx, peer, &h);
	told(t, h.pull);
	t->rts_ts = h.ts;
	t->last_rts_ns = now;
	t->rts_due = false;
	t->st.rts_sent++;
}

/* The pulls' rate: what they granted over a spell of at least 4 of them
 * and two round trips (1 ms at least), averaged with the last spells'
 * (a quarter each).  An idle spell in it only lowers it for a while. */
static void grant_seen(struct tx_tunnel *t, uint64_t bytes, uint32_t mtu, uint64_t now)
{
	uint64_t spell = 2 * t->core.rtt.srtt_ns, rate;

	if (spell < 1000000)
		spell = 1000000;
	if (!t->grant_at) {
		t->grant_at = now;	/* what came before had no spell */
		return;
	}
	t->grant_bytes += bytes;
	if (now - t->grant_at < spell || t->grant_bytes < 4ULL * mtu)
		return;
	rate = (uint64_t)((unsigned __int128)t->grant_bytes * 8000000000ULL / (now - t->grant_at));
	t->grant_bps = t->grant_bps ? (3 * t->grant_bps + rate) / 4 : rate;
	t->grant_at = now;
	t->grant_bytes = 0;
}

/* A silent receiver grants nothing (the RTO below): the tunnel goes on at
 * the rate its pulls came at, its share of the receiver's link, with a
 * BDP at most in hand (`lent`: what TC holds of it); before any rate was
 * measured, a BDP whenever it runs out, as without an agent.  At a BDP
 * whenever it ran out, all of an incast's senders sent at their own link
 * rate when the receiving agent lost its CPU for two RTOs: at 32 -> 1,
 * a queue at its 200-packet limit, 2,311 drops, 857 inner TCP resends. */
void eqds_tx_silent_credit(struct eqds *e, struct tx_tunnel *t, int64_t lent, uint64_t now)
{
	int64_t bdp = (int64_t)tx_bdp(e, t), have = t->credit + lent;
	uint64_t add, dt;

	if (!t->grant_bps) {
		if (have < bdp)
			t->credit += bdp - have;
		return;
	}
	if (now <= t->silent_at)
		return;
	dt = now - t->silent_at < 1000000000ULL ? now - t->silent_at : 1000000000ULL;
	add = (uint64_t)((unsigned __int128)t->grant_bps * dt / 8000000000ULL);
	if (!add)
		return;		/* not a byte yet: the time is not lost */
	t->silent_at = now;
	if (have < bdp)
		t->credit += (int64_t)add < bdp - have ? (int64_t)add : bdp - have;
}

/* The arbiter's pick (core/arbiter.h): the first tunnel of class c, from
 * `from` on, whose head packet its credit covers, and that head's queue.
 * *queued: whether the class has any packet at all. */
static uint32_t pick(void *ctx, uint32_t c, uint32_t from, struct eqt_q **head, bool *queued)
{
	struct eqds *e = ctx;
	uint32_t n = live_count(e, e->tx_live), peer = from;

	*queued = false;
	for (uint32_t i = 0; i < n; i++, peer++) {
		struct tx_tunnel *t;
		struct eqt_q *q;

		peer = live_next(e, e->tx_live, NULL, peer);
		t = e->tx[peer];
		if (!t || !(q = head_q(t, c)))
			continue;
		*queued = true;
		if (t->peer_silent && t->credit < (int64_t)q->head->len)
			eqds_tx_silent_credit(e, t, eqds_tx_lease_bytes(e, peer, t), e->now);
		if (t->credit < (int64_t)q->head->len)
			continue;
		/* No new SYN packet beyond the epoch's SYN window: it waits
		 * for the receiver's answer (which ends SYN_SENT). */
		if (!eqt_tx_syn_room(&t->core, q))
			continue;
		*head = q;
		return peer;
	}
	return e->npeers;
}

static void send_head(void *ctx, uint32_t peer, struct eqt_q *q, uint64_t now)
{
	struct eqds *e = ctx;

	send_one(e, peer, e->tx[peer], q, now);
}

/* The wire arbiter (core/arbiter.c): DRR between the classes, round robin
 * among tunnels within a class, a tunnel's retransmissions before its new
 * data in any class (head_q), each packet on its tunnel's credit. */
uint64_t eqds_tx_arbiter(struct eqds *e, uint64_t now)
{
	const struct eqt_arbiter_io io = { e, pick, send_head };

	return eqt_arbiter_run(&e->arbiter, &io, now);
}

/* The ACK of an RTO's probe found packets sent before it still missing
 * (core/tx.h, eqt_tx_probe()): they go again first, on new credit, which
 * an RTS asks for, as the probe did. */
static void rto_probe_answered(struct eqds *e, uint32_t peer, struct tx_tunnel *t,
			   const struct eqt_tx_acked *out, uint64_t now)
{
	if (!out->lost)
		return;
	eqds_tx_lease_close(e, peer, t, now);
	t->st.rto_fired += out->lost;
	t->rts_due = true;
}

/* Everything before `ack` arrived: a PULL's cumulative ack, or an ACK the
 * receiver sends for what its XDP delivered itself (EQ_F_CUM).  The
 * newest packet it frees gives an RTT sample if it went once, from us
 * (Karn; a fast send's copy is read late), and the receiver did not hold
 * the ack (`held`: EQ_F_HELD, its ACK delay). */
static void cum_ack(struct eqds *e, uint32_t peer, struct tx_tunnel *t, uint32_t ack, bool held,
		    uint64_t now)
{
	struct eqt_tx_acked out;

	if (held)
		eqt_tx_cum(&t->core, ack, e->pool, now, &out);
	else
		eqt_tx_ack(&t->core, ack - 1, ack, e->pool, e->cfg.rto_ns, now, &out);
	if (out.rtt_ns)
		bdp_follow(e, t, now);
	rto_probe_answered(e, peer, t, &out, now);
}

/* Whether a control packet can be the receiver's, RFC 5961-style: every
 * number in it within what this tunnel sent (the core's eqt_tx_admit()) or
 * asked for.  One that is not (spoofed, or from a receiver gone mad)
 * changes nothing and is counted by reason.  The pulls it grants: at most
 * what was asked, two BDPs and a little more (the receiver pulls trimmed
 * packets back unasked), and what went unasked or is in flight (below). */
static bool ctl_in_window(struct eqds *e, uint32_t peer, struct tx_tunnel *t,
			  const struct eqt_hdr *h)
{
	bool rst = h->type == EQ_T_RST;

	switch (eqt_tx_admit(t->core.isn, eqds_tx_sent_hi(e, peer, t), t->core.cum_ack, ACK_SLACK_SEQS, rst,
			     rst ? h->pull : h->seq_ack)) {
	case EQT_TX_BAD_RST:
		t->st.bad_rst++;
		return false;
	case EQT_TX_BAD_ACK:
		t->st.bad_ack++;
		return false;
	case EQT_TX_OLD_EPOCH:
		return true;		/* ignored by the caller */
	case EQT_TX_ADMIT:
		break;
	}
	if (rst)
		return true;
	if (t->hp_known && after(h->pull, t->highest_pull)) {
		uint32_t asked = after(t->told_target, t->highest_pull) ?
				 t->told_target - t->highest_pull : 0;
		/* ... and one for each packet sent while the receiver was
		 * taken for silent: a receiver that was only slow pulls for
		 * them when it comes back, hundreds at once after an agent's
		 * restart, which were refused as forged (bad_pull) until the
		 * targets of new sends caught up, a stall of up to 0.2 s.
		 * Credit stays capped at a BDP (control()). */
		uint32_t room = asked + 2 * (uint32_t)(tx_bdp(e, t) / e->cfg.mtu) + PULL_SLACK;

		room = room + t->unasked < room ? UINT32_MAX : room + t->unasked;
		/* ... and one for each packet in flight: the receiver pulls at
		 * most once for each that arrives, and fast sends of a lease
		 * kept full while it was silent, whose copies came only after
		 * it spoke, are in flight and not counted unasked (2-4 pulls
		 * refused in some runs of bench/agent_outage.sh). */
		room = room + t->core.infl.n < room ? UINT32_MAX : room + t->core.infl.n;

		if (h->pull - t->highest_pull > room) {
			t->st.bad_pull++;
			return false;
		}
	}
	return true;
}

static void control(struct eqds *e, uint32_t peer, struct tx_tunnel *t, const struct eqt_hdr *h,
		    uint64_t now);

/* The first cumulative word after a silent spell (a PULL, or an ACK with
 * EQ_F_CUM: its ack is the receiver's next seq in order) says the
 * receiver waits at a seq of this epoch below what we sent, with nothing
 * in flight: what went as delivered meanwhile did not all arrive (lost on
 * the way while its agent was down, or a packet its XDP could not deliver
 * then), and it would wait for ever, granting nothing, since it counts
 * what lies between as still in flight.  Nor do we take its ACKs, far
 * behind what we count as delivered (ctl_in_window()).  A new epoch moves
 * it past, starting where it takes one, as after an RST; the inner
 * transport repairs what was lost.  The soak found it: after agent
 * restarts under 0.5 % loss a tunnel sat with its backlog and 124 bytes
 * of credit, sending RTS after RTS (17,737 in 200 s), while the ACKs
 * that answered them said the same seq.  Only while silent_gap is set:
 * a forger could at most cost one restart after a silent spell. */
static bool silent_skip(struct eqds *e, uint32_t peer, struct tx_tunnel *t,
			const struct eqt_hdr *h, uint64_t now)
{
	if (!t->silent_gap || t->core.infl.n ||
	    !(h->type == EQ_T_PULL || (h->type == EQ_T_ACK && (h->flags & EQ_F_CUM))) ||
	    before(h->seq_ack, t->core.isn) || !before(h->seq_ack, eqds_tx_sent_hi(e, peer, t)))
		return false;
	t->st.silent_skips++;
	t->peer_silent = false;		/* it speaks */
	t->probed = false;
	t->last_ctl_ns = now;
	eqds_tx_lease_close(e, peer, t, now);
	/* Resends of the old epoch stay in it: the receiver may have them
	 * (it delivered past some), and in the new epoch they would come
	 * up twice.  Only what was never sent goes on. */
	while (t->core.rtx.head) {
		eqt_pkt_put(e->pool, eqt_q_pop(&t->core.rtx));
		t->st.infl_given_up++;
	}
	if (!tx_backlog_pkts(t)) {
		/* The next packet starts one, where the receiver expects it
		 * (new_epoch() counts from next_seq: nothing is in flight). */
		t->core.open = false;
		t->core.next_seq = h->seq_ack;
		t->silent_gap = false;
		return true;
	}
	new_epoch(t, h->seq_ack);
	t->credit = 0;
	restart(e, t, peer, now);
	return true;
}

bool eqds_tx_control(struct eqds *e, uint32_t peer, const struct eqt_hdr *h, uint64_t now)
{
	struct tx_tunnel *t = e->tx[peer];

	if (!t || tx_state(t) == EQDS_TX_CLOSED)
		return false;
	/* Nothing a spoofer could not say: no route is learnt from it. */
	if (silent_skip(e, peer, t, h, now))
		return false;
	if (!ctl_in_window(e, peer, t, h))
		return false;
	/* Anything but an RST about an older epoch (isn - 1 is this epoch's
	 * too: the answer to an RTS acknowledges the last seq delivered in
	 * order, and none has been yet: receiver.c) changes nothing. */
	if (h->type != EQ_T_RST && before(h->seq_ack, t->core.isn - 1))
		return false;
	control(e, peer, t, h, now);
	return true;
}

/* An RTS went an RTO (the floor: RTSs repeat at it) without an answer,
 * after a quiet RTO before it, and the receiver did not say it was busy
 * for longer: what the RTO path takes for silence (below). */
static bool after_rts_unanswered(const struct eqds *e, const struct tx_tunnel *t, uint64_t now)
{
	uint64_t r = e->cfg.rto_ns;

	return t->last_rts_ns > t->last_ctl_ns && now - t->last_rts_ns >= r &&
	       now - t->last_ctl_ns >= 2 * r && now >= t->busy_until + r;
}

static void control(struct eqds *e, uint32_t peer, struct tx_tunnel *t, const struct eqt_hdr *h,
		    uint64_t now)
{
	struct eqt_tx_acked acked;
	uint32_t len;

	t->peer_silent = false;		/* it speaks: credit is its again */
	t->probed = false;
	if (h->type == EQ_T_RST) {
		t->st.rsts++;
		/* No fast send may go in the epoch being ended. */
		eqds_tx_lease_close(e, peer, t, now);
		/* The receiver has no state for us (or an older epoch): with
		 * anything left to deliver, start a new epoch past its own and
		 * resend what was in flight (the core's reset). */
		if (!eqt_tx_reset(&t->core, h->seq_ack))
			return;
		epoch_opened(t);
		t->credit = 0;
		restart(e, t, peer, now);
		return;
	}
	/* A cumulative word: everything that went as delivered while the
	 * receiver was silent arrived (else silent_skip() moved us on). */
	if (h->type == EQ_T_PULL || (h->type == EQ_T_ACK && (h->flags & EQ_F_CUM)))
		t->silent_gap = false;
	/* The answer to our last RTS, which the receiver sends at once and
	 * which echoes its TSTAMP: the first RTT sample of a tunnel in RTS
	 * mode, a round trip before its first DATA's ACK (a SYN's is held by
	 * the ACK delay, and gives none).
	 * Without it the BDP stayed at its floor for two more round trips:
	 * a 2 MB flow over 1 ms links sent 4 packets a round trip, its
	 * first 10 in three. */
	if (t->rts_ts && (h->opts & EQT_OPT(EQ_OPT_TSTAMP)) && h->ts_echo == t->rts_ts) {
		eqds_tx_rtt_sample(e, t, now - t->last_rts_ns, now);
		t->rts_ts = 0;		/* one sample per RTS */
	}
	/* Anything else acknowledging this epoch ends SYN_SENT. */
	t->last_ctl_ns = now;
	/* At most an RTO's ceiling of it is believed: the RTO waits this
	 * out before it asks (eqds_tx_timers()), and 4 s of it (the field's
	 * most) would hide a dead receiver that long. */
	t->busy_until = now + (h->aux < EQT_TX_RTO_MAX_NS ? h->aux : EQT_TX_RTO_MAX_NS);
	if (!t->hp_known) {
		/* First word from the receiver in this epoch: adopt its pull
		 * numbering.  A PULL still grants its one MTU. */
		t->highest_pull = h->pull - (h->type == EQ_T_PULL ? 1 : 0);
		t->hp_known = true;
		/* What the SYN packets asked for is in the receiver's hands;
		 * assuming nothing is owed costs at most one needless RTS. */
		t->told_target = t->highest_pull;
	}
	t->core.syn = false;
	if (after(h->pull, t->highest_pull)) {
		uint32_t asked = after(t->told_target, t->highest_pull) ?
				 t->told_target - t->highest_pull : 0, d = h->pull - t->highest_pull;

		/* Pulls beyond what was asked answer packets sent unasked. */
		if (t->unasked && d > asked)
			t->unasked = d - asked >= t->unasked ? 0 : t->unasked - (d - asked);
		t->credit += (int64_t)(h->pull - t->highest_pull) * e->cfg.mtu;
		grant_seen(t, (uint64_t)(h->pull - t->highest_pull) * e->cfg.mtu, e->cfg.mtu, now);
		t->highest_pull = h->pull;
		t->regrow_idle = 0;
		/* Credit beyond one BDP cannot be the loop's: pulls answering
		 * packets we thought lost (RTO) would otherwise pile up.  What
		 * is on lease to TC counts. */
		int64_t cap = (int64_t)tx_bdp(e, t) + e->cfg.mtu - eqds_tx_lease_bytes(e, peer, t);

		if (t->credit > cap)
			t->credit = cap > 0 ? cap : 0;
	}
	if (h->type == EQ_T_ACK || h->type == EQ_T_PULL)
		eqds_tx_probe_acked(e, peer, t, h->seq_ack,
				    h->type == EQ_T_PULL || (h->flags & EQ_F_CUM), h->flags & EQ_F_HELD,
				    now);
	switch (h->type) {
	case EQ_T_ACK:
		if (h->flags & EQ_F_CUM) {
			cum_ack(e, peer, t, h->seq_ack, h->flags & EQ_F_HELD, now);
			break;
		}
		/* Selective, the cumulative ack as it was.  A fast send's
		 * packet times nothing: its copy may have been read long after
		 * it left, and the sample would be short (eqt_infl_timed()). */
		eqt_tx_ack(&t->core, h->seq_ack, t->core.cum_ack, e->pool, e->cfg.rto_ns, now,
			   &acked);
		if (acked.rtt_ns)
			bdp_follow(e, t, now);
		rto_probe_answered(e, peer, t, &acked, now);
		if (!acked.pkts)
			eqds_tx_early_note(e, t, EQ_T_ACK, h->seq_ack, now);
		break;
	case EQ_T_NACK:
		if ((len = eqt_tx_nack(&t->core, h->seq_ack))) {
			eqds_tx_lease_close(e, peer, t, now);	/* the resend goes first */
			nacked(t, len, h->flags & EQ_F_LOST, now);
		} else {
			eqds_tx_early_note(e, t, (h->flags & EQ_F_LOST) ? EARLY_LOST : EQ_T_NACK,
					   h->seq_ack, now);
		}
		break;
	case EQ_T_PULL:
		/* The cumulative ack repairs lost ACKs. */
		cum_ack(e, peer, t, h->seq_ack, h->flags & EQ_F_HELD, now);
		break;
	}
	t->last_use_ns = now;
}

/* RTS mode: when a queue waiting for credit may ask for more, if the
 * tunnel's loop is short of 1 BDP + 1 MTU (by what it knows: its credit
 * and what it has in flight) and its receiver is not busy for more than
 * a round trip: a round trip after its last RTS.  Pulls come one per
 * packet that arrives, so the loop only grows by what an RTS asks, and
 * without this only a rise of the BDP (bdp_auto) sent one: with a fixed
 * BDP, a loop that started with the 2 packets of a TCP flow's first
 * burst kept 2 (test_eqds_sim.c, test_rts_window_limited_source). */
static uint64_t rts_regrow_at(const struct eqds *e, const struct tx_tunnel *t, uint64_t now)
{
	uint64_t wait;

	if (!e->cfg.rts || !t->hp_known || busy_beyond_rtt(e, t, now) || !rts_room(e, t, now))
		return EQT_NO_DEADLINE;
	/* Each one since the last new pull doubles the wait, up to the
	 * quiet tunnel's RTO: a receiver that grants nothing more (it counts
	 * as in flight a packet lost and not yet NACKed) was otherwise asked
	 * once a round trip for as long as it did not (176 RTSs in 14 ms). */
	wait = rate_window(e, t) << (t->regrow_idle < 16 ? t->regrow_idle : 16);
	if (wait > e->cfg.rto_ns)
		wait = e->cfg.rto_ns;
	return t->last_rts_ns + wait;
}


uint64_t eqds_tx_timers(struct eqds *e, uint32_t peer, uint64_t now)
{
	struct tx_tunnel *t = e->tx[peer];
	uint64_t next = EQT_NO_DEADLINE;
	struct eqt_q *q;

	if (!t)
		return next;
	if (t->core.infl.n && t->core.rto_at && now >= t->core.rto_at) {
		/* No ACK for the oldest packet for an RTO: the newest in
		 * flight goes again first, as a probe (below), and the RTO
		 * backs off until an ACK says how long they take.  Resent on
		 * new credit: an RTS asks the receiver to pull for it.  Giving its credit
		 * back instead would let a packet that was only late (a queue
		 * longer than an RTO, a starved agent) be sent twice on one
		 * pull, and a full queue feed itself: in RTS mode at 16 -> 1
		 * that kept the switch queue at its 200-packet limit. */
		uint64_t r = rto(e, t);

		if (!eqt_tx_due(&t->core, e->cfg.rto_ns, now)) {
			/* ACKs came: the timer moved to the oldest's time */
		} else if (now - t->last_ctl_ns >= r && now < t->busy_until + r) {
			/* Quiet, but the receiver said, when it last spoke, that
			 * it had pulls to grant others for that long (aux: what
			 * it owes, at its link rate): ours waits behind them,
			 * and so do its ACKs of what we sent.  An RTO counts from
			 * then.  Counted from its last word, at 32 -> 1 in RTS
			 * mode the senders took a busy receiver for silent 116
			 * times a run and sent their edge queues without credit:
			 * the bottleneck queue filled (200 packets, 5,444 drops). */
			t->core.rto_at = t->busy_until + r;
		} else if (now - t->last_ctl_ns >= r && !t->peer_silent && !t->probed) {
			/* Not a word for an RTO, the first time: the receiver
			 * may only be slow (an incast's queue longer than an
			 * RTO, its agent late), not gone.  Ask it, with an RTS
			 * a live receiver answers at once, and look again one
			 * RTO on; nothing is sent again yet.  Taking the first
			 * quiet RTO for silence sent whole edge queues into a
			 * queue that was only slow: an 8 -> 1 incast in RTS
			 * mode at 50 Mbit/s went silent 2-3 times a run, and
			 * its bottleneck queue reached 22-106 packets. */
			t->probed = true;
			eqds_tx_ask(e, peer, t, now);
			t->core.rto_at = now + r;
		} else {
			/* Not a word from the receiver for a whole RTO, nor an
			 * answer to the RTS sent one RTO ago: its agent is
			 * down, or starved of CPU (its XDP delivers our DATA
			 * either way; nobody pulls or ACKs), and waiting for pulls
			 * would stall the tunnel until it is back.  What is in
			 * flight counts as delivered and its credit is ours again,
			 * as without an agent: the inner transport repairs what
			 * was really lost.  Resending it all instead, as this did,
			 * sent the receiver duplicates of everything in flight: on
			 * a veth pair at 2 Gbit/s an agent that lost its CPU for
			 * 11-23 ms got 2,300 packets again each time.  A receiver
			 * that is only slow still pulls and ACKs: then its packets
			 * go again, on the pulls. */
			bool silent = now - t->last_ctl_ns >= r;

			eqds_tx_lease_close(e, peer, t, now);	/* the resends go first */
			if (silent) {
				t->st.rto_fired += t->core.infl.n;
				t->credit += (int64_t)t->core.infl.bytes;
				eqt_infl_drop_all(&t->core.infl, t->core.next_seq, to_pool, e->pool);
				eqt_rtt_backoff(&t->core.rtt, e->cfg.rto_ns, EQT_TX_RTO_MAX_NS);
				t->silent_gap = true;
			} else if (eqt_tx_probe(&t->core, e->cfg.rto_ns, now)) {
				/* The receiver speaks, but this packet's ACK is
				 * late: the newest in flight goes again as a probe
				 * (core/tx.h).  Sending all of it again, as this
				 * did, doubled a loaded host's traffic: on the
				 * oversubscribed fabric the agents and the fabric
				 * shared two CPUs, ACKs came 10-30 ms late, and
				 * 45 % of what the tunnels sent was resends the
				 * receivers already had. */
				t->st.rto_fired++;
			}
			t->rts_due = !silent || tx_backlog_pkts(t);
			/* Silent, the tunnel runs on without credit until the
			 * receiver speaks again (peer_silent).  Waiting for
			 * credit let one BDP through per RTO, the RTO doubling:
			 * a 2 s outage of the receiving agent took a transfer
			 * to nothing, both ways. */
			if (silent && !t->peer_silent) {
				t->st.peer_silent++;
				t->peer_silent = true;
				t->silent_at = now;
			}
		}
	}
	if (!t->core.infl.n)
		t->core.rto_at = 0;	/* nothing left to time out */
	restart_if_stalled(e, t, peer, now);
	if (t->core.rto_at)
		next = t->core.rto_at;
	/* Data waiting, not enough credit, and nothing heard for an RTO (or
	 * RTS mode with nothing in flight): ask the receiver to pull. */
	q = head_q(t, 0) ? head_q(t, 0) : head_q(t, 1);
	if (q && t->credit < (int64_t)q->head->len && !t->core.infl.n && !t->peer_silent &&
	    after_rts_unanswered(e, t, now)) {
		/* Nothing in flight, so no RTO to find the receiver silent
		 * above, and an RTS unanswered for an RTO: the same spell.
		 * Without it, an agent that went down between two pulls, with
		 * everything ACKed, stalled the tunnel for as long as it was
		 * down (0 Gbit/s for the whole 2 s outage, 1 run in 3). */
		t->st.peer_silent++;
		t->peer_silent = true;
		t->silent_at = now;
		q = NULL;	/* the arbiter sends it: no RTS */
	}
	/* Silent, at the pulls' rate: when its credit covers the head. */
	if (q && t->peer_silent && t->grant_bps && t->credit < (int64_t)q->head->len) {
		uint64_t at = t->silent_at + 1 +
			(uint64_t)((unsigned __int128)(uint64_t)((int64_t)q->head->len - t->credit) *
				   8000000000ULL / t->grant_bps);

		if (at < next)
			next = at;
	}
	if (q && t->credit < (int64_t)q->head->len) {
		uint64_t quiet = t->last_ctl_ns > t->last_rts_ns ? t->last_ctl_ns : t->last_rts_ns;

		/* RTSs repeat at the floor RTO, not the backed-off one: they
		 * are small, and a restarted receiver answers the next one. */
		uint64_t regrow = rts_regrow_at(e, t, now);

		if ((t->rts_due && rts_room(e, t, now)) || now >= quiet + e->cfg.rto_ns ||
		    now >= regrow) {
			if (now >= regrow && t->regrow_idle < UINT8_MAX)
				t->regrow_idle++;
			eqds_tx_ask(e, peer, t, now);
			quiet = now;
			regrow = EQT_NO_DEADLINE;
		}
		if (quiet + e->cfg.rto_ns < next)
			next = quiet + e->cfg.rto_ns;
		if (regrow < next)
			next = regrow;
	}
	return next;
}
