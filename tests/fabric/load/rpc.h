/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eqload rpc: small request/response latency on one persistent TCP
 * connection (TCP_NODELAY), one RPC outstanding at a time: back to back,
 * or issued at Poisson times (--rate) so that the RPCs sample the network
 * at random moments rather than in step with other traffic.
 */
#ifndef EDGEQ_LOAD_RPC_H
#define EDGEQ_LOAD_RPC_H

#include <stdint.h>
#include "load/out.h"
#include "load/sock.h"

struct eql_rpc_cfg {
	struct eql_endpoint dst;
	uint64_t req;			/* request payload bytes */
	uint32_t resp;			/* response bytes */
	uint64_t count;			/* RPCs; 0: run for duration_ns */
	uint64_t duration_ns;
	double rate;			/* RPCs per second, Poisson; 0: back to back */
	uint64_t seed;
	const char *cc, *cc_name;
	uint64_t start_at;
	struct eql_out *out;
};

/* Exit status: 0, or 1 on a failure or an interruption (summary written). */
int eql_rpc(const struct eql_rpc_cfg *cfg);

#endif
