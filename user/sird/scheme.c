// SPDX-License-Identifier: GPL-2.0-only
/* SIRD as a scheme: its tunnels, its events, its published state (sird.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "show.h"
#include "sird_int.h"

/* The receiver's first guess at the path, before a sender reports its
 * loop RTT (sender.c has the same). */
#define RTT_GUESS_NS	50000ULL

static void rio_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	struct sird *s = ctx;

	s->io.deliver(s->io.ctx, peer, p);
	eqt_pkt_put(s->pool, p);
}

void sird_free(struct sird *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; s->tx && s->rx && s->tx_live && s->rx_live && i < s->cfg.npeers; i++) {
		sird_tx_free(s, i);
		sird_rx_free(s, i);
	}
	free(s->tx_live);
	free(s->rx_live);
	free(s->tx);
	free(s->rx);
	free(s->last_seq);
	free(s->host_taken);
	free(s);
}

/* The bucket's first BDP: the configured base RTT's, else the tunnel's
 * `bdp`, else a guess the senders' reports replace. */
static uint64_t first_bdp(const struct sird *s)
{
	if (s->cfg.base_rtt_ns)
		return sird_bdp_of(s, s->cfg.base_rtt_ns);
	if (s->cfg.bdp_bytes)
		return s->cfg.bdp_bytes;
	return sird_bdp_of(s, RTT_GUESS_NS);
}

struct sird *sird_new(const struct sird_cfg *cfg, const struct eqt_io *io, struct eqt_pool *pool,
		      uint64_t now, uint64_t rand)
{
	struct sird *s;
	uint64_t burst;

	if (!cfg->npeers || !cfg->mtu || !cfg->link_bps || !cfg->reorder_limit ||
	    !cfg->edge_limit || !cfg->rto_ns || cfg->b_bdps < SIRD_ONE || !cfg->sthr_bdps ||
	    !cfg->rho_pct || cfg->rho_pct > 100 || cfg->policy > SIRD_SHORTEST_FIRST) {
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
		sird_free(s);
		errno = ENOMEM;
		return NULL;
	}
	/* The bucket's grain is a whole frame of the wire (the MTU and its
	 * Ethernet header): what the senders count. */
	s->bdp = first_bdp(s);
	if (s->bdp < cfg->mtu + 14U)
		s->bdp = cfg->mtu + 14U;
	if (sird_rx_init(&s->credit, SIRD_MAX_SENDERS, s->bdp, cfg->mtu + 14, cfg->b_bdps,
			 cfg->policy)) {
		sird_free(s);
		errno = EINVAL;
		return NULL;
	}
	for (uint32_t i = 0; i < SIRD_MAX_SENDERS; i++)
		s->slot_peer[i] = cfg->npeers;
	s->rio = (struct eqt_reorder_io){ s, pool, rio_deliver, sird_rx_lost, sird_rx_gave_up };
	burst = cfg->link_bps / 8 * (cfg->burst_ns ? cfg->burst_ns : 150000) / 1000000000ULL;
	if (burst < 4ULL * cfg->mtu)
		burst = 4ULL * cfg->mtu;
	eqt_arbiter_init(&s->arbiter, cfg->link_bps, burst, cfg->drr_quantum, cfg->framing,
			 cfg->npeers, now);
	/* Credit is paced at rho of the link, less what reaches it without
	 * credit (control frames, unscheduled DATA: sird_rx_link_used()). */
	eqt_pacer_init(&s->pacer, cfg->link_bps / 100 * cfg->rho_pct, burst, now);
	return s;
}

int sird_local(struct sird *s, uint32_t peer, struct eqt_pkt *p, uint64_t now)
{
	if (peer >= s->cfg.npeers) {
		eqt_pkt_put(s->pool, p);
		return -ENOBUFS;
	}
	s->host_taken[peer]++;	/* read, whatever becomes of it */
	return sird_tx_queue(s, peer, p, now);
}

bool sird_wire(struct sird *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
	       uint64_t now)
{
	if (peer >= s->cfg.npeers)
		goto drop;
	switch (h->type) {
	case EQ_T_DATA:
	case EQ_T_TRIMMED:
	case EQ_T_RTS:
		if (h->type != EQ_T_DATA && p) {
			eqt_pkt_put(s->pool, p);
			p = NULL;
		}
		/* What came without our credit (receiver.c, link_used). */
		if (h->type != EQ_T_DATA || (h->flags & EQ_F_UNSCHED))
			sird_rx_link_used(s, h->wire_len);
		return sird_rx_packet(s, peer, h, p, now);
	case EQ_T_ACK:
	case EQ_T_NACK:
	case EQ_T_PULL:
	case EQ_T_RST:
		if (p)
			eqt_pkt_put(s->pool, p);
		sird_rx_link_used(s, h->wire_len);
		return sird_tx_control(s, peer, h, now);
	default:
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
static void reap(struct sird *s, uint32_t peer, uint64_t now)
{
	struct sird_txt *t = s->tx[peer];
	struct sird_rxt *r = s->rx[peer];

	if (t && !t->c.infl.n && !eqt_tx_backlog(&t->c) && now > t->last_use_ns + s->cfg.idle_ns)
		sird_tx_free(s, peer);
	if (r && !r->c.q.n && now > r->last_use_ns + s->cfg.idle_ns)
		sird_rx_free(s, peer);
}

void sird_set_bucket(struct sird *s, struct eq_credit *bucket)
{
	s->bucket = bucket;
	for (uint32_t i = 0; bucket && i < s->cfg.npeers; i++)
		if (s->tx[i])
			sird_tx_show(s, i);
}

void sird_sync(struct sird *s, uint64_t now)
{
	uint32_t n = s->cfg.npeers, live = eqt_live_count(s->tx_live, n), peer = 0;

	for (uint32_t i = 0; s->bucket && i < live; i++, peer++) {
		peer = eqt_live_next(s->tx_live, NULL, n, peer);
		eqt_edge_settle(&s->bucket[peer], &s->host_taken[peer], &s->tx[peer]->edge, now,
				s->cfg.rto_ns);
		sird_tx_show(s, peer);
	}
}

uint64_t sird_run(struct sird *s, uint64_t now)
{
	uint64_t next = EQT_NO_DEADLINE;

	/* Every peer with a tunnel (the bits are read before reap() may
	 * clear them). */
	for (uint32_t w = 0; w < eqt_live_words(s->cfg.npeers); w++) {
		uint64_t bits = s->tx_live[w] | s->rx_live[w];

		while (bits) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);

			bits &= bits - 1;
			next = min64(next, sird_rx_timers(s, i, now));
			next = min64(next, sird_tx_timers(s, i, now));
			if (s->cfg.idle_ns)
				reap(s, i, now);
		}
	}
	next = min64(next, sird_rx_grant(s, now));
	return min64(next, sird_tx_arbiter(s, now));
}

void sird_flush(struct sird *s, uint32_t peer, uint64_t now)
{
	(void)now;
	for (uint32_t i = 0; i < s->cfg.npeers; i++) {
		if (peer < s->cfg.npeers && i != peer)
			continue;
		sird_tx_free(s, i);
		sird_rx_free(s, i);
	}
}

const struct sird_cfg *sird_cfg_of(const struct sird *s)
{
	return &s->cfg;
}

const struct sird_rx *sird_credit_of(const struct sird *s)
{
	return &s->credit;
}

void sird_peer_state(const struct sird *s, uint32_t peer, struct eq_agent_peer *v,
		     struct sird_published *own)
{
	const struct sird_txt *t = peer < s->cfg.npeers ? s->tx[peer] : NULL;
	const struct sird_rxt *r = peer < s->cfg.npeers ? s->rx[peer] : NULL;

	if (v) {
		memset(v, 0, sizeof(*v));
		if (t) {
			v->credit = (int32_t)(t->granted - t->spent);
			eqt_tx_show(&t->c, v);
			v->edge_drops = t->edge_drops;
		}
		/* A sender's own BDP (its RTT), else what our credit runs on. */
		v->bdp = (uint32_t)(t ? sird_tx_bdp(s, t) : s->bdp);
		if (r)
			eqt_rx_show(&r->c, v);
	}
	if (own) {
		memset(own, 0, sizeof(*own));
		if (t) {
			*own = t->pub;
			own->credit_held = (int32_t)(t->granted - t->spent) > 0 ? t->granted - t->spent : 0;
			own->credit_wanted = (int32_t)(t->asked - t->granted) > 0 ? t->asked - t->granted
										  : 0;
		}
		if (r) {
			own->csn_seen = r->csn_seen;
			own->ce_seen = r->ce_seen;
			own->credit_sent = r->credit_sent;
			own->credit_reclaimed = r->reclaimed;
			if (r->slot != SIRD_NO_SLOT) {
				own->granted = s->credit.s[r->slot].sb;
				own->limit = sird_limit_bytes(&s->credit.s[r->slot].lim);
			}
		}
		own->bucket_out = s->credit.b;
		own->bucket_size = sird_rx_bucket(&s->credit);
		own->bdp = s->bdp;
	}
}
