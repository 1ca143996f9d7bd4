// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * TC egress: classify IPv4/IPv6 packets by destination against the peer
 * prefixes and carry the hits in the edgeq tunnel.  Misses leave untouched.
 *
 * The encapsulation grows the packet in front of the inner IP header
 * (bpf_skb_adjust_room at the MAC layer, declared as a UDP tunnel so GSO
 * still works) and writes outer IP, UDP and the edgeq DATA header in one
 * store.  The Ethernet header stays: overlay prefixes route out of this
 * interface through the same next hop as the peer's underlay address.
 *
 * With `scheme eqds` and a live agent, a packet the agent's credit lease
 * covers goes straight to the wire and a copy to the agent (the fast path,
 * lease.h); any other is redirected to the internal veth, where the agent
 * queues it (docs/agent.md).  With the agent down, on_agent_down decides.
 */
#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "edgeq/wire.h"
#include "edgeq/csum.h"
#include "edgeq/ecn.h"
#include "maps.bpf.h"
#include "auth.bpf.h"

struct outer_v4 {
	struct iphdr	ip;
	struct udphdr	udp;
	struct eq_hdr	eq;
} __attribute__((packed));

struct outer_v6 {
	struct ipv6hdr	ip;
	struct udphdr	udp;
	struct eq_hdr	eq;
} __attribute__((packed));

_Static_assert(sizeof(struct eq_hdr) == EQ_HDR_LEN, "edgeq header size");
_Static_assert(sizeof(struct outer_v4) == EQ_OVERHEAD_V4, "v4 overhead");
_Static_assert(sizeof(struct outer_v6) == EQ_OVERHEAD_V6, "v6 overhead");

/* What the classifier needs from the inner IP header. */
struct inner_info {
	struct eq_prefix_key	key;
	__u8			tos;	/* IPv4 TOS or IPv6 traffic class */
	__u8			proto;	/* EQ_PROTO_IPV4 / EQ_PROTO_IPV6 */
	__u8			l4;	/* IP protocol (IPv6: next header) */
	__u8			ihl;	/* inner IP header bytes */
};

static __always_inline int parse_inner(struct __sk_buff *skb, struct inner_info *in)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;

	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = data + ETH_HLEN;

		if ((void *)(ip + 1) > end)
			return -1;
		in->key.prefixlen = 128;
		eq_addr_from_v4(&in->key.addr, ip->daddr);
		in->tos = ip->tos;
		in->proto = EQ_PROTO_IPV4;
		in->l4 = ip->protocol;
		in->ihl = ip->ihl * 4;
		return 0;
	}
	struct ipv6hdr *ip6 = data + ETH_HLEN;

	if ((void *)(ip6 + 1) > end)
		return -1;
	in->key.prefixlen = 128;
	__builtin_memcpy(&in->key.addr, &ip6->daddr, 16);
	in->tos = (ip6->priority << 4) | (ip6->flow_lbl[0] >> 4);
	in->proto = EQ_PROTO_IPV6;
	in->l4 = ip6->nexthdr;
	in->ihl = sizeof(*ip6);
	return 0;
}

/* The DATA header's per-packet fields: TC's own (seq from eq_peers,
 * nothing else), or those of a fast send on leased credit. */
struct data_fields {
	__u32	seq;
	__u32	pull_target;
	__u32	frame_len;
	__u8	flags;
	__u32	need;	/* what a fast send would take from the lease */
};

static __always_inline void fill_eq(struct eq_hdr *eq, const struct eq_config *cfg,
				    __u8 proto, __u16 path, __u32 opt_len, const struct data_fields *d)
{
	eq->ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_DATA);
	eq->flags = d->flags;
	eq->hdr_len = EQ_HDR_WORDS + opt_len / 4;
	eq->proto = proto;
	eq->sender_id = bpf_htons(cfg->node_id);
	eq->path_id = bpf_htons(path);
	eq->data.seq = bpf_htonl(d->seq);
	eq->data.pull_target = bpf_htonl(d->pull_target);
	eq->data.frame_len = bpf_htonl(d->frame_len);	/* 0: not the agent's (wire.md) */
}

/* A fast send: a packet whose frames the lease covers.  It gets the
 * lease's seq, states its frame length as the agent would, and asks for
 * no more pulls than the agent already has.  A GSO packet over an IPv4
 * underlay takes one seq per segment and the bytes of every segment's
 * frame: segmentation copies the header to each segment and counts the
 * outer IPv4 ID up from 0, and the receiver adds the ID to the seq
 * (wire.h), trimmed segments included.  Over IPv6 a TCP GSO packet
 * carries the segment option (`room` counts it), whose inner TCP seq
 * numbers the segments in its stead; other GSO packets (UDP's) go to the
 * agent there, which sends them one by one.  Nor when this host runs XDP
 * generically (`whole`): that is a
 * veth whose MTU native XDP cannot take, and its peer, in the same mode,
 * keeps our TSO on and gets the GSO packet whole, one frame of up to
 * 64 KiB; XDP delivers it if it is next in order, but a frame for the
 * agent above its 3.5 KiB was dropped (rx_agent_too_big: 35 in one 4 MB
 * transfer at MTU 9000), and only an RTO repaired it. */
static __always_inline bool fast_take(struct __sk_buff *skb, struct eq_credit *bucket,
				      const struct inner_info *in, __u32 room, bool numbered,
				      bool gso, __u32 segs, bool whole, struct data_fields *d)
{
	/* hdrs set on every path: the verifier does not pair the two "if (gso)"
	 * below, and on Linux 6.1 found another value in its register on the
	 * path that pairs them wrongly ("32-bit pointer arithmetic prohibited"). */
	__u32 frame = skb->len, hdrs = 0, l4 = 8, seq, left;	/* encapsulated already */

	if (gso) {
		struct tcphdr th;

		if (!numbered || whole || segs < 1 || segs > 0xffff || in->ihl < 20)
			return false;
		if (in->l4 == IPPROTO_TCP) {
			if (bpf_skb_load_bytes(skb, ETH_HLEN + room + in->ihl, &th, sizeof(th)))
				return false;
			l4 = th.doff * 4;
		} else if (in->l4 != IPPROTO_UDP) {
			return false;
		}
		/* The GSO frame is the first segment's headers and all the
		 * payload; each further segment repeats the headers. */
		hdrs = ETH_HLEN + room + in->ihl + l4;
		frame += (segs - 1) * hdrs;
	}
	d->need = frame;
	if (!eq_lease_take_left(&bucket->lease.word, frame, gso ? segs : 1, &seq, &left))
		return false;
	d->seq = seq;
	d->flags = EQ_F_FAST;
	/* An RTT sample for the agent, one at a time. */
	if (!bucket->probe)
		__sync_val_compare_and_swap(&bucket->probe, 0,
					    (__u64)seq << 32 | (__u32)(bpf_ktime_get_ns() / 1000));
	d->frame_len = gso ? hdrs + skb->gso_size : frame;	/* a full segment's */
	/* Draining the lease: ask for more, as a sender with a queue would. */
	d->pull_target = left < bucket->low ? bucket->pull_more : bucket->pull_target;
	return true;
}

/* A bare TCP ACK: no payload, no SYN, FIN or RST (user/agent/frame.c's
 * eqf_tcp_pure_ack() says the same).  It goes to the peer as TC sends
 * without an agent, outside credit: it is small, cumulative (losing one
 * costs nothing its successor does not repair), and through the agent it
 * cost a frame each way on both agents (the peer's ACK of it) and a
 * share of the receiver's link: in an 8 -> 1 incast the senders' ACKs of
 * the receiver's TCP ACKs were 17 % of the frames on its link. */
static __always_inline bool bare_tcp_ack(struct __sk_buff *skb, const struct inner_info *in)
{
	__u32 l4 = ETH_HLEN + in->ihl;
	__u8 b[2];

	if (in->l4 != IPPROTO_TCP || skb->gso_size || in->ihl < 20 || in->ihl > 60)
		return false;
	if (bpf_skb_load_bytes(skb, l4 + 12, b, sizeof(b)))
		return false;
	/* b[0] >> 4: the data offset in words; b[1]: the flags, ACK 0x10,
	 * RST 0x04, SYN 0x02, FIN 0x01. */
	return (b[1] & 0x17) == 0x10 && (b[0] >> 4) >= 5 && skb->len == l4 + (b[0] >> 4) * 4u;
}

/* TCP will send this packet again soon if it is refused: its socket has
 * data in flight, whose ACKs bring the rest of the queue out again, and
 * is past its handshake (a refused SYN waits for the 1 s SYN timer; a
 * SYN-ACK comes from a request socket, not a full one).  A socket with
 * nothing in flight (a connection's first packets, each request of an
 * idle RPC connection) would wait for the probe timer, 200 ms at least.
 * The socket's state, not the packet's flags: callable after encap(), and
 * nothing of it lives across that call (tc_egress's stack is at the 512
 * bytes Linux 6.1's verifier allows its frames). */
static __always_inline bool tcp_clocked(struct __sk_buff *skb)
{
	struct bpf_sock *sk = skb->sk;
	struct bpf_tcp_sock *tp;

	if (!sk)
		return false;
	sk = bpf_sk_fullsock(sk);
	if (!sk || sk->state == BPF_TCP_SYN_SENT)
		return false;
	tp = bpf_tcp_sock(sk);
	return tp && tp->packets_out > 0;
}

/* The scheme's option room of a DATA header at off (len bytes, whole
 * words, at most EQ_PEER_OPT_MAX): TSTAMP first if TC fills it (the send
 * time, ns mod 2^32; no echo), the rest PAD, which the agent overwrites
 * with its own options when it sends the packet itself. */
static __always_inline int scheme_opts(struct __sk_buff *skb, const struct eq_peer *peer,
				       __u32 off, __u32 len)
{
	__u8 o[EQ_PEER_OPT_MAX] = {};	/* EQ_OPT_PAD is 0 */

	if ((peer->tc_opts & (1u << EQ_OPT_TSTAMP)) && len >= EQ_OPT_TSTAMP_LEN) {
		__be32 ts = bpf_htonl((__u32)bpf_ktime_get_ns());

		o[0] = EQ_OPT_TSTAMP;
		o[1] = EQ_OPT_TSTAMP_LEN;
		__builtin_memcpy(&o[2], &ts, sizeof(ts));
	}
	/* A word at a time: the verifier wants a constant length. */
#pragma unroll
	for (__u32 i = 0; i < EQ_PEER_OPT_MAX / 4; i++) {
		if (i * 4 >= len)
			break;
		if (bpf_skb_store_bytes(skb, off + i * 4, &o[i * 4], 4, 0))
			return -1;
	}
	return 0;
}

/* Encapsulates skb for peer.  With `bucket` (a live agent lending credit)
 * a packet the lease covers is stamped as a fast send and *fast set. */
static __always_inline int encap(struct __sk_buff *skb, const struct eq_config *cfg,
				 struct eq_peer *peer, __u32 slot, struct eq_peer_stats *ps,
				 const struct inner_info *in, struct eq_stats *st,
				 struct eq_credit *bucket, __u32 sched_path, bool *fast, __u32 *need)
{
	bool v6 = peer->flags & EQ_PEER_V6;
	__u32 overhead = v6 ? EQ_OVERHEAD_V6 : EQ_OVERHEAD_V4;
	__u32 inner_len = skb->len - ETH_HLEN;
	bool gso = skb->gso_size != 0;	/* plain TCP skbs have gso_segs 1, gso_size 0 */
	__u32 segs = gso && skb->gso_segs ? skb->gso_segs : 1;
	/* Over IPv6 a TCP GSO packet's segments are numbered by the segment
	 * option (wire.h), for which the route MTU keeps room; over IPv4 by
	 * the outer ID.  The segments of any other GSO packet share a seq,
	 * which only EQDS's tunnels (the agent's peers) number. */
	bool seg_opt = v6 && gso && in->l4 == IPPROTO_TCP && segs <= EQ_SEG_MAX &&
		       skb->gso_size <= 0xffff && eq_scheme_has_agent(cfg->scheme) &&
		       !(peer->flags & EQ_PEER_PLAIN);
	/* The peer's scheme's options, in every DATA header (eq_peer.opt_words),
	 * after the segment option: TC fills TSTAMP, pads the rest, and the
	 * agent stamps what it sends. */
	__u32 peer_opt = (__u32)peer->opt_words * 4;
	__u32 seg_len = seg_opt ? EQ_OPT_SEG_LEN : 0;

	if (peer_opt > EQ_PEER_OPT_MAX)
		peer_opt = EQ_PEER_OPT_MAX;
	/* A keyed peer's headers end with the AUTH option (auth.h), signed
	 * last, over everything else TC wrote. */
	const struct eq_peer_keys *keys = NULL;

	if (peer->flags & EQ_PEER_KEYED) {
		keys = bpf_map_lookup_elem(&eq_keys, &slot);
		if (!keys || !eq_keys_on(keys)) {
			st->tx_err_peer++;
			return TC_ACT_SHOT;
		}
	}
	__u32 auth_len = keys ? EQ_OPT_AUTH_LEN : 0;
	__u32 opt_len = seg_len + peer_opt + auth_len, room = overhead + opt_len;
	struct data_fields d = {};
	__u64 flags;
	__u32 entropy;
	__u16 path;

	/* A GSO packet is cut to the route MTU (lowered by `edgeq attach`)
	 * before it gets here, segment by segment; a single packet has to
	 * fit as it is. */
	if (!gso && inner_len + overhead + peer_opt + auth_len > cfg->mtu) {
		st->tx_err_too_big++;
		return TC_ACT_SHOT;
	}

	/* The agent's scheme may pick the path (eq_credit.path: REPS). */
	if (sched_path & EQ_PATH_SET)
		entropy = sched_path & EQ_SPORT_MASK;
	else
		entropy = cfg->entropy == EQ_ENTROPY_PACKET ? bpf_get_prandom_u32()
							    : bpf_get_hash_recalc(skb);
	path = entropy & EQ_SPORT_MASK;

	flags = BPF_F_ADJ_ROOM_ENCAP_L4_UDP | BPF_F_ADJ_ROOM_FIXED_GSO |
		(v6 ? BPF_F_ADJ_ROOM_ENCAP_L3_IPV6 : BPF_F_ADJ_ROOM_ENCAP_L3_IPV4);
	flags |= BPF_F_ADJ_ROOM_ENCAP_L2(EQ_HDR_LEN + opt_len);
	if (bpf_skb_adjust_room(skb, room, BPF_ADJ_ROOM_MAC, flags)) {
		st->tx_err_adjust++;
		return TC_ACT_SHOT;
	}
	/* Only now, with nothing left that can fail: leased credit and its
	 * seq cannot be given back. */
	*fast = bucket && fast_take(skb, bucket, in, room, !v6 || seg_opt, gso, segs,
				     cfg->xdp_mode == EQ_XDP_GENERIC, &d);
	*need = d.need ? d.need : ~0u;	/* ~0: never on lease (IPv6 GSO, UDP GSO, ...) */
	if (!*fast) {
		/* Segments of one GSO packet share this seq; the receiver
		 * adds the index the outer IPv4 ID or the segment option
		 * gives.  The agent restamps what TC hands it. */
		d.seq = __sync_fetch_and_add(&peer->tx_seq, segs);
	}

	__u32 total = inner_len + room;	/* per-segment lengths are fixed up by GSO */

	if (total > 0xffff)
		total = 0xffff;
	if (v6) {
		struct outer_v6 o = {};
		__u8 tc = eq_tos_encap(in->tos);

		o.ip.version = 6;
		o.ip.priority = tc >> 4;
		o.ip.flow_lbl[0] = (tc & 0x0f) << 4 | ((entropy >> 16) & 0x0f);
		o.ip.flow_lbl[1] = entropy >> 8;
		o.ip.flow_lbl[2] = entropy;
		o.ip.payload_len = bpf_htons(total - sizeof(struct ipv6hdr));
		o.ip.nexthdr = IPPROTO_UDP;
		o.ip.hop_limit = 64;
		__builtin_memcpy(&o.ip.saddr, &cfg->local6, 16);
		__builtin_memcpy(&o.ip.daddr, &peer->underlay, 16);
		o.udp.source = bpf_htons(EQ_SPORT_BASE | path);
		o.udp.dest = bpf_htons(cfg->port);
		o.udp.len = o.ip.payload_len;
		/* Zero UDP checksum over IPv6 for a tunnel: RFC 6935/6936.  The
		 * inner packet keeps its own checksums end to end. */
		o.udp.check = 0;
		fill_eq(&o.eq, cfg, in->proto, path, opt_len, &d);
		if (bpf_skb_store_bytes(skb, ETH_HLEN, &o, sizeof(o), 0))
			goto store_err;
		if (seg_opt) {
			struct eq_opt_seg so = { .kind = EQ_OPT_SEG, .len = EQ_OPT_SEG_LEN };
			__be32 tcp_seq;

			/* The inner TCP header's seq, 4 bytes in. */
			if (bpf_skb_load_bytes(skb, ETH_HLEN + room + in->ihl + 4, &tcp_seq,
					       sizeof(tcp_seq)))
				goto store_err;
			so.mss = bpf_htons(skb->gso_size);
			so.tcp_seq0 = tcp_seq;
			if (bpf_skb_store_bytes(skb, ETH_HLEN + sizeof(o), &so, sizeof(so), 0))
				goto store_err;
		}
	} else {
		struct outer_v4 o = {};

		o.ip.version = 4;
		o.ip.ihl = 5;
		o.ip.tos = eq_tos_encap(in->tos);
		o.ip.tot_len = bpf_htons(total);
		o.ip.id = 0;
		o.ip.frag_off = bpf_htons(0x4000);	/* DF: never fragment the tunnel */
		o.ip.ttl = 64;
		o.ip.protocol = IPPROTO_UDP;
		__builtin_memcpy(&o.ip.saddr, &cfg->local4.a[12], 4);
		__builtin_memcpy(&o.ip.daddr, &peer->underlay.a[12], 4);
		o.ip.check = eq_ipv4_hdr_csum(&o.ip);
		o.udp.source = bpf_htons(EQ_SPORT_BASE | path);
		o.udp.dest = bpf_htons(cfg->port);
		o.udp.len = bpf_htons(total - sizeof(struct iphdr));
		o.udp.check = 0;	/* optional over IPv4 */
		fill_eq(&o.eq, cfg, in->proto, path, opt_len, &d);
		if (bpf_skb_store_bytes(skb, ETH_HLEN, &o, sizeof(o), 0))
			goto store_err;
	}
	if (peer_opt && scheme_opts(skb, peer, ETH_HLEN + overhead + seg_len, peer_opt))
		goto store_err;
	if (keys && auth_sign(skb, keys, (ETH_HLEN + overhead - EQ_HDR_LEN) << 16 | (EQ_HDR_LEN + opt_len),
			      v6 ? &cfg->local6 : &cfg->local4, &peer->underlay)) {
		st->tx_err_auth++;
		return TC_ACT_SHOT;
	}

	/* The outer family decides the Ethernet type. */
	__be16 etype = bpf_htons(v6 ? ETH_P_IPV6 : ETH_P_IP);

	if (bpf_skb_store_bytes(skb, offsetof(struct ethhdr, h_proto), &etype, sizeof(etype), 0))
		goto store_err;

	if (ps) {
		ps->tx_packets += segs;
		ps->tx_bytes += inner_len;
	}
	st->tx_encap++;
	return TC_ACT_OK;

store_err:
	st->tx_err_adjust++;
	return TC_ACT_SHOT;
}

/* A fast send's copy into eq_copies (lease.h), when it fits a record:
 * no wake-up, the agent reads them whenever it wakes.  False when it did
 * not go (too big, the ring full): the clone goes instead. */
static __always_inline bool copy_to_ring(struct __sk_buff *skb)
{
	__u32 len = skb->len;
	struct eq_copy *c;

	if (len < ETH_HLEN || len > EQ_COPY_FRAME_MAX)
		return false;
	c = bpf_ringbuf_reserve(&eq_copies, sizeof(*c), 0);
	if (!c)
		return false;
	c->len = len;
	if (bpf_skb_load_bytes(skb, 0, c->frame, len)) {
		bpf_ringbuf_discard(c, BPF_RB_NO_WAKEUP);
		return false;
	}
	bpf_ringbuf_submit(c, BPF_RB_NO_WAKEUP);
	return true;
}

SEC("tc")
int tc_egress(struct __sk_buff *skb)
{
	__u32 zero = 0;
	struct eq_config *cfg = bpf_map_lookup_elem(&eq_config, &zero);
	struct eq_stats *st = bpf_map_lookup_elem(&eq_stats, &zero);
	struct inner_info in = {};
	struct eq_prefix_val *pv;
	struct eq_peer_stats *ps;
	struct eq_peer *peer;
	bool fast = false;

	if (!cfg || !st)
		return TC_ACT_OK;
	if (skb->protocol != bpf_htons(ETH_P_IP) && skb->protocol != bpf_htons(ETH_P_IPV6)) {
		st->tx_non_ip++;
		return TC_ACT_OK;
	}
	if (parse_inner(skb, &in)) {
		/* Headers may sit in a fragment: pull them into the linear part. */
		if (bpf_skb_pull_data(skb, ETH_HLEN + sizeof(struct ipv6hdr)) &&
		    bpf_skb_pull_data(skb, ETH_HLEN + sizeof(struct iphdr)))
			goto malformed;
		if (parse_inner(skb, &in))
			goto malformed;
	}

	pv = bpf_map_lookup_elem(&eq_prefixes, &in.key);
	if (!pv) {
		st->tx_miss++;
		return TC_ACT_OK;
	}
	peer = bpf_map_lookup_elem(&eq_peers, &pv->peer);
	if (!peer || !(peer->flags & EQ_PEER_USED) ||
	    !(cfg->flags & ((peer->flags & EQ_PEER_V6) ? EQ_CFG_HAS_V6 : EQ_CFG_HAS_V4))) {
		st->tx_err_peer++;
		return TC_ACT_SHOT;
	}
	ps = bpf_map_lookup_elem(&eq_peer_stats, &pv->peer);
	/* A peer of scheme none goes as scheme none goes, whatever the
	 * attachment's agent runs for the others. */
	if (eq_scheme_has_agent(cfg->scheme) && !(peer->flags & EQ_PEER_PLAIN)) {
		__u32 agent = eq_agent_live_flags(cfg);

		if ((agent & EQ_AGENT_READY) && !bare_tcp_ack(skb, &in)) {
			struct eq_credit *bucket = bpf_map_lookup_elem(&eq_credit, &pv->peer);
			/* Before encap(): growing the packet clears gso_segs. */
			__u32 segs = skb->gso_size && skb->gso_segs ? skb->gso_segs : 1;
			bool gso = skb->gso_size;
			__u32 need;
			int rc = encap(skb, cfg, peer, pv->peer, ps, &in, st, bucket,
				       bucket ? bucket->path : 0, &fast, &need);

			if (rc != TC_ACT_OK)
				return rc;
			if (fast) {
				/* On the wire now; the agent keeps a copy until
				 * it is ACKed.  The copy goes through its own veth
				 * pair, to a socket the agent reads whenever it
				 * wakes but does not wake for.  Without the copy
				 * the packet still goes: inner TCP repairs a loss,
				 * while sending it to the agent instead would leave
				 * its seq a hole the receiver waits out
				 * (reorder_timeout). */
				if (!gso && (agent & EQ_AGENT_READS_COPIES) && copy_to_ring(skb))
					st->tx_fast_ring++;
				else if (bpf_clone_redirect(skb, cfg->copy_ifindex, 0))
					st->tx_fast_noclone += segs;
				st->tx_fast += segs;	/* by segment, as the copies come */
				return TC_ACT_OK;
			}
			if (bucket) {
				/* Read before the agent wrote taken: never negative. */
				__s32 transit = bucket->handed - bucket->taken;
				__u32 waiting = (transit > 0 ? transit : 0) + bucket->queued;

				/* The lease does not cover it, and the packet's
				 * TCP socket has data in flight: its ACKs bring
				 * the packet back (TCP keeps what the device
				 * refused), by when pulls will have topped the
				 * lease up, or emptied the edge queue for the
				 * lease to open again.  Handed to the agent, it
				 * would take the lease back, and keep the queue
				 * full: the tunnel's bulk would go through the
				 * agent for good.  Only when the lease is closed
				 * and nothing waits (the tunnel's first packets,
				 * resends first), or when no lease could ever hold
				 * it (a GSO packet above 1 BDP: held back, TCP
				 * shrank its window to 2 segments), does it join
				 * the agent's queue. */
				if (cfg->tunnel.hold_tcp &&
				    ((bucket->lease.parts.bytes & EQ_LEASE_OPEN) || waiting) &&
				    need <= bucket->cap && tcp_clocked(skb)) {
					st->tx_credit_wait++;
					/* The agent asks the receiver for it: its
					 * doorbell, once until it has looked. */
					__sync_fetch_and_add(&bucket->held, 1);
					if (!__sync_lock_test_and_set(&bucket->held_rung, 1)) {
						bpf_ringbuf_output(&eq_bell, &pv->peer,
								   sizeof(pv->peer), 0);
						st->bell_tx_held++;
					}
					return TC_ACT_SHOT;
				}
				/* The edge queue is full: refused, not dropped.
				 * The stack keeps the packet (TCP sends it again
				 * with its next ACK, as after a full qdisc) and
				 * slows down, instead of the agent losing it.
				 * A TCP packet no ACK would bring back soon (a
				 * SYN, a connection's first) has room up to
				 * twice the limit (EQ_EDGE_UNCLOCKED): refused,
				 * it waited 200 ms to 1 s behind a bulk flow to
				 * the same peer. */
				if ((agent & EQ_AGENT_SHOWS_QUEUE) &&
				    eq_edge_refuses(waiting,
						    in.l4 == IPPROTO_TCP && !tcp_clocked(skb) ?
						    EQ_EDGE_UNCLOCKED * cfg->tunnel.edge_limit :
						    cfg->tunnel.edge_limit)) {
					st->tx_backpressure++;
					return TC_ACT_SHOT;
				}
				/* Nothing may overtake this packet on a fast
				 * send until the agent has sent it: an open
				 * lease is shut, and the agent opens no new one
				 * before it has read every packet handed to it. */
				if ((bucket->lease.parts.bytes & EQ_LEASE_OPEN) &&
				    eq_lease_shut(&bucket->lease.word))
					st->tx_lease_shut++;
				__sync_fetch_and_add(&bucket->handed, segs);
			}
			/* Out of eqa, whose missing offloads make the kernel
			 * segment and checksum, into eqb and the agent. */
			st->tx_to_agent++;
			return bpf_redirect(cfg->agent_ifindex, 0);
		}
		if (agent & EQ_AGENT_READY) {
			/* A bare TCP ACK: encapsulated below, frame_len 0. */
			st->tx_bare_ack++;
		} else {
			/* Bare ACKs too: on_agent_down is the user's choice
			 * for everything the tunnel carries. */
			st->tx_agent_down++;
			if (cfg->on_agent_down == EQ_DOWN_PASS)
				return TC_ACT_OK;
			if (cfg->on_agent_down == EQ_DOWN_DROP)
				return TC_ACT_SHOT;
			/* EQ_DOWN_TUNNEL: as without an agent.  frame_len
			 * stays 0, which tells the peer's XDP to deliver it
			 * without its agent. */
		}
	}
	__u32 need, sched_path = 0;

	if (eq_scheme_has_agent(cfg->scheme) && !(peer->flags & EQ_PEER_PLAIN)) {
		struct eq_credit *b = bpf_map_lookup_elem(&eq_credit, &pv->peer);

		/* A bare ACK takes the scheme's path too: on the flow's,
		 * a black-holed link took every one of its ACKs. */
		if (b)
			sched_path = b->path;
	}
	return encap(skb, cfg, peer, pv->peer, ps, &in, st, NULL, sched_path, &fast, &need);

malformed:
	st->tx_err_malformed++;
	return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
