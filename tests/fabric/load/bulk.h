/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eqload bulk: one TCP connection sending as fast as TCP lets it, either
 * for a duration or a fixed number of bytes (an incast sender's "1 MB").
 * Goodput is measured from TCP_INFO's tcpi_bytes_acked, i.e. bytes the
 * receiver acknowledged, not bytes handed to the socket buffer.
 */
#ifndef EDGEQ_LOAD_BULK_H
#define EDGEQ_LOAD_BULK_H

#include <stdint.h>
#include "load/out.h"
#include "load/sock.h"

struct eql_bulk_cfg {
	struct eql_endpoint dst;
	uint64_t bytes;			/* > 0: send this many, wait for the answer */
	uint64_t duration_ns;		/* bytes == 0: send for this long */
	uint64_t interval_ns;		/* rows */
	const char *cc, *cc_name;
	uint64_t start_at;
	struct eql_out *out;
};

/* Exit status: 0, or 1 on a failure or an interruption (summary written). */
int eql_bulk(const struct eql_bulk_cfg *cfg);

#endif
