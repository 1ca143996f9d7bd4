/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eqload udp-recv: receives udp-send's datagrams and says what arrived:
 * counts, rate, order, loss, ECN marks, trimmed edgeq headers, one-way
 * delay, and, with rows, every datagram.
 */
#ifndef EDGEQ_LOAD_UDP_RECV_H
#define EDGEQ_LOAD_UDP_RECV_H

#include <stdbool.h>
#include <stdint.h>
#include "load/out.h"

struct eql_udp_recv_cfg {
	const char *bind;		/* NULL: every IPv4 and IPv6 address */
	uint16_t port;
	uint64_t count;			/* stop after this many; 0: no limit */
	uint64_t duration_ns;		/* stop after this long; 0: no limit */
	uint64_t idle_ns;		/* stop this long after the last datagram */
	bool rows, edgeq;
	struct eql_out *out;
};

/* Exit status: 0 (also after SIGINT/SIGTERM), 1 if it could not start. */
int eql_udp_recv(const struct eql_udp_recv_cfg *cfg);

#endif
