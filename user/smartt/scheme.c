// SPDX-License-Identifier: GPL-2.0-only
/* SMaRTT as a scheme: its tunnels, its events, its published state (smartt.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "show.h"
#include "smartt_int.h"

static void rio_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	struct smartt *s = ctx;

	s->io.deliver(s->io.ctx, peer, p);
	eqt_pkt_put(s->pool, p);
}

void smartt_free(struct smartt *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; s->tx && s->rx && s->tx_live && s->rx_live && i < s->cfg.npeers; i++) {
		smt_tx_free(s, i);
		smt_rx_free(s, i);
	}
	free(s->tx_live);
	free(s->rx_live);
	free(s->tx);
	free(s->rx);
	free(s->last_seq);
	free(s->host_taken);
	free(s);
}

struct smartt *smartt_new(const struct smartt_cfg *cfg, const struct eqt_io *io,
			  struct eqt_pool *pool, uint64_t now, uint64_t rand)
{
	struct smartt *s;
	struct smartt_params p;

	struct smartt_nscc_params np;

	if (!cfg->npeers || !cfg->mtu || !cfg->link_bps || !cfg->reorder_limit ||
	    !cfg->edge_limit || !cfg->rto_ns ||
	    smartt_params_set(&p, &cfg->rules, cfg->mtu, 1000, 1000) ||
	    smartt_nscc_params_set(&np, &cfg->nscc_rules, cfg->mtu, 1000, 1000) ||
	    cfg->entropies > SMARTT_REPS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = *cfg;
	s->io = *io;
	s->pool = pool;
	s->rng = rand | 1;
	s->tx = calloc(cfg->npeers, sizeof(*s->tx));
	s->rx = calloc(cfg->npeers, sizeof(*s->rx));
	s->last_seq = calloc(cfg->npeers, sizeof(*s->last_seq));
	s->host_taken = calloc(cfg->npeers, sizeof(*s->host_taken));
	s->tx_live = calloc(eqt_live_words(cfg->npeers), sizeof(uint64_t));
	s->rx_live = calloc(eqt_live_words(cfg->npeers), sizeof(uint64_t));
	if (!s->tx || !s->rx || !s->last_seq || !s->host_taken || !s->tx_live || !s->rx_live) {
		smartt_free(s);
		errno = ENOMEM;
		return NULL;
	}
	s->rio = (struct eqt_reorder_io){ s, pool, rio_deliver, smt_rx_lost, NULL };
	{
		uint64_t burst = cfg->link_bps / 8 * (cfg->burst_ns ? cfg->burst_ns : 150000) /
				 1000000000ULL;

		if (burst < 4ULL * cfg->mtu)
			burst = 4ULL * cfg->mtu;
		eqt_arbiter_init(&s->arbiter, cfg->link_bps, burst, cfg->drr_quantum, cfg->framing,
				 cfg->npeers, now);
	}
	return s;
}

int smartt_local(struct smartt *s, uint32_t peer, struct eqt_pkt *p, uint64_t now)
{
	struct smt_tx *t = peer < s->cfg.npeers ? smt_tx_get(s, peer, now) : NULL;
	struct eqt_q *q;

	if (peer < s->cfg.npeers)
		s->host_taken[peer]++;	/* read, whatever becomes of it */
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
	p->tx_count = 0;
	p->t_ns = now;
	eqt_q_push(q, p);
	t->last_use_ns = now;
	return 0;
}

bool smartt_wire(struct smartt *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
		 uint64_t now)
{
	if (peer >= s->cfg.npeers)
		goto drop;
	switch (h->type) {
	case EQ_T_DATA:
	case EQ_T_TRIMMED:
		if (h->type == EQ_T_TRIMMED && p) {
			eqt_pkt_put(s->pool, p);
			p = NULL;
		}
		return smt_rx_packet(s, peer, h, p, now);
	case EQ_T_ACK:
	case EQ_T_NACK:
	case EQ_T_RST:
		if (p)
			eqt_pkt_put(s->pool, p);
		return smt_tx_control(s, peer, h, now);
	default:	/* PULL, RTS: another scheme's words */
		break;
	}
drop:
	if (p)
		eqt_pkt_put(s->pool, p);
	return false;
}

static uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Tunnels idle for idle_ns with nothing queued or in flight are freed. */
static void reap(struct smartt *s, uint32_t peer, uint64_t now)
{
	struct smt_tx *t = s->tx[peer];
	struct smt_rx *r = s->rx[peer];

	if (t && !t->c.infl.n && !eqt_tx_backlog(&t->c) && now > t->last_use_ns + s->cfg.idle_ns)
		smt_tx_free(s, peer);
	if (r && !r->c.q.n && now > r->last_use_ns + s->cfg.idle_ns)
		smt_rx_free(s, peer);
}

void smartt_set_bucket(struct smartt *s, struct eq_credit *bucket)
{
	s->bucket = bucket;
	for (uint32_t i = 0; bucket && i < s->cfg.npeers; i++)
		if (s->tx[i])
			smt_tx_show(s, i);
}

void smartt_sync(struct smartt *s, uint64_t now)
{
	uint32_t n = s->cfg.npeers, live = eqt_live_count(s->tx_live, n), peer = 0;

	for (uint32_t i = 0; s->bucket && i < live; i++, peer++) {
		peer = eqt_live_next(s->tx_live, NULL, n, peer);
		eqt_edge_settle(&s->bucket[peer], &s->host_taken[peer], &s->tx[peer]->edge, now,
				s->cfg.rto_ns);
		smt_tx_show(s, peer);
	}
	/* Peers we only receive from: their last DATA's path, for the bare
	 * ACKs TC sends them (smt_path_show()). */
	live = eqt_live_count(s->rx_live, n);
	peer = 0;
	for (uint32_t i = 0; s->bucket && s->cfg.entropies && i < live; i++, peer++) {
		peer = eqt_live_next(s->rx_live, NULL, n, peer);
		smt_path_show(s, peer);
	}
}

uint64_t smartt_run(struct smartt *s, uint64_t now)
{
	uint64_t next = EQT_NO_DEADLINE;

	/* Every peer with a tunnel (the bits are read before reap() may
	 * clear them). */
	for (uint32_t w = 0; w < eqt_live_words(s->cfg.npeers); w++) {
		uint64_t bits = s->tx_live[w] | s->rx_live[w];

		while (bits) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);

			bits &= bits - 1;
			next = min64(next, smt_rx_timers(s, i, now));
			next = min64(next, smt_tx_timers(s, i, now));
			if (s->cfg.idle_ns)
				reap(s, i, now);
		}
	}
	return min64(next, smt_tx_arbiter(s, now));
}

void smartt_flush(struct smartt *s, uint32_t peer, uint64_t now)
{
	(void)now;
	for (uint32_t i = 0; i < s->cfg.npeers; i++) {
		if (peer < s->cfg.npeers && i != peer)
			continue;
		smt_tx_free(s, i);
		smt_rx_free(s, i);
	}
}

const struct smartt_cfg *smartt_cfg_of(const struct smartt *s)
{
	return &s->cfg;
}

uint64_t smartt_cwnd_of(const struct smartt *s, uint32_t peer)
{
	return peer < s->cfg.npeers && s->tx[peer] ? smt_cwnd(s, s->tx[peer]) : 0;
}

void smartt_peer_state(const struct smartt *s, uint32_t peer, struct eq_agent_peer *v,
		       struct smartt_published *own)
{
	const struct smt_tx *t = peer < s->cfg.npeers ? s->tx[peer] : NULL;
	const struct smt_rx *r = peer < s->cfg.npeers ? s->rx[peer] : NULL;

	if (v) {
		memset(v, 0, sizeof(*v));
		if (t) {
			v->credit = (int64_t)smt_cwnd(s, t) - (int64_t)t->c.infl.bytes;
			eqt_tx_show(&t->c, v);
			v->edge_drops = t->edge_drops;
			v->bdp = (uint32_t)t->p.bdp;
		}
		if (r)
			eqt_rx_show(&r->c, v);
	}
	if (own) {
		memset(own, 0, sizeof(*own));
		if (t) {
			*own = t->pub;
			own->cwnd = smt_cwnd(s, t);
			own->base_rtt = t->brtt_ns;
			own->bdp = t->p.bdp;
		}
		if (r)
			own->ecn_sent = r->ecn_sent;
	}
}
