/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A sending tunnel's mechanics, the core's (issue 13, docs/architecture.md):
 * its epoch and sequence numbers, its edge queue by class and the queue of
 * resends that go before it, what is in flight, the retransmission timer,
 * and what an ACK, a NACK, a timeout or an RST does to them.  What may be
 * sent when (credit, a window) and what feedback does to that is the
 * scheme's: every call here says what it took out or moved, in bytes, for
 * the scheme to count.  A window scheme (SMaRTT) is built on this as it
 * is; EQDS calls it between the steps of its own (its lease and TC's fast
 * sends, the silent receiver, credit from pulls).  Pure C, injected clock.
 */
#ifndef EDGEQ_CORE_TX_H
#define EDGEQ_CORE_TX_H

#include "eqt.h"
#include "epoch.h"
#include "hdr.h"
#include "infl.h"
#include "rtt.h"

/* Acks a control packet may carry below the cumulative ack (a late ACK
 * overtaken by a later one): anything older cannot be the peer's. */
#define EQT_TX_ACK_SLACK	4096
#define EQT_TX_RTO_MAX_NS	1000000000ULL

struct eqt_tx_stats {
	uint64_t	data, rtx;		/* packets sent first, again */
	uint64_t	nacks, rto_fired;	/* packets NACKed, timed out */
	uint64_t	rsts, bad_ack, bad_rst;	/* RSTs taken; refused as not ours */
	uint64_t	given_up;		/* the in-flight ring's cap reached */
};

struct eqt_tx {
	bool		open;		/* an epoch runs: else the next packet starts one */
	bool		syn;		/* ... and its receiver has not answered yet */
	bool		used;		/* a seq was numbered: the next epoch starts
					 * past next_seq, not at it */
	uint32_t	floor;		/* closed by an RST: where its receiver
					 * expects the next epoch (0: none) */
	/* The epoch an RST ended, [prev_isn, prev_end): the RSTs its other
	 * packets drew come late, and are no forgery. */
	uint32_t	prev_isn, prev_end;
	uint32_t	isn, next_seq;	/* the epoch's first seq; the next to number */
	uint32_t	cum_ack;	/* every seq before it arrived */
	struct eqt_q	q[EQT_NCLS];	/* the edge queue, by class; TCP's serves
					 * sparse flows first (eqt.h) */
	uint16_t	tcp_flows[EQT_FLOWS];	/* ... its packets per flow bucket */
	struct eqt_q	rtx;		/* resends: before new data */
	struct eqt_infl	infl;		/* sent, not yet acknowledged */
	struct eqt_rtt	rtt;
	uint64_t	min_rtt_ns;	/* the lowest sample (0: none yet) */
	struct eqt_rtt_floor base_rtt;	/* the lowest smoothed RTT of late
					 * (rtt.h; eqt_tx_base_rtt()) */
	uint64_t	rto_at;		/* 0: not armed */
	bool		probing;	/* an RTO's probe is out: probe_seq, */
	uint32_t	probe_seq;
	uint64_t	probe_at;	/* ... queued when the RTO fired */
	bool		probe_unsent;	/* ... at the resend queue's head, not
					 * sent yet (eqt_tx_probe_waits()) */
	struct eqt_tx_stats st;
};

/* What an ACK did: bytes it took out of flight, and the RTT sample it
 * gave (0: none, Karn's rule or a repeat). */
struct eqt_tx_acked {
	uint64_t	bytes;
	uint32_t	pkts;
	uint64_t	rtt_ns;
	uint32_t	lost;	/* packets the ACK of an RTO's probe found lost
				 * (eqt_tx_probe()): now in the resend queue */
	uint64_t	lost_bytes;	/* ... and their bytes */
};

/* A ring for `slots` packets in flight to begin with (it grows): 0 or
 * -ENOMEM.  No epoch yet: the first packet sent starts one at `seq0`'s
 * (eqt_epoch_first() of a random number for a new tunnel). */
int eqt_tx_init(struct eqt_tx *t, uint32_t slots, uint32_t seq0);
/* Frees every packet it holds, and the ring. */
void eqt_tx_fini(struct eqt_tx *t, struct eqt_pool *pool);

static inline uint64_t eqt_tx_backlog(const struct eqt_tx *t)
{
	return t->q[0].bytes + t->q[1].bytes + t->rtx.bytes;
}

/* A seq this epoch numbered.  Not "not before its ISN": an epoch that
 * starts from the receiver's floor after an RST lies before the seqs of
 * the one the receiver refused. */
static inline bool eqt_tx_in_epoch(const struct eqt_tx *t, uint32_t seq)
{
	return t->open && seq - t->isn < t->next_seq - t->isn;
}

/* The queue whose head goes next in class `cls` (resends first, in any
 * class), or NULL. */
struct eqt_q *eqt_tx_head(struct eqt_tx *t, uint32_t cls);
/* May q's head go in this epoch?  No new SYN packet beyond the epoch's
 * first EQT_EPOCH_SYN_NEW seqs: it waits for the receiver's answer. */
bool eqt_tx_syn_room(const struct eqt_tx *t, const struct eqt_q *q);
/* Opens an epoch now (else the next packet taken does): at seq0 for the
 * tunnel's first, else past every seq used or, given one, past `floor`,
 * where the receiver expects the next (epoch.h). */
void eqt_tx_open(struct eqt_tx *t, uint32_t floor);
/* Takes q's head for the wire: numbers it (a resend of this epoch keeps
 * its seq), fills h (DATA, SYN until answered, RTX), holds it in flight
 * and arms the RTO (or brings it forward).  The caller sends it (it stays held).  A packet the
 * ring gave up to hold it goes back to pool, counted. */
struct eqt_pkt *eqt_tx_take(struct eqt_tx *t, struct eqt_q *q, struct eqt_hdr *h,
			    struct eqt_pool *pool, uint64_t rto_floor_ns, uint64_t now);

/* Whether a control packet can be the receiver's, RFC 5961-style
 * (eqt_tx_admit()): an RST echoing `ack`, or a packet acknowledging `ack`
 * and everything before `cum` (the same seq, when it says one only).
 * Counted by reason when it is not; EQT_TX_OLD_EPOCH with no epoch. */
enum eqt_tx_admit eqt_tx_check(struct eqt_tx *t, bool rst, uint32_t ack, uint32_t cum);
/* An ACK of `seq` (selective), with everything before `cum` (cumulative):
 * takes out what it acknowledges, ends the SYN phase, and samples the RTT
 * from seq's packet if it went once (Karn).  Not from what the cumulative
 * ack takes: the packet that drew the ACK is seq's, and another's send
 * time would add the wait for seq (a resend's recovery) to the sample. */
void eqt_tx_ack(struct eqt_tx *t, uint32_t seq, uint32_t cum, struct eqt_pool *pool,
		uint64_t rto_floor_ns, uint64_t now, struct eqt_tx_acked *out);
/* An RTT sample the scheme took itself (an echoed timestamp, a fast
 * send's): the estimator, min_rtt_ns and the base RTT, as an ACK's sample
 * moves them. */
void eqt_tx_rtt_sample(struct eqt_tx *t, uint64_t r, uint64_t rto_floor_ns, uint64_t now);

/* Whether q's head is an RTO's probe not sent yet: it goes whatever a
 * window says.  What is still counted in flight may all be lost (a
 * drop-tail queue overflowed, nothing trimmed), and only the probe's ACK
 * tells: held back by a window those packets fill, the probe waited for
 * every further RTO, backed off, to move them one by one (7 ms at a
 * 52 us RTT, a gap the receiver gave up at 4 ms). */
static inline bool eqt_tx_probe_waits(const struct eqt_tx *t, const struct eqt_q *q)
{
	return t->probe_unsent && q == &t->rtx;
}

/* How long the base RTT remembers a low: one to two of these. */
#define EQT_BASE_RTT_WINDOW_NS	100000000ULL

/* The tunnel's base RTT as the schemes' rules take it (their BDP, their
 * target delay): the lowest smoothed RTT of the last 100 to 200 ms
 * (struct eqt_rtt_floor); 0 before the first sample. */
static inline uint64_t eqt_tx_base_rtt(const struct eqt_tx *t)
{
	return eqt_rtt_floor(&t->base_rtt);
}
/* A cumulative ack alone, `cum`, that times nothing: its receiver held
 * it (EQDS's ACK delay), or it names no packet. */
void eqt_tx_cum(struct eqt_tx *t, uint32_t cum, struct eqt_pool *pool, uint64_t now,
		struct eqt_tx_acked *out);
/* A NACK of seq: its packet goes to the resend queue.  Its length, or 0
 * when it was not in flight (acknowledged meanwhile, or a duplicate). */
uint32_t eqt_tx_nack(struct eqt_tx *t, uint32_t seq);
/* Whether the RTO expired: the oldest packet in flight went an RTO ago.
 * If not, it is re-armed for when that packet will have (ACKs came). */
bool eqt_tx_due(struct eqt_tx *t, uint64_t rto_floor_ns, uint64_t now);
/* The RTO as a tail probe (after RFC 8985's TLP and RACK): when it
 * expired, only the newest packet in flight goes to the resend queue; the
 * rest stay in flight, the timeout backs off and is armed from now.  The
 * ACK of the probe decides (eqt_tx_ack(), eqt_tx_cum()): what is still in
 * flight then and was sent before the RTO fired did not arrive, and goes
 * to the resend queue (eqt_tx_acked.lost); what went since (new data, a
 * NACKed packet's resend) stays in flight.  When the ACKs were only late, they
 * come before the probe's, and one packet went twice rather than all of
 * them, whose late ACKs still time the round trip (Karn's rule takes no
 * sample from a resent packet).  The bytes moved (0: not yet, or nothing
 * in flight). */
uint64_t eqt_tx_probe(struct eqt_tx *t, uint64_t rto_floor_ns, uint64_t now);
/* An RST the check admitted: the receiver has no state for this epoch.
 * What was in flight or waiting to go again goes first in a new epoch
 * past the receiver's floor, in the order of its old seqs; false if
 * nothing is left (the tunnel closes: the next packet starts an epoch). */
bool eqt_tx_reset(struct eqt_tx *t, uint32_t floor);
/* When run() must look at the tunnel again (the RTO), or EQT_NO_DEADLINE. */
static inline uint64_t eqt_tx_deadline(const struct eqt_tx *t)
{
	return t->infl.n && t->rto_at ? t->rto_at : EQT_NO_DEADLINE;
}

#endif
