/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reorder queue, a primitive of the transport core: a receiving
 * tunnel's packets go up in sequence order, each once.  Packets that come
 * ahead of a gap wait here (at most `lim`); a gap older than the timeout,
 * or in the way of a packet the queue cannot hold, is given up, and what
 * is behind it goes up without it.  Duplicates are counted and dropped.
 *
 * It also finds losses: a seq still missing once a later one has waited a
 * loss window was lost on the way, and is reported (io->lost: a scheme
 * NACKs it).  Still missing a re-report interval later (the NACK or the
 * resend was lost too), it is reported again, until it comes or its gap
 * is given up.  Should it come after all (its first send, late),
 * eqt_reorder_late() says so, and the window doubles (once for the seqs one
 * report covered), up to a cap.  Seqs a
 * scheme NACKed itself (trimmed headers) are marked with
 * eqt_reorder_nacked() and never reported as lost.
 *
 * Pure C, injected clock; delivery and reports through callbacks.  Every
 * scheme's receiving tunnel has one (docs/eqds.md, "Receiving").
 */
#ifndef EDGEQ_EQT_REORDER_H
#define EDGEQ_EQT_REORDER_H

#include "eqt.h"

struct eqt_reorder_io {
	void		*ctx;
	struct eqt_pool	*pool;		/* where dropped packets go */
	/* p goes up to the host, in order; the callee takes it over */
	void		(*deliver)(void *ctx, uint32_t peer, struct eqt_pkt *p);
	/* seq is lost: missing while later ones came */
	void		(*lost)(void *ctx, uint32_t peer, uint32_t seq);
	/* optional: the n seqs from `from` on were given up (timed out, or in
	 * the way); what they carried will not come, late copies count as
	 * duplicates */
	void		(*gave_up)(void *ctx, uint32_t peer, uint32_t from, uint32_t n);
};

struct eqt_reorder {
	struct eqt_pkt	**held;		/* lim slots, by seq % lim */
	uint32_t	*nacked;	/* seq + 1 once NACKed (trimmed or lost), by slot */
	uint32_t	*lostmark;	/* seq + 1 once reported lost, by slot */
	uint32_t	lim, n;		/* slots; packets held */
	uint32_t	expected;	/* next seq to go up */
	uint64_t	gap_since;	/* when the gap at `expected` opened */
	uint64_t	timeout_ns;	/* a gap older than this is given up */
	/* Losses: missing seqs before mark_seq were missing at mark_at (0:
	 * no mark); those before lost_hi are reported already. */
	uint64_t	loss_ns;	/* the window now (0: off) */
	uint64_t	loss_max_ns;	/* ... and at most */
	uint32_t	held_hi;	/* one past the highest seq held */
	uint32_t	mark_seq, lost_hi;
	uint32_t	grown_hi;	/* the window last doubled for a seq
					 * reported before this (lost_hi then) */
	uint64_t	mark_at;
	uint64_t	renack_at;	/* seqs reported lost and still missing are
					 * reported again then (0: none), */
	uint32_t	renack_hi;	/* ... those below this */
	/* counters: duplicates, arrivals out of order, gaps given up, seqs
	 * reported lost, of which the first send came late, reports again */
	uint64_t	dup, ooo, gaps, lost, late, relost;
};

/* A queue of `lim` packets, rounded up to a power of two, expecting seq
 * 0: 0 or -ENOMEM. */
int eqt_reorder_init(struct eqt_reorder *q, uint32_t lim, uint64_t timeout_ns, uint64_t loss_ns);
/* Frees what is held (to pool) and the queue. */
void eqt_reorder_fini(struct eqt_reorder *q, struct eqt_pool *pool);

/* p (p->seq set) arrived: it goes up now with whatever it completes,
 * waits, or is dropped as a duplicate. */
void eqt_reorder_in(struct eqt_reorder *q, struct eqt_pkt *p, const struct eqt_reorder_io *io,
		    uint32_t peer, uint64_t now);
/* Reports losses and gives up timed-out gaps: the next deadline. */
uint64_t eqt_reorder_timers(struct eqt_reorder *q, const struct eqt_reorder_io *io, uint32_t peer,
			    uint64_t now);
/* Everything held goes up, gaps and all, and the queue then expects
 * `expected` (a new epoch; NACK marks are forgotten). */
void eqt_reorder_restart(struct eqt_reorder *q, const struct eqt_reorder_io *io, uint32_t peer,
			 uint32_t expected, uint64_t now);

/* The scheme NACKed seq (a trimmed header): not to be reported lost. */
static inline void eqt_reorder_nacked(struct eqt_reorder *q, uint32_t seq)
{
	q->nacked[seq % q->lim] = seq + 1;
}

/* Was seq reported lost (or NACKed) and is this its first send, which
 * came late (rtx: the packet is a resend)?  Then the window was short: it
 * doubles, once for the seqs one window reported (a burst that fell
 * behind comes late as many packets), and the caller treats the packet
 * as already accounted for.  Asked once per seq. */
bool eqt_reorder_late(struct eqt_reorder *q, uint32_t seq, bool rtx);

/* Has seq arrived (gone up, or held)? */
static inline bool eqt_reorder_seen(const struct eqt_reorder *q, uint32_t seq)
{
	const struct eqt_pkt *p = q->held[seq % q->lim];

	return (int32_t)(seq - q->expected) < 0 || (p && p->seq == seq);
}

#endif /* EDGEQ_EQT_REORDER_H */
