/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SIRD's per-sender credit limits (seed 000, §4.3; ../shared/notes/sird.md
 * §2.9; docs/sird.md): a receiver keeps, for each sender, two buckets
 * adapted with DCTCP's AIMD on every DATA packet from it, one on the
 * sender's own congestion bit (`csn`: it holds more unspent credit than
 * SThr) and one on the network's CE marks, and grants that sender at most
 * the smaller of the two (as Swift takes the smaller of its windows).
 *
 *   once per window of packets:  alpha <- (1 - g) alpha + g · marked / packets
 *   every packet:                W += AI · MTU² / W
 *   a marked packet, at most once per 1.5 windows:  W -= W_x · alpha / 2
 *   W within [floor, BDP]        (floors 0.1 BDP for csn, 0.03 for CE)
 *
 * as the SIRD simulator's code has it (the paper says only "DCTCP's
 * AIMD").  Pure C, fixed point: buckets in 1/65536 bytes, alpha and g in
 * Q16.
 */
#ifndef EDGEQ_SIRD_AIMD_H
#define EDGEQ_SIRD_AIMD_H

#include <stdbool.h>
#include <stdint.h>

#define SIRD_ONE	65536u		/* 1.0 in Q16 */

enum { SIRD_CSN, SIRD_NET, SIRD_NSIG };	/* the two signals */

struct sird_aimd_params {
	uint64_t	bdp;		/* bytes: each bucket's ceiling */
	uint32_t	mtu;		/* the grain, in wire bytes */
	uint32_t	g;		/* the EWMA gain, Q16 (0.08) */
	uint32_t	ai;		/* MTUs added per window (1) */
	uint64_t	floor[SIRD_NSIG];	/* bytes (0.1 and 0.03 BDP) */
};

/* One bucket and its DCTCP state. */
struct sird_bucket {
	uint64_t	w;		/* Q16 bytes */
	uint32_t	alpha;		/* Q16 */
	uint32_t	marked;		/* marked packets in this window */
	uint32_t	since_md, next_md;	/* packets since the last decrease, and
						 * how many must pass before the next */
};

/* A sender's two buckets at a receiver. */
struct sird_limit {
	struct sird_bucket	b[SIRD_NSIG];
	uint32_t		pkts, next_alpha;	/* packets in this window, its length */
};

/* 0.08, 1 MTU, floors of 0.1 and 0.03 BDP, for a path of `bdp` bytes and
 * an MTU of `mtu` wire bytes.  -EINVAL if bdp < mtu or mtu is 0. */
int sird_aimd_params_set(struct sird_aimd_params *p, uint64_t bdp, uint32_t mtu);
/* Both buckets at one BDP, alpha 0. */
void sird_limit_init(struct sird_limit *l, const struct sird_aimd_params *p);
/* A DATA packet from the sender, with its csn bit and its CE mark. */
void sird_limit_on_data(struct sird_limit *l, const struct sird_aimd_params *p, bool csn, bool ce);

/* What the receiver may have outstanding to the sender: the smaller bucket, bytes. */
static inline uint64_t sird_limit_bytes(const struct sird_limit *l)
{
	uint64_t s = l->b[SIRD_CSN].w, n = l->b[SIRD_NET].w;

	return (s < n ? s : n) >> 16;
}

#endif /* EDGEQ_SIRD_AIMD_H */
