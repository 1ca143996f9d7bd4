/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scheme interface: what a control loop (EQDS today; SIRD, SMaRTT,
 * Bolt, BFC next) is to the agent.  The agent owns the sockets, the pinned
 * maps and the loop; a scheme owns its tunnels' state and decides what
 * goes to the wire and when.  The agent drives a scheme with the
 * nanoTransport events (seed 001, ch. 3), each taking `now` (ns,
 * CLOCK_MONOTONIC in the agent, a mocked clock in tests):
 *   a packet from the local stack   from_host
 *   a packet TC already sent        fast_sent (its copy, on the fast path)
 *   a packet from the wire          from_wire
 *   time passing                    run, which returns its next deadline
 *   a tunnel flushed by command     flush
 * and the scheme calls back through struct eqt_io to put a packet on the
 * wire or hand one to the local stack.  A scheme reads its own settings
 * from the pinned config and publishes its per-peer state in the form the
 * pinned eq_agent_peers map has.  Schemes are listed in one registry
 * (user/agent/schemes.c); one never calls into another.
 */
#ifndef EDGEQ_SCHEME_H
#define EDGEQ_SCHEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "edgeq/maps.h"
#include "edgeq/lease.h"
#include "edgeq/rx.h"
#include "eqt.h"
#include "hdr.h"

/* What a scheme asks of the agent.  send_data() gets a packet the scheme
 * keeps (for retransmission) and the header fields to stamp; the agent
 * copies the frame to the wire.  deliver() hands a received DATA packet to
 * the local stack; the scheme frees it after the call.  send_ctl() builds
 * and sends a control packet (PULL, ACK, NACK, RTS, RST) to the peer.
 * delivered() says whether everything deliver() was given has reached the
 * host's IP layer (NULL: at once): XDP's own deliveries, which go up
 * straight from the wire, would overtake the agent's still on their way. */
struct eqt_io {
	void	*ctx;
	void	(*send_data)(void *ctx, uint32_t peer, struct eqt_pkt *p,
			     const struct eqt_hdr *h);
	void	(*send_ctl)(void *ctx, uint32_t peer, const struct eqt_hdr *h);
	void	(*deliver)(void *ctx, uint32_t peer, struct eqt_pkt *p);
	bool	(*delivered)(void *ctx);
};

/* What the agent starts a scheme with. */
struct eqt_env {
	const struct eq_config	*cfg;	/* the pinned config: the scheme's settings */
	const struct eqt_io	*io;
	struct eqt_pool		*pool;	/* every packet comes from here */
	uint64_t		now;
	uint64_t		rand;	/* seeds epochs */
	bool			lend;	/* the fast path can run (copy socket open) */
};

/* One field of a scheme's own per-peer state (what is not the tunnel's,
 * struct eq_agent_peer), as the agent publishes it in the pinned map
 * eq_<name>_peers.  The agent builds that map's BTF from the scheme's
 * table, and `edgeq status`, `edgeq metrics` and bpftool print it from
 * the BTF: a scheme's state needs no code outside its module. */
struct eqt_stat {
	const char	*name;
	uint32_t	off;		/* in the scheme's struct */
	uint8_t		size;		/* 4 or 8 bytes */
	bool		is_signed;
};
#define EQT_STAT(type, field, sgn) \
	{ #field, offsetof(type, field), sizeof(((type *)0)->field), sgn }

struct eqt_scheme_ops {
	const char	*name;		/* as in the config (`scheme NAME`) */
	uint32_t	id;		/* enum eq_scheme */
	/* Its own per-peer state (none: nstats 0): a struct of stats_size
	 * bytes, its fields in stats[] in order. */
	const struct eqt_stat *stats;
	uint32_t	nstats, stats_size;
	/* NULL, with a message in err, on bad settings or no memory. */
	void	*(*create)(const struct eqt_env *env, char *err, size_t len);
	void	(*destroy)(void *s);	/* takes every lease back */
	/* One line for the agent's log: the scheme and its main settings. */
	void	(*describe)(const void *s, char *buf, size_t len);
	/* 0 if queued; -ENOBUFS if the edge queue dropped it (p freed). */
	int	(*from_host)(void *s, uint32_t peer, struct eqt_pkt *p, uint64_t now);
	/* The copy of a packet TC sent on leased credit, its seq stamped. */
	int	(*fast_sent)(void *s, uint32_t peer, struct eqt_pkt *p, uint32_t seq, uint64_t now);
	/* p: a DATA frame (the scheme owns it), or NULL for control.  True
	 * if the scheme took it as its peer's (nothing a spoofer could have
	 * guessed: within its windows); the agent learns the peer's route
	 * only from those. */
	bool	(*from_wire)(void *s, uint32_t peer, const struct eqt_hdr *h, struct eqt_pkt *p,
			     uint64_t now);
	uint64_t (*run)(void *s, uint64_t now);		/* the next deadline */
	void	(*flush)(void *s, uint32_t peer, uint64_t now);	/* EQ_NO_PEER (any slot past
								 * the last): all */
	/* The maps the scheme shares with TC and XDP (either may be NULL):
	 * leases and backpressure (edgeq/lease.h), direct delivery (rx.h). */
	void	(*set_maps)(void *s, struct eq_credit *credit, struct eq_rx *rx);
	/* After what run() sent and delivered is on its way: lend TC what it
	 * may send, and let XDP deliver again where it waited for that. */
	void	(*lease_sync)(void *s, uint64_t now);
	/* Before the agent sleeps until `until`: true if it must not (XDP
	 * delivered something meanwhile); and once it woke. */
	bool	(*sleep)(void *s, uint64_t until);
	void	(*awake)(void *s);
	/* Per-peer state as `edgeq status` and bpftool show it: the
	 * tunnel's into out, the scheme's own into own (stats_size bytes;
	 * NULL: not wanted). */
	void	(*publish)(const void *s, uint32_t peer, struct eq_agent_peer *out, void *own);
};

#endif
