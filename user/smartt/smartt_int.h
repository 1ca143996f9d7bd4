/* SPDX-License-Identifier: GPL-2.0-only */
/* SMaRTT's scheme internals, shared by sender.c, receiver.c and scheme.c. */
#ifndef EDGEQ_SMARTT_INT_H
#define EDGEQ_SMARTT_INT_H

#include "smartt.h"
#include "ackpath.h"
#include "arbiter.h"
#include "edge.h"
#include "live.h"
#include "reps.h"
#include "rx.h"
#include "tx.h"

struct smt_tx {
	struct eqt_tx		c;		/* the core's half */
	struct eqt_edge_mark	edge;		/* packets lost on their way to us */
	struct smartt_win	w;	/* the paper's rules ... */
	struct smartt_params	p;
	struct smartt_nscc	n;	/* ... or NSCC's (cfg.nscc) */
	struct smartt_nscc_params np;
	struct smartt_reps	reps;	/* cfg.entropies: the DATA's paths */
	struct smartt_ackpath	ackpath;	/* ... and their ACKs' way back */
	uint32_t		reps_isn;	/* the epoch REPS explored for */
	bool			reps_began;	/* ... since there was one */
	uint64_t		brtt_ns;	/* the base RTT p runs on */
	uint64_t		edge_drops, last_use_ns;
	struct smartt_published	pub;
};

struct smt_rx {
	struct eqt_rx		c;
	uint16_t		last_path;	/* the path of the last DATA here ... */
	bool			path_known;	/* ... since there was one (REPS) */
	bool			path_proven;	/* ... and it said its way works */
	uint64_t		last_use_ns;
	uint64_t		dup;		/* counted before the queue's own */
	uint64_t		ecn_sent;
};

struct smartt {
	struct smartt_cfg	cfg;
	struct eqt_io		io;
	struct eqt_pool		*pool;
	uint64_t		rng;
	struct smt_tx		**tx;
	struct smt_rx		**rx;
	uint64_t		*tx_live, *rx_live;	/* which exist (core/live.h) */
	uint32_t		*last_seq;	/* where each peer's next tunnel numbers from */
	/* TC's view of the edge queues (core/edge.h), or NULL: packets taken
	 * from the host per peer, whatever became of its tunnels. */
	struct eq_credit	*bucket;
	uint32_t		*host_taken;
	struct eqt_reorder_io	rio;
	struct eqt_arbiter	arbiter;
};

/* The window in bytes, by the variant's rules. */
static inline uint64_t smt_cwnd(const struct smartt *s, const struct smt_tx *t)
{
	return s->cfg.nscc ? smartt_nscc_cwnd(&t->n) : smartt_cwnd(&t->w);
}

/* sender.c */
struct smt_tx *smt_tx_get(struct smartt *s, uint32_t peer, uint64_t now);
void smt_tx_free(struct smartt *s, uint32_t peer);
void smt_tx_show(struct smartt *s, uint32_t peer);
void smt_path_show(struct smartt *s, uint32_t peer);
bool smt_tx_control(struct smartt *s, uint32_t peer, const struct eqt_hdr *h, uint64_t now);
uint64_t smt_tx_timers(struct smartt *s, uint32_t peer, uint64_t now);
uint64_t smt_tx_arbiter(struct smartt *s, uint64_t now);
/* receiver.c */
void smt_rx_free(struct smartt *s, uint32_t peer);
bool smt_rx_packet(struct smartt *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
		   uint64_t now);
uint64_t smt_rx_timers(struct smartt *s, uint32_t peer, uint64_t now);
void smt_rx_lost(void *ctx, uint32_t peer, uint32_t seq);	/* the reorder queue's io */

#endif
