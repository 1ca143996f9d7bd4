/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SMaRTT as a scheme (core/scheme.h; docs/smartt.md): a sender window
 * (window.h) on the core's tunnel halves (core/tx.h, core/rx.h).  Every
 * DATA packet goes through the agents: a window scheme lends TC nothing
 * yet, and XDP delivers none itself.  The receiver ACKs each DATA packet,
 * echoing its CE mark, and NACKs trimmed headers and losses; the sender's
 * window moves on each ACK and NACK and on timeouts.
 */
#ifndef EDGEQ_SMARTT_H
#define EDGEQ_SMARTT_H

#include <stdint.h>
#include "scheme.h"
#include "window.h"
#include "nscc.h"

/* What the module is started with (ops.c makes it from the pinned config). */
struct smartt_cfg {
	uint64_t	link_bps;
	uint32_t	framing, mtu, npeers;
	uint32_t	edge_limit;		/* packets per class */
	uint32_t	reorder_limit;		/* packets */
	uint64_t	reorder_ns, loss_ns, rto_ns;
	uint32_t	drr_quantum;
	uint64_t	burst_ns;
	uint64_t	base_rtt_ns;		/* 0: the lowest measured */
	uint64_t	idle_ns;		/* tunnels idle this long are freed */
	struct smartt_settings rules;
	bool		nscc;			/* UEC's NSCC rules instead (nscc.h) */
	uint32_t	entropies;		/* REPS's set (reps.h); 0: REPS off,
						 * each packet keeps TC's entropy */
	uint32_t	paths_kept;		/* REPS's working set (reps.h); 0: none */
	struct smartt_nscc_settings nscc_rules;
};

/* Its own per-peer state, as eq_smartt_peers publishes it. */
struct smartt_published {
	uint64_t	cwnd;		/* bytes */
	uint64_t	base_rtt, bdp;	/* what the rules run on: ns, bytes (not
					 * "base_rtt_ns": Prometheus reads "_ns"
					 * as an abbreviated unit) */
	uint64_t	acks_ce;	/* ACKs echoing a CE mark */
	uint64_t	decreases, increases, quick_adapts, fast_increases, waits;
	uint64_t	ecn_sent;	/* ACKs sent with a CE echo (receiver) */
	uint64_t	repaths;	/* REPS: fresh entropies taken after a mark
					 * or a loss */
	uint64_t	explores;	/* ... explorations begun (new epochs) */
	uint64_t	paths_lost;	/* ... entropies left: a LOST NACK named
					 * one (its DATA's way) ... */
	uint64_t	ack_paths_lost;	/* ... or an ACK never came by it */
};

extern const struct eqt_scheme_ops smartt_ops;

struct smartt;
struct smartt *smartt_new(const struct smartt_cfg *cfg, const struct eqt_io *io,
			  struct eqt_pool *pool, uint64_t now, uint64_t rand);
void smartt_free(struct smartt *s);
int smartt_local(struct smartt *s, uint32_t peer, struct eqt_pkt *p, uint64_t now);
bool smartt_wire(struct smartt *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
		 uint64_t now);
uint64_t smartt_run(struct smartt *s, uint64_t now);
/* TC's per-peer buckets (edgeq/lease.h): SMaRTT lends nothing, but shows
 * TC its edge queues, for backpressure (core/edge.h); smartt_sync() after
 * a run. */
void smartt_set_bucket(struct smartt *s, struct eq_credit *bucket);
void smartt_sync(struct smartt *s, uint64_t now);
void smartt_flush(struct smartt *s, uint32_t peer, uint64_t now);	/* >= npeers: all */
/* The tunnel's state and the module's own (either may be NULL). */
void smartt_peer_state(const struct smartt *s, uint32_t peer, struct eq_agent_peer *v,
		       struct smartt_published *own);
uint64_t smartt_cwnd_of(const struct smartt *s, uint32_t peer);	/* 0: no tunnel */
const struct smartt_cfg *smartt_cfg_of(const struct smartt *s);

#endif
