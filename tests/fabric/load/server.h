/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eqload serve: the TCP server of the flows, bulk and rpc modes.  One
 * thread, epoll, any number of connections; each carries messages of
 * msg.h: the server drops the request payload and answers with resp_len
 * bytes.  A connection that breaks the protocol is closed and counted,
 * never trusted further.  Runs until SIGINT/SIGTERM, then prints its
 * totals on stderr.
 */
#ifndef EDGEQ_LOAD_SERVER_H
#define EDGEQ_LOAD_SERVER_H

#include <stdint.h>

struct eql_serve_cfg {
	const char *bind;	/* NULL: every IPv4 and IPv6 address */
	uint16_t port;
	const char *cc;		/* NULL: the default */
};

/* Exit status: 0 after a stop request, 1 if it could not start. */
int eql_serve(const struct eql_serve_cfg *cfg);

#endif
