/* SPDX-License-Identifier: GPL-2.0-only */
/* SIRD's scheme internals, shared by sender.c, receiver.c and scheme.c. */
#ifndef EDGEQ_SIRD_INT_H
#define EDGEQ_SIRD_INT_H

#include "sird.h"
#include "arbiter.h"
#include "edge.h"
#include "live.h"
#include "pacer.h"
#include "rx.h"
#include "tx.h"

#define SIRD_PF_UNSCHED	EQT_PF_SCHEME	/* a queued packet goes without credit */
#define SIRD_PF_ON_CREDIT EQT_PF_SCHEME2	/* a resend goes on new credit */
#define SIRD_NO_SLOT	(-1)

/* A sending tunnel.  The byte counts are the epoch's, cumulative, mod
 * 2^32; a new epoch starts them again (tx_epoch()). */
struct sird_txt {
	struct eqt_tx		c;		/* the core's half */
	struct eqt_edge_mark	edge;		/* packets lost on their way to us */
	uint32_t		ep_isn;		/* the epoch they count for ... */
	bool			ep_began;	/* ... since there was one */
	uint32_t		asked;		/* bytes wanted on credit */
	uint32_t		told;		/* ... as the receiver last heard it */
	uint32_t		granted;	/* bytes of credit received */
	uint32_t		spent;		/* ... and sent on */
	uint64_t		unsch_left;	/* the burst's unscheduled bytes left */
	bool			bulk;		/* a packet above a small one came */
	uint64_t		rts_at;		/* the last request sent */
	uint32_t		rts_seq;	/* ... the seq it said */
	bool			rts_sent;	/* ... in this epoch */
	uint64_t		credit_at;	/* the last credit that came */
	uint64_t		rtt_told;	/* the loop RTT the receiver heard */
	uint64_t		edge_drops, last_use_ns;
	struct sird_published	pub;
};

/* A receiving tunnel. */
struct sird_rxt {
	struct eqt_rx		c;
	uint32_t		asked, granted;	/* the epoch's: cumulative bytes */
	int			slot;		/* its sender's in the credit state */
	bool			owe;		/* granted since the last PULL */
	uint64_t		rtt_ns;		/* the loop RTT its sender reports */
	uint64_t		last_data_ns, last_use_ns;
	uint64_t		csn_seen, ce_seen, credit_sent;
	uint64_t		reclaimed;	/* credit taken back unspent */
	uint64_t		silence_back;	/* ... by the silence rule, not yet
						 * matched by a gap given up */
};

struct sird {
	struct sird_cfg		cfg;
	struct eqt_io		io;
	struct eqt_pool		*pool;
	uint64_t		rng;
	struct sird_txt		**tx;
	struct sird_rxt		**rx;
	uint64_t		*tx_live, *rx_live;	/* which exist (core/live.h) */
	uint32_t		*last_seq;	/* where each peer's next tunnel numbers from */
	struct eq_credit	*bucket;	/* TC's view of the edge queues, or NULL */
	uint32_t		*host_taken;
	uint64_t		held;		/* credit held unspent, all tunnels (csn) */
	struct eqt_reorder_io	rio;
	struct eqt_arbiter	arbiter;
	/* The receiving side: one bucket for every sender. */
	struct sird_rx		credit;
	uint32_t		slot_peer[SIRD_MAX_SENDERS];	/* npeers: free */
	uint32_t		waiting;	/* senders that asked and have no slot */
	struct eqt_pacer	pacer;		/* rho x link_bps */
	uint64_t		bdp;		/* what credit runs on */
	uint64_t		rtt_max;	/* the largest loop RTT senders reported */
};

/* A tunnel's BDP for a base RTT, at least an MTU. */
static inline uint64_t sird_bdp_of(const struct sird *s, uint64_t rtt_ns)
{
	uint64_t b = s->cfg.link_bps / 8 * rtt_ns / 1000000000ULL;

	return b < s->cfg.mtu ? s->cfg.mtu : b;
}

/* The share of a BDP a Q16 setting gives. */
static inline uint64_t sird_bdps(uint64_t bdp, uint32_t q16)
{
	return bdp * q16 / SIRD_ONE;
}

/* sender.c */
struct sird_txt *sird_tx_get(struct sird *s, uint32_t peer, uint64_t now);
uint64_t sird_tx_bdp(const struct sird *s, const struct sird_txt *t);	/* the sender's */
void sird_tx_free(struct sird *s, uint32_t peer);
void sird_tx_show(struct sird *s, uint32_t peer);
int sird_tx_queue(struct sird *s, uint32_t peer, struct eqt_pkt *p, uint64_t now);
bool sird_tx_control(struct sird *s, uint32_t peer, const struct eqt_hdr *h, uint64_t now);
uint64_t sird_tx_timers(struct sird *s, uint32_t peer, uint64_t now);
uint64_t sird_tx_arbiter(struct sird *s, uint64_t now);
/* receiver.c */
void sird_rx_free(struct sird *s, uint32_t peer);
bool sird_rx_packet(struct sird *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
		    uint64_t now);
uint64_t sird_rx_timers(struct sird *s, uint32_t peer, uint64_t now);
uint64_t sird_rx_grant(struct sird *s, uint64_t now);	/* the credit pacer */
/* A frame of frame_len bytes that reached our link without our credit
 * (control, a trimmed header, unscheduled DATA): the pacer's to pay. */
void sird_rx_link_used(struct sird *s, uint32_t frame_len);
void sird_rx_lost(void *ctx, uint32_t peer, uint32_t seq);	/* the reorder queue's io */
void sird_rx_gave_up(void *ctx, uint32_t peer, uint32_t from, uint32_t n);

#endif
