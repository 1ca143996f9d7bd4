/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SIRD's credit, both ends (seed 000, Alg. 1 and 2; ../shared/notes/sird.md
 * §2.4-2.11; docs/sird.md).
 *
 * The receiver keeps a global bucket: `b`, the bytes it granted and has
 * not received yet, at most B (1.5 BDP: more than a BDP, so that credit
 * stranded at a congested sender does not idle its link; informed
 * overcommitment).  Each sender's share, `sb_i`, stays within that
 * sender's limit (aimd.h: the smaller of its csn and CE buckets).  At each
 * tick of its credit pacer the receiver grants one grain (an MTU, or what
 * the sender still asks for) to a sender chosen by policy among those
 * whose share leaves room: in turn, or the one with the least left to
 * send (the tunnel sees no messages: its backlog stands in for SRPT's
 * remaining size).  Every DATA that arrives gives its credit back, and so
 * does a packet found lost.
 *
 * B is in BDPs of the credit loop's round trip (sender.c), which on
 * software hosts is mostly the agents' reaction time, not the path: when
 * the hosts are quick, more of B is in the network than the paper's
 * (B - BDP) bound assumes.  So B in force is the smaller of B and a
 * downlink bucket, DCTCP's AIMD (aimd.h) on the CE marks and trims of
 * every DATA that reaches this receiver, within [2 grains, B]: with 32
 * senders each at its floor (a grain), the senders' limits alone let 32
 * packets into an 8-packet queue (docs/sird.md, "The BDP").
 *
 * The sender sets csn on its DATA while the credit it holds unspent
 * exceeds SThr, and sends up to UnschT of a new burst without credit.
 *
 * Pure C, no clock: the caller's pacer says when a tick is due.
 */
#ifndef EDGEQ_SIRD_CREDIT_H
#define EDGEQ_SIRD_CREDIT_H

#include <stdbool.h>
#include <stdint.h>
#include "aimd.h"

#define SIRD_MAX_SENDERS	64

enum sird_policy {
	SIRD_ROUND_ROBIN,	/* fair */
	SIRD_SHORTEST_FIRST,	/* the least left to send: SRPT's stand-in */
};

struct sird_rx {
	struct sird_aimd_params	p;
	uint64_t		B;		/* bytes */
	uint32_t		b_bdps;		/* B in Q16 BDPs */
	struct sird_aimd_params	dp;		/* the downlink bucket's: ceiling B */
	struct sird_limit	down;		/* its NET bucket (csn never set) */
	uint64_t		b;		/* granted, not received */
	uint32_t		grain;		/* bytes a grant is at most (MTU) */
	enum sird_policy	policy;
	uint32_t		n, next;	/* senders; round robin's next */
	struct {
		uint64_t		sb;	/* granted to it, not received */
		uint64_t		rem;	/* it asked for, not granted yet */
		struct sird_limit	lim;
	} s[SIRD_MAX_SENDERS];
};

/* n senders, B = b_bdps (Q16 BDPs, 1.5 by default) of a path of `bdp`
 * bytes and an MTU of `mtu` wire bytes.  -EINVAL for what cannot work. */
int sird_rx_init(struct sird_rx *r, uint32_t n, uint64_t bdp, uint32_t mtu, uint32_t b_bdps,
		 enum sird_policy policy);
/* Sender i asks for `bytes` more. */
void sird_rx_want(struct sird_rx *r, uint32_t i, uint64_t bytes);
/* DATA from sender i: `bytes` of credit come back (scheduled data; the
 * unscheduled took none), and its limits learn csn and CE. */
void sird_rx_on_data(struct sird_rx *r, uint32_t i, uint32_t bytes, bool scheduled, bool csn,
		     bool ce);
/* Granted bytes to sender i that will not arrive (found lost, or the
 * sender gave them up): back to the buckets. */
void sird_rx_reclaim(struct sird_rx *r, uint32_t i, uint64_t bytes);
/* Sender i is gone (its tunnel restarted or was freed): what it was
 * granted comes back, what it asked for is forgotten, and its limits
 * start again at a BDP. */
void sird_rx_forget(struct sird_rx *r, uint32_t i);
/* The path's BDP changed (measured anew): B and the limits' ceilings and
 * floors follow, and each bucket keeps its share of its ceiling (a bucket
 * at a guessed BDP's ceiling is at the measured one's).  -EINVAL as
 * sird_rx_init(). */
int sird_rx_set_bdp(struct sird_rx *r, uint64_t bdp);
/* The bucket in force: B, less what the downlink's marks took. */
uint64_t sird_rx_bucket(const struct sird_rx *r);
/* One tick of the credit pacer: the sender granted to and how much, or
 * -1 when nobody may have credit now. */
int sird_rx_tick(struct sird_rx *r, uint32_t *bytes);

/* The sender: csn while the credit held unspent exceeds SThr; what a new
 * burst of `size` bytes sends unscheduled (all of min(BDP, size) up to
 * UnschT; nothing above, where a request goes first). */
static inline bool sird_tx_csn(uint64_t credit_held, uint64_t sthr)
{
	return credit_held > sthr;
}

static inline uint64_t sird_tx_unscheduled(uint64_t size, uint64_t unsch_t, uint64_t bdp)
{
	if (size > unsch_t)
		return 0;
	return size < bdp ? size : bdp;
}

#endif /* EDGEQ_SIRD_CREDIT_H */
