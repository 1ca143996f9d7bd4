/* SPDX-License-Identifier: GPL-2.0-only */
/* EQDS internals shared by sender.c, receiver.c and eqds.c. */
#ifndef EDGEQ_EQDS_INT_H
#define EDGEQ_EQDS_INT_H

#include "eqds.h"
#include "arbiter.h"
#include "pacer.h"
#include "rtt.h"
#include "infl.h"
#include "reorder.h"
#include "edge.h"
#include "epoch.h"
#include "live.h"
#include "tx.h"
#include "rx.h"

#define EARLY_SLOTS	8	/* ACKs/NACKs remembered for copies not yet read */
#define EARLY_LOST	(0x80 | EQ_T_NACK)	/* an early note of a NACK with EQ_F_LOST */
#define PULL_BATCH_NS	16000	/* a PULL grants what the link drains in this */
#define PULL_LATE_NS	1000000	/* the lateness a lone sender's pulls make up
				 * (receiver.c, pull_burst()) */
/* Acks a control packet may carry below the sender's cumulative ack (a
 * late ACK, a PULL overtaken by a later one), and seqs a DATA packet may
 * lie past the receiver's next in order beyond its reorder queue and two
 * BDPs: anything else cannot come from the peer's tunnel. */
#define ACK_SLACK_SEQS	4096
#define PULL_SLACK	16	/* pulls beyond two BDPs and what was asked */

/* The core's serial number arithmetic (eqt.h), by EQDS's short names. */
static inline bool before(uint32_t a, uint32_t b) { return eqt_seq_before(a, b); }
static inline bool after(uint32_t a, uint32_t b) { return eqt_seq_after(a, b); }

struct tx_tunnel {
	/* The tunnel's mechanics, the core's (core/tx.h): epoch and seqs,
	 * the edge queue by class and the resends, what is in flight, the
	 * RTT estimator and the RTO.  Its epoch's state is EQDS's tx_state
	 * (tx_state() below). */
	struct eqt_tx	core;
	bool		hp_known;	/* highest_pull is in the receiver's numbering */
	bool		rts_due;	/* (re)starting without credit: ask at once */
	bool		lease_open;	/* credit lent to TC (lease.h) */
	bool		shut_wait;	/* a shut lease taken back, the packet that
					 * shut it not here yet: no new lease */
	bool		peer_silent;	/* not a word from the receiver for two RTOs
					 * with data in flight, nor an answer to an
					 * RTS: no credit is waited for until it
					 * speaks (sender.c) */
	bool		probed;		/* an RTO found the receiver quiet and asked
					 * it with an RTS; cleared when it speaks */
	/* The rate the receiver's pulls came at (bit/s, 0: not measured),
	 * over spells of at least 4 pulls and two round trips from
	 * grant_at: what the tunnel goes on at while the receiver is
	 * silent, credit counted from silent_at (sender.c, silent_credit()). */
	uint64_t	grant_bps, grant_at, grant_bytes, silent_at;
	bool		silent_gap;	/* packets went as delivered while the
					 * receiver was silent: it may wait for
					 * some that never came (sender.c) */
	uint32_t	unasked;	/* packets of this epoch sent while the
					 * receiver was silent, asking for no
					 * pulls: a receiver only slow pulls for
					 * them, and those pulls are not forged
					 * (sender.c, ctl_in_window()) */
	uint32_t	lease_seq0;	/* the open lease's first seq */
	uint32_t	lease_copies;	/* copies of its sends here already */
	uint32_t	copies_due;	/* sends of closed leases whose copy is not here */
	uint64_t	shut_at, copies_since;
	uint64_t	handed_since;	/* TC's handed count ahead of ours since */
	/* TCP packets TC holds back for want of credit (lease.h `held`): a
	 * backlog we cannot see, asked for as if it were a BDP's. */
	uint32_t	held_seen;
	uint64_t	held_at;	/* when TC last held one */
	bool		tc_demand;
	/* ACKs and NACKs that came before the copy of the fast send they are
	 * about (its clone was slower than the round trip): the copy obeys
	 * them when it comes.  A ring: the oldest goes first. */
	uint32_t	early_seq[EARLY_SLOTS];
	uint8_t		early_type[EARLY_SLOTS];	/* 0, EQ_T_ACK or EQ_T_NACK */
	uint32_t	early_next;
	uint32_t	told_target;	/* highest pull target we have sent */
	uint32_t	highest_pull;
	int64_t		credit;
	uint64_t	last_ctl_ns, busy_until, last_rts_ns, last_use_ns;
	uint32_t	rts_ts;		/* the last RTS's TSTAMP, until its answer
					 * (echoing it) gave an RTT sample; 0: none */
	/* Bytes sent in the current round trip (from rate_at) and the last
	 * one: what the flow feeds the tunnel per round trip, which RTS
	 * mode asks for ahead of the queue (sender.c, tx_ahead_pkts()). */
	uint64_t	rate_at;
	uint32_t	rate_cur, rate_prev;
	/* RTS mode: regrowth RTSs sent since the last new pull (sender.c,
	 * rts_regrow_at()). */
	uint8_t		regrow_idle;
	uint32_t	bdp;		/* bytes: cfg.bdp_bytes, or from srtt (bdp_auto) */
	uint64_t	trim_ns;	/* the last trim NACKed: the path queues, and
					 * the BDP keeps to the lowest RTT for a while */
	uint32_t	bdp_hi;		/* the largest it has been: growth beyond is credited */
	struct eqds_peer_stats st;
};

struct rx_tunnel {
	/* The tunnel's mechanics, the core's (core/rx.h): the epoch, and the
	 * receive order: the next seq in order (core.q.expected), what waits
	 * behind a gap, losses found (user/core/reorder.h). */
	struct eqt_rx	core;
	uint32_t	pull_no, pull_target;
	int64_t		owed;		/* bytes that arrived and may be pulled again */
	uint64_t	due;		/* what of them the pulls will pay out: owed
					 * up to the target (its share of asl_due) */
	bool		in_asl;
	uint32_t	asl_next;	/* next peer in the ASL */
	uint32_t	turn_left;	/* weighted policy: pulls left in this turn */
	uint32_t	weight;
	uint64_t	last_use_ns;
	/* Direct delivery (rx.h, direct.c): the word is open, and what of
	 * XDP's cumulative counts this tunnel has taken into account. */
	bool		direct_open;
	uint64_t	seen_pkts, seen_bytes, seen_ce;
	uint64_t	poll_at;	/* a bulk flow XDP delivers: look again then
					 * (cfg.rx_poll_ns), not when it rings */
	uint8_t		held;		/* RX_HELD_*: said in this run, sent at its end */
	struct eqds_peer_stats st;
};

/* What a receiving tunnel has to say within one run of the scheme
 * (eqds_run()), said in one frame at its end (eqds_rx_ctl_flush()). */
#define RX_HELD_ACK	0x1	/* a cumulative ACK for what XDP delivered */
#define RX_HELD_PULL	0x2	/* pulls: a PULL, whose ack makes the ACK moot */
#define RX_HELD_ECE	0x4	/* ... echoing a CE mark */
#define RX_HELD_LATE	0x8	/* ... late: what it acks may have waited the ACK
				 * delay (EQ_F_HELD) */

static inline uint64_t tx_backlog_bytes(const struct tx_tunnel *t)
{
	return eqt_tx_backlog(&t->core);
}

static inline uint32_t tx_backlog_pkts(const struct tx_tunnel *t)
{
	return t->core.q[0].pkts + t->core.q[1].pkts + t->core.rtx.pkts;
}

/* The epoch's state as EQDS publishes it: none open, the receiver's
 * answer awaited, answered. */
static inline enum eqds_tx_state tx_state(const struct tx_tunnel *t)
{
	return !t->core.open ? EQDS_TX_CLOSED :
	       t->core.syn ? EQDS_TX_SYN_SENT : EQDS_TX_ESTABLISHED;
}

#define ASL_NONE	UINT32_MAX

struct eqds {
	struct eqds_cfg		cfg;
	struct eqt_io		io;
	struct eqt_pool		*pool;
	struct eq_credit	*bucket;	/* the fast path's leases, or NULL */
	struct eq_rx		*rxmap;		/* direct delivery's words, or NULL */
	bool			rx_open_waits;	/* a word stays shut until the agent's
						 * deliveries are up (io.delivered) */
	uint64_t		rng;
	uint32_t		bdp_max;	/* cfg.bdp_bytes, or bdp_auto's cap */
	uint64_t		now;	/* the latest time an entry point was given:
					 * for eqds_set_bucket(), which takes none */
	/* Per-peer arrays of npeers (cfg.npeers, the attachment's max_peers),
	 * and bitmaps of live_words words. */
	uint32_t		npeers, live_words;
	struct tx_tunnel	**tx;
	struct rx_tunnel	**rx;
	/* Which of those exist, as bitmaps: the loops over peers visit only
	 * these (a scan of all 1024 slots per packet capped the agent). */
	uint64_t		*tx_live, *rx_live;
	/* The seq after the last one each peer's tunnels used: a new epoch
	 * starts past it, whatever happened to the tunnel (flush, idle). */
	uint32_t		*last_seq;
	/* Packets from the host per peer (eqds_local()): TC counts what it
	 * handed us in the bucket, and a new lease waits until they match. */
	uint32_t		*host_taken;
	uint32_t		*weight;
	/* Counters of freed tunnels (idle, flushed): a peer's counters
	 * only ever grow, whatever happens to its tunnels. */
	struct eqds_peer_stats	*retired;
	/* the Active Sender List (receiver side) */
	uint32_t		asl_head, asl_tail;
	uint32_t		asl_len;	/* tunnels in it */
	uint64_t		asl_due;	/* sum of the tunnels' due: the busy time */
	struct eqt_reorder_io	rio;		/* every receiving tunnel's queue calls back here */
	struct eqt_pacer	pull_pacer;
	uint64_t		pull_burst;	/* its bucket, but with a lone sender */
	uint32_t		rx_wake_bytes;	/* eq_rx.wake_bytes: one MTU, or what
						 * the link delivers in half an ack
						 * delay if less */
	uint32_t		pull_batch;	/* pulls one PULL may grant: what the
						 * link drains in PULL_BATCH_NS */
	/* Within eqds_run(): the receivers' ACKs and PULLs are held, one
	 * frame per peer at its end; `held` says which peers have some. */
	bool			hold_ctl;
	uint64_t		*held;
	/* the wire arbiter (sender side) */
	struct eqt_arbiter	arbiter;	/* the wire (core/arbiter.h) */
};

uint64_t eqds_rand(struct eqds *e);

/* A tunnel's BDP: what the start rule lends, what pull targets and RTSs ask
 * for at most, what credit is capped at (with one MTU). */
static inline uint32_t tx_bdp(const struct eqds *e, const struct tx_tunnel *t)
{
	return t && t->bdp ? t->bdp : e->cfg.bdp_bytes;
}

/* The most a receiver lets an RTS ask for: the senders' BDPs follow their
 * RTTs under bdp_auto, up to bdp_max. */
static inline uint32_t rx_bdp_cap(const struct eqds *e)
{
	return e->bdp_max;
}

/* Every entry point notes its `now`: eqds_set_bucket() is given none. */
static inline void clock_seen(struct eqds *e, uint64_t now)
{
	if (now > e->now)
		e->now = now;
}

/* Fast sends of closed leases whose copies have not come; after an RTO
 * they count as lost (a clone can fail). */
static inline uint32_t tx_copies_due(const struct eqds *e, const struct tx_tunnel *t,
				     uint64_t now)
{
	return now < t->copies_since + e->cfg.rto_ns ? t->copies_due : 0;
}

/* The core's peer bitmaps (core/live.h), by EQDS's short names. */
static inline void live_set(uint64_t *m, uint32_t i) { eqt_live_set(m, i); }
static inline void live_clear(uint64_t *m, uint32_t i) { eqt_live_clear(m, i); }

static inline uint32_t live_next(const struct eqds *e, const uint64_t *a, const uint64_t *b,
				 uint32_t from)
{
	return eqt_live_next(a, b, e->npeers, from);
}

static inline uint32_t live_count(const struct eqds *e, const uint64_t *m)
{
	return eqt_live_count(m, e->npeers);
}
/* Adds from's counters (not its state fields) to to's. */
void eqds_counters_add(struct eqds_peer_stats *to, const struct eqds_peer_stats *from);
/* sender.c, fastpath.c */
struct tx_tunnel *eqds_tx_get(struct eqds *e, uint32_t peer, uint64_t now);
void eqds_tx_free(struct eqds *e, uint32_t peer, uint64_t now);
int eqds_tx_local(struct eqds *e, uint32_t peer, struct eqt_pkt *p, uint64_t now);
void eqds_tx_infl_put(struct eqds *e, struct tx_tunnel *t, struct eqt_pkt *p, uint64_t now);
int eqds_tx_sent(struct eqds *e, uint32_t peer, struct eqt_pkt *p, uint32_t seq, uint64_t now);
void eqds_tx_lease_sync(struct eqds *e, uint32_t peer, uint64_t now);
void eqds_tx_lease_close(struct eqds *e, uint32_t peer, struct tx_tunnel *t, uint64_t now);
uint32_t eqds_tx_lease_bytes(const struct eqds *e, uint32_t peer, const struct tx_tunnel *t);
uint32_t eqds_tx_sent_hi(const struct eqds *e, uint32_t peer, const struct tx_tunnel *t);
void eqds_tx_early_note(const struct eqds *e, struct tx_tunnel *t, uint8_t type, uint32_t seq,
		   uint64_t now);
/* A control packet from the receiver of our tunnel to `peer`: true if
 * it was taken as its (within the windows, of the current epoch). */
bool eqds_tx_control(struct eqds *e, uint32_t peer, const struct eqt_hdr *h, uint64_t now);
void eqds_tx_nacked(struct tx_tunnel *t, struct eqt_pkt *p, bool lost, uint64_t now);
uint64_t eqds_tx_timers(struct eqds *e, uint32_t peer, uint64_t now);
void eqds_tx_silent_credit(struct eqds *e, struct tx_tunnel *t, int64_t lent, uint64_t now);
uint64_t eqds_tx_arbiter(struct eqds *e, uint64_t now);
void eqds_tx_rtt_sample(const struct eqds *e, struct tx_tunnel *t, uint64_t r, uint64_t now);
uint32_t eqds_tx_pull_target(const struct eqds *e, const struct tx_tunnel *t, uint64_t now);
void eqds_tx_ask(struct eqds *e, uint32_t peer, struct tx_tunnel *t, uint64_t now);
void eqds_tx_probe_acked(struct eqds *e, uint32_t peer, struct tx_tunnel *t, uint32_t ack, bool cum,
			 bool held, uint64_t now);
/* receiver.c */
void eqds_rx_init(struct eqds *e);
void eqds_rx_free(struct eqds *e, uint32_t peer);
void eqds_rx_counters(const struct rx_tunnel *r, struct eqds_peer_stats *st);
void eqds_rx_set_owed(struct eqds *e, struct rx_tunnel *r, int64_t owed);
void eqds_rx_asl_update(struct eqds *e, uint32_t peer);
void eqds_rx_send_ctl(struct eqds *e, uint32_t peer, uint8_t type, uint8_t flags, uint32_t ack);
void eqds_rx_say(struct eqds *e, uint32_t peer, struct rx_tunnel *r, uint8_t what);
void eqds_rx_ctl_flush(struct eqds *e);
/* direct.c */
void eqds_rx_direct_sync(struct eqds *e, uint32_t peer, struct rx_tunnel *r, uint64_t now);
void eqds_rx_direct_close(struct eqds *e, uint32_t peer, struct rx_tunnel *r, uint64_t now);
void eqds_rx_direct_open(struct eqds *e, uint32_t peer, struct rx_tunnel *r);
void eqds_rx_direct_retry(struct eqds *e);
/* A DATA, TRIMMED or RTS packet from `peer`: true if it was taken as its
 * tunnel's (of the current epoch or starting one, within the window). */
bool eqds_rx_packet(struct eqds *e, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
		    uint64_t now);
uint64_t eqds_rx_timers(struct eqds *e, uint32_t peer, uint64_t now);
uint64_t eqds_rx_pull_pacer(struct eqds *e, uint64_t now);
void eqds_rx_link_used(struct eqds *e, uint32_t frame_len);
uint32_t eqds_rx_busy_ns(const struct eqds *e);

#endif
