/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * edgeqd: the agent.  Two AF_XDP sockets (the wire: the attached
 * interface; the host: eqb<ifindex>, the far end of the internal veth TC
 * redirects tunnel traffic into), the control-loop modules its peers use
 * (schemes: core/scheme.h, listed in schemes.c, one instance each:
 * modules.h), and the
 * pinned maps it reads its config from and publishes its state to.
 */
#ifndef EDGEQ_AGENT_H
#define EDGEQ_AGENT_H

#include <stdbool.h>
#include <stdint.h>
#include "edgeq/maps.h"
#include "edgeq/lease.h"
#include "edgeq/rx.h"
#include "schemes.h"
#include "modules.h"
#include "peertab.h"
#include "xsk.h"


struct ring_buffer;

struct agent {
	char			ifname[16];
	char			pin_dir[512];
	struct eq_config	cfg;
	int			fd_config, fd_peers, fd_xsks, fd_agent, fd_agent_peers, fd_credit;
	int			fd_rx, fd_bell, fd_keys, fd_copies;
	struct eq_credit	*credit;	/* eq_credit, mapped: the fast path's leases */
	const struct eq_peer_keys *keys;	/* eq_keys, mapped: authenticated
						 * headers (auth.h); NULL: none */
	struct eq_rx		*rx;		/* eq_rx, mapped: direct delivery (rx.h) */
	struct ring_buffer	*bell;		/* eq_bell: XDP delivered something */
	struct eq_xsk		wire, host;	/* wire: queue 0, and every send */
	struct eq_xsk		*rxq;		/* the other receive queues' sockets */
	uint32_t		nrxq;		/* ... how many */
	struct eq_xsk		copies;		/* fast sends' copies: read, never slept on */
	struct ring_buffer	*copy_ring;	/* eq_copies: the same, most of them (lease.h) */
	bool			copy_drain;	/* reading what an agent before left there */
	uint8_t			wire_mac[6];	/* the attached interface's */
	struct eqt_pool		pool;
	struct eq_mods		mods;		/* the schemes' instances (modules.h) */
	struct eqt_io		io;		/* what they call back */
	bool			mod_failed[EQ_MODS_MAX]; /* said once: cannot run */
	int			fd_own[EQ_MODS_MAX];	/* each scheme's eq_<name>_peers */
	struct peertab		peers;
	uint32_t		npeers;		/* peer slots: eq_peers' max_entries */
	bool			*active;	/* peers with state to publish */
	struct eq_agent_counters cnt;	/* published in eq_agent */
	uint32_t		frame_size;	/* the sockets' UMEM frames */
	bool			lends;		/* fast path: credit lent to TC */
	uint64_t		next_beat, next_publish, next_reload;
	uint64_t		last_miss_reload; /* peer table reread on a miss */
	uint64_t		cnt_reloads;	/* ... how often (the log at exit) */
	uint32_t		path_rr;
	bool			owns_state;	/* eq_agent is ours to write */
	volatile int		stop;
};

int agent_open(struct agent *a, const char *ifname, const char *pin_dir, char *err, size_t len);
/* Runs until a->stop is set. */
int agent_run(struct agent *a);
void agent_close(struct agent *a);

#endif
