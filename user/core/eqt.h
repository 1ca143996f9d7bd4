/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The transport core's primitives, after nanoTransport (seed 001, ch. 3):
 * packets owned by the core, a fixed pool they come from, and FIFO queues
 * of them.  Pure C: no I/O, no clock of its own (every call takes `now`,
 * CLOCK_MONOTONIC ns in the agent, a mocked clock in tests), so control
 * loops built on it run unchanged in unit tests and in a simulator.
 */
#ifndef EDGEQ_EQT_H
#define EDGEQ_EQT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EQT_FRAME_DEFAULT 2048	/* eqt_pool_init()'s frames (tests) */
#define EQT_NO_DEADLINE	UINT64_MAX

/* Sequence numbers wrap: a lies before b when b - a is less than half the
 * space (serial number arithmetic, RFC 1982). */
static inline bool eqt_seq_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool eqt_seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

/* The core's random numbers (splitmix64): epochs' first ISNs, whatever
 * scheme numbers them.  Not for secrets. */
static inline uint64_t eqt_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Traffic classes the wire arbiter shares the uplink between (DRR). */
enum eqt_cls {
	EQT_CLS_TCP	= 0,
	EQT_CLS_OTHER	= 1,	/* UDP, ICMP, anything not TCP */
	EQT_NCLS	= 2,
};

struct eqt_pkt {
	struct eqt_pkt	*next;
	uint64_t	t_ns;		/* when queued / last sent / received */
	uint32_t	seq;		/* tunnel sequence number, once assigned */
	uint16_t	len;		/* bytes of data[] in use: the whole frame */
	uint16_t	l3_off;		/* offset of the inner IP header in data[] */
	uint8_t		cls;		/* enum eqt_cls */
	uint8_t		tx_count;	/* times sent to the wire */
	uint8_t		flags;		/* EQT_PF_* */
	uint8_t		flow;		/* the inner flow's bucket (eqt_q's sparse
					 * flows first): a hash of its addresses
					 * and ports, EQT_FLOWS of them */
	uint16_t	path;		/* the scheme's: the path it last went by
					 * (SMaRTT: REPS's entropy) */
	uint16_t	pad;
	uint8_t		data[];	/* a whole Ethernet frame, outer headers
					 * included: the pool's frame_max bytes */
};

#define EQT_PF_SYN	0x01	/* was sent with the SYN flag */
#define EQT_PF_FAST	0x02	/* sent by TC on the fast path: t_ns is when
				 * the agent read its copy, not when it left */
#define EQT_PF_CE_TAKEN	0x04	/* received: the scheme took its outer CE as its
				 * own signal (it set ECT itself): the inner
				 * header is left as it came, not dropped as
				 * RFC 6040 drops CE over a Not-ECT packet */
#define EQT_PF_SCHEME	0x80	/* the scheme's own mark (SIRD: unscheduled) */
#define EQT_PF_SCHEME2	0x40	/* the scheme's second (SIRD: a resend that
				 * waits for credit) */

/* A fixed pool of packets: the agent's whole packet memory.  Exhaustion is
 * a counted drop by the caller, never an allocation failure elsewhere. */
struct eqt_pool {
	struct eqt_pkt	*free;
	void		*mem;
	uint32_t	size;
	uint32_t	in_use;
	uint32_t	frame_max;	/* bytes of data[] in each packet */
	uint32_t	stride;
};

/* npkts packets of frame_max bytes each (sized to the tunnel's MTU, so
 * that jumbo frames cost memory only where they are configured). */
int eqt_pool_init_sized(struct eqt_pool *pool, uint32_t npkts, uint32_t frame_max);
static inline int eqt_pool_init(struct eqt_pool *pool, uint32_t npkts)	/* 0 or -ENOMEM */
{
	return eqt_pool_init_sized(pool, npkts, EQT_FRAME_DEFAULT);
}
void eqt_pool_fini(struct eqt_pool *pool);
struct eqt_pkt *eqt_pkt_get(struct eqt_pool *pool);		/* NULL when empty */
void eqt_pkt_put(struct eqt_pool *pool, struct eqt_pkt *p);

/* A FIFO of packets with a byte count.  With `flows` (EQT_FLOWS counters,
 * the caller's memory, zeroed) it serves sparse flows first, as fq_codel
 * does its new flows: a packet whose flow (p->flow) has nothing queued
 * goes ahead of every packet of flows that have, behind the other such
 * packets (head .. sparse_tail); the rest go to the tail.  A tunnel
 * carries all of a host's flows to one peer in one queue: without this a
 * small RPC's SYN, request and answer each wait behind the bulk flows'
 * queue (docs/eqds.md, "Edge queues").  Order within a flow holds: a
 * packet goes ahead only when none of its flow's is queued.  A flow that
 * keeps a backlog is not sparse, so sparse flows cannot starve the rest
 * for longer than they keep the link busy by themselves. */
#define EQT_FLOWS	256
struct eqt_q {
	struct eqt_pkt	*head, *tail;
	uint32_t	pkts;
	uint64_t	bytes;
	struct eqt_pkt	*sparse_tail;	/* the last packet that went ahead */
	uint16_t	*flows;		/* packets queued per flow bucket; NULL: a FIFO */
};

void eqt_q_push(struct eqt_q *q, struct eqt_pkt *p);		/* at the tail, or
								 * ahead if sparse */
void eqt_q_push_head(struct eqt_q *q, struct eqt_pkt *p);
struct eqt_pkt *eqt_q_pop(struct eqt_q *q);			/* NULL when empty */
void eqt_q_drain(struct eqt_q *q, struct eqt_pool *pool);	/* frees every packet */

#endif /* EDGEQ_EQT_H */
