// SPDX-License-Identifier: GPL-2.0-only
/*
 * SMaRTT's receiving tunnels: the core's half (core/rx.h) takes DATA up in
 * order; every DATA packet is answered with an ACK of its seq that echoes
 * its CE mark (the sender's window wants each packet's feedback) and
 * carries the cumulative ack in the pull field (docs/wire.md: a window
 * scheme's ACK); a trimmed header, and a seq the reorder queue finds lost,
 * with a NACK.
 */
#include <stdlib.h>
#include "edgeq/wire.h"
#include "smartt_int.h"

/* How far from the next seq in order a DATA packet may lie: what the
 * reorder queue holds and a window in flight beyond it. */
#define RX_WINDOW_SLACK	EQT_TX_ACK_SLACK

static struct smt_rx *rx_get(struct smartt *s, uint32_t peer)
{
	struct smt_rx *r = s->rx[peer];

	if (r)
		return r;
	r = calloc(1, sizeof(*r));
	if (!r || eqt_rx_init(&r->c, s->cfg.reorder_limit, s->cfg.reorder_ns, s->cfg.loss_ns)) {
		free(r);
		return NULL;
	}
	s->rx[peer] = r;
	eqt_live_set(s->rx_live, peer);
	return r;
}

void smt_rx_free(struct smartt *s, uint32_t peer)
{
	struct smt_rx *r = s->rx[peer];

	if (!r)
		return;
	eqt_rx_fini(&r->c, s->pool);
	free(r);
	s->rx[peer] = NULL;
	eqt_live_clear(s->rx_live, peer);
	smt_path_show(s, peer);		/* its last DATA's path is no more */
}

static void say(struct smartt *s, uint32_t peer, uint8_t type, uint8_t flags, uint32_t ack,
		uint32_t cum)
{
	struct eqt_hdr h = { .type = type, .flags = flags, .seq_ack = ack, .pull = cum };

	s->io.send_ctl(s->io.ctx, peer, &h);
}

/* An ACK or NACK of a packet that came: with the path it came by (the
 * PATH option), for the sender's REPS.  It goes back by the same entropy
 * (REPS on: the sender picked it): a path the sender recycles is one
 * whose round trip works, and a dead reverse path is left as a dead
 * forward one is.  On a fixed path per peer, one black-holed link on the
 * way back took every ACK of the tunnel (1/3 of the goodput). */
static void answer(struct smartt *s, uint32_t peer, uint8_t type, uint8_t flags,
		   const struct eqt_hdr *data, uint32_t cum)
{
	struct eqt_hdr h = { .type = type, .flags = flags, .seq_ack = data->seq_ack, .pull = cum,
			     .opts = EQT_OPT(EQ_OPT_PATH), .path_echo = data->path_id,
			     .path_id = data->path_id, .path_set = s->cfg.entropies != 0 };

	s->io.send_ctl(s->io.ctx, peer, &h);
}

bool smt_rx_packet(struct smartt *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
		   uint64_t now)
{
	struct smt_rx *r = rx_get(s, peer);
	uint32_t seq = h->seq_ack, window;
	uint8_t ece = h->ce ? EQ_F_ECE : 0;

	if (!r) {
		if (p)
			eqt_pkt_put(s->pool, p);
		return false;
	}
	window = r->c.q.lim + RX_WINDOW_SLACK;
	switch (eqt_rx_in(&r->c, seq, h->flags & EQ_F_SYN, window, &s->rio, peer, now)) {
	case EQT_ADMIT:
	case EQT_ADMIT_NEW_EPOCH:
		break;
	case EQT_ADMIT_NO_STATE:
		/* We restarted: the sender starts a new epoch where we say
		 * (floor 0: anywhere) and sends again what we missed. */
		say(s, peer, EQ_T_RST, 0, 0, seq);
		goto drop;
	case EQT_REFUSE_OLD_EPOCH:
	case EQT_REFUSE_BAD_EPOCH:
		say(s, peer, EQ_T_RST, 0, r->c.q.expected, seq);
		goto drop;
	case EQT_REFUSE_WINDOW:
		goto drop;
	}
	r->last_use_ns = now;
	if (ece)
		r->ecn_sent++;
	if (!p) {	/* a trimmed header: the sender sends it again */
		r->c.st.trimmed++;
		eqt_reorder_nacked(&r->c.q, seq);
		answer(s, peer, EQ_T_NACK, ece, h, r->c.q.expected);
		return true;
	}
	r->c.st.data++;
	/* The path for our TC's packets to the peer (sender.c,
	 * smt_path_show()): one its sender found works, once one did. */
	if ((h->flags & EQ_F_PROVEN) || !r->path_proven) {
		r->last_path = h->path_id;
		r->path_known = true;
		r->path_proven = h->flags & EQ_F_PROVEN;
	}
	p->seq = seq;
	if (h->ce)
		p->flags |= EQT_PF_CE_TAKEN;
	/* A first send NACKed as lost that came after all widens the loss
	 * window (reorder.h); SMaRTT's window already took the loss. */
	eqt_reorder_late(&r->c.q, seq, h->flags & EQ_F_RTX);
	eqt_reorder_in(&r->c.q, p, &s->rio, peer, now);
	answer(s, peer, EQ_T_ACK, ece, h, r->c.q.expected);
	return true;
drop:
	if (p)
		eqt_pkt_put(s->pool, p);
	return false;
}

/* The reorder queue found seq missing while later ones came: NACKed as
 * lost (no trimming switch said so). */
void smt_rx_lost(void *ctx, uint32_t peer, uint32_t seq)
{
	struct smartt *s = ctx;
	const struct smt_rx *r = s->rx[peer];
	struct eqt_hdr h = { .type = EQ_T_NACK, .flags = EQ_F_LOST, .seq_ack = seq,
			     .pull = r ? r->c.q.expected : seq };

	/* REPS on: by a path whose way back works, as our TC's packets go
	 * (the lost DATA's own may be the dead one).  On the agent's one
	 * path per peer, a black hole took every LOST NACK of the peers
	 * hashed onto it, and their senders never learnt which of their
	 * entropies lead into it. */
	if (s->cfg.entropies && r && r->path_known) {
		h.path_id = r->last_path;
		h.path_set = true;
	}
	s->io.send_ctl(s->io.ctx, peer, &h);
}

uint64_t smt_rx_timers(struct smartt *s, uint32_t peer, uint64_t now)
{
	struct smt_rx *r = s->rx[peer];

	return r ? eqt_reorder_timers(&r->c.q, &s->rio, peer, now) : EQT_NO_DEADLINE;
}
