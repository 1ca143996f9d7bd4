// SPDX-License-Identifier: GPL-2.0-only
/* EQDS as an agent module: the four events of eqds.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "eqds_int.h"

uint64_t eqds_rand(struct eqds *e)
{
	return eqt_rand(&e->rng);
}

/* Pacer burst (`pacer_burst_us`, 150 us unless set): what falls due
 * between two wake-ups, which come one packet time plus the timer's
 * lateness apart.  What a wake-up comes later than the bucket holds is
 * rate lost: 2 MTUs held 200 Mbit/s to ~110; on this 2-vCPU machine the
 * 150 us default still loses 12-20 % of the pull pacer's time in an
 * incast (docs/agent.md, "Timers and pacing on this platform"). */
static uint64_t burst(const struct eqds_cfg *c)
{
	uint64_t ns = c->burst_ns ? c->burst_ns : 150000;
	uint64_t b = c->link_bps / 8 * ns / 1000000000ULL;

	return b < 4ULL * c->mtu ? 4ULL * c->mtu : b;
}

static void free_arrays(struct eqds *e)
{
	free(e->tx);
	free(e->rx);
	free(e->tx_live);
	free(e->rx_live);
	free(e->held);
	free(e->last_seq);
	free(e->host_taken);
	free(e->weight);
	free(e->retired);
	e->tx = NULL;
	e->rx = NULL;
}

/* The per-peer arrays, for n peers (calloc: zeroed, and untouched pages
 * of a large table cost nothing until a peer uses them). */
static int alloc_arrays(struct eqds *e, uint32_t n)
{
	e->npeers = n;
	e->live_words = (n + 63) / 64;
	e->tx = calloc(n, sizeof(*e->tx));
	e->rx = calloc(n, sizeof(*e->rx));
	e->tx_live = calloc(e->live_words, sizeof(uint64_t));
	e->rx_live = calloc(e->live_words, sizeof(uint64_t));
	e->held = calloc(e->live_words, sizeof(uint64_t));
	e->last_seq = calloc(n, sizeof(*e->last_seq));
	e->host_taken = calloc(n, sizeof(*e->host_taken));
	e->weight = calloc(n, sizeof(*e->weight));
	e->retired = calloc(n, sizeof(*e->retired));
	if (e->tx && e->rx && e->tx_live && e->rx_live && e->held && e->last_seq &&
	    e->host_taken && e->weight && e->retired)
		return 0;
	free_arrays(e);
	return -ENOMEM;
}

struct eqds *eqds_new(const struct eqds_cfg *cfg, const struct eqt_io *io,
		      struct eqt_pool *pool, uint64_t now, uint64_t rand)
{
	struct eqds *e;

	if (!cfg->link_bps || cfg->mtu < 64 || cfg->mtu + 14 > pool->frame_max ||
	    cfg->bdp_bytes < cfg->mtu || !cfg->edge_limit || !cfg->reorder_limit ||
	    !cfg->rto_ns || !cfg->reorder_ns || !cfg->drr_quantum ||
	    !io->send_data || !io->send_ctl || !io->deliver) {
		errno = EINVAL;
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e || alloc_arrays(e, cfg->npeers ? cfg->npeers : EQDS_MAX_PEERS)) {
		free(e);
		errno = ENOMEM;
		return NULL;
	}
	e->cfg = *cfg;
	e->io = *io;
	e->pool = pool;
	e->rng = rand;
	e->bdp_max = cfg->bdp_bytes;
	if (cfg->bdp_auto) {	/* 16 ms at the link rate, within what a lease holds */
		uint64_t m = cfg->link_bps / 8 * 16 / 1000;

		if (m > EQ_LEASE_BYTES / 2)
			m = EQ_LEASE_BYTES / 2;
		e->bdp_max = m > cfg->bdp_bytes ? (uint32_t)m : cfg->bdp_bytes;
	}
	e->asl_head = e->asl_tail = ASL_NONE;
	eqds_rx_init(e);
	e->pull_burst = burst(cfg);
	eqt_pacer_init(&e->pull_pacer, cfg->link_bps, e->pull_burst, now);
	e->pull_batch = (uint32_t)(cfg->link_bps / 8 * PULL_BATCH_NS / 1000000000ULL /
				   (cfg->mtu + 14 + cfg->framing));
	if (!e->pull_batch)
		e->pull_batch = 1;
	eqt_arbiter_init(&e->arbiter, cfg->link_bps, burst(cfg), cfg->drr_quantum, cfg->framing,
			 e->npeers, now);
	/* A full-size packet, or what fills half the ack delay at the link
	 * rate, is a bulk flow's: its pulls must not wait.  Only small
	 * packets (requests, responses, inner ACKs) wait for the timer. */
	uint64_t wake = cfg->link_bps / 8 * (cfg->ack_delay_ns / 2) / 1000000000ULL;

	e->rx_wake_bytes = (uint32_t)(wake < cfg->mtu ? wake : cfg->mtu);
	return e;
}

uint32_t eqds_npeers(const struct eqds *e)
{
	return e->npeers;
}

void eqds_free(struct eqds *e)
{
	if (!e)
		return;
	for (uint32_t i = 0; e->tx && e->rx && i < e->npeers; i++) {
		eqds_tx_free(e, i, e->now);
		eqds_rx_free(e, i);
	}
	free_arrays(e);
	free(e);
}

int eqds_local(struct eqds *e, uint32_t peer, struct eqt_pkt *p, uint64_t now)
{
	int rc;

	clock_seen(e, now);
	if (peer >= e->npeers) {
		eqt_pkt_put(e->pool, p);
		return -EINVAL;
	}
	e->host_taken[peer]++;
	rc = eqds_tx_local(e, peer, p, now);
	if (!rc)
		eqds_tx_arbiter(e, now);	/* credit in hand: no need to wait for a tick */
	return rc;
}

int eqds_sent(struct eqds *e, uint32_t peer, struct eqt_pkt *p, uint32_t seq, uint64_t now)
{
	int rc;

	clock_seen(e, now);
	if (peer >= e->npeers) {
		eqt_pkt_put(e->pool, p);
		return -EINVAL;
	}
	rc = eqds_tx_sent(e, peer, p, seq, now);
	if (rc > 0) {
		eqds_tx_arbiter(e, now);	/* queued to go (again) */
		rc = 0;
	}
	return rc;
}

bool eqds_wire(struct eqds *e, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
	       uint64_t now)
{
	bool taken = false;

	clock_seen(e, now);
	if (peer >= e->npeers) {
		if (p)
			eqt_pkt_put(e->pool, p);
		return false;
	}
	switch (h->type) {
	case EQ_T_DATA:
		if (!p)
			return false;
		taken = eqds_rx_packet(e, peer, h, p, now);
		break;
	case EQ_T_TRIMMED:
	case EQ_T_RTS:
		if (p)
			eqt_pkt_put(e->pool, p);
		eqds_rx_link_used(e, h->wire_len);
		taken = eqds_rx_packet(e, peer, h, NULL, now);
		break;
	case EQ_T_PULL:
	case EQ_T_ACK:
	case EQ_T_NACK:
	case EQ_T_RST:
		if (p)
			eqt_pkt_put(e->pool, p);
		eqds_rx_link_used(e, h->wire_len);
		taken = eqds_tx_control(e, peer, h, now);
		eqds_tx_arbiter(e, now);
		break;
	default:
		if (p)
			eqt_pkt_put(e->pool, p);
	}
	return taken;
}

static bool tx_idle(const struct tx_tunnel *t)
{
	return !t->core.infl.n && !t->core.rtx.pkts && !t->core.q[0].pkts && !t->core.q[1].pkts;
}

/* Peer i's timers, or the end of its idle tunnels: its next deadline. */
static uint64_t peer_timers(struct eqds *e, uint32_t i, uint64_t now)
{
	uint64_t next = EQT_NO_DEADLINE, d;
	struct rx_tunnel *r = e->rx[i];

	if (e->tx[i]) {
		if (tx_idle(e->tx[i]) && now > e->tx[i]->last_use_ns + e->cfg.idle_ns)
			eqds_tx_free(e, i, now);	/* its last seq stays in last_seq */
		else
			next = eqds_tx_timers(e, i, now);
	}
	if (r) {
		/* XDP delivered some of its DATA: account for it (direct.c). */
		if (e->rxmap && __atomic_load_n(&e->rxmap[i].dirty, __ATOMIC_RELAXED))
			eqds_rx_direct_sync(e, i, r, now);
		if (!r->core.q.n && !r->in_asl && now > r->last_use_ns + e->cfg.idle_ns)
			eqds_rx_free(e, i);
		else {
			if ((d = eqds_rx_timers(e, i, now)) < next)
				next = d;
			if (r->poll_at > now && r->poll_at < next)
				next = r->poll_at;
		}
	}
	return next;
}

uint64_t eqds_run(struct eqds *e, uint64_t now)
{
	uint64_t next = EQT_NO_DEADLINE, d;

	clock_seen(e, now);
	/* What the receivers say in this run goes at its end, one frame a
	 * peer (receiver.c, eqds_rx_say()). */
	e->hold_ctl = true;
	for (uint32_t w = 0; w < e->live_words; w++) {
		uint64_t bits = e->tx_live[w] | e->rx_live[w];

		for (; bits; bits &= bits - 1)
			if ((d = peer_timers(e, w * 64 + (uint32_t)__builtin_ctzll(bits), now)) < next)
				next = d;
	}
	if ((d = eqds_rx_pull_pacer(e, now)) < next)
		next = d;
	e->hold_ctl = false;
	eqds_rx_ctl_flush(e);
	if ((d = eqds_tx_arbiter(e, now)) < next)
		next = d;
	if (e->cfg.idle_ns && next == EQT_NO_DEADLINE &&
	    live_next(e, e->tx_live, e->rx_live, 0) < e->npeers)
		next = now + e->cfg.idle_ns;
	return next;
}

void eqds_flush(struct eqds *e, uint32_t peer, uint64_t now)
{
	clock_seen(e, now);
	for (uint32_t i = 0; i < e->npeers; i++) {
		if (peer != EQDS_ALL_PEERS && i != peer)
			continue;
		eqds_tx_free(e, i, now);
		eqds_rx_free(e, i);
	}
}

int eqds_set_weight(struct eqds *e, uint32_t peer, uint32_t weight)
{
	if (peer >= e->npeers || weight < 1 || weight > 1000)
		return -EINVAL;
	e->weight[peer] = weight;
	if (e->rx[peer])
		e->rx[peer]->weight = weight;
	return 0;
}

void eqds_counters_add(struct eqds_peer_stats *to, const struct eqds_peer_stats *from)
{
	to->tx_data += from->tx_data;
	to->tx_rtx += from->tx_rtx;
	to->rx_nacks += from->rx_nacks;
	to->rto_fired += from->rto_fired;
	to->edge_drops += from->edge_drops;
	to->edge_marks += from->edge_marks;
	to->rts_sent += from->rts_sent;
	to->tx_fast += from->tx_fast;
	to->infl_given_up += from->infl_given_up;
	to->rx_data += from->rx_data;
	to->rx_trimmed += from->rx_trimmed;
	to->rx_dup += from->rx_dup;
	to->rx_ooo += from->rx_ooo;
	to->reorder_gaps += from->reorder_gaps;
	to->pulls_sent += from->pulls_sent;
	to->rx_direct += from->rx_direct;
	to->pull_pkts += from->pull_pkts;
	to->rx_lost += from->rx_lost;
	to->rx_late += from->rx_late;
	to->rx_relost += from->rx_relost;
	to->bad_ack += from->bad_ack;
	to->bad_pull += from->bad_pull;
	to->bad_rst += from->bad_rst;
	to->rsts += from->rsts;
	to->peer_silent += from->peer_silent;
	to->silent_skips += from->silent_skips;
	to->rx_bad_seq += from->rx_bad_seq;
	to->rx_bad_epoch += from->rx_bad_epoch;
}

void eqds_peer_stats(const struct eqds *e, uint32_t peer, struct eqds_peer_stats *st)
{
	const struct tx_tunnel *t = peer < e->npeers ? e->tx[peer] : NULL;
	const struct rx_tunnel *r = peer < e->npeers ? e->rx[peer] : NULL;

	memset(st, 0, sizeof(*st));
	if (t) {
		*st = t->st;
		st->lease_bytes = eqds_tx_lease_bytes(e, peer, t);
		st->credit = t->credit + (int64_t)st->lease_bytes;
		st->highest_pull = t->highest_pull;
		st->backlog_pkts = tx_backlog_pkts(t);
		st->backlog_bytes = tx_backlog_bytes(t);
		st->inflight_bytes = t->core.infl.bytes;
		st->tx_epoch = t->core.isn;
		st->tx_next_seq = eqds_tx_sent_hi(e, peer, t);
		st->tx_cum_ack = t->core.cum_ack;
		st->tx_state = tx_state(t);
		st->bdp = tx_bdp(e, t);
		st->srtt_us = (uint32_t)(t->core.rtt.srtt_ns / 1000);
	}
	if (r) {
		st->pull_no = r->pull_no;
		st->pull_target = r->pull_target;
		st->rx_expected = r->core.q.expected;
		st->reorder_pkts = r->core.q.n;
		st->rx_data = r->st.rx_data;
		st->rx_trimmed = r->st.rx_trimmed;
		eqds_rx_counters(r, st);
		st->pulls_sent = r->st.pulls_sent;
		st->rx_direct = r->st.rx_direct;
		st->pull_pkts = r->st.pull_pkts;
		st->rx_bad_seq = r->st.rx_bad_seq;
		st->rx_bad_epoch = r->st.rx_bad_epoch;
	}
	if (peer < e->npeers)
		eqds_counters_add(st, &e->retired[peer]);
}

int64_t eqds_credit_sum(const struct eqds *s, uint32_t ps, const struct eqds *r, uint32_t pr)
{
	const struct tx_tunnel *t = s->tx[ps];
	const struct rx_tunnel *x = r->rx[pr];
	int64_t sum = 0;

	if (!t)
		return 0;
	sum += t->credit + eqds_tx_lease_bytes(s, ps, t);
	const struct eqt_pkt *p;
	uint32_t q;

	for (p = eqt_infl_first(&t->core.infl, &q); p; p = eqt_infl_next(&t->core.infl, &q)) {
		bool seen;

		seen = x && x->core.est && eqt_reorder_seen(&x->core.q, q);
		if (!seen)
			sum += p->len;
	}
	if (x) {
		if (t->hp_known && after(x->pull_no, t->highest_pull))
			sum += (int64_t)(x->pull_no - t->highest_pull) * s->cfg.mtu;
		/* Negative when its pulls (whole MTUs) went beyond what
		 * arrived: that credit is counted at the sender already. */
		sum += x->owed;
	}
	return sum;
}
