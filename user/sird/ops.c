// SPDX-License-Identifier: GPL-2.0-only
/*
 * SIRD behind the scheme interface (core/scheme.h): its settings from the
 * pinned config, its events, its published state.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "edgeq/maps.h"
#include "sird.h"

/* Percent of a BDP, as the config gives it, in Q16 BDPs. */
static uint32_t pct_q16(uint32_t pct)
{
	return (uint32_t)(((uint64_t)pct * SIRD_ONE + 50) / 100);
}

/* The settings as the pinned config holds them (docs/config.md): the
 * parser stores each default, so a 0 comes only from a config made by
 * hand, and takes the default too (but for UnschT, where 0 means every
 * byte waits for credit). */
static void cfg_from(const struct eq_config *c, struct sird_cfg *m)
{
	const struct eq_tunnel_config *q = &c->tunnel;
	uint32_t mtu = c->mtu ? c->mtu : 1500;

	*m = (struct sird_cfg){
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
		.idle_ns = 10ULL * 1000000000ULL,
		.base_rtt_ns = c->schemes.sird.base_rtt_ns,
		.bdp_bytes = q->bdp_bytes,
		.b_bdps = pct_q16(c->schemes.sird.b_pct ? c->schemes.sird.b_pct : 150),
		.sthr_bdps = pct_q16(c->schemes.sird.sthr_pct ? c->schemes.sird.sthr_pct : 50),
		.unsch_bdps = pct_q16(c->schemes.sird.unsch_pct),
		.rho_pct = c->schemes.sird.rho_pct ? c->schemes.sird.rho_pct : 100,
		.policy = c->schemes.sird.policy == 1 ? SIRD_ROUND_ROBIN : SIRD_SHORTEST_FIRST,
	};
}

static void *create(const struct eqt_env *env, char *err, size_t len)
{
	struct sird_cfg mc;
	struct sird *s;

	cfg_from(env->cfg, &mc);
	s = sird_new(&mc, env->io, env->pool, env->now, env->rand);
	if (!s)
		snprintf(err, len, "bad SIRD settings in the config: %s", strerror(errno));
	return s;
}

static void describe(const void *v, char *buf, size_t len)
{
	const struct sird_cfg *c = sird_cfg_of(v);

	snprintf(buf, len, "SIRD, link %llu bit/s, mtu %u, B %u%%, SThr %u%%, UnschT %u%% of a BDP "
		 "(%s), credit paced at %u%% of the link, %s",
		 (unsigned long long)c->link_bps, c->mtu, c->b_bdps * 100 / SIRD_ONE,
		 c->sthr_bdps * 100 / SIRD_ONE, c->unsch_bdps * 100 / SIRD_ONE,
		 c->base_rtt_ns ? "of the configured base RTT" : "as the senders measure it",
		 c->rho_pct, c->policy == SIRD_ROUND_ROBIN ? "round robin" : "least backlog first");
}

static void destroy(void *s)
{
	sird_free(s);
}

static int from_host(void *s, uint32_t peer, struct eqt_pkt *p, uint64_t now)
{
	return sird_local(s, peer, p, now);
}

/* SIRD lends TC nothing (no lease opens), so no copy is ever its. */
static int fast_sent(void *s, uint32_t peer, struct eqt_pkt *p, uint32_t seq, uint64_t now)
{
	(void)s; (void)peer; (void)seq; (void)now; (void)p;
	return -EINVAL;
}

static bool from_wire(void *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
		      uint64_t now)
{
	return sird_wire(s, peer, h, p, now);
}

static uint64_t run(void *s, uint64_t now)
{
	return sird_run(s, now);
}

static void flush(void *s, uint32_t peer, uint64_t now)
{
	sird_flush(s, peer, now);
}

/* Every packet goes through the agent: the buckets only show TC the edge
 * queues. */
static void set_maps(void *s, struct eq_credit *credit, struct eq_rx *rx)
{
	(void)rx;
	if (credit)
		sird_set_bucket(s, credit);
}

static void lease_sync(void *s, uint64_t now)
{
	sird_sync(s, now);
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
	EQT_STAT(struct sird_published, credit_held, false),
	EQT_STAT(struct sird_published, credit_wanted, false),
	EQT_STAT(struct sird_published, unsched_bytes, false),
	EQT_STAT(struct sird_published, sched_bytes, false),
	EQT_STAT(struct sird_published, csn_sent, false),
	EQT_STAT(struct sird_published, rts_sent, false),
	EQT_STAT(struct sird_published, bad_credit, false),
	EQT_STAT(struct sird_published, credit_dropped, false),
	EQT_STAT(struct sird_published, granted, false),
	EQT_STAT(struct sird_published, limit, false),
	EQT_STAT(struct sird_published, csn_seen, false),
	EQT_STAT(struct sird_published, ce_seen, false),
	EQT_STAT(struct sird_published, credit_sent, false),
	EQT_STAT(struct sird_published, credit_reclaimed, false),
	EQT_STAT(struct sird_published, bucket_out, false),
	EQT_STAT(struct sird_published, bucket_size, false),
	EQT_STAT(struct sird_published, bdp, false),
};

static void publish(const void *s, uint32_t peer, struct eq_agent_peer *v, void *own)
{
	sird_peer_state(s, peer, v, own);
}

const struct eqt_scheme_ops sird_ops = {
	.name = "sird", .id = EQ_SCHEME_SIRD,
	.stats = published, .nstats = sizeof(published) / sizeof(published[0]),
	.stats_size = sizeof(struct sird_published),
	.create = create, .destroy = destroy, .describe = describe,
	.from_host = from_host, .fast_sent = fast_sent, .from_wire = from_wire,
	.run = run, .flush = flush,
	.set_maps = set_maps, .lease_sync = lease_sync, .sleep = sleep_until, .awake = awake,
	.publish = publish,
};
