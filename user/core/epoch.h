/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Epochs and zero-RTT setup, the core's (docs/architecture.md, "One
 * transport core"; docs/eqds.md, "Epochs").  A tunnel's sequence numbers
 * run in epochs: the sender starts one with no handshake, numbering from
 * an ISN whose low EQT_EPOCH_SHIFT bits are zero and marking its packets
 * SYN until the receiver answers (zero-RTT setup, EQDS App. A); it starts
 * a new one after it lost its state or the receiver told it to (an RST).
 * Where a new epoch starts is not random: EQT_EPOCH_GAP epochs past the
 * last seq used (or the receiver's next in order, after an RST), so that
 * a receiver that kept its state knows where to expect it and takes a SYN
 * only there.
 *
 * Which DATA a receiver admits, and what it answers, is the same for
 * every scheme; what an admitted packet does to credit or a window is the
 * scheme's.  Pure C, no state of its own.
 */
#ifndef EDGEQ_CORE_EPOCH_H
#define EDGEQ_CORE_EPOCH_H

#include "eqt.h"

#define EQT_EPOCH_SHIFT		10	/* the first seq of an epoch has 10 low zero bits */
/* An epoch's SYN packets lie in [isn, isn + EQT_EPOCH_SYN_SEQS): the
 * receiver takes a SYN packet in that window as the current epoch's, and
 * a new epoch starts more than that past every seq of the last one. */
#define EQT_EPOCH_SYN_SEQS	(1u << 20)
/* ... but a sender numbers no new SYN packet past isn + EQT_EPOCH_SYN_NEW
 * (it waits for the receiver's answer): a receiver with no state takes
 * the epoch's start from the first SYN packet that reaches it, by clearing
 * the low EQT_EPOCH_SHIFT bits of its seq, which gives the ISN only for
 * the epoch's first 1024 seqs.  A first burst of more small packets,
 * reordered or with its first ones lost, otherwise started the receiver
 * 1024 seqs late: the cumulative ack then passed what never arrived, and
 * the earlier SYN packets drew RSTs (fuzz_smartt found it). */
#define EQT_EPOCH_SYN_NEW	(1u << EQT_EPOCH_SHIFT)
/* Where a new epoch starts: EQT_EPOCH_GAP epochs (4 Mi seqs, past the old
 * epoch's SYN window) on from the epoch of the last seq used.  A forger
 * off the path must hit the window the receiver expects it in, 35 Ki of
 * the 4 Gi seqs at 10 Gbit/s, where 4-8 Mi of random start let one packet
 * in 300 move a tunnel to its epoch. */
#define EQT_EPOCH_GAP		4096u

/* The first seq of the epoch EQT_EPOCH_GAP epochs past base's. */
static inline uint32_t eqt_epoch_after(uint32_t base)
{
	return ((base >> EQT_EPOCH_SHIFT) + EQT_EPOCH_GAP) << EQT_EPOCH_SHIFT;
}

/* The first seq of seq's epoch (its low bits cleared). */
static inline uint32_t eqt_epoch_of(uint32_t seq)
{
	return seq & ~((1u << EQT_EPOCH_SHIFT) - 1);
}

/* A sender's first ISN, when it has numbered nothing and knows of
 * nothing: random bits shifted into place. */
static inline uint32_t eqt_epoch_first(uint32_t rnd)
{
	return rnd << EQT_EPOCH_SHIFT;
}

/* A sender's next ISN: past the receiver's floor when an RST gave one
 * (where it expects our next epoch), else past our own last seq. */
uint32_t eqt_epoch_next(uint32_t last_seq, uint32_t floor);

/* What a receiver does with a DATA, TRIMMED or RTS packet of `seq`. */
enum eqt_admit {
	EQT_ADMIT,		/* the current epoch's, within the window */
	EQT_ADMIT_NEW_EPOCH,	/* a SYN where the peer's next epoch starts (or
				 * the first epoch): start it at eqt_epoch_of(seq) */
	EQT_ADMIT_NO_STATE,	/* not SYN, and we have no epoch (we restarted):
				 * RST, floor 0; the packet may go up as it is */
	EQT_REFUSE_OLD_EPOCH,	/* a SYN of an epoch before ours: RST with our
				 * next in order as the floor; dropped */
	EQT_REFUSE_BAD_EPOCH,	/* a SYN ahead, but not where the peer's next
				 * epoch starts: the same RST; dropped, counted */
	EQT_REFUSE_WINDOW,	/* neither ahead of our next in order nor behind
				 * it by less than the window: dropped, counted,
				 * unanswered */
};

/* est/isn: the receiver has an epoch starting at isn; expected: its next
 * seq in order; window: how far from it a packet of the epoch may lie
 * (what the reorder queue holds and what a sender can have in flight, the
 * scheme's to say). */
enum eqt_admit eqt_rx_admit(bool est, uint32_t isn, uint32_t expected, uint32_t window,
			    uint32_t seq, bool syn);

/* What a sender does with a control packet, RFC 5961-style: every number
 * in it within what this epoch sent.  An RST echoes the seq of the packet
 * that drew it, which must be one of this epoch's (one drawn by an older
 * epoch's is late); the ack of any other is at most the next seq, and no
 * older than the cumulative ack by more than `slack` (a late ACK, a PULL
 * overtaken by a later one).  An attacker off the path has to guess the
 * epoch to get past the first. */
enum eqt_tx_admit {
	EQT_TX_ADMIT,
	EQT_TX_OLD_EPOCH,	/* acks an older epoch's seq (within
				 * EQT_TX_OLD_SPAN): changes nothing */
	EQT_TX_BAD_RST,		/* counted, dropped */
	EQT_TX_BAD_ACK,		/* counted, dropped */
};

/* How far behind this epoch's ISN an older epoch's ack may lie: epochs
 * follow one another in the seq space, so what older ones sent lies just
 * behind, and 2^24 seqs are 20 s of sending at 10 Gbit/s in 1500-byte
 * packets.  An ack further back is no epoch's of ours: refused and counted
 * (EQT_TX_BAD_ACK), not ignored, so that a flood of random ones shows in
 * the counters whole, not half. */
#define EQT_TX_OLD_SPAN		(1u << 24)

/* isn: the epoch's first seq; hi: the next seq to send (all below went);
 * cum_ack: everything before it was acknowledged.  rst: the packet is an
 * RST and `ack` the seq it echoes. */
enum eqt_tx_admit eqt_tx_admit(uint32_t isn, uint32_t hi, uint32_t cum_ack, uint32_t slack,
			       bool rst, uint32_t ack);

#endif /* EDGEQ_CORE_EPOCH_H */
