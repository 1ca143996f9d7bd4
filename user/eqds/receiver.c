// SPDX-License-Identifier: GPL-2.0-only
/*
 * EQDS, the receiving side: every DATA packet ACKed, a trimmed header
 * NACKed, a bounded reorder queue per tunnel, epochs, and the Active
 * Sender List whose PULLs are paced at the link rate (docs/eqds.md).
 */
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "eqds_int.h"

static struct rx_tunnel *rx_get(struct eqds *e, uint32_t peer, uint64_t now)
{
	struct rx_tunnel *r = e->rx[peer];

	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (r) {
		r->held = calloc(e->cfg.reorder_limit, sizeof(*r->held));
		r->nacked = calloc(e->cfg.reorder_limit, sizeof(*r->nacked));
	}
	if (!r || !r->held || !r->nacked) {
		if (r) {
			free(r->held);
			free(r->nacked);
		}
		free(r);
		return NULL;
	}
	r->last_use_ns = now;
	r->asl_next = ASL_NONE;
	r->loss_ns = e->cfg.loss_ns;
	r->weight = e->weight[peer] ? e->weight[peer] : 1;
	if (e->rxmap) {	/* XDP's counts only ever grow: count from here */
		r->seen_pkts = e->rxmap[peer].pkts;
		r->seen_bytes = e->rxmap[peer].bytes;
		r->seen_ce = e->rxmap[peer].ce;
	}
	e->rx[peer] = r;
	live_set(e->rx_live, peer);
	return r;
}

static void asl_remove(struct eqds *e, uint32_t peer)
{
	uint32_t *pp = &e->asl_head, prev = ASL_NONE;

	while (*pp != ASL_NONE && *pp != peer) {
		prev = *pp;
		pp = &e->rx[*pp]->asl_next;
	}
	if (*pp == ASL_NONE)
		return;
	*pp = e->rx[peer]->asl_next;
	if (e->asl_tail == peer)
		e->asl_tail = prev;
	e->rx[peer]->asl_next = ASL_NONE;
	e->rx[peer]->in_asl = false;
}

static void asl_append(struct eqds *e, uint32_t peer)
{
	struct rx_tunnel *r = e->rx[peer];

	r->asl_next = ASL_NONE;
	r->in_asl = true;
	r->turn_left = 0;
	if (e->asl_tail == ASL_NONE)
		e->asl_head = peer;
	else
		e->rx[e->asl_tail]->asl_next = peer;
	e->asl_tail = peer;
}

void eqds_rx_set_owed(struct eqds *e, struct rx_tunnel *r, int64_t owed)
{
	e->asl_owed -= r->owed > 0 ? (uint64_t)r->owed : 0;
	r->owed = owed;
	e->asl_owed += owed > 0 ? (uint64_t)owed : 0;
}

/* In the ASL iff it owes pulls and the sender still wants them. */
void eqds_rx_asl_update(struct eqds *e, uint32_t peer)
{
	struct rx_tunnel *r = e->rx[peer];
	bool want = r->owed > 0 && before(r->pull_no, r->pull_target);

	if (!want && r->owed > 0)
		eqds_rx_set_owed(e, r, 0);	/* the sender wants no more: tokens die */
	if (want && !r->in_asl)
		asl_append(e, peer);
	else if (!want && r->in_asl)
		asl_remove(e, peer);
}

void eqds_rx_free(struct eqds *e, uint32_t peer)
{
	struct rx_tunnel *r = e->rx[peer];

	if (!r)
		return;
	eqds_rx_direct_close(e, peer, r, e->now);
	eqds_counters_add(&e->retired[peer], &r->st);
	if (r->in_asl)
		asl_remove(e, peer);
	eqds_rx_set_owed(e, r, 0);
	for (uint32_t i = 0; i < e->cfg.reorder_limit; i++)
		if (r->held[i])
			eqt_pkt_put(e->pool, r->held[i]);
	free(r->held);
	free(r->nacked);
	free(r);
	e->rx[peer] = NULL;
	live_clear(e->rx_live, peer);
}

uint32_t eqds_rx_busy_ns(const struct eqds *e)
{
	uint64_t ns = e->asl_owed * 8000000000ULL / e->cfg.link_bps;

	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

void eqds_rx_send_ctl(struct eqds *e, uint32_t peer, uint8_t type, uint8_t flags, uint32_t ack)
{
	struct rx_tunnel *r = e->rx[peer];
	struct eqt_hdr h = { .type = type, .flags = flags, .seq_ack = ack,
			      .pull = r ? r->pull_no : 0, .aux = eqds_rx_busy_ns(e) };

	e->io.send_ctl(e->io.ctx, peer, &h);
}

static void deliver(struct eqds *e, uint32_t peer, struct eqt_pkt *p)
{
	e->io.deliver(e->io.ctx, peer, p);
	eqt_pkt_put(e->pool, p);
}

/* Deliver what is held from `expected` on, in order. */
static void drain(struct eqds *e, uint32_t peer, struct rx_tunnel *r, uint64_t now)
{
	uint32_t lim = e->cfg.reorder_limit;
	struct eqt_pkt **slot;

	while (r->held_n && *(slot = &r->held[r->expected % lim]) &&
	       (*slot)->seq == r->expected) {
		struct eqt_pkt *p = *slot;

		*slot = NULL;
		r->held_n--;
		r->expected++;
		deliver(e, peer, p);
	}
	r->gap_since = r->held_n ? now : 0;
	if (!r->held_n)
		r->mark_at = 0;		/* no gap: nothing to declare lost */
}

/* Give up on the gap at `expected`: skip to the lowest seq held. */
static void skip_gap(struct eqds *e, uint32_t peer, struct rx_tunnel *r, uint64_t now)
{
	uint32_t lim = e->cfg.reorder_limit, best = 0;
	bool found = false;

	for (uint32_t i = 0; i < lim; i++) {
		struct eqt_pkt *p = r->held[i];

		if (p && (!found || before(p->seq, best))) {
			best = p->seq;
			found = true;
		}
	}
	if (!found)
		return;
	r->expected = best;
	r->st.reorder_gaps++;
	drain(e, peer, r, now);
}

/* Everything held, in order, gaps and all (a new epoch, a flush). */
static void release_all(struct eqds *e, uint32_t peer, struct rx_tunnel *r, uint64_t now)
{
	while (r->held_n)
		skip_gap(e, peer, r, now);
	/* An old epoch's seqs. */
	memset(r->nacked, 0, e->cfg.reorder_limit * sizeof(*r->nacked));
}

static void data_in_order(struct eqds *e, uint32_t peer, struct rx_tunnel *r, struct eqt_pkt *p,
			  uint32_t seq, uint64_t now)
{
	uint32_t lim = e->cfg.reorder_limit;

	p->seq = seq;
	if (before(seq, r->expected)) {
		r->st.rx_dup++;
		eqt_pkt_put(e->pool, p);
		return;
	}
	if (seq == r->expected) {
		r->expected++;
		deliver(e, peer, p);
		drain(e, peer, r, now);
		return;
	}
	/* Out of order.  Beyond what the queue may hold: give up the oldest
	 * gaps until it fits (best effort, as EQDS is). */
	while (seq - r->expected >= lim) {
		if (!r->held_n) {
			r->expected = seq - lim + 1;
			r->st.reorder_gaps++;
			break;
		}
		skip_gap(e, peer, r, now);
		if (seq == r->expected) {
			r->expected++;
			deliver(e, peer, p);
			drain(e, peer, r, now);
			return;
		}
	}
	struct eqt_pkt **slot = &r->held[seq % lim];

	if (*slot && (*slot)->seq == seq) {
		r->st.rx_dup++;
		eqt_pkt_put(e->pool, p);
		return;
	}
	if (*slot) {	/* a stale entry: cannot happen while seq - expected < lim */
		eqt_pkt_put(e->pool, *slot);
		r->held_n--;
	}
	*slot = p;
	r->st.rx_ooo++;
	if (!r->held_n++) {
		r->gap_since = now;
		r->held_hi = seq + 1;
	} else if (after(seq + 1, r->held_hi)) {
		r->held_hi = seq + 1;
	}
	/* The seqs missing below it are missing from now on. */
	if (!r->mark_at) {
		r->mark_seq = r->held_hi;
		r->mark_at = now;
	}
}

/* seq was NACKed (trimmed, or lost: rx_losses()): remembered by its
 * slot, until another seq NACKed takes the slot. */
static void nacked_set(const struct eqds *e, struct rx_tunnel *r, uint32_t seq)
{
	r->nacked[seq % e->cfg.reorder_limit] = seq + 1;
}

static bool nacked(const struct eqds *e, const struct rx_tunnel *r, uint32_t seq)
{
	return r->nacked[seq % e->cfg.reorder_limit] == seq + 1;
}

/* Seqs still missing once a later one has been here for the tunnel's
 * loss window were lost on the way (no trimming switch told us): each is
 * NACKed once, with EQ_F_LOST, and the sender resends it on the credit it
 * spent on it, which no pull will bring back (sender.c).  Waiting for the
 * sender's RTO instead stalled a 10 Gbit/s flow on a veth pair for 10 ms
 * per drop, and the packets behind the gap overflowed the reorder queue
 * into the inner TCP.  A tail loss (nothing came after) is the RTO's. */
static uint64_t rx_losses(struct eqds *e, uint32_t peer, struct rx_tunnel *r, uint64_t now)
{
	uint32_t lim = e->cfg.reorder_limit, s;

	if (!r->loss_ns || !r->held_n || !r->mark_at)
		return EQT_NO_DEADLINE;
	if (now < r->mark_at + r->loss_ns)
		return r->mark_at + r->loss_ns;
	for (s = after(r->lost_hi, r->expected) ? r->lost_hi : r->expected;
	     before(s, r->mark_seq); s++) {
		struct eqt_pkt *p = r->held[s % lim];

		if ((p && p->seq == s) || nacked(e, r, s))
			continue;	/* here, or trimmed and NACKed */
		nacked_set(e, r, s);
		r->st.rx_lost++;
		eqds_rx_send_ctl(e, peer, EQ_T_NACK, EQ_F_LOST, s);
	}
	r->lost_hi = r->mark_seq;
	r->mark_at = 0;
	/* Gaps that opened since the mark: from now (they may be older). */
	if (after(r->held_hi, r->lost_hi)) {
		r->mark_seq = r->held_hi;
		r->mark_at = now;
		return now + r->loss_ns;
	}
	return EQT_NO_DEADLINE;
}

/* A packet that was NACKed as lost came after all (its first send, late;
 * a resend carries EQ_F_RTX): the sender has its credit back already, so
 * it brings no pulls, and the window was too short for this path's
 * reordering: it doubles, up to half the reorder timeout. */
static bool late_after_lost(struct eqds *e, struct rx_tunnel *r, const struct eqt_hdr *h)
{
	if ((h->flags & EQ_F_RTX) || !nacked(e, r, h->seq_ack))
		return false;
	r->nacked[h->seq_ack % e->cfg.reorder_limit] = 0;	/* once */
	r->st.rx_late++;
	if (r->loss_ns < e->cfg.reorder_ns / 4)
		r->loss_ns *= 2;
	else
		r->loss_ns = e->cfg.reorder_ns / 2;
	return true;
}

void eqds_rx_packet(struct eqds *e, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
	       uint64_t now)
{
	struct rx_tunnel *r = rx_get(e, peer, now);
	uint32_t seq = h->seq_ack, isn = seq & ~((1u << EPOCH_SHIFT) - 1);
	bool syn = h->flags & EQ_F_SYN, cur;

	if (!r) {
		if (p)
			eqt_pkt_put(e->pool, p);
		return;
	}
	r->last_use_ns = now;
	/* DATA here may be out of order, or in order after packets XDP
	 * delivered: XDP stops delivering, and expected is where it got to
	 * (direct.c).  Opened again below once nothing is held. */
	if (p)
		eqds_rx_direct_close(e, peer, r, now);
	/* A SYN packet is the current epoch's while its seq lies in the
	 * epoch's SYN window: a first-RTT burst may be longer than the 1024
	 * seqs the ISN's zero bits span, and seq & ~1023 alone would take its
	 * later packets for a new epoch.  Past the window and past what
	 * arrived (a new epoch starts beyond every seq of the last one),
	 * it is a new epoch; before, an older one (sender.c, new_epoch()). */
	cur = r->est && seq - r->isn < EPOCH_SYN_SEQS;
	if (syn && !cur && (!r->est || !before(seq, r->expected))) {
		/* Zero-RTT setup, or the sender started a new epoch: what is
		 * held of the old one goes up now, gaps and all. */
		release_all(e, peer, r, now);
		r->est = true;
		r->isn = isn;
		r->expected = isn;
	} else if (syn && !cur) {
		/* An older epoch: tell the sender where we are, so that its
		 * next epoch starts past it. */
		eqds_rx_send_ctl(e, peer, EQ_T_RST, 0, r->expected);
		if (p)
			eqt_pkt_put(e->pool, p);
		return;
	} else if (!r->est) {
		/* Data of a tunnel we have no state for (we flushed or
		 * restarted): the sender must start a new epoch. */
		eqds_rx_send_ctl(e, peer, EQ_T_RST, 0, 0);
		if (p)
			eqt_pkt_put(e->pool, p);
		return;
	}
	/* Demand: a SYN packet's pull target is relative to our numbering. */
	uint32_t target = syn ? r->pull_no + h->pull : h->pull;

	if (after(target, r->pull_target))
		r->pull_target = target;
	if (h->type == EQ_T_RTS) {
		/* What this RTS asks for, not all the target asks for: the
		 * target is also raised for trimmed packets (below), rounding
		 * their bytes up to whole pulls, and the rounding would become
		 * owed bytes that no packet brought (1 BDP + 1 MTU was exceeded
		 * by that with packets smaller than an MTU).  The sender sized
		 * the RTS to what the invariant leaves (sender.c, rts_room()). */
		int64_t want = (int64_t)(int32_t)(target - r->pull_no) * e->cfg.mtu;

		if (want > (int64_t)rx_bdp_cap(e))
			want = rx_bdp_cap(e);
		/* A negative entry is what the last pulls gave beyond what
		 * arrived (a PULL is a whole MTU): it stays owed back. */
		if (r->owed < 0)
			want += r->owed;
		if (want > r->owed)
			eqds_rx_set_owed(e, r, want);
		eqds_rx_asl_update(e, peer);
		/* An RTS also answers as a SYN-ACK would, acknowledging the last
		 * seq delivered in order (isn - 1 before any), as a PULL's
		 * cumulative ack does.  Not the RTS's seq: that is the sender's
		 * next, and the ACK would free the packet that gets it should
		 * that one be sent before the ACK arrives (and trimmed). */
		eqds_rx_send_ctl(e, peer, EQ_T_ACK, h->flags & EQ_F_SYN, r->expected - 1);
		return;
	}
	if (late_after_lost(e, r, h)) {
		/* Resent already: a late header asks for nothing more. */
		if (h->type == EQ_T_TRIMMED) {
			r->st.rx_trimmed++;
			if (p)
				eqt_pkt_put(e->pool, p);
			return;
		}
	} else {
		eqds_rx_set_owed(e, r, r->owed + (h->aux ? h->aux : e->cfg.mtu));
	}
	if (h->type == EQ_T_TRIMMED) {
		/* A trimmed packet goes again, whatever its pull target said
		 * (the last packets of a burst, and fast sends, ask for
		 * nothing): its bytes are pulled back, not dropped, or its
		 * resend would wait for an RTS, an RTO later. */
		uint32_t need = r->pull_no + (uint32_t)((r->owed + e->cfg.mtu - 1) / e->cfg.mtu);

		if (after(need, r->pull_target))
			r->pull_target = need;
	}
	eqds_rx_asl_update(e, peer);
	if (h->type == EQ_T_TRIMMED) {
		r->st.rx_trimmed++;
		nacked_set(e, r, seq);
		eqds_rx_send_ctl(e, peer, EQ_T_NACK, h->flags & EQ_F_SYN, seq);
		return;
	}
	r->st.rx_data++;
	eqds_rx_send_ctl(e, peer, EQ_T_ACK, (h->flags & EQ_F_SYN) | (h->ce ? EQ_F_ECE : 0), seq);
	data_in_order(e, peer, r, p, seq, now);
	eqds_rx_direct_open(e, peer, r);
}

uint64_t eqds_rx_timers(struct eqds *e, uint32_t peer, uint64_t now)
{
	struct rx_tunnel *r = e->rx[peer];
	uint64_t lost;

	if (!r || !r->held_n)
		return EQT_NO_DEADLINE;
	lost = rx_losses(e, peer, r, now);
	if (now >= r->gap_since + e->cfg.reorder_ns)
		skip_gap(e, peer, r, now);
	eqds_rx_direct_open(e, peer, r);	/* if that emptied the queue */
	if (!r->held_n)
		return EQT_NO_DEADLINE;
	return r->gap_since + e->cfg.reorder_ns < lost ? r->gap_since + e->cfg.reorder_ns : lost;
}

/* The link bytes one pull lets in: a full frame and its Ethernet framing. */
static uint32_t pull_wire_len(const struct eqds *e)
{
	return e->cfg.mtu + 14 + EQ_ETH_FRAMING;
}

/* What reaches this host's link besides the data its pulls let in:
 * control frames and trimmed headers.  Their bytes come out of the pull
 * pacer's budget, so that the pulls grant what the link can drain (at
 * 8 -> 1 the senders' control frames were 2.6-2.8 % of the bytes, and
 * RTS mode's queue grew steadily while the pulls ignored them). */
void eqds_rx_link_used(struct eqds *e, uint32_t frame_len)
{
	if (frame_len)
		eqt_pacer_spend(&e->pull_pacer, frame_len + EQ_ETH_FRAMING);
}

/* The pull pacer: the ASL's head gets as many pulls as the budget holds,
 * up to its turn (pull_batch, times its weight), in one PULL; it goes to
 * the back when its turn is over.  The pacer waits until a whole batch is
 * due, or what the head still wants, so that a PULL at 10 Gbit/s carries
 * a dozen pulls rather than the agent waking for each. */
uint64_t eqds_rx_pull_pacer(struct eqds *e, uint64_t now)
{
	uint32_t unit = pull_wire_len(e);

	eqt_pacer_update(&e->pull_pacer, now);
	while (e->asl_head != ASL_NONE) {
		uint32_t peer = e->asl_head, want, n;
		struct rx_tunnel *r = e->rx[peer];

		if (!r->turn_left)
			r->turn_left = (e->cfg.policy == EQDS_ASL_WEIGHTED ? r->weight : 1) *
				       e->pull_batch;
		want = r->turn_left;
		if ((uint64_t)want * e->cfg.mtu > (uint64_t)r->owed)
			want = (uint32_t)((r->owed + e->cfg.mtu - 1) / e->cfg.mtu);
		if (want > r->pull_target - r->pull_no)
			want = r->pull_target - r->pull_no;
		if (!want)
			want = 1;	/* in the ASL: owes and wants at least one */
		/* A whole batch, or what the head still wants: however often
		 * the agent wakes, a PULL carries a batch. */
		n = want < e->pull_batch ? want : e->pull_batch;
		if (eqt_pacer_when(&e->pull_pacer, unit * n) > now)
			return eqt_pacer_when(&e->pull_pacer, unit * n);
		n = eqt_pacer_take_units(&e->pull_pacer, unit, want);
		r->pull_no += n;
		r->turn_left -= n;
		r->st.pulls_sent += n;
		r->st.pull_pkts++;
		eqds_rx_set_owed(e, r, r->owed - (int64_t)n * e->cfg.mtu);
		eqds_rx_send_ctl(e, peer, EQ_T_PULL, 0, r->expected);
		/* Its turn over (or no longer active): to the back / out. */
		if (!r->turn_left || r->owed <= 0 || !before(r->pull_no, r->pull_target)) {
			asl_remove(e, peer);
			eqds_rx_asl_update(e, peer);
		}
	}
	return EQT_NO_DEADLINE;
}
