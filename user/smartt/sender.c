// SPDX-License-Identifier: GPL-2.0-only
/*
 * SMaRTT's sending tunnels: the core's half (core/tx.h) with a window
 * (window.h) that says what may be in flight.  The window moves on every
 * ACK (its CE echo and the RTT the core measured), on every NACK (a
 * trimmed header, or a loss the receiver found) and on timeouts.
 */
#include <errno.h>
#include <stdlib.h>
#include "edgeq/wire.h"
#include "smartt_int.h"

/* What the rules run on before the first RTT sample: the configured base
 * RTT, or 50 us (the agents' round trip on an idle host, about). */
#define BRTT_GUESS_NS	50000ULL

static uint64_t bdp_of(const struct smartt *s, uint64_t brtt_ns)
{
	uint64_t b = s->cfg.link_bps / 8 * brtt_ns / 1000000000ULL;

	return b < s->cfg.mtu ? s->cfg.mtu : b;
}

/* The rules' parameters for a base RTT: the configured one, or the
 * core's (the lowest smoothed RTT of the last 100-200 ms, agents'
 * wake-ups included: what the loop usually takes at its fastest; not the
 * lowest sample, one lucky pair of wake-ups, core/rtt.h).
 * When it falls, the window keeps its bytes within the new bounds; the
 * first sample starts it at a BDP if it was below (a line-rate start, as
 * htsim's, on the path as measured rather than guessed). */
static void params_for(struct smartt *s, struct smt_tx *t, uint64_t brtt_ns, bool first,
		       uint64_t now)
{
	uint64_t bdp = bdp_of(s, brtt_ns);

	/* Settings were checked at create: neither can fail. */
	if (smartt_params_set(&t->p, &s->cfg.rules, s->cfg.mtu, brtt_ns, bdp) ||
	    smartt_nscc_params_set(&t->np, &s->cfg.nscc_rules, s->cfg.mtu, brtt_ns, bdp))
		return;
	t->brtt_ns = brtt_ns;
	if (s->cfg.nscc) {
		/* NSCC starts at its cap (1.5 BDPs, nscc.c). */
		if (first && smartt_nscc_cwnd(&t->n) < t->np.bdp)
			smartt_nscc_init(&t->n, &t->np, now);
		if (t->n.cwnd > t->np.max_q)
			t->n.cwnd = t->np.max_q;
		if (t->n.cwnd < t->np.min_q)
			t->n.cwnd = t->np.min_q;
		return;
	}
	t->reps.explore_bytes = bdp;	/* REPS explores over a BDP */
	if (first && smartt_cwnd(&t->w) < t->p.bdp)
		smartt_win_init(&t->w, &t->p);
	if (t->w.cwnd > t->p.max_q)
		t->w.cwnd = t->p.max_q;
	if (t->w.cwnd < t->p.min_q)
		t->w.cwnd = t->p.min_q;
}

struct smt_tx *smt_tx_get(struct smartt *s, uint32_t peer, uint64_t now)
{
	struct smt_tx *t = s->tx[peer];
	uint64_t brtt = s->cfg.base_rtt_ns ? s->cfg.base_rtt_ns : BRTT_GUESS_NS;
	uint32_t seq0;

	if (t)
		return t;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	/* A peer's first tunnel numbers from a random epoch; a later one
	 * past what the last used (core/epoch.h). */
	seq0 = s->last_seq[peer] ? s->last_seq[peer] : eqt_epoch_first((uint32_t)eqt_rand(&s->rng));
	if (eqt_tx_init(&t->c, 2 * (uint32_t)(bdp_of(s, brtt) / s->cfg.mtu + 1), seq0)) {
		free(t);
		return NULL;
	}
	t->c.used = s->last_seq[peer] != 0;
	/* The entropy count was checked at create: cannot fail. */
	if (s->cfg.entropies) {
		smartt_reps_init(&t->reps, s->cfg.entropies, bdp_of(s, brtt));
		smartt_reps_keep(&t->reps, s->cfg.paths_kept);
	}
	params_for(s, t, brtt, false, now);
	smartt_win_init(&t->w, &t->p);
	smartt_nscc_init(&t->n, &t->np, now);
	t->last_use_ns = now;
	s->tx[peer] = t;
	eqt_live_set(s->tx_live, peer);
	return t;
}

/* What the peer's edge queue holds, for TC's backpressure. */
/* The path TC gives what it sends to the peer itself (bare TCP ACKs,
 * which go without the agents), REPS on: one whose round trip works, our
 * sending tunnel's (the last a clean ACK came back by), else the one the
 * peer's DATA last said works for it (EQ_F_PROVEN: its ACKs come back by
 * it, as ours would go: receiver.c); else our tunnel's current path, or
 * that of the peer's last DATA.  On the inner flow's hash instead, a
 * black-holed link took every ACK of the flows hashed onto it, and their
 * TCP stalled; on the last DATA's path, a quarter of the bare ACKs of a
 * black hole's run went into it (that DATA's entropy may be a fresh one,
 * taken after a mark, whose way back nobody knew). */
void smt_path_show(struct smartt *s, uint32_t peer)
{
	const struct smt_tx *t = s->tx[peer];
	const struct smt_rx *r = s->rx[peer];

	if (!s->bucket)
		return;
	if (s->cfg.entropies && t && t->reps.have_clean)
		eqt_edge_path(&s->bucket[peer], true, (uint16_t)t->reps.clean);
	else if (s->cfg.entropies && r && r->path_proven)
		eqt_edge_path(&s->bucket[peer], true, r->last_path);
	else if (s->cfg.entropies && t && t->reps.have_cached)
		eqt_edge_path(&s->bucket[peer], true, (uint16_t)t->reps.cached);
	else if (s->cfg.entropies && r && r->path_known)
		eqt_edge_path(&s->bucket[peer], true, r->last_path);
	else
		eqt_edge_path(&s->bucket[peer], false, 0);
}

void smt_tx_show(struct smartt *s, uint32_t peer)
{
	const struct smt_tx *t = s->tx[peer];

	if (!s->bucket)
		return;
	eqt_edge_show(&s->bucket[peer], s->host_taken[peer],
		      t ? t->c.q[0].pkts + t->c.q[1].pkts + t->c.rtx.pkts : 0);
	smt_path_show(s, peer);
}

void smt_tx_free(struct smartt *s, uint32_t peer)
{
	struct smt_tx *t = s->tx[peer];

	if (!t)
		return;
	s->last_seq[peer] = t->c.next_seq ? t->c.next_seq : 1;
	eqt_tx_fini(&t->c, s->pool);
	free(t);
	s->tx[peer] = NULL;
	eqt_live_clear(s->tx_live, peer);
	if (s->bucket)
		eqt_edge_adopt(&s->bucket[peer], &s->host_taken[peer]);
	smt_tx_show(s, peer);	/* nothing queued, nor on its way, any more */
}

static void count_rule(struct smt_tx *t, enum smartt_rule r)
{
	switch (r) {
	case SMARTT_FD:
	case SMARTT_MD:
	case SMARTT_LOSS:
		t->pub.decreases++;
		break;
	case SMARTT_FI:
	case SMARTT_MI:
		t->pub.increases++;
		break;
	case SMARTT_QA:
		t->pub.quick_adapts++;
		break;
	case SMARTT_FAST:
		t->pub.fast_increases++;
		break;
	case SMARTT_WAIT:
		t->pub.waits++;
		break;
	case SMARTT_IGNORED:
		break;
	}
}

static void count_nscc(struct smt_tx *t, enum smartt_nscc_rule r)
{
	switch (r) {
	case NSCC_MD:
	case NSCC_LOSS:
		t->pub.decreases++;
		break;
	case NSCC_FAIR:
	case NSCC_PROP:
		t->pub.increases++;
		break;
	case NSCC_QA:
		t->pub.quick_adapts++;
		break;
	case NSCC_FAST:
		t->pub.fast_increases++;
		break;
	case NSCC_PATH:
		t->pub.waits++;		/* marked at a low delay: REPS's to move */
		break;
	case NSCC_IGNORED:
		break;
	}
}

static void lost(struct smartt *s, struct smt_tx *t, uint64_t bytes, bool rto, uint64_t now);

/* REPS for the ACKs' way back (ackpath.h): the DATA this ACK's cumulative
 * ack covers whose own ACKs have not come are suspects, before the core
 * frees them. */
static void ack_paths_covered(struct smt_tx *t, const struct eqt_hdr *h)
{
	struct eqt_pkt *p;
	uint32_t c;

	if (!eqt_seq_after(h->pull, t->c.cum_ack))
		return;
	for (p = eqt_infl_first(&t->c.infl, &c); p && eqt_seq_before(p->seq, h->pull);
	     p = eqt_infl_next(&t->c.infl, &c))
		if (p->seq != h->seq_ack)
			smartt_ackpath_covered(&t->ackpath, p->seq, p->path, p->t_ns);
}

/* ... and the own ACK of a DATA sent at sent_ns names the suspects sent a
 * reordering window before it: the smoothed RTT.  RACK's quarter of it is
 * too little for ACKs sprayed over paths whose queues differ by up to the
 * trimming threshold: on the fabric's black hole it named 1,366 entropies
 * in the seconds before the failure (a whole RTT: 16), and every one
 * named is one fewer to spread over. */
static void ack_paths_named(struct smt_tx *t, uint32_t seq, uint64_t sent_ns)
{
	uint64_t rtt = t->c.rtt.srtt_ns ? t->c.rtt.srtt_ns : t->brtt_ns;
	uint32_t lost[SMARTT_ACKPATH_SUSPECTS],
		 n = smartt_ackpath_acked(&t->ackpath, seq, sent_ns, rtt, lost,
					  SMARTT_ACKPATH_SUSPECTS);

	for (uint32_t i = 0; i < n; i++)
		if (smartt_reps_on_path_lost(&t->reps, lost[i]))
			t->pub.ack_paths_lost++;
}

static void acked(struct smartt *s, struct smt_tx *t, const struct eqt_hdr *h, uint64_t now)
{
	struct eqt_tx_acked a;
	bool first = !eqt_tx_base_rtt(&t->c);
	uint64_t base, own_sent = 0;

	if (s->cfg.entropies) {
		const struct eqt_pkt *own = eqt_infl_get(&t->c.infl, h->seq_ack);

		own_sent = own ? own->t_ns : 0;
		ack_paths_covered(t, h);
	}
	eqt_tx_ack(&t->c, h->seq_ack, h->pull, s->pool, s->cfg.rto_ns, now, &a);
	if (s->cfg.entropies)
		ack_paths_named(t, h->seq_ack, own_sent);
	if (a.lost)	/* the RTO's probe arrived, and what went before it did not */
		lost(s, t, a.lost_bytes, true, now);
	if (!a.bytes)
		return;		/* a repeat, or of a packet NACKed meanwhile */
	if (h->flags & EQ_F_ECE)
		t->pub.acks_ce++;
	if (s->cfg.entropies && (h->opts & EQT_OPT(EQ_OPT_PATH))) {
		/* A clean path is reused; a marked one is left. */
		if ((h->flags & EQ_F_ECE) || h->path_echo >= t->reps.n)
			t->pub.repaths++;
		smartt_reps_on_ack(&t->reps, h->path_echo, h->flags & EQ_F_ECE);
	}
	/* A base RTT that moved by an eighth or more: the rules' units
	 * follow (each ACK's would cost a few 128-bit divisions). */
	base = eqt_tx_base_rtt(&t->c);
	if (!s->cfg.base_rtt_ns && base &&
	    (first || base < t->brtt_ns - t->brtt_ns / 8 || base > t->brtt_ns + t->brtt_ns / 8))
		params_for(s, t, base, first, now);
	/* No sample (a resend's ACK, Karn): the smoothed RTT stands in, so
	 * that such an ACK takes no rule a fresh sample would not. */
	struct smartt_fb fb = {
		.size = (uint32_t)a.bytes, .ecn = h->flags & EQ_F_ECE,
		.rtt_ns = a.rtt_ns ? a.rtt_ns : t->c.rtt.srtt_ns ? t->c.rtt.srtt_ns : t->brtt_ns,
		.unacked = t->c.infl.bytes,
	};
	if (s->cfg.nscc)
		count_nscc(t, smartt_nscc_on_ack(&t->n, &t->np, fb.size, fb.rtt_ns, fb.ecn,
						 fb.unacked, now));
	else
		count_rule(t, smartt_on_ack(&t->w, &t->p, &fb, now));
}

/* A trimmed or lost packet's NACK (rto false), or a timeout. */
static void lost(struct smartt *s, struct smt_tx *t, uint64_t bytes, bool rto, uint64_t now)
{
	struct smartt_fb fb = {
		.size = (uint32_t)(bytes < UINT32_MAX ? bytes : UINT32_MAX),
		.rtt_ns = t->c.rtt.srtt_ns ? t->c.rtt.srtt_ns : t->brtt_ns,
		.unacked = t->c.infl.bytes,
	};

	/* The path that lost it is left (REPS): a dead one returns no ACK,
	 * and only this moves the cache off it. */
	if (s->cfg.entropies && t->reps.have_cached) {
		if (rto)
			smartt_reps_on_timeout(&t->reps);
		else
			smartt_reps_on_loss(&t->reps);
		t->pub.repaths++;
	}

	if (!s->cfg.nscc) {
		count_rule(t, smartt_on_loss(&t->w, &t->p, &fb, now));
	} else if (rto) {
		smartt_nscc_on_rto(&t->n, &t->np, fb.size);
		t->pub.decreases++;
	} else {
		count_nscc(t, smartt_nscc_on_nack(&t->n, &t->np, fb.size, fb.unacked, now));
	}
}

/* An ACK, NACK or RST from the receiver of our tunnel to peer: true if it
 * was within what this tunnel sent (nothing a spoofer off the path could
 * guess), and then taken. */
bool smt_tx_control(struct smartt *s, uint32_t peer, const struct eqt_hdr *h, uint64_t now)
{
	struct smt_tx *t = s->tx[peer];
	bool rst = h->type == EQ_T_RST;
	uint32_t len;

	if (!t)
		return false;
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
		acked(s, t, h, now);
		break;
	case EQ_T_NACK:
		if (s->cfg.entropies && (h->flags & EQ_F_LOST)) {
			/* Gone, not trimmed: its path may be dead (REPS). */
			struct eqt_pkt *p = eqt_infl_get(&t->c.infl, h->seq_ack);

			if (p && smartt_reps_on_path_lost(&t->reps, p->path))
				t->pub.paths_lost++;
		}
		len = eqt_tx_nack(&t->c, h->seq_ack);
		if (len)
			lost(s, t, len, false, now);
		break;
	case EQ_T_RST:
		/* The receiver has no state for this epoch: what was in
		 * flight goes first in a new one past its floor. */
		eqt_tx_reset(&t->c, h->seq_ack);
		break;
	default:
		return false;
	}
	return true;
}

uint64_t smt_tx_timers(struct smartt *s, uint32_t peer, uint64_t now)
{
	struct smt_tx *t = s->tx[peer];
	uint64_t moved;

	if (!t)
		return EQT_NO_DEADLINE;
	/* The newest packet in flight goes again as a probe; its ACK finds
	 * what is still missing before it (acked(), core/tx.h). */
	moved = eqt_tx_probe(&t->c, s->cfg.rto_ns, now);
	if (moved)
		lost(s, t, moved, true, now);
	return eqt_tx_deadline(&t->c);
}

/* The wire arbiter's question: the first peer of class c from `from` on
 * whose head packet the window lets go (or that has nothing in flight:
 * one packet always may; nor does the window hold an RTO's probe). */
static uint32_t pick(void *ctx, uint32_t c, uint32_t from, struct eqt_q **head, bool *queued)
{
	struct smartt *s = ctx;
	uint32_t n = s->cfg.npeers, live = eqt_live_count(s->tx_live, n), peer = from;

	*queued = false;
	for (uint32_t i = 0; i < live; i++, peer++) {
		struct smt_tx *t;
		struct eqt_q *q;

		peer = eqt_live_next(s->tx_live, NULL, n, peer);
		t = s->tx[peer];
		if (!t || !(q = eqt_tx_head(&t->c, c)))
			continue;
		*queued = true;
		if (t->c.infl.n && t->c.infl.bytes + q->head->len > smt_cwnd(s, t) &&
		    !eqt_tx_probe_waits(&t->c, q))
			continue;
		if (!eqt_tx_syn_room(&t->c, q))
			continue;
		*head = q;
		return peer;
	}
	return n;
}

/* REPS picks the packet's path (reps.h): the frame layer writes it into
 * the outer UDP source port the fabric hashes.  A new epoch explores
 * again: its receiver's state, and maybe the fabric, are new. */
static void reps_stamp(struct smt_tx *t, struct eqt_pkt *p, struct eqt_hdr *h)
{
	if (!t->reps_began || t->reps_isn != t->c.isn) {
		smartt_reps_restart(&t->reps);
		smartt_ackpath_reset(&t->ackpath);
		t->reps_isn = t->c.isn;
		t->reps_began = true;
		t->pub.explores++;
	}
	h->path_id = (uint16_t)smartt_reps_on_send(&t->reps, p->len);
	h->path_set = true;
	if (smartt_reps_proven(&t->reps, h->path_id))
		h->flags |= EQ_F_PROVEN;
	p->path = h->path_id;
}

static void send_head(void *ctx, uint32_t peer, struct eqt_q *q, uint64_t now)
{
	struct smartt *s = ctx;
	struct smt_tx *t = s->tx[peer];
	struct eqt_hdr h;
	struct eqt_pkt *p = eqt_tx_take(&t->c, q, &h, s->pool, s->cfg.rto_ns, now);

	if (!p)
		return;
	h.ect = 1;	/* the fabric marks, the window reacts */
	if (s->cfg.entropies)
		reps_stamp(t, p, &h);
	t->last_use_ns = now;
	s->io.send_data(s->io.ctx, peer, p, &h);
}

uint64_t smt_tx_arbiter(struct smartt *s, uint64_t now)
{
	const struct eqt_arbiter_io io = { s, pick, send_head };

	return eqt_arbiter_run(&s->arbiter, &io, now);
}
