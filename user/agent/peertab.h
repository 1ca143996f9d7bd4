/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's copy of the peer table: underlay address -> peer slot, read
 * from the pinned eq_peers map at start and again every second (peers are
 * added and removed by `edgeq peer` while the agent runs), and, per slot,
 * the Ethernet addresses to reach the peer, learnt from the frames TC
 * encapsulated towards it or received from it.  Sized at start for the
 * attachment's peer slots (max_peers).
 */
#ifndef EDGEQ_AGENT_PEERTAB_H
#define EDGEQ_AGENT_PEERTAB_H

#include <stdbool.h>
#include <stdint.h>
#include "edgeq/maps.h"
#include "frame.h"

struct peertab {
	uint32_t	n;		/* slots */
	uint32_t	nbuckets;	/* a power of two, at least 2n */
	struct eq_addr	*addr;
	bool		*used;
	bool		*routed;	/* route[] learnt */
	uint8_t		*scheme;	/* enum eq_scheme: whose tunnel it is */
	struct eqf_route *route;
	int32_t		*bucket;	/* slot + 1, 0 empty */
	struct eq_peer	*scratch;	/* peertab_load()'s read of eq_peers */
};

/* 0, or -ENOMEM (then peertab_free() is still safe). */
int peertab_init(struct peertab *t, uint32_t slots);
void peertab_free(struct peertab *t);
/* Rebuilds the table from eq_peers (fd); learnt routes of peers whose
 * address did not change are kept.  A used slot that says no scheme and
 * is not plain (eq_peers written by an older edgeq) is `dflt`'s.  gone()
 * (may be NULL) hears of each slot whose peer went away or changed
 * (address or scheme): the tunnel state kept for it is another peer's.
 * 0 or -errno. */
int peertab_load(struct peertab *t, int peers_fd, uint8_t dflt,
		 void (*gone)(void *ctx, uint32_t slot), void *ctx);
/* The slot of an underlay address, or -1. */
int peertab_find(const struct peertab *t, const struct eq_addr *a);
/* Pure part of peertab_load, for tests: one slot's content.  True if the
 * slot was used and now is not, or holds another peer or scheme. */
bool peertab_set(struct peertab *t, uint32_t slot, bool used, const struct eq_addr *a,
		 uint8_t scheme);
void peertab_rehash(struct peertab *t);

#endif
