/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The per-peer credit bucket that the TC fast path and the agent share
 * (scheme eqds, docs/eqds.md "The fast path").
 *
 * The agent owns a tunnel's credit.  When the tunnel is established and
 * its edge queue is empty, the agent lends its credit to TC as a lease:
 * one 64-bit word holding the bytes TC may spend and the next sequence
 * number to stamp.  TC spends it with compare-and-swap, both halves at
 * once, so a packet either gets credit and a seq together or goes to the
 * agent; the agent takes the lease back with one exchange and learns, in
 * the same instant, every seq TC used.  Nothing is lost between them, and
 * no lock is taken on either side.
 *
 * This header is included by the BPF programs and by the agent, so the
 * helpers use only compiler builtins.
 */
#ifndef EDGEQ_LEASE_H
#define EDGEQ_LEASE_H

#include <linux/types.h>
#include "edgeq/wire.h"

#define EQ_MAP_CREDIT		"eq_credit"

#define EQ_LEASE_OPEN		0x80000000u	/* the agent lent its credit */
#define EQ_LEASE_SHUT		0x40000000u	/* TC sent a packet to the agent:
						 * no more fast sends until the
						 * agent has taken the lease back */
#define EQ_LEASE_BYTES		0x00ffffffu	/* at most 16 MiB on lease */

struct eq_lease {
	__u32	bytes;		/* EQ_LEASE_* flags | bytes TC may spend */
	__u32	seq;		/* next DATA seq TC stamps */
};

/* The lease as the atomics see it (word) and as people read it (parts). */
union eq_lease_word {
	__u64		word;
	struct eq_lease	parts;
};

/* eq_credit (array, mmapable, same index as eq_peers; one cache line per
 * peer): written by the agent (open, top up, take back) and by TC (spend,
 * shut).  `bpftool map dump` shows lease.parts.bytes and .seq. */
#define EQ_PATH_SET	0x10000u

/* A TCP packet that no ACK would bring back soon if TC refused it (a SYN,
 * a connection's first packets) may still join an edge queue up to this
 * many times edge_queue; the agents drop only beyond that. */
#define EQ_EDGE_UNCLOCKED	2

/* The segments of one GSO packet an edge queue takes beyond its limit
 * (eq_edge_refuses): 64 KiB, the largest GSO packet, in segments of
 * 1,024 bytes, as an MTU of 1280 leaves about 1,150.  The agents drop
 * only beyond EQ_EDGE_UNCLOCKED times the limit and this many more. */
#define EQ_EDGE_GSO_SEGS	64

struct eq_credit {
	union eq_lease_word lease;
	__u32	pull_target;	/* the pull target TC stamps: the agent's
				 * highest pull (a fast send asks for nothing more) */
	/* The edge queue, for TC: packets TC handed to the agent (atomic
	 * add, a GSO packet counting its segments), those the agent has
	 * read, and those it holds.  handed - taken + queued is what waits
	 * for the agent; at edge_queue, TC refuses the packet to the stack
	 * (backpressure: TCP keeps it and sends it later) rather than have
	 * the agent drop it.  handed == taken also tells the agent that no
	 * packet is on its way to it that a new lease's fast sends could
	 * overtake. */
	__u32	handed;
	__u32	taken;		/* written by the agent */
	__u32	queued;		/* written by the agent */
	__u32	held;		/* TCP packets TC held back for want of credit
				 * (tx_credit_wait): demand the agent cannot see */
	__u32	held_rung;	/* TC rang the doorbell for them; the agent clears it */
	/* A fast send that leaves the lease below `low` bytes stamps
	 * `pull_more` instead of pull_target: the tunnel is being drained,
	 * and asks for a BDP more (set by the agent). */
	__u32	pull_more;
	__u32	low;
	__u32	cap;		/* the most a lease may hold (1 BDP + 1 MTU): a
				 * packet larger waits for nothing in TC */
	/* With EQ_PATH_SET, the path (low 14 bits) TC gives what it sends
	 * to this peer itself (bare TCP ACKs, fast sends) instead of its
	 * entropy: the scheme's (REPS: the last path that came back clean),
	 * written by the agent.  0: TC's entropy. */
	__u32	path;
	/* One fast send's seq (high 32 bits) and send time (us, mod 2^32),
	 * set by TC while 0, cleared by the agent once its ACK gave an RTT
	 * sample: a copy's own time is when the agent read it. */
	__u64	probe;
};

/* The copies of fast sends (eq_copies, a ring buffer): TC writes a frame
 * that fits in a record there, with no wake-up, and the agent reads them
 * whenever it wakes (it reads the copy socket on eqd the same way).  A
 * clone through the eqc/eqd veth pair, the other way in, costs an skb, a
 * softirq on the sending CPU, ahead of the packet itself where the wire
 * is a veth, and the socket's copy; GSO packets and larger frames still
 * go that way, the kernel segmenting them.  Fixed records: a ring
 * buffer's reservation is a constant, and 2,048 bytes with its header. */
#define EQ_MAP_COPIES		"eq_copies"
#define EQ_COPY_FRAME_MAX	2032

struct eq_copy {
	__u32	len;		/* of frame: the Ethernet frame as sent */
	__u32	pad;
	__u8	frame[EQ_COPY_FRAME_MAX];
};

/* The copies wait for the agent, which does not wake for them, at most
 * 20 ms: the full-size frames the link carries in that time, what the
 * ring and the copy socket each hold. */
static inline __u64 eq_copy_hold_frames(__u64 link_bps, __u32 mtu)
{
	return link_bps / 8 / 50 / (mtu + 14 + EQ_ETH_FRAMING);
}

/* eq_copies' size: that many records, a power of two from 1 to 16 MiB. */
static inline __u32 eq_copy_ring_bytes(__u64 link_bps, __u32 mtu)
{
	__u64 want = eq_copy_hold_frames(link_bps, mtu) * (sizeof(struct eq_copy) + 8);
	__u32 n = 1u << 20;

	while (n < want && n < (1u << 24))
		n *= 2;
	return n;
}

#ifndef EQ_LEASE_INLINE
#define EQ_LEASE_INLINE static inline __attribute__((always_inline))
#endif

/* TC: whether an edge queue where `waiting` packets wait for the agent
 * refuses the next packet at `limit`: only when it is full.  A GSO
 * packet goes in whole while there is room for its first segment, as a
 * qdisc's limit counts it once.  Refused until its segments all fit, a
 * TSO packet larger than the room left went only into an empty queue:
 * each round trip ended with the tunnel drained, the receiver delaying
 * its ACK of an odd last segment for up to 200 ms (`edge_queue` 8 at 50
 * Mbit/s: 6 MB of a 12 MB transfer in 60 s). */
EQ_LEASE_INLINE int eq_edge_refuses(__u32 waiting, __u32 limit)
{
	return waiting >= limit;
}

/* A few tries are enough: the only other writers are the other CPUs'
 * TC programs and the agent, each one atomic step.  Giving up just
 * sends the packet the slow way. */
#define EQ_LEASE_TRIES		4

/* TC: spend `bytes` of the lease for `n` packets (the segments of a GSO
 * packet).  1 and the first packet's seq in *seq on success (the others
 * follow it), the bytes left in *left; 0 when the lease is closed, shut or
 * short. */
EQ_LEASE_INLINE int eq_lease_take_left(__u64 *word, __u32 bytes, __u32 n, __u32 *seq,
				       __u32 *left)
{
	for (int i = 0; i < EQ_LEASE_TRIES; i++) {
		union eq_lease_word old, new;

		old.word = *(volatile __u64 *)word;
		if ((old.parts.bytes & (EQ_LEASE_OPEN | EQ_LEASE_SHUT)) != EQ_LEASE_OPEN ||
		    (old.parts.bytes & EQ_LEASE_BYTES) < bytes)
			return 0;
		new.parts.bytes = old.parts.bytes - bytes;
		new.parts.seq = old.parts.seq + n;
		if (__sync_val_compare_and_swap(word, old.word, new.word) == old.word) {
			*seq = old.parts.seq;
			*left = new.parts.bytes & EQ_LEASE_BYTES;
			return 1;
		}
	}
	return 0;
}

EQ_LEASE_INLINE int eq_lease_take_n(__u64 *word, __u32 bytes, __u32 n, __u32 *seq)
{
	__u32 left;

	return eq_lease_take_left(word, bytes, n, seq, &left);
}

/* TC: spend `bytes` of the lease for one packet.  1 and the packet's seq
 * in *seq on success; 0 when the lease is closed, shut or short. */
EQ_LEASE_INLINE int eq_lease_take(__u64 *word, __u32 bytes, __u32 *seq)
{
	return eq_lease_take_n(word, bytes, 1, seq);
}

/* TC: a packet to this peer goes to the agent (short lease, GSO): no fast
 * send may overtake it, so the lease is shut until the agent takes it
 * back.  One atomic OR, which cannot fail the way a compare-and-swap loop
 * can give up; bytes and seq stay for the agent to find.  1 when this
 * call shut an open lease.  (On a closed lease it leaves a stray SHUT,
 * which nothing reads: opening stores the whole word.) */
EQ_LEASE_INLINE int eq_lease_shut(__u64 *word)
{
	union eq_lease_word set = { .parts = { .bytes = EQ_LEASE_SHUT } }, old;

	old.word = __sync_fetch_and_or(word, set.word);
	return (old.parts.bytes & (EQ_LEASE_OPEN | EQ_LEASE_SHUT)) == EQ_LEASE_OPEN;
}

#endif /* EDGEQ_LEASE_H */
