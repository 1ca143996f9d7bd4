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
	if (!r || eqt_rx_init(&r->core, e->cfg.reorder_limit, e->cfg.reorder_ns, e->cfg.loss_ns)) {
		free(r);
		return NULL;
	}
	r->last_use_ns = now;
	r->asl_next = ASL_NONE;
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
	e->asl_len--;
}

static void asl_append(struct eqds *e, uint32_t peer)
{
	struct rx_tunnel *r = e->rx[peer];

	r->asl_next = ASL_NONE;
	r->in_asl = true;
	r->turn_left = 0;
	e->asl_len++;
	if (e->asl_tail == ASL_NONE)
		e->asl_head = peer;
	else
		e->rx[e->asl_tail]->asl_next = peer;
	e->asl_tail = peer;
}

/* What the pull pacer will still pull for r: what it owes, up to the
 * sender's target.  An RTS with a limit may leave it owing up to a BDP
 * beyond the target (receiver.c, eqds_rx_packet()), and counted whole in
 * the busy time that told a lone RTS-mode flow, which had asked for 12
 * pulls, that the link stayed busy for 9 ms: its sender then stopped
 * asking ahead (sender.c, busy_beyond_rtt()), and the inner TCP's
 * second window waited a round trip for credit, its third too. */
static uint64_t due_bytes(const struct eqds *e, const struct rx_tunnel *r)
{
	int64_t upto;

	if (r->owed <= 0 || !before(r->pull_no, r->pull_target))
		return 0;
	upto = (int64_t)(r->pull_target - r->pull_no) * e->cfg.mtu;
	return (uint64_t)(r->owed < upto ? r->owed : upto);
}

/* r's owed, target or pull number changed: its share of the busy time. */
static void rx_account(struct eqds *e, struct rx_tunnel *r)
{
	e->asl_due -= r->due;
	r->due = due_bytes(e, r);
	e->asl_due += r->due;
}

void eqds_rx_set_owed(struct eqds *e, struct rx_tunnel *r, int64_t owed)
{
	r->owed = owed;
	rx_account(e, r);
}

/* In the ASL iff it owes pulls and the sender still wants them. */
void eqds_rx_asl_update(struct eqds *e, uint32_t peer)
{
	struct rx_tunnel *r = e->rx[peer];
	bool want = r->owed > 0 && before(r->pull_no, r->pull_target);

	rx_account(e, r);	/* the target may have moved */

	if (!want && r->owed > 0)
		eqds_rx_set_owed(e, r, 0);	/* the sender wants no more: tokens die */
	if (want && !r->in_asl)
		asl_append(e, peer);
	else if (!want && r->in_asl)
		asl_remove(e, peer);
}

/* The reorder queue's counters, into the tunnel's. */
void eqds_rx_counters(const struct rx_tunnel *r, struct eqds_peer_stats *st)
{
	st->rx_dup = r->core.q.dup;
	st->rx_ooo = r->core.q.ooo;
	st->reorder_gaps = r->core.q.gaps;
	st->rx_lost = r->core.q.lost;
	st->rx_late = r->core.q.late;
	st->rx_relost = r->core.q.relost;
}

void eqds_rx_free(struct eqds *e, uint32_t peer)
{
	struct rx_tunnel *r = e->rx[peer];

	if (!r)
		return;
	eqds_rx_direct_close(e, peer, r, e->now);
	eqds_rx_counters(r, &r->st);
	eqds_counters_add(&e->retired[peer], &r->st);
	if (r->in_asl)
		asl_remove(e, peer);
	eqds_rx_set_owed(e, r, 0);
	eqt_rx_fini(&r->core, e->pool);
	free(r);
	e->rx[peer] = NULL;
	live_clear(e->rx_live, peer);
}

uint32_t eqds_rx_busy_ns(const struct eqds *e)
{
	uint64_t ns = e->asl_due * 8000000000ULL / e->cfg.link_bps;

	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

/* A control packet to peer, echoing `echo` in a TSTAMP (0: none). */
static void send_ctl_echo(struct eqds *e, uint32_t peer, uint8_t type, uint8_t flags, uint32_t ack,
			  uint32_t echo)
{
	struct rx_tunnel *r = e->rx[peer];
	struct eqt_hdr h = { .type = type, .flags = flags, .seq_ack = ack,
			      .pull = r ? r->pull_no : 0, .aux = eqds_rx_busy_ns(e) };

	if (echo) {
		h.opts = EQT_OPT(EQ_OPT_TSTAMP);
		h.ts_echo = echo;
	}
	e->io.send_ctl(e->io.ctx, peer, &h);
}

void eqds_rx_send_ctl(struct eqds *e, uint32_t peer, uint8_t type, uint8_t flags, uint32_t ack)
{
	send_ctl_echo(e, peer, type, flags, ack, 0);
}

/* The answer to an RTS, at once: an ACK of the last seq delivered in
 * order, echoing the RTS's TSTAMP so that the sender can time the round
 * trip (sender.c: before its first DATA's ACK it has no other sample). */
static void answer_rts(struct eqds *e, uint32_t peer, struct rx_tunnel *r, const struct eqt_hdr *rts)
{
	send_ctl_echo(e, peer, EQ_T_ACK, rts->flags & EQ_F_SYN, r->core.q.expected - 1,
		      rts->opts & EQT_OPT(EQ_OPT_TSTAMP) ? rts->ts : 0);
}

/* A cumulative ACK or a PULL (RX_HELD_*) for peer: at once, or, within a
 * run of the scheme, held until its end, when one frame says everything
 * the run had to say to the peer: the PULL with every pull the run
 * granted (its ack is cumulative, so it carries the ACK too), else the
 * ACK.  Without that, a receiver that found two packets delivered and
 * three pulls due sent an ACK and three PULLs back to back: on the fabric
 * one flow's receiver sent 1.0-1.3 control frames per DATA, each a frame
 * for the switch and a wake-up for the sender's agent on the same two
 * CPUs.  (A tunnel freed within a run holds nothing: one that just took
 * XDP's deliveries is not idle.) */
static void say_now(struct eqds *e, uint32_t peer, struct rx_tunnel *r, uint8_t what)
{
	uint8_t flags = (what & RX_HELD_ECE ? EQ_F_ECE : 0) | (what & RX_HELD_LATE ? EQ_F_HELD : 0);

	if (what & RX_HELD_PULL) {
		r->st.pull_pkts++;
		eqds_rx_send_ctl(e, peer, EQ_T_PULL, flags, r->core.q.expected);
	} else if (what & RX_HELD_ACK) {
		eqds_rx_send_ctl(e, peer, EQ_T_ACK, EQ_F_CUM | flags, r->core.q.expected);
	}
}

void eqds_rx_say(struct eqds *e, uint32_t peer, struct rx_tunnel *r, uint8_t what)
{
	if (!e->hold_ctl) {
		say_now(e, peer, r, what);
		return;
	}
	r->held |= what;
	e->held[peer / 64] |= 1ULL << (peer % 64);
}

void eqds_rx_ctl_flush(struct eqds *e)
{
	for (uint32_t w = 0; w < e->live_words; w++) {
		uint64_t bits = e->held[w];

		e->held[w] = 0;
		for (; bits; bits &= bits - 1) {
			uint32_t peer = w * 64 + (uint32_t)__builtin_ctzll(bits);
			struct rx_tunnel *r = e->rx[peer];

			if (r && r->held) {
				say_now(e, peer, r, r->held);
				r->held = 0;
			}
		}
	}
}

/* An RST: where the next epoch must start past (`floor`: our next seq in
 * order, 0 without state), and the seq of the packet that drew it, which
 * the sender checks is one of its epoch's (sender.c, ctl_in_window()). */
static void send_rst(struct eqds *e, uint32_t peer, uint32_t floor, uint32_t echo)
{
	struct eqt_hdr h = { .type = EQ_T_RST, .seq_ack = floor, .pull = echo,
			      .aux = eqds_rx_busy_ns(e) };

	e->io.send_ctl(e->io.ctx, peer, &h);
}

/* How far past the next seq in order a DATA packet of this epoch may lie:
 * what the reorder queue holds and two BDPs (what a sender can have in
 * flight past a hole), with room to spare.  Beyond, it cannot be the
 * peer's: it would make the queue give up every seq before it, and the
 * tunnel drop what the peer really sends as duplicates. */
static uint32_t rx_window(const struct eqds *e, const struct rx_tunnel *r)
{
	return r->core.q.lim + 2 * (uint32_t)(rx_bdp_cap(e) / e->cfg.mtu) + ACK_SLACK_SEQS;
}

/* The reorder queue's callbacks: a packet goes up to the host (the agent
 * frees nothing: the module does, after the call); a seq was lost on the
 * way, missing while later ones came: it is NACKed at once, with
 * EQ_F_LOST, and the sender resends it on the credit it had spent on it,
 * which no pull will bring back (sender.c).  Waiting for the sender's RTO
 * instead stalled a flow for 10 ms per loss, and the packets behind the
 * gap overflowed the reorder queue into the inner TCP. */
static void rx_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	struct eqds *e = ctx;

	e->io.deliver(e->io.ctx, peer, p);
	eqt_pkt_put(e->pool, p);
}

static void rx_lost(void *ctx, uint32_t peer, uint32_t seq)
{
	eqds_rx_send_ctl(ctx, peer, EQ_T_NACK, EQ_F_LOST, seq);
}

void eqds_rx_init(struct eqds *e)
{
	e->rio = (struct eqt_reorder_io){ .ctx = e, .pool = e->pool, .deliver = rx_deliver,
					  .lost = rx_lost };
}

bool eqds_rx_packet(struct eqds *e, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
		    uint64_t now)
{
	struct rx_tunnel *r = rx_get(e, peer, now);
	uint32_t seq = h->seq_ack;
	bool syn = h->flags & EQ_F_SYN;

	if (!r) {
		if (p)
			eqt_pkt_put(e->pool, p);
		return false;
	}
	r->last_use_ns = now;
	/* DATA here may be out of order, or in order after packets XDP
	 * delivered: XDP stops delivering, and expected is where it got to
	 * (direct.c).  Opened again below once nothing is held. */
	if (p)
		eqds_rx_direct_close(e, peer, r, now);
	switch (eqt_rx_admit(r->core.est, r->core.isn, r->core.q.expected, rx_window(e, r), seq, syn)) {
	case EQT_ADMIT:
		break;
	case EQT_REFUSE_BAD_EPOCH:
		/* Not where the peer's next epoch starts: not the peer's, or
		 * a peer that restarted with a number of its own.  It is told
		 * where to start (an RST only that peer takes: it echoes its
		 * seq). */
		r->st.rx_bad_epoch++;
		send_rst(e, peer, r->core.q.expected, seq);
		if (p)
			eqt_pkt_put(e->pool, p);
		eqds_rx_direct_open(e, peer, r);	/* as it was: nothing changed */
		return false;
	case EQT_ADMIT_NEW_EPOCH:
		/* Zero-RTT setup, or the sender started a new epoch: what is
		 * held of the old one goes up now, gaps and all.  XDP's order
		 * word is closed first, whatever brought the SYN: an RTS has
		 * no packet and did not close it above, and the word's next,
		 * the old epoch's, would come back at the next look
		 * (direct.c) and refuse the new epoch's DATA as out of window. */
		eqds_rx_direct_close(e, peer, r, now);
		eqt_rx_new_epoch(&r->core, seq, &e->rio, peer, now);
		break;
	case EQT_REFUSE_OLD_EPOCH:
		/* An older epoch: tell the sender where we are, so that its
		 * next epoch starts past it. */
		send_rst(e, peer, r->core.q.expected, seq);
		if (p)
			eqt_pkt_put(e->pool, p);
		return false;
	case EQT_ADMIT_NO_STATE:
		/* Data of a tunnel we have no state for (we flushed or
		 * restarted): the sender must start a new epoch.  Until it
		 * does, DATA goes up as XDP delivered it while we were down,
		 * in the order it comes: dropped, a restart cost the inner
		 * TCP a window, and an RTO of its own (200 ms). */
		send_rst(e, peer, 0, seq);
		if (p && h->type == EQ_T_DATA) {
			r->st.rx_data++;
			rx_deliver(e, peer, p);
		} else if (p) {
			eqt_pkt_put(e->pool, p);
		}
		return false;
	case EQT_REFUSE_WINDOW:
		/* Neither ahead of the next in order nor behind it by what
		 * the tunnel can have in flight: dropped, unanswered. */
		r->st.rx_bad_seq++;
		if (p)
			eqt_pkt_put(e->pool, p);
		eqds_rx_direct_open(e, peer, r);	/* as it was: nothing changed */
		return false;
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

		if (h->aux && !syn) {
			/* A limit: the sender's credit may be out of its
			 * hands up to that pull number.  Out of them are its
			 * DATA in flight (its next seq less our next in order:
			 * what came out of order counts too, to be safe), what
			 * we owe it, and our pulls on their way to it, which
			 * the limit counts from its highest pull: so we may
			 * owe it the limit less our pull number less its DATA
			 * in flight.  (What it sent after the RTS left was
			 * credit in the limit; pulls it got since are counted
			 * as on their way: nothing is missed, and a stale RTS
			 * only asks for less.) */
			int32_t dif = (int32_t)(h->seq_ack - r->core.q.expected);

			want = ((int64_t)(int32_t)(h->aux - r->pull_no) - (dif > 0 ? dif : 0)) *
			       e->cfg.mtu;
		} else if (r->owed < 0) {
			/* A negative entry is what the last pulls gave beyond
			 * what arrived (a PULL is a whole MTU): it stays owed
			 * back. */
			want += r->owed;
		}
		if (want > (int64_t)rx_bdp_cap(e))
			want = rx_bdp_cap(e);
		if (want > r->owed)
			eqds_rx_set_owed(e, r, want);
		eqds_rx_asl_update(e, peer);
		/* An RTS also answers as a SYN-ACK would, acknowledging the last
		 * seq delivered in order (isn - 1 before any), as a PULL's
		 * cumulative ack does.  Not the RTS's seq: that is the sender's
		 * next, and the ACK would free the packet that gets it should
		 * that one be sent before the ACK arrives (and trimmed). */
		answer_rts(e, peer, r, h);
		eqds_rx_direct_open(e, peer, r);	/* closed above by a new epoch */
		return true;
	}
	/* A packet NACKed as lost that came after all (its first send,
	 * late; a resend carries EQ_F_RTX): the sender has its credit back
	 * already, so it brings no pulls (its bytes would count twice), and
	 * the reorder queue widens its loss window. */
	if (eqt_reorder_late(&r->core.q, seq, h->flags & EQ_F_RTX)) {
		/* Resent already: a late header asks for nothing more. */
		if (h->type == EQ_T_TRIMMED) {
			r->st.rx_trimmed++;
			if (p)
				eqt_pkt_put(e->pool, p);
			return true;
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
		eqt_reorder_nacked(&r->core.q, seq);		/* not to be NACKed as lost too */
		eqds_rx_send_ctl(e, peer, EQ_T_NACK, h->flags & EQ_F_SYN, seq);
		return true;
	}
	r->st.rx_data++;
	eqds_rx_send_ctl(e, peer, EQ_T_ACK, (h->flags & EQ_F_SYN) | (h->ce ? EQ_F_ECE : 0), seq);
	p->seq = seq;
	eqt_reorder_in(&r->core.q, p, &e->rio, peer, now);
	eqds_rx_direct_open(e, peer, r);
	return true;
}

uint64_t eqds_rx_timers(struct eqds *e, uint32_t peer, uint64_t now)
{
	struct rx_tunnel *r = e->rx[peer];
	uint64_t next;

	if (!r || !r->core.q.n)
		return EQT_NO_DEADLINE;
	next = eqt_reorder_timers(&r->core.q, &e->rio, peer, now);
	eqds_rx_direct_open(e, peer, r);	/* if that emptied the queue */
	return next;
}

/* The link bytes one pull lets in: a full frame and its framing. */
static uint32_t pull_wire_len(const struct eqds *e)
{
	return e->cfg.mtu + 14 + e->cfg.framing;
}

/* What reaches this host's link besides the data its pulls let in:
 * control frames and trimmed headers.  Their bytes come out of the pull
 * pacer's budget, so that the pulls grant what the link can drain (at
 * 8 -> 1 the senders' control frames were 2.6-2.8 % of the bytes, and
 * RTS mode's queue grew steadily while the pulls ignored them). */
void eqds_rx_link_used(struct eqds *e, uint32_t frame_len)
{
	if (frame_len)
		eqt_pacer_spend(&e->pull_pacer, frame_len + e->cfg.framing);
}

/* What the pull pacer's bucket holds: the burst (`pacer_burst_us`), and
 * with a lone sender in the ASL, what the link drains in PULL_LATE_NS if
 * that is more.  The agent's wake-ups come late (by a millisecond when
 * the host's CPUs are busy: on the fabric, the sending and the receiving
 * agent took turns on one CPU), and what falls due beyond the bucket is
 * link time lost for good: a lone flow ran at 65-75 % of the link.  A
 * late batch of pulls to a lone sender cannot queue: it paces what they
 * let in at its own link rate.  Shared among n senders, (n - 1)/n of it
 * can: with two bulk senders and 1 ms / 2, rpc_load's queue mean went
 * from 4 to 11 packets and its loaded RPCs took 20-40 % longer. */
static uint64_t pull_burst(const struct eqds *e)
{
	uint64_t late;

	if (e->asl_len != 1)
		return e->pull_burst;
	late = e->cfg.link_bps / 8 * PULL_LATE_NS / 1000000000ULL;
	return late > e->pull_burst ? late : e->pull_burst;
}

/* The pull pacer: the ASL's head gets as many pulls as the budget holds,
 * up to its turn (pull_batch, times its weight), in one PULL; it goes to
 * the back when its turn is over.  The pacer waits until a whole batch is
 * due, or what the head still wants, so that a PULL at 10 Gbit/s carries
 * a dozen pulls rather than the agent waking for each. */
uint64_t eqds_rx_pull_pacer(struct eqds *e, uint64_t now)
{
	uint32_t unit = pull_wire_len(e);

	eqt_pacer_set_burst(&e->pull_pacer, pull_burst(e));
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
		eqds_rx_set_owed(e, r, r->owed - (int64_t)n * e->cfg.mtu);
		eqds_rx_say(e, peer, r, RX_HELD_PULL);
		/* Its turn over (or no longer active): to the back / out. */
		if (!r->turn_left || r->owed <= 0 || !before(r->pull_no, r->pull_target)) {
			asl_remove(e, peer);
			eqds_rx_asl_update(e, peer);
		}
	}
	return EQT_NO_DEADLINE;
}
