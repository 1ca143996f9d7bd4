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

/* The path TC gives what it sends to the peer itself (bare TCP ACKs, fast
 * sends), a scheme's choice (REPS); `set` false: TC's own entropy. */
static inline void eqt_edge_path(struct eq_credit *b, bool set, uint16_t path)
{
	__atomic_store_n(&b->path, set ? EQ_PATH_SET | path : 0, __ATOMIC_RELAXED);
}

#endif
