/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SIRD as a scheme (core/scheme.h; docs/sird.md): receiver credit with
 * informed overcommitment (seed 000) on the core's tunnel halves
 * (core/tx.h, core/rx.h).
 *
 * A sending tunnel sends a new burst's first min(BDP, UnschT) bytes
 * without credit (unscheduled, EQ_F_UNSCHED), and the rest only on
 * credit its receiver granted.  What it wants credit for is a
 * cumulative byte count of the epoch, `asked`, in the pull field of every
 * DATA and of an RTS when no DATA can carry it; its receiver's grants are
 * a cumulative count too, `granted`, in the CREDIT option of its PULLs
 * and ACKs: a lost packet of either is repaired by the next.  The sender
 * sets csn on its DATA while the credit it holds unspent exceeds SThr.
 *
 * A receiving agent keeps one credit bucket for all its senders (credit.h:
 * B, per-sender limits on csn and CE, a policy) and grants it at a pacer
 * of rho x link_rate.  Every DATA packet is ACKed (the core's tunnel frees
 * what was acknowledged), trimmed headers and losses are NACKed; a resend
 * goes on the credit its first send took, which the receiver still
 * counts as outstanding.  Every packet goes through the agents: SIRD lends
 * TC nothing, and XDP delivers none itself.
 */
#ifndef EDGEQ_SIRD_H
#define EDGEQ_SIRD_H

#include <stdint.h>
#include "scheme.h"
#include "credit.h"

/* What the module is started with (ops.c makes it from the pinned config). */
struct sird_cfg {
	uint64_t	link_bps;
	uint32_t	framing, mtu, npeers;
	uint32_t	edge_limit;		/* packets per class */
	uint32_t	reorder_limit;		/* packets */
	uint64_t	reorder_ns, loss_ns, rto_ns;
	uint32_t	drr_quantum;
	uint64_t	burst_ns;
	uint64_t	idle_ns;		/* tunnels idle this long are freed */
	uint64_t	base_rtt_ns;		/* 0: as the senders measure it */
	uint32_t	bdp_bytes;		/* the tunnel's `bdp`: a first guess (0: none) */
	uint32_t	b_bdps, sthr_bdps, unsch_bdps;	/* Q16 BDPs */
	uint32_t	rho_pct;		/* the credit pacer, percent of link_bps */
	enum sird_policy policy;
};

/* Its own per-peer state, as eq_sird_peers publishes it. */
struct sird_published {
	/* as a sender to the peer */
	uint64_t	credit_held;	/* granted, not spent (bytes) */
	uint64_t	credit_wanted;	/* asked for, not granted yet */
	uint64_t	unsched_bytes;	/* sent without credit */
	uint64_t	sched_bytes;	/* sent on credit */
	uint64_t	csn_sent;	/* DATA sent with csn */
	uint64_t	rts_sent;	/* requests without DATA */
	uint64_t	bad_credit;	/* CREDIT beyond what we asked: ignored */
	uint64_t	credit_dropped;	/* held with nothing to spend it on for 4
					 * RTOs: given up (bytes) */
	/* as the peer's receiver */
	uint64_t	granted;	/* credit outstanding to it (its sb) */
	uint64_t	limit;		/* what it may have outstanding (its bucket) */
	uint64_t	csn_seen, ce_seen;	/* DATA that came with csn, CE */
	uint64_t	credit_sent;	/* bytes granted to it */
	uint64_t	credit_reclaimed;	/* ... taken back unspent: it sent no
					 * DATA for 4 RTOs, or a new epoch */
	uint64_t	bucket_out;	/* the agent's outstanding credit, all senders
					 * (SIRD's b; not "bucket_b": Prometheus
					 * reads "_b" as an abbreviated unit) */
	uint64_t	bucket_size;	/* what b may reach now: B, less what the
					 * downlink's marks took (credit.h) */
	uint64_t	bdp;		/* what B and the limits run on */
};

extern const struct eqt_scheme_ops sird_ops;

struct sird;
struct sird *sird_new(const struct sird_cfg *cfg, const struct eqt_io *io, struct eqt_pool *pool,
		      uint64_t now, uint64_t rand);
void sird_free(struct sird *s);
int sird_local(struct sird *s, uint32_t peer, struct eqt_pkt *p, uint64_t now);
bool sird_wire(struct sird *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
	       uint64_t now);
uint64_t sird_run(struct sird *s, uint64_t now);
/* TC's per-peer buckets (edgeq/lease.h): SIRD lends nothing, but shows TC
 * its edge queues, for backpressure (core/edge.h). */
void sird_set_bucket(struct sird *s, struct eq_credit *bucket);
void sird_sync(struct sird *s, uint64_t now);
void sird_flush(struct sird *s, uint32_t peer, uint64_t now);	/* >= npeers: all */
/* The tunnel's state and the module's own (either may be NULL). */
void sird_peer_state(const struct sird *s, uint32_t peer, struct eq_agent_peer *v,
		     struct sird_published *own);
const struct sird_cfg *sird_cfg_of(const struct sird *s);
/* The receiving side's credit state (tests). */
const struct sird_rx *sird_credit_of(const struct sird *s);

#endif
