/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eqload flows: flow completion times.  Each flow is a new TCP connection
 * that sends one message of the flow's size and waits for a 1-byte answer;
 * its FCT runs from just before connect() to the answer's arrival.
 *
 * Arrivals are open loop (Poisson, at a rate that offers --load of
 * --link-rate) or closed loop (--concurrency workers, each starting its
 * next flow when the last one ends).  All flows of a run share one thread
 * and one epoll set.
 */
#ifndef EDGEQ_LOAD_FLOWS_H
#define EDGEQ_LOAD_FLOWS_H

#include <stdint.h>
#include "load/dist.h"
#include "load/out.h"
#include "load/sock.h"

#define EQL_FLOWS_DRAIN_NS	(30 * 1000000000ULL)	/* after --duration */

struct eql_flows_cfg {
	struct eql_endpoint dst;
	const struct eql_dist *dist;
	const char *dist_name;		/* for the metadata: file or "fixed" */
	uint64_t count;			/* flows; 0: run for duration_ns */
	uint64_t duration_ns;
	double load;			/* > 0: open loop, a fraction of link_bps */
	uint64_t link_bps;
	unsigned int concurrency;	/* open loop: cap; closed loop: workers */
	uint64_t seed;
	const char *cc;			/* NULL: the default */
	const char *cc_name;		/* what the sockets get */
	uint64_t start_at;
	struct eql_out *out;
};

/* Exit status: 0, or 1 if a flow failed or the run was interrupted (the
 * summary is written anyway). */
int eql_flows(const struct eql_flows_cfg *cfg);

#endif
