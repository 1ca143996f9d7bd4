/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The in-flight ring, a primitive of the transport core: the packets a
 * tunnel has sent and not yet seen acknowledged, found by sequence number.
 * Every scheme keeps one per sending tunnel (for ACK, NACK, RTO and
 * resends); what a scheme does with a packet it takes out is its own.
 *
 * A ring of pointers indexed by seq modulo its size, a power of two.  Two
 * packets whose seqs the ring cannot tell apart (small packets, many in
 * flight; a resend far behind the rest) make it grow, up to
 * EQT_INFL_MAX_SLOTS; only there is the older packet given up, and handed
 * back to the caller to free and count.  Pure C, no clock.
 */
#ifndef EDGEQ_EQT_INFL_H
#define EDGEQ_EQT_INFL_H

#include "eqt.h"

#define EQT_INFL_MIN_SLOTS	64
#define EQT_INFL_MAX_SLOTS	(1u << 20)	/* 8 MiB of pointers */

struct eqt_infl {
	struct eqt_pkt	**slot;		/* by seq & (nslots - 1) */
	uint32_t	nslots;
	uint32_t	lo;		/* no packet before this seq is held ... */
	uint32_t	hi;		/* ... nor at or after this one */
	uint32_t	n;		/* packets held */
	uint64_t	bytes;		/* their len */
};

/* A ring of at least `want` slots (rounded up to a power of two, within
 * the bounds above), empty at seq `at`: 0, or -ENOMEM. */
int eqt_infl_init(struct eqt_infl *f, uint32_t want, uint32_t at);
/* Frees the ring (not the packets: eqt_infl_drop_all() first). */
void eqt_infl_fini(struct eqt_infl *f);

/* The packet of `seq` held, or NULL. */
static inline struct eqt_pkt *eqt_infl_get(const struct eqt_infl *f, uint32_t seq)
{
	struct eqt_pkt *p = f->slot[seq & (f->nslots - 1)];

	return p && p->seq == seq ? p : NULL;
}

/* Holds p (p->seq set, not held yet).  NULL, or a packet the ring gave up
 * to make room, at its largest size: the caller frees it and counts it. */
struct eqt_pkt *eqt_infl_put(struct eqt_infl *f, struct eqt_pkt *p);
/* Takes out and returns the packet of `seq`, or NULL if none is held. */
struct eqt_pkt *eqt_infl_take(struct eqt_infl *f, uint32_t seq);
/* Takes out every packet, in seq order, each handed to cb (which takes
 * it over); the ring is then empty at seq `at`. */
void eqt_infl_drop_all(struct eqt_infl *f, uint32_t at,
		       void (*cb)(void *ctx, struct eqt_pkt *p), void *ctx);

/* A cumulative ACK: takes out every packet before `ack`, in seq order,
 * each older one handed to cb (which takes it over), and returns the
 * newest of them (the caller's: its send time against the ACK is the
 * RTT sample, eqt_infl_timed()), or NULL when none was held. */
struct eqt_pkt *eqt_infl_take_before(struct eqt_infl *f, uint32_t ack,
				     void (*cb)(void *ctx, struct eqt_pkt *p), void *ctx);

/* Whether the ACK of `seq` at `now` times p's round trip (Karn): it is
 * that packet, sent once, by the agent (a fast send's t_ns is when its
 * copy was read, later), before now. */
static inline bool eqt_infl_timed(const struct eqt_pkt *p, uint32_t seq, uint64_t now)
{
	return p->seq == seq && p->tx_count == 1 && !(p->flags & EQT_PF_FAST) && now > p->t_ns;
}

/* Visits the packets held in seq order: for (p = eqt_infl_first(f, &s);
 * p; p = eqt_infl_next(f, &s)); the visitor may take out the packet it is
 * given, not others. */
struct eqt_pkt *eqt_infl_first(const struct eqt_infl *f, uint32_t *cursor);
struct eqt_pkt *eqt_infl_next(const struct eqt_infl *f, uint32_t *cursor);

#endif /* EDGEQ_EQT_INFL_H */
