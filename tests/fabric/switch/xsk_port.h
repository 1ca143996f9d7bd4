/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A switch port that is a real veth: the switch side of a host's link,
 * in the switch's network namespace, with an XDP program that hands every
 * frame to an AF_XDP socket (libxdp's xsk API, copy mode: veth has no
 * zero copy).  Frames received are copied out at once (the fabric queues
 * them in its own pool), frames sent are copied into the UMEM at the
 * moment they reach the host, so the socket rings never act as a queue.
 */
#ifndef EDGEQ_FABRIC_XSK_PORT_H
#define EDGEQ_FABRIC_XSK_PORT_H

#include <stdint.h>
#include <xdp/xsk.h>

struct xsk_redirect;

struct xsk_port {
	char ns[64], ifname[16];
	int ifindex;
	struct xsk_redirect *skel;
	int xdp_attached;
	void *area;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;
	uint64_t *tx_free;		/* free TX frame addresses */
	uint32_t n_tx_free;
	uint32_t tx_pending;		/* submitted, not yet kicked */
	uint64_t rx_pkts, tx_pkts, tx_drop;	/* tx_drop: no free frame or ring full */
	uint64_t rx_unstamped;		/* frames without a usable arrival time */
	uint64_t rx_lost_base;		/* xsk_port_rx_lost() at the last reset */
};

/* Opens the port NS/IFNAME; err gets what failed and what to do. */
int xsk_port_open(struct xsk_port *xp, const char *ns, const char *ifname, char *err, size_t errlen);
void xsk_port_close(struct xsk_port *xp);
int xsk_port_fd(const struct xsk_port *xp);
uint64_t xsk_port_rx_lost(const struct xsk_port *xp);
/* Calls cb for up to `budget` received frames with their arrival time
 * (stamped by the port's XDP program; `now` when a frame has no plausible
 * stamp); returns how many. */
unsigned int xsk_port_rx(struct xsk_port *xp, unsigned int budget, uint64_t now,
			 void (*cb)(void *ctx, const uint8_t *frame, uint32_t len, uint64_t t),
			 void *ctx);
/* Queues one frame for sending (copied); xsk_port_flush sends. */
int xsk_port_tx(struct xsk_port *xp, const uint8_t *frame, uint32_t len);
void xsk_port_flush(struct xsk_port *xp);

#endif
