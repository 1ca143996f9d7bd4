/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a peer's edge queue shows TC (edgeq/lease.h, struct eq_credit):
 * the packets the agent has taken from the host for that peer, and those
 * it still holds.  TC counts what it handed; handed - taken + queued is
 * what waits for the agent, and beyond `edge_queue` TC refuses packets to
 * the stack (backpressure: TCP keeps them) instead of the agent dropping
 * them.  Every scheme that takes packets from the host keeps it shown,
 * or TC would count everything it ever handed as waiting and refuse
 * every packet after the first `edge_queue`.
 */
#ifndef EDGEQ_CORE_EDGE_H
#define EDGEQ_CORE_EDGE_H

#include <stdint.h>
#include "edgeq/lease.h"

static inline void eqt_edge_show(struct eq_credit *b, uint32_t taken, uint32_t queued)
{
	__atomic_store_n(&b->taken, taken, __ATOMIC_RELAXED);
	__atomic_store_n(&b->queued, queued, __ATOMIC_RELAXED);
}

/* An edge queue holding `queued` packets drops the next: TC refuses
 * packets at `limit` (edge_queue), and lets only those no ACK would bring
 * back soon go further (EQ_EDGE_UNCLOCKED); a GSO packet goes in whole
 * while there is room for its first segment (EQ_EDGE_GSO_SEGS). */
static inline bool eqt_edge_full(uint32_t queued, uint32_t limit)
{
	return queued >= EQ_EDGE_UNCLOCKED * limit + EQ_EDGE_GSO_SEGS;
}

/* Packets TC hands the agent can be lost on their way (its socket full):
 * handed - taken would then count them as waiting for ever, and TC's
 * backpressure would refuse ever more of the peer's packets (and, with
 * `hold_tcp`, hold every TCP packet with data in flight).  A mark: what
 * TC had handed at `at_ns`.  What was handed before the mark and not
 * read `wait_ns` later is lost, and counted as taken. */
struct eqt_edge_mark {
	uint32_t	handed;
	uint64_t	at_ns;
};

static inline void eqt_edge_settle(const struct eq_credit *b, uint32_t *taken,
				   struct eqt_edge_mark *m, uint64_t now, uint64_t wait_ns)
{
	if (m->at_ns && now < m->at_ns + wait_ns)
		return;
	if (m->at_ns && (int32_t)(m->handed - *taken) > 0)
		*taken = m->handed;
	m->handed = __atomic_load_n(&b->handed, __ATOMIC_ACQUIRE);
	m->at_ns = now;
}

/* A tunnel freed after its idle time: nothing handed can still be on its
 * way to the agent. */
static inline void eqt_edge_adopt(const struct eq_credit *b, uint32_t *taken)
{
	*taken = __atomic_load_n(&b->handed, __ATOMIC_ACQUIRE);
}

/* The path TC gives what it sends to the peer itself (bare TCP ACKs, fast
 * sends), a scheme's choice (REPS); `set` false: TC's own entropy. */
static inline void eqt_edge_path(struct eq_credit *b, bool set, uint16_t path)
{
	__atomic_store_n(&b->path, set ? EQ_PATH_SET | path : 0, __ATOMIC_RELAXED);
}

#endif
