// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * XDP ingress: everything that is not edgeq (not UDP to our port) passes
 * untouched.  edgeq packets are validated field by field, never trusted:
 * anything malformed or from an unknown peer is dropped and counted by
 * reason in eq_stats.  DATA from a known peer is decapsulated in place
 * (RFC 6040 ECN combination included) and passed to the stack.
 *
 * With `scheme eqds` and a live agent, edgeq packets meant for the agent
 * (for_agent()) go to its AF_XDP socket through eq_xsks.  Otherwise DATA is
 * decapsulated here, and control and trimmed packets, which only an agent
 * can use, are counted and dropped.
 */
#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "edgeq/wire.h"
#include "edgeq/csum.h"
#include "edgeq/ecn.h"
#include "maps.bpf.h"
#include "auth.bpf.h"

#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC	1	/* linux/time.h, which pulls in libc types */
#endif
#ifndef EBUSY
#define EBUSY		16
#endif

#define IP_MF		0x2000
#define IP_OFFSET	0x1fff

/* The outer headers, as located by parse_outer(). */
struct outer {
	struct udphdr	*udp;
	struct eq_addr	saddr;
	__u32		l3_len;		/* outer IP header length */
	__u32		udp_len;	/* UDP length field, validated */
	__u16		ip_id;		/* IPv4 ID (0 on IPv6) */
	__u8		ecn;
};

/* 16-byte compare: clang does not inline memcmp for BPF.  memcpy of a
 * constant size is inlined, and copes with unaligned packet data. */
static __always_inline bool addr16_eq(const void *a, const void *b)
{
	__u64 a0, a1, b0, b1;

	__builtin_memcpy(&a0, a, 8);
	__builtin_memcpy(&a1, a + 8, 8);
	__builtin_memcpy(&b0, b, 8);
	__builtin_memcpy(&b1, b + 8, 8);
	return a0 == b0 && a1 == b1;
}

/* What the agent takes: control packets, and DATA (whole or trimmed) that
 * a peer's agent sent, which says its frame length.  DATA with frame_len 0
 * was encapsulated by a TC without an agent (scheme none, or its agent is
 * down and on_agent_down is tunnel): nobody waits for its ACK, so it is
 * delivered here. */
static __always_inline bool for_agent(const struct eq_hdr *eq)
{
	__u8 t = eq_type(eq);

	return (t != EQ_T_DATA && t != EQ_T_TRIMMED) || eq->data.frame_len != 0;
}

enum verdict { NOT_OURS, OURS, BAD_LEN, BAD_FRAG, BAD_CSUM };

static __always_inline enum verdict parse_outer(struct xdp_md *ctx, const struct eq_config *cfg,
						struct outer *o)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 frame_l3 = ctx->data_end - ctx->data - ETH_HLEN;

	if ((void *)(eth + 1) > end)
		return NOT_OURS;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);
		__u32 ihl, tot;

		if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_UDP)
			return NOT_OURS;
		/* A later fragment has no UDP header: its bytes are payload. */
		if (ip->frag_off & bpf_htons(IP_OFFSET))
			return NOT_OURS;
		ihl = ip->ihl * 4;
		if (ihl < sizeof(*ip))
			return NOT_OURS;
		o->udp = (void *)ip + ihl;
		if ((void *)(o->udp + 1) > end || o->udp->dest != bpf_htons(cfg->port))
			return NOT_OURS;
		/* Addressed to another host: not ours to decapsulate. */
		__be32 local4;

		__builtin_memcpy(&local4, &cfg->local4.a[12], 4);
		if (!(cfg->flags & EQ_CFG_HAS_V4) || ip->daddr != local4)
			return NOT_OURS;
		if (ip->frag_off & bpf_htons(IP_MF))
			return BAD_FRAG;	/* a first fragment: edgeq always sends DF */
		/* Our senders never use IP options; the stack would verify the
		 * version and the header checksum, so we must too before
		 * trusting any field. */
		if (ihl != sizeof(*ip) || ip->version != 4)
			return BAD_LEN;
		if (eq_ipv4_hdr_csum(ip))
			return BAD_CSUM;
		tot = bpf_ntohs(ip->tot_len);
		if (tot > frame_l3 || tot < ihl + sizeof(struct udphdr))
			return BAD_LEN;
		o->l3_len = ihl;
		o->udp_len = bpf_ntohs(o->udp->len);
		if (o->udp_len != tot - ihl)
			return BAD_LEN;
		eq_addr_from_v4(&o->saddr, ip->saddr);
		o->ip_id = bpf_ntohs(ip->id);
		o->ecn = ip->tos & EQ_ECN_MASK;
		return OURS;
	}
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);
		__u32 plen;

		/* Our senders put UDP right after the fixed header. */
		if ((void *)(ip6 + 1) > end || ip6->nexthdr != IPPROTO_UDP)
			return NOT_OURS;
		o->udp = (void *)(ip6 + 1);
		if ((void *)(o->udp + 1) > end || o->udp->dest != bpf_htons(cfg->port))
			return NOT_OURS;
		if (!(cfg->flags & EQ_CFG_HAS_V6) || !addr16_eq(&ip6->daddr, &cfg->local6))
			return NOT_OURS;
		if (ip6->version != 6)
			return BAD_LEN;
		plen = bpf_ntohs(ip6->payload_len);
		if (plen + sizeof(*ip6) > frame_l3)
			return BAD_LEN;
		o->l3_len = sizeof(*ip6);
		o->udp_len = bpf_ntohs(o->udp->len);
		if (o->udp_len != plen || plen < sizeof(struct udphdr))
			return BAD_LEN;
		__builtin_memcpy(&o->saddr, &ip6->saddr, 16);
		o->ip_id = 0;
		o->ecn = (ip6->flow_lbl[0] >> 4) & EQ_ECN_MASK;
		return OURS;
	}
	return NOT_OURS;
}

/* The inner IPv4 header's checksum, options included (0: it is right; 1:
 * wrong, or the header runs past the frame).  The stack would drop a bad
 * one; XDP checks it before its ECN rewrite patches the sum. */
static __always_inline int inner_ipv4_csum(const struct iphdr *ip, const void *end)
{
	const __u16 *w = (const void *)ip;
	__u32 words = ip->ihl * 2, sum = 0;

	if (words == 10)
		return eq_ipv4_hdr_csum(ip) != 0;
	for (__u32 i = 0; i < 30; i++) {	/* a 60-byte header at most */
		const __u16 *q = w + i;

		if (i >= words)
			break;
		/* Keeps clang from folding the bound into pkt_end - 2, which
		 * the verifier refuses. */
		barrier_var(q);
		if ((const void *)(q + 1) > end)
			return 1;
		sum += *q;
	}
	return eq_csum_fold(sum) != 0;
}

/* Check the inner packet against the lengths the outer headers promise and
 * apply the RFC 6040 ECN combination.  Returns a stats slot to bump on
 * failure, or NULL when the inner packet may be delivered. */
static __always_inline __u64 *check_inner(void *inner, void *end, __u8 proto, __u32 inner_len,
					  __u8 outer_ecn, struct eq_stats *st, __u8 *inner_ecn_out)
{
	__u8 ecn;

	if (proto == EQ_PROTO_IPV4) {
		struct iphdr *ip = inner;

		/* Against what the UDP length says, not the frame's end:
		 * Ethernet padding would pass for a header. */
		if (inner_len < sizeof(*ip) || (void *)(ip + 1) > end)
			return &st->rx_drop_len;
		if (ip->version != 4 || ip->ihl < 5)
			return &st->rx_drop_inner;
		if (bpf_ntohs(ip->tot_len) != inner_len || ip->ihl * 4U > inner_len)
			return &st->rx_drop_len;
		if (inner_ipv4_csum(ip, end))
			return &st->rx_drop_csum;
		*inner_ecn_out = ip->tos & EQ_ECN_MASK;
		ecn = eq_ecn_decap(ip->tos, outer_ecn);
		if (ecn == EQ_ECN_DROP)
			return &st->rx_drop_ecn;
		if (ecn != (ip->tos & EQ_ECN_MASK)) {
			__u16 old = *(__u16 *)ip;	/* version/ihl + tos */

			ip->tos = (ip->tos & ~EQ_ECN_MASK) | ecn;
			ip->check = eq_csum_replace2(ip->check, old, *(__u16 *)ip);
		}
		return NULL;
	}
	if (proto == EQ_PROTO_IPV6) {
		struct ipv6hdr *ip6 = inner;
		__u8 inner_ecn;

		if ((void *)(ip6 + 1) > end)
			return &st->rx_drop_len;
		if (ip6->version != 6)
			return &st->rx_drop_inner;
		if (bpf_ntohs(ip6->payload_len) + sizeof(*ip6) != inner_len)
			return &st->rx_drop_len;
		inner_ecn = (ip6->flow_lbl[0] >> 4) & EQ_ECN_MASK;
		*inner_ecn_out = inner_ecn;
		ecn = eq_ecn_decap(inner_ecn, outer_ecn);
		if (ecn == EQ_ECN_DROP)
			return &st->rx_drop_ecn;
		ip6->flow_lbl[0] = (ip6->flow_lbl[0] & 0xcf) | (ecn << 4);
		return NULL;
	}
	return &st->rx_drop_inner;
}

/* The inner packet's source lies in one of the peer's prefixes: what may
 * come through its tunnel, as WireGuard's allowed IPs.  Anything else is
 * a packet injected with the peer's outer address (issue 16): dropped
 * before it reaches XDP's delivery or the agent.  An inner packet that is
 * not the IP version `proto` says, or is cut short, is check_inner()'s
 * (or the agent's) to drop, by its own reason. */
static __always_inline bool inner_src_ok(void *inner, void *end, __u8 proto, __u32 slot)
{
	struct eq_prefix_key k = {};	/* not a template in .rodata: the loader
					 * shares TC's maps, which has none */
	struct eq_prefix_val *pv;

	k.prefixlen = 128;
	if (proto == EQ_PROTO_IPV4) {
		struct iphdr *ip = inner;

		if ((void *)(ip + 1) > end || ip->version != 4)
			return true;
		eq_addr_from_v4(&k.addr, ip->saddr);
	} else if (proto == EQ_PROTO_IPV6) {
		struct ipv6hdr *ip6 = inner;

		if ((void *)(ip6 + 1) > end || ip6->version != 6)
			return true;
		/* Link-local (fe80::/10), which no prefix can list: only
		 * neighbour discovery between the two hosts (ICMPv6 133-137),
		 * and only with the hop limit 255 that RFC 4861 has every
		 * receiver check, so that nothing else rides on it. */
		if (ip6->saddr.in6_u.u6_addr8[0] == 0xfe &&
		    (ip6->saddr.in6_u.u6_addr8[1] & 0xc0) == 0x80) {
			__u8 *type = (__u8 *)(ip6 + 1);

			return ip6->nexthdr == IPPROTO_ICMPV6 && ip6->hop_limit == 255 &&
			       (void *)(type + 1) <= end && *type >= 133 && *type <= 137;
		}
		__builtin_memcpy(&k.addr, &ip6->saddr, sizeof(k.addr));
	} else {
		return true;
	}
	pv = bpf_map_lookup_elem(&eq_prefixes, &k);
	return pv && pv->peer == slot;
}

/* The per-peer receive counters: DATA that arrived from the peer, whether
 * XDP delivers it or hands it to the agent.  rx_ce counts the fabric's
 * marks: CE on the outer header over an inner one that was not CE. */
static __always_inline void count_peer(__u32 *slot, __u32 inner_len, __u8 outer_ecn,
				       __u8 inner_ecn)
{
	struct eq_peer_stats *ps = bpf_map_lookup_elem(&eq_peer_stats, slot);

	if (!ps)
		return;
	ps->rx_packets++;
	ps->rx_bytes += inner_len;
	if (outer_ecn == EQ_ECN_CE && inner_ecn != EQ_ECN_CE)
		ps->rx_ce++;
}

/* As count_peer() for DATA going to the agent, which checks the inner
 * packet itself: only its ECN field is read here. */
static __always_inline void count_rx(__u32 *slot, __u32 inner_len, __u8 outer_ecn, void *inner,
				     void *end)
{
	__u8 *b = inner, ecn = 0;

	if ((void *)(b + 2) <= end)
		ecn = (b[0] >> 4) == 6 ? (b[1] >> 4) & EQ_ECN_MASK : b[1] & EQ_ECN_MASK;
	count_peer(slot, inner_len, outer_ecn, ecn);
}

/* The ACK timer fired: ring, unless the agent looked meanwhile (CLEAN) or
 * the doorbell rang already (RUNG). */
static int ack_timer_fired(void *map, __u32 *slot, struct eq_ack_timer *t)
{
	struct eq_rx *rx = bpf_map_lookup_elem(&eq_rx, slot);

	if (rx && __sync_val_compare_and_swap(&rx->dirty, EQ_RX_ARMED, EQ_RX_RUNG) == EQ_RX_ARMED) {
		__u32 zero = 0;
		struct eq_stats *st = bpf_map_lookup_elem(&eq_stats, &zero);

		bpf_ringbuf_output(&eq_bell, slot, sizeof(*slot), 0);
		if (st)
			st->bell_rx_timer++;
	}
	return 0;
}

/* Arm the peer's ACK timer; 0, or an error (then the caller rings). */
static __always_inline long ack_timer_arm(__u32 *slot, __u64 delay_ns)
{
	struct eq_ack_timer *t = bpf_map_lookup_elem(&eq_ack_timer, slot);
	long rc;

	if (!t)
		return -1;
	rc = bpf_timer_init(&t->t, &eq_ack_timer, CLOCK_MONOTONIC);
	if (rc && rc != -EBUSY)
		return rc;
	if (!rc)
		bpf_timer_set_callback(&t->t, ack_timer_fired);
	return bpf_timer_start(&t->t, delay_ns, 0);
}

/* What XDP delivered itself, for the agent's pulls and ACKs (rx.h): the
 * sender spent `spent` bytes on its `segs` seqs and asked for
 * pull_target.  The doorbell rings once until the agent has looked:
 * after the ACK delay, or at once for a bulk flow. */
static __always_inline void deliver_direct(struct eq_rx *rx, __u32 *slot, const struct eq_hdr *eq,
					   __u8 outer_ecn, __u32 spent, __u32 segs, __u64 delay_ns,
					   struct eq_stats *st)
{
	__u32 target = bpf_ntohl(eq->data.pull_target);

	__sync_fetch_and_add(&rx->pkts, segs);
	__sync_fetch_and_add(&rx->bytes, spent);
	if (outer_ecn == EQ_ECN_CE)
		__sync_fetch_and_add(&rx->ce, segs);
	if (eq_seq_before(rx->pull_target, target))
		rx->pull_target = target;	/* racing CPUs: the agent takes the max it sees */
	/* Enough unread (a bulk flow), or no delay asked: ring now, once.
	 * A ring is not free: the ring buffer wakes its reader through an
	 * irq_work, a self-IPI on this CPU (docs/performance.md). */
	if (!delay_ns || rx->bytes - rx->read_bytes >= rx->wake_bytes) {
		if (__sync_lock_test_and_set(&rx->dirty, EQ_RX_RUNG) != EQ_RX_RUNG) {
			/* Unless the agent polls this bulk flow: it looks
			 * within poll_ns (or is awake) and will see `dirty`,
			 * which we set before reading look_ns, as it stores
			 * look_ns before it reads `dirty`. */
			__u64 look = *(volatile __u64 *)&rx->look_ns;
			__u32 poll = rx->poll_ns;

			if (poll && look && look <= bpf_ktime_get_ns() + poll) {
				st->bell_rx_polled++;
				return;
			}
			bpf_ringbuf_output(&eq_bell, slot, sizeof(*slot), 0);
			st->bell_rx_now++;
		}
		return;
	}
	if (__sync_val_compare_and_swap(&rx->dirty, EQ_RX_CLEAN, EQ_RX_ARMED) != EQ_RX_CLEAN)
		return;
	/* The agent looks within the delay anyway (awake, or a timer of its
	 * own due): no timer.  It checks `dirty` after it wrote look_ns and
	 * before it sleeps, as we read look_ns after we set `dirty` (both
	 * full barriers): one of us sees the other. */
	__u64 look = *(volatile __u64 *)&rx->look_ns;

	if (look && look <= bpf_ktime_get_ns() + delay_ns)
		return;
	st->rx_ack_timers++;
	if (ack_timer_arm(slot, delay_ns) &&
	    __sync_val_compare_and_swap(&rx->dirty, EQ_RX_ARMED, EQ_RX_RUNG) == EQ_RX_ARMED) {
		bpf_ringbuf_output(&eq_bell, slot, sizeof(*slot), 0);
		st->bell_rx_now++;
	}
}

/* How many of the sender's seqs this frame is, and the bytes it spent on
 * them (*spent).  One, normally.  A GSO fast send crosses a veth whole
 * when the receiving side runs XDP generically (its sender's TSO then
 * stays on): its header says a full segment's frame_len, and each
 * segment would have repeated the headers.  0 when it cannot tell. */
static __always_inline __u32 gso_segs(const struct eq_hdr *eq, void *inner, void *end,
				      __u32 hdrs_before, __u32 flen, __u32 *spent)
{
	__u32 full = bpf_ntohl(eq->data.frame_len), hdrs, l4 = 8, mss;
	__u8 *ip = inner, proto;

	*spent = flen < full ? flen : full;
	if (flen <= full)
		return 1;
	if ((void *)(ip + 40) > end)
		return 0;
	if ((ip[0] >> 4) == 4) {
		hdrs = (ip[0] & 0x0f) * 4;
		proto = ip[9];
	} else {
		hdrs = 40;
		proto = ip[6];
	}
	if (proto == IPPROTO_TCP) {
		__u8 *doff = ip + (hdrs & 0x3c) + 12;

		if ((void *)(doff + 1) > end)
			return 0;
		l4 = (*doff >> 4) * 4;
	} else if (proto != IPPROTO_UDP) {
		return 0;
	}
	hdrs += hdrs_before + l4;
	if (full <= hdrs || flen <= hdrs)
		return 0;
	mss = full - hdrs;
	__u32 segs = (flen - hdrs + mss - 1) / mss;

	*spent = flen + (segs - 1) * hdrs;
	return segs;
}

SEC("xdp")
int xdp_ingress(struct xdp_md *ctx)
{
	__u32 zero = 0;
	struct eq_config *cfg = bpf_map_lookup_elem(&eq_config, &zero);
	struct eq_stats *st = bpf_map_lookup_elem(&eq_stats, &zero);
	struct eq_underlay_val *uv;
	struct eq_rx *rx = NULL;
	struct eq_peer *peer;
	__u32 key = EQ_XSK_WIRE;
	struct outer o = {};
	struct eq_hdr *eq;
	__u64 *bad;
	__u32 eq_len, inner_len, seq, slot;
	void *end;

	/* The frame's length, a number (a packet pointer must not be kept
	 * in 32 bits on the stack). */
	__u32 flen = (long)ctx->data_end - (long)ctx->data;

	if (!cfg || !st)
		return XDP_PASS;
	switch (parse_outer(ctx, cfg, &o)) {
	case NOT_OURS:
		st->rx_pass++;
		return XDP_PASS;
	case BAD_LEN:
		st->rx_drop_len++;
		return XDP_DROP;
	case BAD_FRAG:
		st->rx_drop_frag++;
		return XDP_DROP;
	case BAD_CSUM:
		st->rx_drop_csum++;
		return XDP_DROP;
	case OURS:
		break;
	}

	end = (void *)(long)ctx->data_end;
	eq = (void *)(o.udp + 1);
	if ((void *)(eq + 1) > end || o.udp_len < sizeof(struct udphdr) + EQ_HDR_LEN) {
		st->rx_drop_short++;
		return XDP_DROP;
	}
	if (eq_version(eq) != EQ_WIRE_VERSION) {
		st->rx_drop_version++;
		return XDP_DROP;
	}
	if (eq_type(eq) > EQ_T_MAX) {
		st->rx_drop_type++;
		return XDP_DROP;
	}
	eq_len = eq->hdr_len * 4;
	if (eq_len < EQ_HDR_LEN || eq_len > o.udp_len - sizeof(struct udphdr)) {
		st->rx_drop_len++;
		return XDP_DROP;
	}

	uv = bpf_map_lookup_elem(&eq_underlay, &o.saddr);
	slot = uv ? uv->peer : EQ_NO_PEER;
	peer = bpf_map_lookup_elem(&eq_peers, &slot);
	if (!peer || !(peer->flags & EQ_PEER_USED)) {
		st->rx_drop_peer++;
		return XDP_DROP;
	}

	/* A keyed peer's DATA, before anything is done with it: XDP may
	 * deliver it itself (the agent checks what it gets). */
	if ((peer->flags & EQ_PEER_KEYED) && eq_type(eq) == EQ_T_DATA) {
		struct eq_peer_keys *keys = bpf_map_lookup_elem(&eq_keys, &slot);
		__u32 eq_off = ETH_HLEN + o.l3_len + sizeof(struct udphdr);

		if (!keys || !auth_ok(ctx, keys, eq_off << 16 | eq_len, &o.saddr,
				      o.l3_len == sizeof(struct ipv6hdr) ? &cfg->local6 : &cfg->local4)) {
			st->rx_drop_auth++;
			return XDP_DROP;
		}
	}
	if (eq_type(eq) == EQ_T_DATA &&
	    !inner_src_ok((void *)eq + (eq_len & 0x3ff), end, eq->proto, slot)) {
		st->rx_drop_src++;
		return XDP_DROP;
	}

	if (eq_scheme_has_agent(cfg->scheme) && for_agent(eq)) {
		/* The agent has a socket on every receive queue (docs/agent.md). */
		if (ctx->rx_queue_index < EQ_MAX_RXQ)
			key = eq_xsk_wire_key(ctx->rx_queue_index);
		bool alive = eq_agent_alive(cfg);

		if (alive && ctx->rx_queue_index < EQ_MAX_RXQ &&
		    bpf_map_lookup_elem(&eq_xsks, &key)) {
			/* DATA past the tunnel's setup may be in order: XDP
			 * delivers it if the agent lets it (rx.h). */
			if (eq_type(eq) == EQ_T_DATA && !(eq->flags & EQ_F_SYN))
				rx = bpf_map_lookup_elem(&eq_rx, &slot);
			if (!rx)
				goto to_agent;
		} else {
			/* Agent down, or this queue has no socket: DATA is
			 * still delivered below, the rest counted and dropped,
			 * apart: the first is on_agent_down at work (a late
			 * heartbeat too), the second a socket missing. */
			if (alive)
				st->rx_agent_err++;
			else
				st->rx_agent_down++;
		}
	}

	switch (eq_type(eq)) {
	case EQ_T_DATA:
		break;
	case EQ_T_TRIMMED:
		st->rx_trimmed++;
		return XDP_DROP;
	default:
		st->rx_ctrl++;
		return XDP_DROP;
	}

	inner_len = o.udp_len - sizeof(struct udphdr) - eq_len;
	__u8 inner_ecn = 0;

	bad = check_inner((void *)eq + (eq_len & 0x3ff), end, eq->proto, inner_len, o.ecn, st,
			  &inner_ecn);
	if (bad) {
		/* CE over Not-ECT still wants its ACK: the agent's to drop. */
		if (rx && bad == &st->rx_drop_ecn)
			goto to_agent;
		*bad += 1;
		return XDP_DROP;
	}

	seq = bpf_ntohl(eq->data.seq) + o.ip_id;
	if (eq_len > EQ_HDR_LEN) {
		/* A segment of a TCP GSO packet over IPv6 (wire.h). */
		int idx = eq_seg_first(eq, end);	/* TC puts it first (wire.h) */

		if (idx < 0) {
			st->rx_drop_seg++;
			return XDP_DROP;
		}
		seq += idx;
	}
	if (rx) {
		__u32 spent, segs = gso_segs(eq, (void *)eq + (eq_len & 0x3ff), end,
					     ETH_HLEN + o.l3_len + sizeof(struct udphdr) + eq_len,
					     flen, &spent);

		/* Next in order and the agent holds nothing back: ours. */
		if (!segs || !eq_rx_take_n(&rx->order.word, seq, segs))
			goto to_agent;
		deliver_direct(rx, &slot, eq, o.ecn, spent, segs, cfg->tunnel.ack_delay_ns, st);
		st->rx_direct++;
	}
	if (!eq_seq_before(seq, peer->rx_seq_next))
		peer->rx_seq_next = seq + 1;	/* advisory: reordering is the agent's (issue 4) */
	if (peer->rx_sender_id != bpf_ntohs(eq->sender_id))
		peer->rx_sender_id = bpf_ntohs(eq->sender_id);	/* write only on change */

	count_peer(&slot, inner_len, o.ecn, inner_ecn);

	/* Decapsulate: move the Ethernet addresses forward over the outer
	 * headers and set the inner EtherType. */
	__u8 proto = eq->proto;
	struct ethhdr eth;
	struct ethhdr *neth;
	void *data = (void *)(long)ctx->data;

	if (data + sizeof(eth) > end)
		return XDP_DROP;
	__builtin_memcpy(&eth, data, sizeof(eth));
	if (bpf_xdp_adjust_head(ctx, (int)(o.l3_len + sizeof(struct udphdr) + eq_len))) {
		st->rx_drop_len++;
		return XDP_DROP;
	}
	neth = (void *)(long)ctx->data;
	if ((void *)(neth + 1) > (void *)(long)ctx->data_end)
		return XDP_DROP;
	__builtin_memcpy(neth, &eth, sizeof(eth));
	neth->h_proto = bpf_htons(proto == EQ_PROTO_IPV6 ? ETH_P_IPV6 : ETH_P_IP);
	st->rx_decap++;
	return XDP_PASS;

to_agent:
	if (cfg->agent_frame_max && flen > cfg->agent_frame_max) {
		/* The socket's frames are smaller: the kernel would drop it,
		 * counted only in the socket. */
		st->rx_agent_too_big++;
		return XDP_DROP;
	}
	if (eq_type(eq) == EQ_T_DATA)
		count_rx(&slot, o.udp_len - sizeof(struct udphdr) - eq_len, o.ecn,
			 (void *)eq + (eq_len & 0x3ff), end);
	st->rx_to_agent++;
	return bpf_redirect_map(&eq_xsks, key, XDP_DROP);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
