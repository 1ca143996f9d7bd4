/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's copy of the peer table: underlay address -> peer slot, read
 * from the pinned eq_peers map at start and again every second (peers are
 * added and removed by `edgeq peer` while the agent runs), and, per slot,
 * the Ethernet addresses to reach the peer, learnt from the frames TC
 * encapsulated towards it or received from it.
 */
#ifndef EDGEQ_AGENT_PEERTAB_H
#define EDGEQ_AGENT_PEERTAB_H

#include <stdbool.h>
#include <stdint.h>
#include "edgeq/maps.h"
#include "frame.h"

#define PEERTAB_BUCKETS	(2 * EQ_MAX_PEERS)	/* a power of two */

struct peertab {
	struct eq_addr	addr[EQ_MAX_PEERS];
	bool		used[EQ_MAX_PEERS];
	bool		routed[EQ_MAX_PEERS];		/* route[] learnt */
	struct eqf_route route[EQ_MAX_PEERS];
	int32_t		bucket[PEERTAB_BUCKETS];	/* slot + 1, 0 empty */
};

/* Rebuilds the table from eq_peers (fd); learnt routes of peers whose
 * address did not change are kept.  0 or -errno. */
int peertab_load(struct peertab *t, int peers_fd);
/* The slot of an underlay address, or -1. */
int peertab_find(const struct peertab *t, const struct eq_addr *a);
/* Pure part of peertab_load, for tests: one slot's content. */
void peertab_set(struct peertab *t, uint32_t slot, bool used, const struct eq_addr *a);
void peertab_rehash(struct peertab *t);

#endif
