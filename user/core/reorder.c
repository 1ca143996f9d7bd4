// SPDX-License-Identifier: GPL-2.0-only
/* The reorder queue (reorder.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "reorder.h"


int eqt_reorder_init(struct eqt_reorder *q, uint32_t lim, uint64_t timeout_ns, uint64_t loss_ns)
{
	uint32_t n = 1;

	/* A power of two: slots go by seq % lim, and only then do the lim
	 * seqs after any one (across the wrap of the seq space too) take
	 * lim different slots.  1666 packets (2 ms at 10 Gbit/s) put the
	 * seqs on each side of the wrap into the same slots. */
	while (n < lim && n < (1u << 31))
		n *= 2;
	*q = (struct eqt_reorder){ .lim = lim ? n : 0, .timeout_ns = timeout_ns,
				   .loss_ns = loss_ns, .loss_max_ns = timeout_ns / 2 };
	lim = q->lim;
	q->held = calloc(lim, sizeof(*q->held));
	q->nacked = calloc(lim, sizeof(*q->nacked));
	q->lostmark = calloc(lim, sizeof(*q->lostmark));
	if (!lim || !q->held || !q->nacked || !q->lostmark) {
		free(q->held);
		free(q->nacked);
		free(q->lostmark);
		q->held = NULL;
		q->nacked = NULL;
		q->lostmark = NULL;
		return -ENOMEM;
	}
	return 0;
}

void eqt_reorder_fini(struct eqt_reorder *q, struct eqt_pool *pool)
{
	for (uint32_t i = 0; q->held && i < q->lim; i++)
		if (q->held[i])
			eqt_pkt_put(pool, q->held[i]);
	free(q->held);
	free(q->nacked);
	free(q->lostmark);
	q->held = NULL;
	q->nacked = NULL;
	q->lostmark = NULL;
	q->n = 0;
}

/* What is held from `expected` on goes up, in order. */
static void drain(struct eqt_reorder *q, const struct eqt_reorder_io *io, uint32_t peer,
		  uint64_t now)
{
	struct eqt_pkt **slot;

	while (q->n && *(slot = &q->held[q->expected % q->lim]) &&
	       (*slot)->seq == q->expected) {
		struct eqt_pkt *p = *slot;

		*slot = NULL;
		q->n--;
		q->expected++;
		io->deliver(io->ctx, peer, p);
	}
	q->gap_since = q->n ? now : 0;
	if (!q->n) {
		q->mark_at = 0;		/* no gap: nothing to declare lost */
		q->renack_at = 0;	/* ... nor missing still */
	}
}

/* Gives up the gap at `expected`: on to the lowest seq held.  Gaps go one
 * at a time: the next one's timeout starts now (packets carry no arrival
 * time to do better). */
static void skip_gap(struct eqt_reorder *q, const struct eqt_reorder_io *io, uint32_t peer,
		     uint64_t now)
{
	uint32_t best = 0;
	bool found = false;

	for (uint32_t i = 0; i < q->lim; i++) {
		struct eqt_pkt *p = q->held[i];

		if (p && (!found || eqt_seq_before(p->seq, best))) {
			best = p->seq;
			found = true;
		}
	}
	if (!found)
		return;
	if (io->gave_up)
		io->gave_up(io->ctx, peer, q->expected, best - q->expected);
	q->expected = best;
	q->gaps++;
	drain(q, io, peer, now);
}

void eqt_reorder_restart(struct eqt_reorder *q, const struct eqt_reorder_io *io, uint32_t peer,
			 uint32_t expected, uint64_t now)
{
	while (q->n)
		skip_gap(q, io, peer, now);
	memset(q->nacked, 0, q->lim * sizeof(*q->nacked));	/* an old epoch's seqs */
	memset(q->lostmark, 0, q->lim * sizeof(*q->lostmark));
	q->renack_at = 0;
	q->expected = expected;
	/* Loss detection starts here too: what was reported lost lies in the
	 * old numbering.  Left at the old epoch's (0 after init), lost_hi lay
	 * "after" any new epoch in the upper half of the seq space from it,
	 * and losses() reported nothing until the gap timed out: no NACK
	 * for half of all epochs (fuzz_smartt's sim found it). */
	q->lost_hi = q->renack_hi = q->mark_seq = q->held_hi = q->grown_hi = expected;
	q->mark_at = 0;
}

static void up_now(struct eqt_reorder *q, struct eqt_pkt *p, const struct eqt_reorder_io *io,
		   uint32_t peer, uint64_t now)
{
	q->expected++;
	io->deliver(io->ctx, peer, p);
	drain(q, io, peer, now);
}

void eqt_reorder_in(struct eqt_reorder *q, struct eqt_pkt *p, const struct eqt_reorder_io *io,
		    uint32_t peer, uint64_t now)
{
	uint32_t seq = p->seq;
	struct eqt_pkt **slot;

	if (eqt_seq_before(seq, q->expected)) {
		q->dup++;
		eqt_pkt_put(io->pool, p);
		return;
	}
	if (seq == q->expected) {
		up_now(q, p, io, peer, now);
		return;
	}
	/* Out of order.  Beyond what the queue may hold: give up the oldest
	 * gaps until it fits (best effort, as EQDS is). */
	while (seq - q->expected >= q->lim) {
		if (!q->n) {
			if (io->gave_up)
				io->gave_up(io->ctx, peer, q->expected,
					    seq - q->lim + 1 - q->expected);
			q->expected = seq - q->lim + 1;
			q->gaps++;
			break;
		}
		skip_gap(q, io, peer, now);
		if (seq == q->expected) {
			up_now(q, p, io, peer, now);
			return;
		}
	}
	slot = &q->held[seq % q->lim];
	if (*slot && (*slot)->seq == seq) {
		q->dup++;
		eqt_pkt_put(io->pool, p);
		return;
	}
	if (*slot) {	/* a stale entry: cannot happen while seq - expected < lim */
		eqt_pkt_put(io->pool, *slot);
		q->n--;
	}
	*slot = p;
	q->ooo++;
	if (!q->n++) {
		q->gap_since = now;
		q->held_hi = seq + 1;
	} else if (eqt_seq_after(seq + 1, q->held_hi)) {
		q->held_hi = seq + 1;
	}
	/* The seqs missing below it are missing from now on. */
	if (!q->mark_at) {
		q->mark_seq = q->held_hi;
		q->mark_at = now;
	}
}

static bool nacked(const struct eqt_reorder *q, uint32_t seq)
{
	return q->nacked[seq % q->lim] == seq + 1;
}

/* How long a seq reported lost may stay missing before it is reported
 * again: a quarter of the reorder timeout, so that a lost NACK or a lost
 * resend is asked for again three times before the gap is given up, and
 * never sooner than two loss windows (which grow where resends are only
 * slow). */
static uint64_t renack_ns(const struct eqt_reorder *q)
{
	uint64_t quarter = q->timeout_ns / 4;

	return 2 * q->loss_ns > quarter ? 2 * q->loss_ns : quarter;
}

/* Reports again the seqs reported lost that are still missing: the
 * first report, or the resend it asked for, was lost on the way (a
 * veth's full ring drops both directions' packets alike).  Reported
 * once only, a seq whose NACK was lost held every packet behind it for
 * the whole reorder timeout, and the inner TCP's timers fired meanwhile.
 * Only those reported before this round was set (below renack_hi): one
 * reported just before it is asked for again a round later, not at once
 * (one to two intervals after its report, as losses() has windows). */
static void relosses(struct eqt_reorder *q, const struct eqt_reorder_io *io, uint32_t peer,
		     uint64_t now)
{
	bool missing = false;

	if (!q->renack_at || now < q->renack_at)
		return;
	for (uint32_t s = q->expected; eqt_seq_before(s, q->lost_hi) && s - q->expected < q->lim; s++) {
		struct eqt_pkt *p = q->held[s % q->lim];

		if ((p && p->seq == s) || q->lostmark[s % q->lim] != s + 1)
			continue;	/* here, or not ours to report */
		missing = true;
		if (!eqt_seq_before(s, q->renack_hi))
			continue;	/* reported since the round was set */
		q->relost++;
		io->lost(io->ctx, peer, s);
	}
	q->renack_hi = q->lost_hi;
	q->renack_at = missing ? now + renack_ns(q) : 0;
}

/* Seqs still missing once a later one has been here for the loss window
 * were lost on the way (no trimming switch told us): each is reported,
 * once here (relosses() asks again).  Those missing when the window ends
 * are the ones missing below the highest held when it began; gaps that opened since get a window
 * from now, so a loss is reported one to two windows after a later packet
 * came.  A lost tail (nothing came after) is the sender's RTO's. */
static uint64_t losses(struct eqt_reorder *q, const struct eqt_reorder_io *io, uint32_t peer,
		       uint64_t now)
{
	uint32_t s;

	if (!q->loss_ns || !q->n || !q->mark_at)
		return EQT_NO_DEADLINE;
	if (now < q->mark_at + q->loss_ns)
		return q->mark_at + q->loss_ns;
	for (s = eqt_seq_after(q->lost_hi, q->expected) ? q->lost_hi : q->expected;
	     eqt_seq_before(s, q->mark_seq); s++) {
		struct eqt_pkt *p = q->held[s % q->lim];

		if ((p && p->seq == s) || nacked(q, s))
			continue;	/* here, or NACKed already */
		eqt_reorder_nacked(q, s);
		q->lostmark[s % q->lim] = s + 1;
		q->lost++;
		io->lost(io->ctx, peer, s);
		if (!q->renack_at) {
			q->renack_at = now + renack_ns(q);
			q->renack_hi = q->mark_seq;	/* what this round covers */
		}
	}
	q->lost_hi = q->mark_seq;
	q->mark_at = 0;
	if (eqt_seq_after(q->held_hi, q->lost_hi)) {
		q->mark_seq = q->held_hi;
		q->mark_at = now;
		return now + q->loss_ns;
	}
	return EQT_NO_DEADLINE;
}

uint64_t eqt_reorder_timers(struct eqt_reorder *q, const struct eqt_reorder_io *io, uint32_t peer,
			    uint64_t now)
{
	uint64_t lost;

	if (!q->n)
		return EQT_NO_DEADLINE;
	lost = losses(q, io, peer, now);
	relosses(q, io, peer, now);
	if (now >= q->gap_since + q->timeout_ns)
		skip_gap(q, io, peer, now);
	if (!q->n)
		return EQT_NO_DEADLINE;
	if (q->renack_at && q->renack_at < lost)
		lost = q->renack_at;
	return q->gap_since + q->timeout_ns < lost ? q->gap_since + q->timeout_ns : lost;
}

bool eqt_reorder_late(struct eqt_reorder *q, uint32_t seq, bool rtx)
{
	uint32_t i = seq % q->lim;
	bool grown;

	if (rtx || !nacked(q, seq))
		return false;
	/* Reported lost before the window last doubled: one burst that fell
	 * behind later packets (a sender's qdisc queue its agent's sends go
	 * around, docs/eqds.md) comes late as many packets, and doubling for
	 * each took the window from 0.5 ms to its cap at once, where every
	 * later loss waited 6 ms for its NACK and some repairs outlived the
	 * reorder timeout.  Reports go in seq order, so "before" is a seq
	 * below what had been reported then. */
	grown = q->lostmark[i] == seq + 1 && eqt_seq_before(seq, q->grown_hi);
	q->nacked[i] = 0;	/* once */
	q->lostmark[i] = 0;
	q->late++;
	if (!grown) {
		q->loss_ns = q->loss_ns < q->loss_max_ns / 2 ? q->loss_ns * 2 : q->loss_max_ns;
		q->grown_hi = q->lost_hi;
	}
	return true;
}
