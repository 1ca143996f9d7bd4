/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A snapshot of the attachments a command shows (metrics, top): each
 * attachment's config, counters, agent and, per underlay peer (a peer
 * slot), the BPF counters and the agent's published state, read once
 * into memory.  Per underlay peer, not per prefix: the counters are the
 * slot's, and a row per prefix would count a peer with two prefixes
 * twice; the prefixes are listed beside, each with its peer.
 */
#ifndef EDGEQ_SNAPSHOT_H
#define EDGEQ_SNAPSHOT_H

#include <net/if.h>
#include <stdbool.h>
#include "addr.h"
#include "edgeq/maps.h"
#include "scheme_state.h"

struct eq_snap_peer {
	__u32			slot;
	char			via[EQ_ADDRSTRLEN];
	bool			plain;		/* scheme none beside an agent */
	bool			has_agent;	/* a's fields were read */
	__u32			scheme;		/* enum eq_scheme (eq_peer_scheme()) */
	void			*own;		/* its scheme's own state (the
						 * fields: the attachment's own[]),
						 * or NULL */
	struct eq_peer		p;
	struct eq_peer_stats	st;
	struct eq_agent_peer	a;
};

struct eq_snap_prefix {
	char		prefix[EQ_PREFIXSTRLEN];
	char		via[EQ_ADDRSTRLEN];
	const char	*route;
};

struct eq_snap_att {
	char			ifname[IF_NAMESIZE + 1];
	struct eq_config	c;
	struct eq_stats		s;
	struct eq_agent		ag;
	__u64			age_ns;
	bool			eqds, alive, here, tc, xdp;
	struct eq_snap_peer	*peers;
	__u32			npeers;
	struct eq_snap_prefix	*prefixes;
	__u32			nprefixes, cap_prefixes;
	/* By scheme id: the fields of its own per-peer state (NULL: none). */
	struct eq_btf_value	*own[EQ_SCHEME_IDS];
};

struct eq_snap {
	struct eq_snap_att	*a;
	int			n, cap;
	__u64			taken_ns;	/* CLOCK_MONOTONIC */
};

/* Read ifname's attachment (NULL: every one).  0; 1 when one could not be
 * read (said on stderr); -1 when ifname is not attached (nothing said). */
int eq_snap_read(const char *ifname, struct eq_snap *s);
void eq_snap_free(struct eq_snap *s);

#endif
