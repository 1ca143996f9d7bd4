/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eqload udp-send: datagrams at a constant rate (counted in frame bits,
 * datagram.h) or one back-to-back burst, numbered so that the receiver can
 * tell loss, order and one-way delay.
 */
#ifndef EDGEQ_LOAD_UDP_SEND_H
#define EDGEQ_LOAD_UDP_SEND_H

#include <stdbool.h>
#include <stdint.h>
#include "load/out.h"
#include "load/sock.h"

struct eql_udp_send_cfg {
	struct eql_endpoint dst;
	uint16_t sport;			/* UDP source port; 0: an ephemeral one */
	uint32_t size;			/* UDP payload bytes */
	uint64_t rate_bps;		/* frame bits per second; 0: burst */
	uint64_t burst;			/* datagrams, back to back */
	uint64_t count;			/* rate mode: datagrams; 0: duration_ns... */
	uint64_t duration_ns;		/* ...or, both 0, until SIGINT/SIGTERM */
	int tos;			/* TOS / traffic class byte; -1: the default */
	bool edgeq;			/* edgeq DATA layout */
	uint64_t start_at;
	struct eql_out *out;
};

/* Exit status: 0, or 1 on a failure or an interruption of a bounded run. */
int eql_udp_send(const struct eql_udp_send_cfg *cfg);

#endif
