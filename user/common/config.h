/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The edgeq config file (docs/config.md): one directive per line,
 * '#' starts a comment.
 *
 *   local 10.77.0.1            underlay address (once per family)
 *   port 7446                  UDP port of the tunnel
 *   mtu 1500                   wire MTU; default: the interface's MTU
 *   link_rate 10gbit           access link rate (bit, kbit, mbit, gbit)
 *   entropy flow|packet        UDP source port per flow or per packet
 *   node_id 1                  sender id; default: from the first local address
 *   peer PREFIX via ADDR       carry traffic to PREFIX to underlay ADDR
 *
 * and, for the agent (docs/agent.md, docs/eqds.md):
 *
 *   scheme none|eqds           who carries the tunnel's data
 *   on_agent_down tunnel|pass|drop
 *   agent_dead_ms 200          heartbeat age at which the agent is down
 *   bdp BYTES  edge_queue 100  edge_ecn 30  reorder_queue 128
 *   reorder_timeout_us 2000  rto_us 10000  drr_quantum 3000 ...
 *   eqds.mode trim|rts  eqds.asl fifo|weighted   (SCHEME.KEY VALUE)
 *
 * Every directive but local, node_id, peer and scheme is a row of the
 * settings tables (settings.h).
 */
#ifndef EDGEQ_CONFIG_H
#define EDGEQ_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include "edgeq/maps.h"
#include "edgeq/auth.h"

struct eq_cfg_peer {
	struct eq_prefix_key	prefix;
	struct eq_addr		via;
	int			scheme;	/* enum eq_scheme, or -1: the config's `scheme` */
	int			line;	/* where it was said (messages) */
	bool			plain;	/* resolved: scheme none in an attachment
					 * whose agent runs (EQ_PEER_PLAIN) */
	bool			keyed;	/* keys: its underlay peer's, for
					 * authenticated headers (auth.h) */
	struct eq_peer_keys	keys;
};

struct eq_cfg {
	struct eq_config	bpf;		/* local4/6, flags, port, node_id, mtu, entropy, rate */
	bool			node_id_set;
	size_t			npeers;
	struct eq_cfg_peer	*peers;
};

/* Parse config text; name is used in messages ("name:line: ...").
 * 0 on success; -EINVAL with a message in err otherwise.  On success the
 * caller owns cfg->peers (eq_cfg_free). */
int eq_cfg_parse(const char *text, const char *name, struct eq_cfg *cfg, char *err, size_t errlen);
int eq_cfg_load(const char *path, struct eq_cfg *cfg, char *err, size_t errlen);
void eq_cfg_free(struct eq_cfg *cfg);

/* enum eq_scheme for a config word ("none", "eqds"), or -1. */
int eq_scheme_parse(const char *w);
/* Rate "10gbit", "500mbit", "1000000" (bit/s) -> bit/s; 0 or -EINVAL. */
int eq_parse_rate(const char *s, __u64 *bps);
/* Largest inner packet for a wire MTU and an outer family: the route MTU
 * of a peer prefix (wire MTU - EQ_ROOM_V4 or EQ_ROOM_V6, wire.h). */
unsigned int eq_inner_mtu(unsigned int wire_mtu, bool outer_v6);
/* The same for a peer of `scheme` (enum eq_scheme), less the room its
 * options take in every DATA header (eq_scheme_info.data_opts), and the
 * AUTH option's when it is keyed (auth.h). */
unsigned int eq_peer_inner_mtu(unsigned int wire_mtu, bool outer_v6, int scheme, bool keyed);

#endif
