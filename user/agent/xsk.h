/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One AF_XDP socket of the agent, through libxdp's xsk API: its own UMEM,
 * half the frames circulating fill -> rx, half for sending.  The XDP
 * program and the XSKMAP are the loader's (pinned); the socket only puts
 * itself into the map.  Zero copy is tried first where asked and the mode
 * that worked is reported; veth only does copy mode.
 */
#ifndef EDGEQ_AGENT_XSK_H
#define EDGEQ_AGENT_XSK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xsk_umem;
struct xsk_socket;

struct eq_xsk {
	char		ifname[16];
	struct xsk_umem	*umem;
	struct xsk_socket *xsk;
	void		*rings;		/* struct eq_xsk_rings, opaque here */
	void		*area;
	uint64_t	*tx_free;
	uint32_t	n_tx_free;
	uint32_t	tx_pending;
	uint32_t	frame_size;	/* UMEM frame: 2048 or 4096 */
	uint32_t	queue;		/* the interface's queue it is bound to */
	uint32_t	nframes, rx_frames;	/* UMEM frames; of them, receiving */
	bool		zero_copy;
	uint64_t	rx_pkts, tx_pkts, tx_drop;
};

/* The UMEM frame a socket needs for frames of up to `frame` bytes: received
 * data starts XDP_PACKET_HEADROOM (256) bytes into it. */
static inline uint32_t eq_xsk_frame_size(uint32_t frame)
{
	return frame + 256 <= 2048 ? 2048 : 4096;
}

/* Opens the socket on ifname's queue and stores it at key in xskmap_fd,
 * with rx_frames UMEM frames to receive into (a power of two: the RX and
 * fill rings hold them all) and tx_frames to send from (0: a socket that
 * only receives). */
int eq_xsk_open(struct eq_xsk *x, const char *ifname, uint32_t queue, int xskmap_fd,
		uint32_t key, uint32_t frame_size, bool try_zero_copy, uint32_t rx_frames,
		uint32_t tx_frames, char *err, size_t errlen);
void eq_xsk_close(struct eq_xsk *x);
int eq_xsk_fd(const struct eq_xsk *x);
/* Hands up to budget received frames to cb (valid during the call only). */
unsigned int eq_xsk_rx(struct eq_xsk *x, unsigned int budget,
		       void (*cb)(void *ctx, uint8_t *frame, uint32_t len), void *ctx);
/* Copies a frame into the TX ring; eq_xsk_flush() sends.  -1: no room
 * (counted in tx_drop). */
int eq_xsk_tx(struct eq_xsk *x, const uint8_t *frame, uint32_t len);
void eq_xsk_flush(struct eq_xsk *x);
/* Every frame given to eq_xsk_tx() has been sent and given back by the
 * kernel: in copy mode, once its skb was freed or orphaned (for one that
 * goes up a host's stack, in ip_rcv()).  True for a socket not open. */
bool eq_xsk_tx_done(struct eq_xsk *x);
/* The socket's counters: the kernel's (XDP_STATISTICS: frames it could
 * not hand us) and ours. */
struct eq_xsk_stats;
void eq_xsk_counters(const struct eq_xsk *x, struct eq_xsk_stats *c);

#endif
