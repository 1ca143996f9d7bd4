/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * REPS for the ACKs' way back (docs/smartt.md, "REPS"): an ACK goes back
 * by its DATA's entropy, so a path dead only on the way back loses ACKs,
 * and REPS, which learns from losses the receiver names (LOST NACKs),
 * never hears of them: on the fabric's black hole two of three packets
 * lost were such ACKs.
 *
 * The sender finds them as RACK (RFC 8985) finds lost packets, by time
 * rather than by count: a DATA a cumulative ACK covered arrived, and if
 * its own ACK has not come by the time the ACK of a DATA sent more than a
 * reordering window after it comes, its ACK was lost on the way back.
 * That DATA's entropy is then named as a LOST NACK names one.  An own
 * ACK that comes late clears its DATA: ACKs sprayed over paths of
 * different queues overtake each other.
 *
 * A few suspects are kept (the oldest gives way): what matters is that a
 * dead way back is named soon, not that every lost ACK is.
 *
 * Pure C, no clock: times are the caller's.
 */
#ifndef EDGEQ_SMARTT_ACKPATH_H
#define EDGEQ_SMARTT_ACKPATH_H

#include <stdbool.h>
#include <stdint.h>

#define SMARTT_ACKPATH_SUSPECTS	32

struct smartt_ackpath {
	struct {
		uint32_t	seq;
		uint32_t	entropy;
		uint64_t	sent_ns;
	} s[SMARTT_ACKPATH_SUSPECTS];
	uint32_t	n;
};

/* DATA `seq`, sent at sent_ns by `entropy`, arrived (a cumulative ACK
 * covers it) and its own ACK has not come. */
void smartt_ackpath_covered(struct smartt_ackpath *a, uint32_t seq, uint32_t entropy,
			    uint64_t sent_ns);
/* The own ACK of DATA `seq` came; sent_ns is when that DATA went (0: not
 * known, as when a cumulative ACK took it already: then the suspect's
 * own time stands in).  Suspects sent more than reo_ns before it lost
 * their ACK: their entropies go into lost[] (up to max; the rest are
 * dropped unnamed).  How many were named. */
uint32_t smartt_ackpath_acked(struct smartt_ackpath *a, uint32_t seq, uint64_t sent_ns,
			      uint64_t reo_ns, uint32_t *lost, uint32_t max);
/* A new epoch: the suspects' seqs mean nothing now. */
static inline void smartt_ackpath_reset(struct smartt_ackpath *a)
{
	a->n = 0;
}

#endif /* EDGEQ_SMARTT_ACKPATH_H */
