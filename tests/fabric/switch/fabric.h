/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The whole fabric in one process: every switch, every directed port, the
 * routing between them (shortest path, ECMP by hash or per-packet
 * spraying over the live spines) and the commands that fail, degrade or
 * impair links while traffic runs.  Pure C driven by the caller's clock:
 * frames come in with fabric_from_host(), go out through the deliver
 * callback, and tests/unit/test_fabric_fabric.c runs it with a mocked
 * clock and no sockets.
 *
 * Host links are veths (see xsk_port.c), modelled in here as a port each
 * way: host->switch serialises at the link rate again (see topo.c), then
 * propagates.  Links between switches exist only
 * in here, as two ports, because a veth hop would cost a copy-mode AF_XDP
 * receive and send per packet per hop on a machine with two cores.
 */
#ifndef EDGEQ_FABRIC_FABRIC_H
#define EDGEQ_FABRIC_FABRIC_H

#include <stdio.h>
#include "switch/topo.h"

struct fabric_sw_stats {
	uint64_t rx_pkts;
	uint64_t drop_not_ip, drop_malformed, drop_no_route, drop_ttl;
};

struct fabric {
	struct topo *t;
	struct port ports[TOPO_MAX_PORTS];
	struct pool pool;
	struct fabric_sw_stats sws[TOPO_MAX_SW];
	uint64_t drop_no_buf;		/* pool exhausted */
	uint32_t seed[TOPO_MAX_SW];
	uint64_t rng;
	/* A port is in ECMP groups while route_up; it follows the link state
	 * reroute_ns after a change (failure detection, reconvergence). */
	uint8_t route_up[TOPO_MAX_PORTS];
	uint64_t route_at[TOPO_MAX_PORTS];	/* UINT64_MAX: nothing pending */
	int spine_down[TOPO_MAX_SW][TOPO_MAX_SW];	/* [spine][leaf] -> port */
	int leaf_up[TOPO_MAX_SW][TOPO_MAX_SW];	/* [leaf][spine] -> port */
	uint64_t last_sample_bytes[TOPO_MAX_PORTS];
	int queues_busy;		/* some queue was non-empty at the last sample */

	/* The frame of k reached host h at time t; k is freed on return. */
	void (*deliver)(void *ctx, int host, struct pkt *k, uint64_t t);
	/* A queue sample of port i (switch egress ports, when non-zero or
	 * just back to zero). */
	void (*sample)(void *ctx, int port, uint64_t t, const struct port *p);
	void *ctx;
};

int fabric_init(struct fabric *f, struct topo *t, uint64_t now);
void fabric_fini(struct fabric *f);
/* A frame sent by host h entered the fabric at time now. */
void fabric_from_host(struct fabric *f, int h, const uint8_t *frame, uint32_t len, uint64_t now);
/* The same in two steps, so that frames read from several hosts can be
 * put in arrival order before they enter: copy into the pool (NULL and
 * counted when it is full), then enter at time t. */
struct pkt *fabric_take(struct fabric *f, const uint8_t *frame, uint32_t len);
void fabric_inject(struct fabric *f, int h, struct pkt *k, uint64_t t);
/* Runs every port and every hop up to now. */
void fabric_run(struct fabric *f, uint64_t now);
uint64_t fabric_next_event(const struct fabric *f);
void fabric_sample(struct fabric *f, uint64_t now);
void fabric_reset(struct fabric *f, uint64_t now);
/* A text command (see docs/fabric.md); the reply goes to out. 0 or -1. */
int fabric_cmd(struct fabric *f, const char *cmd, char *out, size_t outlen, uint64_t now);
/* ports.tsv: one line per port with counters and occupancy figures. */
void fabric_write_ports(struct fabric *f, FILE *out, uint64_t now);
/* switches.tsv: per-switch drops that belong to no port. */
void fabric_write_switches(struct fabric *f, FILE *out);

#endif
