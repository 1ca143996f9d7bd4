/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wire arbiter: which queued packet goes to the wire next, and when.
 * Deficit round robin between the traffic classes (enum eqt_cls), round
 * robin among peers within a class, paced at the link rate (the frame
 * and its Ethernet framing).  The scheme decides which peer's head may go
 * (credit, a window, a SYN window): the arbiter asks it through `pick`
 * and hands the chosen queue to `send`.  Pure C, no clock of its own.
 */
#ifndef EDGEQ_ARBITER_H
#define EDGEQ_ARBITER_H

#include <stdbool.h>
#include <stdint.h>
#include "eqt.h"
#include "pacer.h"

struct eqt_arbiter {
	struct eqt_pacer pacer;		/* the link */
	uint32_t	quantum;	/* bytes per class per DRR round */
	uint32_t	framing;	/* bytes the link adds to each frame */
	uint32_t	npeers;		/* peer numbers are 0 .. npeers - 1 */
	int64_t		deficit[EQT_NCLS];
	uint32_t	turn;		/* the class whose turn it is */
	bool		turn_fed;	/* it had its quantum this turn */
	uint32_t	rr[EQT_NCLS];	/* round robin cursor per class */
};

struct eqt_arbiter_io {
	void	*ctx;
	/* The first peer of class c from `from` on (round robin, wrapping)
	 * whose head packet may go now, and that packet's queue (*q); npeers
	 * if none.  *queued: whether any peer has a packet of class c. */
	uint32_t (*pick)(void *ctx, uint32_t c, uint32_t from, struct eqt_q **q, bool *queued);
	/* Send q's head packet (the one pick chose) for peer. */
	void	(*send)(void *ctx, uint32_t peer, struct eqt_q *q, uint64_t now);
};

void eqt_arbiter_init(struct eqt_arbiter *a, uint64_t rate_bps, uint64_t burst, uint32_t quantum,
		      uint32_t framing, uint32_t npeers, uint64_t now);
/* Send what the classes' turns, the scheme and the pacer let go now; the
 * time to call again (EQT_NO_DEADLINE: when something new can go). */
uint64_t eqt_arbiter_run(struct eqt_arbiter *a, const struct eqt_arbiter_io *io, uint64_t now);

#endif
