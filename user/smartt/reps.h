/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * REPS, recycled entropy packet spraying (seed 003, Alg. 4;
 * ../shared/notes/smartt-reps.md §2.5; docs/smartt.md, "REPS"): each data
 * packet carries an entropy (the outer UDP source port, which the fabric's
 * ECMP hashes), and the ACK echoes it.  For the first BDP of a tunnel the
 * sender explores, one entropy after the other; then it reuses the
 * entropy of the last clean ACK, whose path just carried a packet without
 * a mark, and takes a fresh one after a marked ACK or a loss.  A path that
 * drops everything returns no ACKs, so its entropies are never reused: it
 * is left as soon as the packets on it are found lost.
 *
 * Departure: an entropy whose packet the receiver found lost (a LOST NACK:
 * later packets came by other paths, not that one) is not handed out
 * fresh again until 256 BDPs more have been sent.  The seed replaces a
 * marked entropy with the next in turn, and under congestion (marks on
 * every path) that exploration kept sending a black-holed link its share
 * of fresh entropies, one lost packet each: 2,400 of 200,000 on the
 * fabric's black hole.
 *
 * Pure C, no clock: what happens is driven by the sends and the feedback.
 */
#ifndef EDGEQ_SMARTT_REPS_H
#define EDGEQ_SMARTT_REPS_H

#include <stdbool.h>
#include <stdint.h>

#define SMARTT_REPS_MAX	4096	/* entropies at most (a bounded set) */

struct smartt_reps {
	uint32_t	n;		/* entropies in use: 0 .. n-1 */
	uint32_t	next;		/* the next fresh one (mod n) */
	uint32_t	cached;		/* the one to reuse */
	uint64_t	explore_bytes;	/* exploration lasts this many bytes (a BDP) */
	uint64_t	sent;		/* bytes sent since the exploration began */
	uint32_t	tried;		/* fresh entropies handed out (up to n) */
	bool		have_cached;
	/* Entropies a packet was lost on: not fresh again (above) until
	 * `hold` more bytes were sent; all of them, if every one is. */
	uint64_t	lost_on[SMARTT_REPS_MAX / 64];
	uint32_t	nlost;
	uint64_t	lost_sent;	/* bytes sent since the first of them */
};

/* n entropies (1 .. SMARTT_REPS_MAX; the paper's 256), exploring over the
 * first `bdp` bytes.  -EINVAL for an n out of range. */
int smartt_reps_init(struct smartt_reps *r, uint32_t n, uint64_t bdp);
/* Start exploring again (a new epoch of the tunnel, or every path failed). */
void smartt_reps_restart(struct smartt_reps *r);
/* The entropy for a data packet of `bytes`. */
uint32_t smartt_reps_on_send(struct smartt_reps *r, uint32_t bytes);
/* An ACK echoing `entropy`: clean, it is reused; marked, a fresh one. */
void smartt_reps_on_ack(struct smartt_reps *r, uint32_t entropy, bool ecn);
/* A packet found lost (trimmed, timed out): a fresh one. */
void smartt_reps_on_loss(struct smartt_reps *r);
/* The packet that went by `entropy` is lost (not trimmed: gone): that
 * entropy is not explored again for a while. */
void smartt_reps_on_path_lost(struct smartt_reps *r, uint32_t entropy);

/* How long an entropy a packet was lost on stays out, in BDPs sent. */
#define SMARTT_REPS_HOLD_BDPS	256

#endif /* EDGEQ_SMARTT_REPS_H */
