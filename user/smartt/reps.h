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
 * Departure: an entropy a packet was lost on (a LOST NACK: later packets
 * came by other paths, not that one; or its ACK never came back by it,
 * ackpath.h) is not handed out fresh again for a while.  The seed
 * replaces a marked entropy with the next in turn, and under congestion
 * (marks on every path) that exploration kept sending a black-holed link
 * its share of fresh entropies, one lost packet each: 2,400 of 200,000 on
 * the fabric's black hole.  They come back one at a time, one every 64
 * BDPs sent (a path that healed is found again; one still dead costs one
 * packet more): forgotten all at once after 256 BDPs, as first built,
 * every one was tried again each 0.6 s on that fabric, and each cost a
 * packet again.
 *
 * Departure (optional, `smartt.paths_kept`): a working set.  The
 * entropies whose ACKs came back (marked or clean: their round trip
 * works), up to `keep` of them, are what a mark or a loss moves to, in
 * turn (those whose last ACK was clean first), rather than a fresh one: a
 * fresh entropy is tried only while the set is short (at the start, and
 * when a loss named one of it, or a timeout took the one in use).  The
 * seed's exploration after every mark is what still cost the black hole
 * a packet per entropy leading into it, 7 in 16 of the 256 on the fabric,
 * about 900 lost for eight flows; a set of 32 entropies in all (smaller
 * than the fabric's paths would need elsewhere) lost 481.  The working
 * set bounds what is tried to `keep` and the replacements of what the
 * hole took, whatever the set of entropies is.  It is refreshed slowly
 * (below): without that, a link that healed was never used again, the
 * set full of the others.  Off by default: on the fabric it cut what a
 * black hole took four to five times, but left the worst flow at a
 * half-rate link further from its share (docs/smartt.md, "REPS").
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
	/* The entropy of the last clean ACK: its round trip worked (the
	 * cache may hold a fresh one no ACK came back by yet). */
	uint32_t	clean;
	bool		have_clean;
	/* Entropies a packet was lost on: not fresh again (above) until
	 * let back, one per SMARTT_REPS_READMIT_BDPS sent, in turn from
	 * `readmit`; all of them, if every one is. */
	uint64_t	lost_on[SMARTT_REPS_MAX / 64];
	uint32_t	nlost;
	uint32_t	readmit;	/* where the next one let back is sought */
	uint64_t	lost_sent;	/* bytes sent since the last let back */
	/* The working set (above; keep 0: none, the seed's fresh entropy
	 * after each mark or loss). */
	uint32_t	keep;
	uint64_t	known[SMARTT_REPS_MAX / 64];
	uint64_t	marked[SMARTT_REPS_MAX / 64];	/* its last ACK was marked */
	uint32_t	nknown;
	uint32_t	turn;		/* the last one of it handed out */
	/* ... refreshed one at a time, one per SMARTT_REPS_READMIT_BDPS
	 * sent: the next in turn leaves it (and is not taken back by its
	 * ACKs), so that the next mark tries a fresh one, and a path that
	 * healed or was never tried is found again. */
	uint64_t	refresh_sent;
	uint32_t	retired;
	bool		have_retired;
};

/* n entropies (1 .. SMARTT_REPS_MAX; the paper's 256), exploring over the
 * first `bdp` bytes.  -EINVAL for an n out of range. */
int smartt_reps_init(struct smartt_reps *r, uint32_t n, uint64_t bdp);
/* A working set of `keep` entropies (0: none, the seed's rule). */
void smartt_reps_keep(struct smartt_reps *r, uint32_t keep);
/* Start exploring again (a new epoch of the tunnel, or every path failed). */
void smartt_reps_restart(struct smartt_reps *r);
/* The entropy for a data packet of `bytes`. */
uint32_t smartt_reps_on_send(struct smartt_reps *r, uint32_t bytes);
/* An ACK echoing `entropy`: clean, it is reused; marked, a fresh one (or
 * the working set's next). */
void smartt_reps_on_ack(struct smartt_reps *r, uint32_t entropy, bool ecn);
/* A packet found lost (trimmed, timed out): a fresh one. */
void smartt_reps_on_loss(struct smartt_reps *r);
/* ... by a timeout: nothing came back at all.  The entropy in use leaves
 * the working set (it may be dead: a set whose members' last ACKs, from
 * before a link died, were clean kept the RTO's resends on the dead
 * ones, the live ones skipped as marked, and two flows of eight stalled
 * for the whole failure); then as a loss. */
void smartt_reps_on_timeout(struct smartt_reps *r);
/* The packet that went by `entropy` is lost (not trimmed: gone), or its
 * ACK that came back by it: that entropy is not explored again for a
 * while.  Whether it was not out already. */
bool smartt_reps_on_path_lost(struct smartt_reps *r, uint32_t entropy);

/* Whether `entropy`'s round trip is known to work: a clean ACK came back
 * by it last, and nothing was lost on it since.  What the sender's TC
 * sends itself goes by it, and its DATA say so (EQ_F_PROVEN), so that the
 * receiver's TC sends by it too. */
static inline bool smartt_reps_proven(const struct smartt_reps *r, uint32_t entropy)
{
	return r->have_clean && r->clean == entropy;
}

/* How often an entropy a packet was lost on is let back, in BDPs sent. */
#define SMARTT_REPS_READMIT_BDPS	64

#endif /* EDGEQ_SMARTT_REPS_H */
