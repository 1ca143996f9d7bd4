/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Direct delivery (scheme eqds, docs/eqds.md "Receiving"): XDP delivers a
 * tunnel's in-order DATA to the stack itself, and tells the agent what it
 * delivered through this per-peer state, so that neither host's agent is
 * in the path of a packet that arrives in order.
 *
 * The agent owns the receive order.  While its reorder queue is empty it
 * opens direct delivery: one 64-bit word holds the next sequence number
 * in order and the OPEN flag.  Whoever delivers packet `seq`, XDP or the
 * agent, first moves the word from {seq, flags} to {seq + 1, flags} with
 * one compare-and-swap, so each seq is delivered at most once and in
 * order.  XDP delivers only while OPEN; anything else (out of order, a
 * duplicate, SYN, a lost race) goes to the agent, which closes the word
 * (one exchange) before it holds a packet back and opens it again once
 * its queue is empty.
 *
 * XDP adds what it delivered to the counters below (the agent's pulls
 * and acknowledgements follow them) and rings the agent's doorbell, a
 * ring buffer the agent polls, once per batch.  Not at once: the first
 * delivery after the agent last looked arms a timer of `ack_delay_ns`
 * (eq_tunnel_config), and the doorbell rings when it fires, or as soon as
 * `wake_bytes` were delivered unread; no timer when the agent said it
 * would look within the delay anyway (`look_ns`: it is awake, or its next
 * timer is due), and no ring for unread bytes when it looks within
 * `poll_ns` (it polls a bulk flow instead of being woken for it: each
 * ring is a self-interrupt on the delivering CPU).  A lone packet (a small RPC) thus
 * reaches its application before either agent stirs, instead of sharing
 * the CPUs with two agent wake-ups and an ACK (docs/eqds.md, "Receiving").
 *
 * Included by the BPF programs and by the agent: compiler builtins only.
 */
#ifndef EDGEQ_RX_H
#define EDGEQ_RX_H

#include <linux/types.h>

#define EQ_MAP_RX		"eq_rx"
#define EQ_MAP_BELL		"eq_bell"	/* the agent's doorbell: a ring buffer of
						 * peer slots, rung by XDP (it delivered
						 * DATA) and TC (it held packets back) */

#define EQ_RX_OPEN		0x1u	/* XDP may deliver seq == next */

struct eq_rx_order {
	__u32	next;		/* next seq in order */
	__u32	flags;		/* EQ_RX_* */
};

union eq_rx_word {
	__u64			word;
	struct eq_rx_order	parts;
};

/* eq_rx (array, mmapable, same index as eq_peers; one cache line per
 * peer).  `bpftool map dump` shows order.parts.next and .flags. */
struct eq_rx {
	union eq_rx_word order;
	__u64	pkts;		/* DATA XDP delivered (atomic add) */
	__u64	bytes;		/* ... their frame_len, what the sender spent */
	__u64	ce;		/* ... of which the outer header was CE */
	__u32	pull_target;	/* the highest pull target among them */
	__u32	dirty;		/* EQ_RX_* below: set by XDP, cleared by the agent */
	__u64	read_bytes;	/* the agent: `bytes` as it last read them */
	__u32	wake_bytes;	/* the agent: ring at once from this many unread */
	__u32	poll_ns;	/* the agent: it polls a bulk flow this often, so
				 * that bulk deliveries ring only when it does
				 * not look within this long (0: they always
				 * ring) */
	__u64	look_ns;	/* the agent: it looks at this peer by then (1:
				 * it is awake; 0: unknown).  Soon enough, and
				 * XDP arms no timer */
};

/* eq_rx.dirty: what XDP did since the agent last looked. */
#define EQ_RX_CLEAN		0	/* nothing delivered */
#define EQ_RX_ARMED		1	/* delivered; the ACK timer will ring */
#define EQ_RX_RUNG		2	/* the doorbell rang */

#ifndef EQ_RX_INLINE
#define EQ_RX_INLINE static inline __attribute__((always_inline))
#endif

/* XDP: take seqs [seq, seq + n) for delivery (n > 1: the segments of a
 * GSO packet that arrived whole).  1 when the word was open at exactly seq
 * and now says seq + n; 0 otherwise (the packet goes to the agent).  One
 * try: a lost race is the agent's to sort out. */
EQ_RX_INLINE int eq_rx_take_n(__u64 *word, __u32 seq, __u32 n)
{
	union eq_rx_word old, new;

	old.word = *(volatile __u64 *)word;
	if (!(old.parts.flags & EQ_RX_OPEN) || old.parts.next != seq)
		return 0;
	new = old;
	new.parts.next = seq + n;
	return __sync_val_compare_and_swap(word, old.word, new.word) == old.word;
}

EQ_RX_INLINE int eq_rx_take(__u64 *word, __u32 seq)
{
	return eq_rx_take_n(word, seq, 1);
}

#endif /* EDGEQ_RX_H */
