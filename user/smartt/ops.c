// SPDX-License-Identifier: GPL-2.0-only
/*
 * SMaRTT behind the scheme interface (core/scheme.h): its settings from the
 * pinned config, its events, its published state.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "edgeq/maps.h"
#include "smartt.h"

/* Percent as the config gives it, in Q16. */
static uint32_t pct_q16(uint32_t pct)
{
	return (uint32_t)(((uint64_t)pct * SMARTT_ONE + 50) / 100);
}

/* The settings as the pinned config holds them (docs/config.md), with the
 * defaults of the tunnel's settings left 0. */
static void cfg_from(const struct eq_config *c, struct smartt_cfg *m)
{
	const struct eq_tunnel_config *q = &c->tunnel;
	uint32_t mtu = c->mtu ? c->mtu : 1500;

	*m = (struct smartt_cfg){
		.link_bps = c->link_rate_bps ? c->link_rate_bps : 10000000000ULL,
		.framing = c->link_framing,
		.mtu = mtu,
		.npeers = eq_max_peers(c),
		.edge_limit = q->edge_limit ? q->edge_limit : 100,
		.reorder_limit = q->reorder_limit ? q->reorder_limit : 1024,
		.reorder_ns = q->reorder_ns ? q->reorder_ns : 12000000,
		.loss_ns = q->loss_ns,
		.rto_ns = q->rto_ns ? q->rto_ns : 10000000,
		.drr_quantum = q->drr_quantum ? q->drr_quantum : 3000,
		.burst_ns = q->burst_ns,
		.base_rtt_ns = c->schemes.smartt.base_rtt_ns,
		.idle_ns = 10ULL * 1000000000ULL,
	};
	smartt_settings_default(&m->rules);
	m->rules.trimming = c->schemes.smartt.trimming != 0;
	if (c->schemes.smartt.trtt_pct)
		m->rules.trtt = pct_q16(c->schemes.smartt.trtt_pct);
	if (c->schemes.smartt.max_wnd_pct)
		m->rules.max_cwnd = pct_q16(c->schemes.smartt.max_wnd_pct);
	/* NSCC: the simulator's constants (nscc.c), its own target delay and
	 * cap (1.5 BDPs); of the settings, trimming and the base RTT apply. */
	m->nscc = c->schemes.smartt.variant == 1;
	smartt_nscc_settings_default(&m->nscc_rules);
	m->nscc_rules.trimming = m->rules.trimming;
	m->entropies = c->schemes.smartt.reps ? c->schemes.smartt.entropies : 0;
	m->paths_kept = c->schemes.smartt.paths_kept;
}

static void *create(const struct eqt_env *env, char *err, size_t len)
{
	struct smartt_cfg mc;
	struct smartt *s;

	cfg_from(env->cfg, &mc);
	s = smartt_new(&mc, env->io, env->pool, env->now, env->rand);
	if (!s)
		snprintf(err, len, "bad SMaRTT settings in the config: %s", strerror(errno));
	return s;
}

static void describe(const void *v, char *buf, size_t len)
{
	const struct smartt_cfg *c = smartt_cfg_of(v);

	if (c->nscc)
		snprintf(buf, len, "SMaRTT, variant NSCC, link %llu bit/s, mtu %u, target delay %u%% "
			 "of the base RTT (%s), window at most %u%% of a BDP, %s",
			 (unsigned long long)c->link_bps, c->mtu,
			 c->nscc_rules.target * 100 / SMARTT_ONE,
			 c->base_rtt_ns ? "configured" : "the lowest measured",
			 c->nscc_rules.max_wnd * 100 / SMARTT_ONE,
			 c->rules.trimming ? "trimming" : "losses by timeout");
	else
		snprintf(buf, len, "SMaRTT, link %llu bit/s, mtu %u, target RTT %u%% of the base "
			 "RTT (%s), window at most %u%% of a BDP, %s",
			 (unsigned long long)c->link_bps, c->mtu, c->rules.trtt * 100 / SMARTT_ONE,
			 c->base_rtt_ns ? "configured" : "the lowest measured",
			 c->rules.max_cwnd * 100 / SMARTT_ONE,
			 c->rules.trimming ? "trimming" : "losses by timeout");
}

static void destroy(void *s)
{
	smartt_free(s);
}

static int from_host(void *s, uint32_t peer, struct eqt_pkt *p, uint64_t now)
{
	return smartt_local(s, peer, p, now);
}

/* SMaRTT lends TC nothing (no lease opens), so no copy is ever its: one
 * that comes anyway is freed. */
static int fast_sent(void *s, uint32_t peer, struct eqt_pkt *p, uint32_t seq, uint64_t now)
{
	(void)s; (void)peer; (void)seq; (void)now; (void)p;
	return -EINVAL;
}

static bool from_wire(void *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
		      uint64_t now)
{
	return smartt_wire(s, peer, h, p, now);
}

static uint64_t run(void *s, uint64_t now)
{
	return smartt_run(s, now);
}

static void flush(void *s, uint32_t peer, uint64_t now)
{
	smartt_flush(s, peer, now);
}

/* Every packet goes through the agent: no lease, no direct delivery; the
 * buckets only show TC the edge queues. */
static void set_maps(void *s, struct eq_credit *credit, struct eq_rx *rx)
{
	(void)rx;
	if (credit)
		smartt_set_bucket(s, credit);
}

static void lease_sync(void *s, uint64_t now)
{
	smartt_sync(s, now);
}

static bool sleep_until(void *s, uint64_t until)
{
	(void)s; (void)until;
	return false;
}

static void awake(void *s)
{
	(void)s;
}

static const struct eqt_stat published[] = {
	EQT_STAT(struct smartt_published, cwnd, false),
	EQT_STAT(struct smartt_published, base_rtt, false),
	EQT_STAT(struct smartt_published, bdp, false),
	EQT_STAT(struct smartt_published, acks_ce, false),
	EQT_STAT(struct smartt_published, decreases, false),
	EQT_STAT(struct smartt_published, increases, false),
	EQT_STAT(struct smartt_published, quick_adapts, false),
	EQT_STAT(struct smartt_published, fast_increases, false),
	EQT_STAT(struct smartt_published, waits, false),
	EQT_STAT(struct smartt_published, ecn_sent, false),
	EQT_STAT(struct smartt_published, repaths, false),
	EQT_STAT(struct smartt_published, explores, false),
	EQT_STAT(struct smartt_published, paths_lost, false),
	EQT_STAT(struct smartt_published, ack_paths_lost, false),
};

static void publish(const void *s, uint32_t peer, struct eq_agent_peer *v, void *own)
{
	smartt_peer_state(s, peer, v, own);
}

const struct eqt_scheme_ops smartt_ops = {
	.name = "smartt", .id = EQ_SCHEME_SMARTT,
	.stats = published, .nstats = sizeof(published) / sizeof(published[0]),
	.stats_size = sizeof(struct smartt_published),
	.create = create, .destroy = destroy, .describe = describe,
	.from_host = from_host, .fast_sent = fast_sent, .from_wire = from_wire,
	.run = run, .flush = flush,
	.set_maps = set_maps, .lease_sync = lease_sync, .sleep = sleep_until, .awake = awake,
	.publish = publish,
};
