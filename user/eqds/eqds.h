/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * EQDS (seed 004) as a control-loop module of the agent: per-peer edge
 * queues that release packets against receiver credit, the receiver's
 * Active Sender List and paced PULLs, ACK/NACK, retransmission, zero-RTT
 * tunnels with epochs, a reorder queue.  docs/eqds.md describes the
 * protocol, the credit invariant and where we depart from the paper.
 *
 * Pure C with an injected clock: every entry point takes `now` (ns).  The
 * module never touches a socket: it calls back into struct eqt_io to put
 * a packet on the wire or hand one to the local stack.  The agent
 * (user/agent/) drives it with four events, the nanoTransport set:
 *   a packet from the local stack   eqds_local()
 *   a packet from the wire          eqds_wire()
 *   time passing (pacers, timers)   eqds_run(), which returns the next
 *                                   deadline so the agent can sleep
 *   a tunnel flushed by command     eqds_flush()
 * and, with the fast path (TC sends on credit the module lends it, in a
 * bucket shared with the BPF programs: edgeq/lease.h), a fifth:
 *   a packet TC already sent        eqds_sent()
 * Peers are numbered by their slot in the pinned eq_peers map.
 */
#ifndef EDGEQ_EQDS_H
#define EDGEQ_EQDS_H

#include <stdbool.h>
#include <stdint.h>
#include "eqt.h"
#include "hdr.h"
#include "scheme.h"
#include "edgeq/lease.h"
#include "edgeq/rx.h"

#define EQDS_MAX_PEERS	1024	/* peers when cfg.npeers is 0 (= EQ_MAX_PEERS) */
#define EQDS_ALL_PEERS	UINT32_MAX

enum eqds_asl_policy {
	EQDS_ASL_FIFO		= 0,	/* round robin: equal shares */
	EQDS_ASL_WEIGHTED	= 1,	/* shares in proportion to per-peer weights */
};

struct eqds_cfg {
	uint64_t	link_bps;	/* this host's access link: the pull pacer's and
					 * the wire arbiter's rate */
	uint32_t	npeers;		/* peer slots, numbered from 0 (the attachment's
					 * max_peers); 0: EQDS_MAX_PEERS */
	uint32_t	framing;	/* bytes each frame takes on that link beyond
					 * its Ethernet header and payload (preamble,
					 * gap, FCS: EQ_ETH_FRAMING on Ethernet) */
	uint32_t	mtu;		/* wire MTU in bytes (IP packet): one PULL = one MTU */
	uint32_t	bdp_bytes;	/* 1 BDP: unscheduled burst, pull target cap;
					 * with bdp_auto the floor of each tunnel's */
	bool		bdp_auto;	/* each tunnel's BDP follows its measured RTT:
					 * link rate x smoothed RTT, from bdp_bytes up
					 * to 16 ms at the link rate */
	bool		rts;		/* RTS mode: no unscheduled first RTT (no trimming) */
	uint32_t	edge_limit;	/* per-destination edge queue, packets (drop-tail) */
	uint32_t	edge_ecn;	/* ... CE-mark ECT packets above this many */
	uint32_t	reorder_limit;	/* per-tunnel reorder queue, packets */
	uint64_t	reorder_ns;	/* a gap older than this is given up */
	uint64_t	loss_ns;	/* a seq still missing this long after a later one
					 * came was lost: NACKed at once (EQ_F_LOST), so
					 * that its resend need not wait for an RTO; the
					 * window doubles (up to reorder_ns / 2) each time
					 * a packet comes after it.  0: off */
	uint64_t	rto_ns;		/* retransmission timeout (minimum) */
	uint32_t	drr_quantum;	/* bytes per class per DRR round */
	uint64_t	burst_ns;	/* the pull pacer's and the wire arbiter's bucket,
					 * in time at the link rate (0: 150 us); at least
					 * 4 MTUs.  It must hold what the agent's wake-ups
					 * come late by, or the pacers fall short of
					 * the rate; what it holds can go at once */
	uint64_t	ack_delay_ns;	/* XDP's deliveries wake the agent this long after
					 * the first it has not read (the XDP program
					 * reads it from eq_config; here only for
					 * wake_bytes below).  0: at once */
	uint64_t	rx_poll_ns;	/* while XDP delivers a bulk flow (wake_bytes
					 * or more between two looks), look again this
					 * often instead of being woken for it (rx.h).
					 * 0: woken */
	enum eqds_asl_policy policy;
	uint64_t	idle_ns;	/* a tunnel idle this long is freed */
	bool		no_lend;	/* the bucket only shows TC the edge queue: no
					 * credit is lent (fast_path off) */
};


/* Per-peer figures: the agent publishes them in a pinned map. */
struct eqds_peer_stats {
	/* sending side */
	int64_t		credit;		/* bytes */
	uint32_t	highest_pull;	/* highest pull number seen from the peer */
	uint32_t	backlog_pkts;	/* edge queue + retransmission queue */
	uint64_t	backlog_bytes;
	uint64_t	inflight_bytes;
	uint32_t	tx_epoch;	/* seq of the tunnel's first SYN (low 10 bits 0) */
	uint32_t	tx_next_seq;	/* the seq after the last one sent, TC's included */
	uint32_t	tx_cum_ack;	/* cumulative ack: every seq before it arrived */
	uint8_t		tx_state;	/* enum eqds_tx_state */
	uint64_t	tx_data, tx_rtx, rx_nacks, rto_fired, edge_drops, edge_marks, rts_sent;
	uint64_t	tx_fast;	/* of tx_data: sent by TC on leased credit */
	uint64_t	lease_bytes;	/* of credit: lent to TC now */
	uint32_t	bdp;		/* the tunnel's BDP now (bytes) */
	uint32_t	srtt_us;	/* its smoothed RTT (0: no sample yet) */
	uint64_t	infl_given_up;	/* packets in flight dropped unACKed: their
					 * seqs spanned more than the in-flight
					 * ring can grow to (sender.c) */
	/* control packets refused, each changing nothing (sender.c,
	 * ctl_in_window()): an ack past what was sent or far behind, pulls
	 * past what was asked, an RST echoing no seq of this epoch */
	uint64_t	bad_ack, bad_pull, bad_rst;
	uint64_t	rsts;		/* RSTs taken: the receiver had no state
					 * for this epoch (sender.c, control()) */
	uint64_t	silent_skips;	/* new epochs after a silent spell: the
					 * receiver waited at a seq no longer held */
	uint64_t	peer_silent;	/* times the receiver fell silent for an RTO (its
					 * agent down or starved): the tunnel ran on
					 * without credit until it spoke */
	/* receiving side */
	uint32_t	pull_no;	/* pulls sent to the peer */
	uint32_t	pull_target;
	uint32_t	rx_expected;	/* next in-order seq */
	uint32_t	reorder_pkts;	/* held now */
	uint64_t	rx_data, rx_trimmed, rx_dup, rx_ooo, reorder_gaps, pulls_sent;
	uint64_t	rx_direct;	/* of rx_data: delivered by XDP (rx.h) */
	uint64_t	pull_pkts;	/* PULL packets (one may grant several pulls) */
	uint64_t	rx_lost;	/* seqs NACKed as lost (missing, later ones came) */
	uint64_t	rx_late;	/* ... of which the first send came after all */
	uint64_t	rx_relost;	/* NACKs sent again: still missing a while after */
	/* DATA refused (receiver.c): a seq outside the window of this epoch,
	 * a SYN further ahead than a new epoch starts (answered with an RST) */
	uint64_t	rx_bad_seq, rx_bad_epoch;
};

enum eqds_tx_state { EQDS_TX_CLOSED = 0, EQDS_TX_SYN_SENT = 1, EQDS_TX_ESTABLISHED = 2 };

struct eqds;

/* NULL with errno on bad config or no memory. rand seeds the epochs. */
struct eqds *eqds_new(const struct eqds_cfg *cfg, const struct eqt_io *io,
		      struct eqt_pool *pool, uint64_t now, uint64_t rand);
void eqds_free(struct eqds *e);

/* A packet from the local stack to `peer` (an encapsulated frame whose
 * edgeq header the module fills in through send_data).  0 if queued;
 * -ENOBUFS if the edge queue dropped it (the packet is freed). */
int eqds_local(struct eqds *e, uint32_t peer, struct eqt_pkt *p, uint64_t now);
/* A packet from the wire from `peer`: p is the DATA frame (the module owns
 * it from here) or NULL for a control packet or trimmed header.  True if
 * it was taken as the peer's tunnel's: within every window, of the
 * current epoch or starting one (docs/eqds.md, "What a packet may
 * change"); the agent learns the peer's route only from those. */
bool eqds_wire(struct eqds *e, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
	       uint64_t now);
/* A packet TC sent on leased credit (its copy, seq stamped): kept until
 * ACKed, as if the module had sent it.  0, or as eqds_local() when the
 * tunnel it was sent in is gone and it must go again. */
int eqds_sent(struct eqds *e, uint32_t peer, struct eqt_pkt *p, uint32_t seq, uint64_t now);
/* The fast path: `bucket` is the shared eq_credit array (npeers
 * entries, all closed and zero); NULL turns it off and takes every lease
 * back.  The module also shows TC its edge queue there (what it took and
 * holds: backpressure), lending or not (cfg.no_lend). */
void eqds_set_bucket(struct eqds *e, struct eq_credit *bucket);
/* The peer slots it was made for (cfg.npeers, or EQDS_MAX_PEERS). */
uint32_t eqds_npeers(const struct eqds *e);
/* Direct delivery: `map` is the shared eq_rx array (npeers
 * entries, all closed): XDP delivers a tunnel's in-order DATA itself while
 * its reorder queue is empty (edgeq/rx.h); NULL turns it off. */
void eqds_set_rxmap(struct eqds *e, struct eq_rx *map);
/* The agent is about to sleep until `until` (CLOCK_MONOTONIC): XDP arms
 * its ACK timers for looks later than the ACK delay (rx.h).  True when
 * XDP delivered something meanwhile: then do not sleep. */
bool eqds_rx_direct_sleep(struct eqds *e, uint64_t until);
/* ... and woke up: XDP need not arm timers while it is awake. */
void eqds_rx_direct_awake(struct eqds *e);
/* Lends the credit of every established tunnel with an empty edge queue
 * to TC, tops the leases up, takes back shut ones, and opens direct
 * delivery where it waited for the agent's deliveries (io.delivered).
 * Call it after what eqds_run() sent and delivered is on its way, so
 * that no fast send can overtake it. */
void eqds_lease_sync(struct eqds *e, uint64_t now);
/* Pacers, timers, sending: returns the next time it wants to run. */
uint64_t eqds_run(struct eqds *e, uint64_t now);
/* Drops a tunnel's state on both sides (what a restart or a GC does). */
void eqds_flush(struct eqds *e, uint32_t peer, uint64_t now);
/* Per-peer weight for EQDS_ASL_WEIGHTED (1..1000; default 1). */
int eqds_set_weight(struct eqds *e, uint32_t peer, uint32_t weight);
void eqds_peer_stats(const struct eqds *e, uint32_t peer, struct eqds_peer_stats *st);
/* The credit invariant of one tunnel as seen from both ends in one process
 * (tests and simulations only): sender credit + data in flight + pulls in
 * flight + the receiver's ASL entry (negative when its pulls went beyond
 * what arrived), in bytes. */
int64_t eqds_credit_sum(const struct eqds *sender, uint32_t peer_at_sender,
			const struct eqds *receiver, uint32_t peer_at_receiver);

/* EQDS behind the scheme interface (ops.c). */
/* EQDS's own per-peer state, published in eq_eqds_peers (scheme.h's
 * struct eqt_stat; the tunnel's is struct eq_agent_peer): the pulls each
 * way, RTS, and the pulls refused. */
struct eqds_published {
	uint32_t	highest_pull;	/* highest pull number seen from the peer */
	uint32_t	pull_no;	/* pulls this host sent to the peer */
	uint32_t	pull_target;	/* what this host wants pulled up to */
	uint32_t	pad;
	uint64_t	pulls_sent;	/* pulls granted to the peer */
	uint64_t	pull_pkts;	/* PULL packets: one grants several pulls */
	uint64_t	rts_sent;	/* RTS packets sent */
	uint64_t	bad_pull;	/* PULLs refused: beyond what was asked */
	uint64_t	silent_skips;	/* new epochs after a silent spell, the
					 * receiver waiting at a seq gone as
					 * delivered (sender.c) */
};

extern const struct eqt_scheme_ops eqds_ops;

#endif /* EDGEQ_EQDS_H */
