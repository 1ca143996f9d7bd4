// SPDX-License-Identifier: GPL-2.0-only
/*
 * EQDS behind the scheme interface (core/scheme.h): its settings from the
 * pinned config, its events, its published state.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "eqds_int.h"

/* EQDS's settings as the pinned config holds them (docs/config.md), with
 * the defaults of settings left 0. */
static void cfg_from(const struct eq_config *c, struct eqds_cfg *e)
{
	const struct eq_tunnel_config *q = &c->tunnel;
	uint32_t mtu = c->mtu ? c->mtu : 1500;

	*e = (struct eqds_cfg){
		.link_bps = c->link_rate_bps ? c->link_rate_bps : 10000000000ULL,
		.framing = c->link_framing,
		.npeers = eq_max_peers(c),
		.mtu = mtu,
		.bdp_bytes = q->bdp_bytes,
		.bdp_auto = !q->bdp_bytes,	/* not configured: it follows the RTT */
		.rts = c->schemes.eqds.mode == 1,
		.edge_limit = q->edge_limit ? q->edge_limit : 100,
		.edge_ecn = q->edge_ecn ? q->edge_ecn : 30,
		.reorder_limit = q->reorder_limit,
		.reorder_ns = q->reorder_ns ? q->reorder_ns : 12000000,
		.loss_ns = q->loss_ns,
		.rto_ns = q->rto_ns ? q->rto_ns : 10000000,
		.drr_quantum = q->drr_quantum ? q->drr_quantum : 3000,
		.burst_ns = q->burst_ns,
		.ack_delay_ns = q->ack_delay_ns,
		.rx_poll_ns = q->rx_poll_ns,
		.policy = c->schemes.eqds.asl ? EQDS_ASL_WEIGHTED : EQDS_ASL_FIFO,
		.idle_ns = 10ULL * 1000000000ULL,
	};
	if (!e->reorder_limit) {
		/* What the link delivers in 2 ms: a gap's resend comes a loss
		 * window and a round trip later, and what arrives meanwhile
		 * waits here.  128 packets held 150 us at 10 Gbit/s, and every
		 * drop overflowed into the inner TCP as a loss. */
		uint64_t n = e->link_bps / 8 / 500 / (mtu + 14);

		e->reorder_limit = n < 128 ? 128 : n > 4096 ? 4096 : (uint32_t)n;
	}
	if (!e->bdp_bytes) {	/* 50 us at the link rate, at least 4 MTUs */
		uint64_t b = e->link_bps / 8 * 50 / 1000000;

		e->bdp_bytes = b < 4ULL * mtu ? 4 * mtu : (uint32_t)((b + mtu - 1) / mtu * mtu);
	}
}

static void *create(const struct eqt_env *env, char *err, size_t len)
{
	struct eqds_cfg ec;
	struct eqds *e;

	cfg_from(env->cfg, &ec);
	ec.no_lend = !env->lend;
	e = eqds_new(&ec, env->io, env->pool, env->now, env->rand);
	if (!e)
		snprintf(err, len, "bad EQDS settings in the config: %s", strerror(errno));
	return e;
}

static void describe(const void *s, char *buf, size_t len)
{
	const struct eqds *e = s;

	snprintf(buf, len, "EQDS, link %llu bit/s with %u bytes of framing a frame, mtu %u, "
		 "BDP %u bytes, %s mode", (unsigned long long)e->cfg.link_bps, e->cfg.framing,
		 e->cfg.mtu, e->cfg.bdp_bytes, e->cfg.rts ? "RTS" : "trimming");
}

static void destroy(void *s)
{
	eqds_free(s);
}

static int from_host(void *s, uint32_t peer, struct eqt_pkt *p, uint64_t now)
{
	return eqds_local(s, peer, p, now);
}

static int fast_sent(void *s, uint32_t peer, struct eqt_pkt *p, uint32_t seq, uint64_t now)
{
	return eqds_sent(s, peer, p, seq, now);
}

static bool from_wire(void *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
		      uint64_t now)
{
	return eqds_wire(s, peer, h, p, now);
}

static uint64_t run(void *s, uint64_t now)
{
	return eqds_run(s, now);
}

static void flush(void *s, uint32_t peer, uint64_t now)
{
	eqds_flush(s, peer >= eqds_npeers(s) ? EQDS_ALL_PEERS : peer, now);
}

static void set_maps(void *s, struct eq_credit *credit, struct eq_rx *rx)
{
	if (credit)
		eqds_set_bucket(s, credit);
	if (rx)
		eqds_set_rxmap(s, rx);
}

static void lease_sync(void *s, uint64_t now)
{
	eqds_lease_sync(s, now);
}

static bool sleep_until(void *s, uint64_t until)
{
	return eqds_rx_direct_sleep(s, until);
}

static void awake(void *s)
{
	eqds_rx_direct_awake(s);
}

static const struct eqt_stat published[] = {
	EQT_STAT(struct eqds_published, highest_pull, false),
	EQT_STAT(struct eqds_published, pull_no, false),
	EQT_STAT(struct eqds_published, pull_target, false),
	EQT_STAT(struct eqds_published, pulls_sent, false),
	EQT_STAT(struct eqds_published, pull_pkts, false),
	EQT_STAT(struct eqds_published, rts_sent, false),
	EQT_STAT(struct eqds_published, bad_pull, false),
	EQT_STAT(struct eqds_published, silent_skips, false),
};

static void publish(const void *s, uint32_t peer, struct eq_agent_peer *v, void *own)
{
	struct eqds_peer_stats st;

	eqds_peer_stats(s, peer, &st);
	if (own)
		*(struct eqds_published *)own = (struct eqds_published){
			.highest_pull = st.highest_pull, .pull_no = st.pull_no,
			.pull_target = st.pull_target, .pulls_sent = st.pulls_sent,
			.pull_pkts = st.pull_pkts, .rts_sent = st.rts_sent, .bad_pull = st.bad_pull,
			.silent_skips = st.silent_skips,
		};
	*v = (struct eq_agent_peer){
		.credit = st.credit,
		.tx_state = st.tx_state, .tx_epoch = st.tx_epoch,
		.backlog_pkts = st.backlog_pkts, .backlog_bytes = st.backlog_bytes,
		.inflight_bytes = st.inflight_bytes, .tx_data = st.tx_data,
		.tx_rtx = st.tx_rtx, .rx_nacks = st.rx_nacks, .rto_fired = st.rto_fired,
		.edge_drops = st.edge_drops, .edge_marks = st.edge_marks,
		.tx_fast = st.tx_fast,
		.lease_bytes = st.lease_bytes, .rx_expected = st.rx_expected,
		.reorder_pkts = st.reorder_pkts, .rx_data = st.rx_data,
		.rx_trimmed = st.rx_trimmed, .rx_dup = st.rx_dup, .rx_ooo = st.rx_ooo,
		.reorder_gaps = st.reorder_gaps,
		.rx_direct = st.rx_direct,
		.infl_given_up = st.infl_given_up, .bdp = st.bdp, .srtt_us = st.srtt_us,
		.rx_lost = st.rx_lost, .rx_late = st.rx_late, .rx_relost = st.rx_relost,
		.rsts = st.rsts, .bad_ack = st.bad_ack, .bad_rst = st.bad_rst,
		.rx_bad_seq = st.rx_bad_seq, .rx_bad_epoch = st.rx_bad_epoch,
		.peer_silent = st.peer_silent,
		.tx_next_seq = st.tx_next_seq, .tx_cum_ack = st.tx_cum_ack,
	};
}

const struct eqt_scheme_ops eqds_ops = {
	.name = "eqds", .id = EQ_SCHEME_EQDS,
	.stats = published, .nstats = sizeof(published) / sizeof(published[0]),
	.stats_size = sizeof(struct eqds_published),
	.create = create, .destroy = destroy, .describe = describe,
	.from_host = from_host, .fast_sent = fast_sent, .from_wire = from_wire,
	.run = run, .flush = flush,
	.set_maps = set_maps, .lease_sync = lease_sync, .sleep = sleep_until, .awake = awake,
	.publish = publish,
};
