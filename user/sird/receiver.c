// SPDX-License-Identifier: GPL-2.0-only
/*
 * SIRD's receiving side (sird.h; docs/sird.md): the core's receiving
 * tunnels (core/rx.h) take DATA up in order and answer each with an ACK,
 * trimmed headers and losses with a NACK; one credit bucket for all the
 * senders (credit.h) grants what they ask for at a pacer of rho x the
 * link rate, within B and each sender's limits, which learn from every
 * DATA's csn bit and CE mark.
 */
#include <stdlib.h>
#include "edgeq/wire.h"
#include "sird_int.h"

/* How far from the next seq in order a DATA packet may lie: what the
 * reorder queue holds and what may be in flight beyond it. */
#define RX_WINDOW_SLACK	EQT_TX_ACK_SLACK

/* What a sender may have asked for and not been granted: its edge queue
 * full in both classes, of packets of the largest frame.  More is not
 * the sender's (a forged count) and is not granted. */
static uint32_t ask_cap(const struct sird *s)
{
	return 2 * s->cfg.edge_limit * (s->cfg.mtu + 14);
}

/* The credit its DATA brings back when it lost its slot meanwhile, and
 * everything else the slot's sender had: given back. */
static void slot_release(struct sird *s, struct sird_rxt *r)
{
	if (r->slot == SIRD_NO_SLOT)
		return;
	sird_rx_forget(&s->credit, (uint32_t)r->slot);
	s->slot_peer[r->slot] = s->cfg.npeers;
	r->slot = SIRD_NO_SLOT;
}

/* A sender that asked gets a slot in the bucket, if one is free (at most
 * SIRD_MAX_SENDERS ask at once: the others wait for one), with what it
 * asked for and was not granted. */
static void slot_take(struct sird *s, struct sird_rxt *r, uint32_t peer)
{
	if (r->slot != SIRD_NO_SLOT || r->asked == r->granted)
		return;
	for (uint32_t i = 0; i < SIRD_MAX_SENDERS; i++)
		if (s->slot_peer[i] == s->cfg.npeers) {
			sird_rx_forget(&s->credit, i);
			s->slot_peer[i] = peer;
			r->slot = (int)i;
			sird_rx_want(&s->credit, i, r->asked - r->granted);
			return;
		}
	s->waiting++;
}

/* A slot whose sender has nothing granted and wants nothing goes to one
 * that waits. */
static void slots_share(struct sird *s)
{
	uint32_t n = s->cfg.npeers, live, peer = 0;

	if (!s->waiting)
		return;
	for (uint32_t i = 0; i < SIRD_MAX_SENDERS; i++) {
		uint32_t p = s->slot_peer[i];

		if (p < n && !s->credit.s[i].sb && !s->credit.s[i].rem && s->rx[p])
			slot_release(s, s->rx[p]);
	}
	s->waiting = 0;
	live = eqt_live_count(s->rx_live, n);
	for (uint32_t i = 0; i < live; i++, peer++) {
		peer = eqt_live_next(s->rx_live, NULL, n, peer);
		slot_take(s, s->rx[peer], peer);
	}
}

static struct sird_rxt *rx_get(struct sird *s, uint32_t peer)
{
	struct sird_rxt *r = s->rx[peer];

	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r || eqt_rx_init(&r->c, s->cfg.reorder_limit, s->cfg.reorder_ns, s->cfg.loss_ns)) {
		free(r);
		return NULL;
	}
	r->slot = SIRD_NO_SLOT;
	s->rx[peer] = r;
	eqt_live_set(s->rx_live, peer);
	return r;
}

void sird_rx_free(struct sird *s, uint32_t peer)
{
	struct sird_rxt *r = s->rx[peer];

	if (!r)
		return;
	slot_release(s, r);
	eqt_rx_fini(&r->c, s->pool);
	free(r);
	s->rx[peer] = NULL;
	eqt_live_clear(s->rx_live, peer);
}

/* The sender's new epoch: its counts start at 0, and what we granted it
 * in the last is given back (its resends there go on no credit of ours). */
static void rx_epoch(struct sird *s, struct sird_rxt *r)
{
	r->asked = r->granted = 0;
	if (r->slot != SIRD_NO_SLOT) {
		r->reclaimed += s->credit.s[r->slot].sb;
		sird_rx_reclaim(&s->credit, (uint32_t)r->slot, s->credit.s[r->slot].sb);
		s->credit.s[r->slot].rem = 0;
	}
}

/* The sender's asked count, from a DATA or an RTS: what it adds is
 * wanted, within what its queue can hold. */
static void take_ask(struct sird *s, struct sird_rxt *r, uint32_t peer, uint32_t asked)
{
	int32_t d = (int32_t)(asked - r->asked);

	if (d <= 0)
		return;
	if (asked - r->granted > ask_cap(s))
		d = (int32_t)(r->granted + ask_cap(s) - r->asked);
	if (d <= 0)
		return;
	r->asked += (uint32_t)d;
	if (r->slot == SIRD_NO_SLOT)
		slot_take(s, r, peer);
	else
		sird_rx_want(&s->credit, (uint32_t)r->slot, (uint32_t)d);
}

/* A sender's loop RTT (sender.c, loop_rtt()): the bucket and the limits
 * run on the largest of the senders' latest reports (unless a base RTT is
 * configured), up to an RTO.  The largest of the latest, not of all: a
 * sender's first samples can include a queue (an incast's unscheduled
 * bursts), and it reports again when its RTT moves by an eighth, which
 * must bring B down with it. */
static void take_rtt(struct sird *s, struct sird_rxt *r, uint32_t rtt_ns)
{
	uint64_t rtt = rtt_ns < s->cfg.rto_ns ? rtt_ns : s->cfg.rto_ns, max = 0, bdp;
	uint32_t n = s->cfg.npeers, live, peer = 0;

	if (!rtt)
		return;
	r->rtt_ns = rtt;
	if (s->cfg.base_rtt_ns)
		return;
	live = eqt_live_count(s->rx_live, n);
	for (uint32_t i = 0; i < live; i++, peer++) {
		peer = eqt_live_next(s->rx_live, NULL, n, peer);
		if (s->rx[peer]->rtt_ns > max)
			max = s->rx[peer]->rtt_ns;
	}
	if (max == s->rtt_max)
		return;
	s->rtt_max = max;
	/* A frame at least, as sird_new() starts it: the bucket's grain (a
	 * BDP under it is refused, and B would keep the last one). */
	bdp = sird_bdp_of(s, max);
	if (bdp < s->cfg.mtu + 14ULL)
		bdp = s->cfg.mtu + 14ULL;
	if (!sird_rx_set_bdp(&s->credit, bdp))
		s->bdp = s->credit.p.bdp;
}

/* A control packet for the sender's tunnel: its cumulative ack (every seq
 * before `expected` came) and our credit count. */
static void say(struct sird *s, uint32_t peer, const struct sird_rxt *r, uint8_t type,
		uint8_t flags, uint32_t ack)
{
	struct eqt_hdr h = { .type = type, .flags = flags, .seq_ack = ack, .pull = r->c.q.expected,
			     .opts = EQT_OPT(EQ_OPT_CREDIT), .credit = r->granted };

	s->io.send_ctl(s->io.ctx, peer, &h);
}

static void rst(struct sird *s, uint32_t peer, uint32_t floor, uint32_t seq)
{
	struct eqt_hdr h = { .type = EQ_T_RST, .seq_ack = floor, .pull = seq };

	s->io.send_ctl(s->io.ctx, peer, &h);
}

bool sird_rx_packet(struct sird *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
		    uint64_t now)
{
	struct sird_rxt *r = rx_get(s, peer);
	uint32_t seq = h->seq_ack;
	uint8_t ece = h->ce ? EQ_F_ECE : 0;
	bool csn = h->flags & EQ_F_CSN;
	uint64_t dup;

	if (!r) {
		if (p)
			eqt_pkt_put(s->pool, p);
		return false;
	}
	switch (eqt_rx_in(&r->c, seq, h->flags & EQ_F_SYN, r->c.q.lim + RX_WINDOW_SLACK, &s->rio,
			  peer, now)) {
	case EQT_ADMIT:
		break;
	case EQT_ADMIT_NEW_EPOCH:
		rx_epoch(s, r);
		break;
	case EQT_ADMIT_NO_STATE:
		/* We restarted: the sender starts a new epoch where we say
		 * (floor 0: anywhere) and sends again what we missed. */
		rst(s, peer, 0, seq);
		goto drop;
	case EQT_REFUSE_OLD_EPOCH:
	case EQT_REFUSE_BAD_EPOCH:
		rst(s, peer, r->c.q.expected, seq);
		goto drop;
	case EQT_REFUSE_WINDOW:
		goto drop;
	}
	r->last_use_ns = now;
	take_ask(s, r, peer, h->pull);
	if (h->type == EQ_T_RTS) {
		take_rtt(s, r, h->aux);
		r->owe = true;		/* answered with our count: it may be lost */
		return true;
	}
	if (ece)
		r->ce_seen++;
	if (csn)
		r->csn_seen++;
	if (!p) {	/* a trimmed header: the sender sends it again on its credit */
		r->c.st.trimmed++;
		/* The fabric's congestion, as a CE mark would say. */
		if (r->slot != SIRD_NO_SLOT)
			sird_rx_on_data(&s->credit, (uint32_t)r->slot, 0, false, csn, true);
		eqt_reorder_nacked(&r->c.q, seq);
		say(s, peer, r, EQ_T_NACK, ece, seq);
		return true;
	}
	r->c.st.data++;
	r->last_data_ns = now;
	p->seq = seq;
	if (h->ce)
		p->flags |= EQT_PF_CE_TAKEN;
	eqt_reorder_late(&r->c.q, seq, h->flags & EQ_F_RTX);
	dup = r->c.q.dup;
	eqt_reorder_in(&r->c.q, p, &s->rio, peer, now);
	/* Nothing waits behind a gap: what the silence rule took back has no
	 * gap left to be matched by, and must not discount a later one. */
	if (!r->c.q.n)
		r->silence_back = 0;
	/* A packet that came for the first time gives its credit back (if
	 * it went on credit) and teaches its sender's limits. */
	if (r->c.q.dup == dup && r->slot != SIRD_NO_SLOT)
		sird_rx_on_data(&s->credit, (uint32_t)r->slot, h->aux ? h->aux : h->wire_len,
				!(h->flags & EQ_F_UNSCHED), csn, h->ce);
	say(s, peer, r, EQ_T_ACK, ece, seq);
	return true;
drop:
	if (p)
		eqt_pkt_put(s->pool, p);
	return false;
}

/* The reorder queue gave up n seqs from `from` on (core/reorder.h): the
 * credit they went on comes back now, as for any packet found lost
 * (credit.h), a grain each at most and no more than the sender has out (an
 * unscheduled one took none: a grain too many, once).  A late copy is then
 * a duplicate and gives back nothing.  Kept until the sender fell silent
 * for 4 RTOs (sird_rx_timers()), it held B while the sender went on
 * sending: an incast of 32 gave up 13-38 gaps a run against a B of about
 * 8 grains, and the runs that took credit back so were the slow ones
 * (1.12-1.35 of ideal against 1.10 for those that did not). */
void sird_rx_gave_up(void *ctx, uint32_t peer, uint32_t from, uint32_t n)
{
	struct sird *s = ctx;
	struct sird_rxt *r = s->rx[peer];
	uint64_t c;

	(void)from;
	if (!r || r->slot == SIRD_NO_SLOT)
		return;
	c = (uint64_t)n * s->credit.grain;
	/* What the silence rule took back already was theirs, if the gap
	 * held the sender at its limit: not taken twice. */
	if (r->silence_back) {
		uint64_t had = c < r->silence_back ? c : r->silence_back;

		r->silence_back -= had;
		c -= had;
	}
	if (c > s->credit.s[r->slot].sb)
		c = s->credit.s[r->slot].sb;
	r->reclaimed += c;
	sird_rx_reclaim(&s->credit, (uint32_t)r->slot, c);
}

/* The reorder queue found seq missing while later ones came: NACKed as
 * lost (no trimming switch said so); the resend goes on its first credit. */
void sird_rx_lost(void *ctx, uint32_t peer, uint32_t seq)
{
	struct sird *s = ctx;
	const struct sird_rxt *r = s->rx[peer];

	if (r)
		say(s, peer, r, EQ_T_NACK, EQ_F_LOST, seq);
}

uint64_t sird_rx_timers(struct sird *s, uint32_t peer, uint64_t now)
{
	struct sird_rxt *r = s->rx[peer];
	uint64_t next;

	if (!r)
		return EQT_NO_DEADLINE;
	/* Credit granted and unused for long: no DATA for 4 RTOs.  Its
	 * packets were lost for good (the reorder queue gives their gap up
	 * once later ones come, which they cannot while this credit holds the
	 * sender's share at its limit: a stall seen on the fabric, with 2
	 * grains of a limit of 2.7 lost and the sender asking for ever), or
	 * the sender has nothing to spend it on (and drops it too: sender.c),
	 * or its grants were lost (the next count brings them, and the sender
	 * spends them beyond what we count: once, and less than its limit).
	 * Back to the bucket, so that it returns to 0 when all is idle and a
	 * sender that still asks is granted again.  A given-up gap's credit
	 * came back when it was given up (sird_rx_gave_up()). */
	if (r->slot != SIRD_NO_SLOT && s->credit.s[r->slot].sb &&
	    now > r->last_data_ns + 4 * s->cfg.rto_ns) {
		r->reclaimed += s->credit.s[r->slot].sb;
		r->silence_back += s->credit.s[r->slot].sb;
		sird_rx_reclaim(&s->credit, (uint32_t)r->slot, s->credit.s[r->slot].sb);
		/* The silence starts again: what is granted from now on is
		 * on its way, not lost. */
		r->last_data_ns = now;
	}
	next = eqt_reorder_timers(&r->c.q, &s->rio, peer, now);
	if (r->slot != SIRD_NO_SLOT && s->credit.s[r->slot].sb) {
		uint64_t silent = r->last_data_ns + 4 * s->cfg.rto_ns + 1;

		if (silent < next)
			next = silent;
	}
	return next;
}

static bool anyone_wants(const struct sird *s)
{
	for (uint32_t i = 0; i < SIRD_MAX_SENDERS; i++)
		if (s->credit.s[i].rem)
			return true;
	return false;
}

/* The credit pacer grants what the downlink can drain: what no credit let
 * in comes out of its budget too (it may go into debt, of one burst at
 * most), as EQDS's pull pacer does.  The paper paces at rho < 1 to leave
 * that room (control packets, unscheduled bytes) as a fixed share; here
 * it is what came, and `sird.rho` is the share of the rest.  Counted
 * neither way, the senders' ACKs and requests and each new burst's
 * unscheduled bytes queue at the downlink beyond the granted ones. */
void sird_rx_link_used(struct sird *s, uint32_t frame_len)
{
	if (frame_len)
		eqt_pacer_spend(&s->pacer, frame_len + s->cfg.framing);
}

uint64_t sird_rx_grant(struct sird *s, uint64_t now)
{
	uint32_t grain = s->credit.grain + s->cfg.framing, n = s->cfg.npeers, live, peer = 0;
	uint64_t next = EQT_NO_DEADLINE;

	slots_share(s);
	eqt_pacer_update(&s->pacer, now);
	for (;;) {
		uint64_t when = eqt_pacer_when(&s->pacer, grain);
		uint32_t bytes;
		int i;

		if (when > now) {
			if (anyone_wants(s))
				next = when;
			break;
		}
		i = sird_rx_tick(&s->credit, &bytes);
		if (i < 0)
			break;		/* B or every wanting sender's limit: DATA frees it */
		eqt_pacer_spend(&s->pacer, bytes + s->cfg.framing);
		if (s->slot_peer[i] < n && s->rx[s->slot_peer[i]]) {
			struct sird_rxt *r = s->rx[s->slot_peer[i]];

			r->granted += bytes;
			r->credit_sent += bytes;
			r->owe = true;
		}
	}
	live = eqt_live_count(s->rx_live, n);
	for (uint32_t i = 0; i < live; i++, peer++) {
		struct sird_rxt *r;

		peer = eqt_live_next(s->rx_live, NULL, n, peer);
		r = s->rx[peer];
		if (r->owe) {
			r->owe = false;
			say(s, peer, r, EQ_T_PULL, 0, r->c.q.expected - 1);
		}
	}
	return next;
}
