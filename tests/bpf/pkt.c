// SPDX-License-Identifier: GPL-2.0-only
/* Packet builders and map fixtures for the BPF tests: see pkt.h. */
#include <arpa/inet.h>		/* before the linux/ headers: libc-compat */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pkt.h"
#include "edgeq/auth.h"
#include "stats.h"

const uint8_t pkt_mac_src[6] = { 0x02, 0, 0, 0, 0, 0x0a };
const uint8_t pkt_mac_dst[6] = { 0x02, 0, 0, 0, 0, 0x0b };

#define V4(b0, b1, b2, b3) { .a = { [10] = 0xff, [11] = 0xff, [12] = b0, [13] = b1, [14] = b2, [15] = b3 } }
#define V6(w0, w1, w7) { .a = { (w0) >> 8, (w0) & 0xff, (w1) >> 8, (w1) & 0xff, [14] = (w7) >> 8, [15] = (w7) & 0xff } }

/* Documentation ranges: underlay 192.0.2.0/24 and 2001:db8::/64; overlay
 * 10.<n>.0.0/16 and fd00:<n>::/64. */
const struct pkt_host pkt_host_a = {
	.name = "A", .node_id = 0x0a,
	.under4 = V4(192, 0, 2, 1), .under6 = V6(0x2001, 0xdb8, 1),
	.ovl4 = V4(10, 1, 0, 5), .ovl6 = V6(0xfd00, 1, 5),
	.net4 = V4(10, 1, 0, 0), .net6 = V6(0xfd00, 1, 0), .net4_len = 16, .net6_len = 64,
};
const struct pkt_host pkt_host_b = {
	.name = "B", .node_id = 0x0b,
	.under4 = V4(192, 0, 2, 2), .under6 = V6(0x2001, 0xdb8, 2),
	.ovl4 = V4(10, 2, 0, 7), .ovl6 = V6(0xfd00, 2, 7),
	.net4 = V4(10, 2, 0, 0), .net6 = V6(0xfd00, 2, 0), .net4_len = 16, .net6_len = 64,
};

struct eq_addr pkt_addr(const char *text)
{
	struct eq_addr a = { 0 };

	if (inet_pton(AF_INET6, text, a.a) == 1)
		return a;
	a.a[10] = a.a[11] = 0xff;
	if (inet_pton(AF_INET, text, &a.a[12]) == 1)
		return a;
	fprintf(stderr, "pkt_addr: bad address '%s'\n", text);
	abort();
}

bool pkt_addr_is_v4(const struct eq_addr *a)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(a->a, mapped, sizeof(mapped)) == 0;
}

/* ---- Checksums (RFC 1071) ---- */

static uint32_t sum16(uint32_t sum, const void *p, size_t len)
{
	const uint8_t *b = p;

	for (; len > 1; b += 2, len -= 2)
		sum += (uint32_t)b[0] << 8 | b[1];
	if (len)
		sum += (uint32_t)b[0] << 8;
	return sum;
}

static uint16_t fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Pseudo-header sum for an IPv4 or IPv6 packet's L4 payload. */
static uint32_t pseudo_sum(const uint8_t *ip, uint8_t proto, size_t l4_len)
{
	uint32_t sum;

	if ((ip[0] >> 4) == 4)
		sum = sum16(0, ip + 12, 8);		/* saddr, daddr */
	else
		sum = sum16(0, ip + 8, 32);
	return sum + proto + (uint32_t)(l4_len >> 16) + (uint32_t)(l4_len & 0xffff);
}

bool pkt_ipv4_csum_ok(const uint8_t *ip)
{
	return fold(sum16(0, ip, (ip[0] & 0x0f) * 4)) == 0;
}

void pkt_ipv4_fix_csum(uint8_t *ip)
{
	struct iphdr *h = (struct iphdr *)ip;

	h->check = 0;
	h->check = htons(fold(sum16(0, ip, h->ihl * 4)));
}

/* Where an IP packet's L4 header starts and which protocol it is. */
static size_t l4_of(const uint8_t *ip, uint8_t *proto)
{
	if ((ip[0] >> 4) == 4) {
		*proto = ((const struct iphdr *)ip)->protocol;
		return (ip[0] & 0x0f) * 4;
	}
	*proto = ((const struct ipv6hdr *)ip)->nexthdr;
	return sizeof(struct ipv6hdr);
}

bool pkt_l4_csum_ok(const uint8_t *ip, size_t len)
{
	uint8_t proto;
	size_t off = l4_of(ip, &proto);
	uint32_t sum = 0;

	if (off > len)
		return false;
	if (proto != IPPROTO_ICMP)	/* ICMPv4 has no pseudo-header */
		sum = pseudo_sum(ip, proto, len - off);
	return fold(sum16(sum, ip + off, len - off)) == 0;
}

uint8_t pkt_ip_tos(const uint8_t *ip)
{
	if ((ip[0] >> 4) == 4)
		return ip[1];
	return (uint8_t)((ip[0] & 0x0f) << 4 | ip[1] >> 4);
}

/* ---- Plain packets ---- */

void pkt_spec_init(struct pkt_spec *s, int family, uint8_t l4,
		   const struct pkt_host *from, const struct pkt_host *to)
{
	memset(s, 0, sizeof(*s));
	s->family = family;
	s->l4 = l4;
	s->src = family == AF_INET ? from->ovl4 : from->ovl6;
	s->dst = family == AF_INET ? to->ovl4 : to->ovl6;
	s->ttl = 64;
	s->sport = 40000;
	s->dport = 80;
	s->payload_len = 100;
	s->seed = 0x5a;
}

static size_t l4_hdr_len(uint8_t l4)
{
	return l4 == IPPROTO_TCP ? sizeof(struct tcphdr) : 8;	/* UDP, ICMP echo */
}

size_t pkt_build_ip(uint8_t *buf, size_t cap, const struct pkt_spec *s)
{
	size_t l3 = s->family == AF_INET ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	size_t l4len = l4_hdr_len(s->l4) + s->payload_len;
	uint8_t proto = s->l4;
	uint8_t *l4 = buf + l3;

	if (l3 + l4len > cap || l3 + l4len > 0xffff)
		return 0;
	memset(buf, 0, l3 + l4len);
	if (s->family == AF_INET) {
		struct iphdr *ip = (struct iphdr *)buf;

		ip->version = 4;
		ip->ihl = 5;
		ip->tos = s->tos;
		ip->tot_len = htons((uint16_t)(l3 + l4len));
		ip->id = htons(0x1234);
		ip->frag_off = htons(0x4000);
		ip->ttl = s->ttl;
		ip->protocol = proto;
		memcpy(&ip->saddr, &s->src.a[12], 4);
		memcpy(&ip->daddr, &s->dst.a[12], 4);
		pkt_ipv4_fix_csum(buf);
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)buf;

		if (proto == IPPROTO_ICMP)
			proto = IPPROTO_ICMPV6;
		ip6->version = 6;
		ip6->priority = s->tos >> 4;
		ip6->flow_lbl[0] = (uint8_t)((s->tos & 0x0f) << 4 | ((s->flow_label >> 16) & 0x0f));
		ip6->flow_lbl[1] = (uint8_t)(s->flow_label >> 8);
		ip6->flow_lbl[2] = (uint8_t)s->flow_label;
		ip6->payload_len = htons((uint16_t)l4len);
		ip6->nexthdr = proto;
		ip6->hop_limit = s->ttl;
		memcpy(&ip6->saddr, s->src.a, 16);
		memcpy(&ip6->daddr, s->dst.a, 16);
	}

	uint8_t *payload = l4 + l4_hdr_len(s->l4);

	for (size_t i = 0; i < s->payload_len; i++)
		payload[i] = (uint8_t)(s->seed + i);

	uint16_t *check;

	if (proto == IPPROTO_TCP) {
		struct tcphdr *th = (struct tcphdr *)l4;

		th->source = htons(s->sport);
		th->dest = htons(s->dport);
		th->seq = htonl(0x01020304);
		th->ack_seq = htonl(0x0a0b0c0d);
		th->doff = 5;
		th->ack = 1;
		th->psh = 1;
		th->window = htons(65535);
		check = &th->check;
	} else if (proto == IPPROTO_UDP) {
		struct udphdr *uh = (struct udphdr *)l4;

		uh->source = htons(s->sport);
		uh->dest = htons(s->dport);
		uh->len = htons((uint16_t)l4len);
		check = &uh->check;
	} else {			/* ICMP / ICMPv6 echo request */
		l4[0] = proto == IPPROTO_ICMP ? ICMP_ECHO : ICMPV6_ECHO_REQUEST;
		l4[4] = (uint8_t)(s->sport >> 8);
		l4[5] = (uint8_t)s->sport;
		l4[7] = 1;		/* sequence 1 */
		check = (uint16_t *)(l4 + 2);
	}

	uint32_t sum = proto == IPPROTO_ICMP ? 0 : pseudo_sum(buf, proto, l4len);
	uint16_t c = fold(sum16(sum, l4, l4len));

	if (proto == IPPROTO_UDP && c == 0)
		c = 0xffff;		/* 0 means "no checksum" for UDP */
	*check = htons(c);
	return l3 + l4len;
}

static void put_eth(uint8_t *buf, uint16_t proto)
{
	memcpy(buf, pkt_mac_dst, 6);
	memcpy(buf + 6, pkt_mac_src, 6);
	buf[12] = (uint8_t)(proto >> 8);
	buf[13] = (uint8_t)proto;
}

size_t pkt_build_frame(uint8_t *buf, size_t cap, const struct pkt_spec *s)
{
	size_t n;

	if (cap < PKT_ETH_LEN)
		return 0;
	n = pkt_build_ip(buf + PKT_ETH_LEN, cap - PKT_ETH_LEN, s);
	if (!n)
		return 0;
	put_eth(buf, s->family == AF_INET ? ETH_P_IP : ETH_P_IPV6);
	return PKT_ETH_LEN + n;
}

size_t pkt_build_arp(uint8_t *buf, size_t cap)
{
	static const uint8_t arp[28] = {
		0, 1, 8, 0, 6, 4, 0, 1,			/* Ethernet/IPv4, request */
		2, 0, 0, 0, 0, 0x0a, 192, 0, 2, 1,	/* sender */
		0, 0, 0, 0, 0, 0, 192, 0, 2, 2,		/* target */
	};

	if (cap < PKT_ETH_LEN + sizeof(arp))
		return 0;
	put_eth(buf, ETH_P_ARP);
	memset(buf, 0xff, 6);			/* broadcast */
	memcpy(buf + PKT_ETH_LEN, arp, sizeof(arp));
	return PKT_ETH_LEN + sizeof(arp);
}

/* ---- edgeq packets ---- */

void pkt_encap_init(struct pkt_encap *e, int family, const struct pkt_host *from,
		    const struct pkt_host *to, const void *inner, size_t inner_len)
{
	const uint8_t *in = inner;
	uint16_t path = 0x1234;

	memset(e, 0, sizeof(*e));
	e->family = family;
	e->src = family == AF_INET ? from->under4 : from->under6;
	e->dst = family == AF_INET ? to->under4 : to->under6;
	e->ttl = 64;
	e->ip_proto = IPPROTO_UDP;
	e->frag_off = 0x4000;			/* DF */
	e->sport = EQ_SPORT_BASE | path;
	e->dport = EQ_DEFAULT_PORT;
	e->ip_len = -1;
	e->udp_len = -1;
	e->eq.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_DATA);
	e->eq.hdr_len = EQ_HDR_WORDS;
	e->eq.proto = inner_len && (in[0] >> 4) == 6 ? EQ_PROTO_IPV6 : EQ_PROTO_IPV4;
	e->eq.sender_id = htons(from->node_id);
	e->eq.path_id = htons(path);
	e->eq.data.seq = htonl(1);
	e->inner = inner;
	e->inner_len = inner_len;
}

struct pkt_layout pkt_build_encap(uint8_t *buf, size_t cap, const struct pkt_encap *e)
{
	struct pkt_layout l = { .l3 = PKT_ETH_LEN };
	size_t l3len = e->family == AF_INET ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	size_t udp_len = sizeof(struct udphdr) + sizeof(e->eq) + e->opts_len + e->inner_len;

	l.l4 = l.l3 + l3len;
	l.eq = l.l4 + sizeof(struct udphdr);
	l.inner = l.eq + sizeof(e->eq) + e->opts_len;
	l.len = l.inner + e->inner_len;
	if (l.len > cap)
		return (struct pkt_layout){ 0 };
	memset(buf, 0, l.len);
	put_eth(buf, e->family == AF_INET ? ETH_P_IP : ETH_P_IPV6);

	if (e->family == AF_INET) {
		struct iphdr *ip = (struct iphdr *)(buf + l.l3);

		ip->version = 4;
		ip->ihl = 5;
		ip->tos = e->tos;
		ip->tot_len = htons((uint16_t)(e->ip_len >= 0 ? (size_t)e->ip_len : l3len + udp_len));
		ip->id = htons(e->ip_id);
		ip->frag_off = htons(e->frag_off);
		ip->ttl = e->ttl;
		ip->protocol = e->ip_proto;
		memcpy(&ip->saddr, &e->src.a[12], 4);
		memcpy(&ip->daddr, &e->dst.a[12], 4);
		pkt_ipv4_fix_csum((uint8_t *)ip);
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)(buf + l.l3);

		ip6->version = 6;
		ip6->priority = e->tos >> 4;
		ip6->flow_lbl[0] = (uint8_t)((e->tos & 0x0f) << 4);
		ip6->payload_len = htons((uint16_t)(e->ip_len >= 0 ? (size_t)e->ip_len : udp_len));
		ip6->nexthdr = e->ip_proto;
		ip6->hop_limit = e->ttl;
		memcpy(&ip6->saddr, e->src.a, 16);
		memcpy(&ip6->daddr, e->dst.a, 16);
	}

	struct udphdr *uh = (struct udphdr *)(buf + l.l4);

	uh->source = htons(e->sport);
	uh->dest = htons(e->dport);
	uh->len = htons((uint16_t)(e->udp_len >= 0 ? (size_t)e->udp_len : udp_len));
	uh->check = 0;			/* as edgeq senders do */
	memcpy(buf + l.eq, &e->eq, sizeof(e->eq));
	if (e->opts_len)
		memcpy(buf + l.eq + sizeof(e->eq), e->opts, e->opts_len);
	if (e->inner_len)
		memcpy(buf + l.inner, e->inner, e->inner_len);
	return l;
}

/* ---- Maps ---- */

static int err(int ret)
{
	return ret < 0 ? -errno : ret;
}

int pkt_get_config(const struct pkt_maps *m, struct eq_config *c)
{
	uint32_t zero = 0;

	return err(bpf_map_lookup_elem(m->config, &zero, c));
}

int pkt_set_config(const struct pkt_maps *m, const struct eq_config *c)
{
	uint32_t zero = 0;

	return err(bpf_map_update_elem(m->config, &zero, c, BPF_ANY));
}

int pkt_add_prefix(const struct pkt_maps *m, const struct eq_addr *a, unsigned len,
		   uint32_t slot)
{
	struct eq_prefix_key k = { .prefixlen = len + (pkt_addr_is_v4(a) ? 96 : 0), .addr = *a };
	struct eq_prefix_val v = { .peer = slot };

	return err(bpf_map_update_elem(m->prefixes, &k, &v, BPF_ANY));
}

int pkt_get_peer_stats(const struct pkt_maps *m, uint32_t slot, struct eq_peer_stats *c)
{
	return eq_peer_stats_sum(m->peer_stats, slot, c);
}

int pkt_get_peer(const struct pkt_maps *m, uint32_t slot, struct eq_peer *p)
{
	return err(bpf_map_lookup_elem(m->peers, &slot, p));
}

int pkt_set_peer(const struct pkt_maps *m, uint32_t slot, const struct eq_peer *p)
{
	return err(bpf_map_update_elem(m->peers, &slot, p, BPF_ANY));
}

int pkt_set_key(const struct pkt_maps *m, int keys_fd, const uint8_t *key, uint8_t id)
{
	struct eq_peer_keys k = { .id = { id }, .valid = 1 };
	uint32_t slot = PKT_PEER_SLOT;
	struct eq_peer p;
	int ret;

	memcpy(k.key[0], key, sizeof(k.key[0]));
	if ((ret = err(bpf_map_update_elem(keys_fd, &slot, &k, BPF_ANY))) ||
	    (ret = pkt_get_peer(m, slot, &p)))
		return ret;
	p.flags |= EQ_PEER_KEYED;
	return pkt_set_peer(m, slot, &p);
}

int pkt_add_underlay(const struct pkt_maps *m, const struct eq_addr *a, uint32_t slot)
{
	struct eq_underlay_val v = { .peer = slot };

	return err(bpf_map_update_elem(m->underlay, a, &v, BPF_ANY));
}

int pkt_read_stats(const struct pkt_maps *m, struct eq_stats *sum)
{
	return eq_stats_sum(m->stats, sum);
}

int pkt_stats_diff(const struct eq_stats *got, const struct eq_stats *want)
{
	int n = 0;

	for (size_t i = 0; i < eq_stat_count; i++) {
		uint64_t g = eq_stat_get(got, i), w = eq_stat_get(want, i);

		if (g != w) {
			fprintf(stderr, "# eq_stats.%s = %llu, expected %llu\n", eq_stat_names[i],
				(unsigned long long)g, (unsigned long long)w);
			n++;
		}
	}
	return n;
}

int pkt_setup_host(const struct pkt_maps *m, const struct pkt_host *self,
		   const struct pkt_host *peer, int under_family)
{
	struct eq_config c = {
		.local4 = self->under4,
		.local6 = self->under6,
		.flags = EQ_CFG_HAS_V4 | EQ_CFG_HAS_V6,
		.port = EQ_DEFAULT_PORT,
		.node_id = self->node_id,
		.mtu = PKT_MTU,
		.entropy = EQ_ENTROPY_FLOW,
	};
	struct eq_peer p = {
		.underlay = under_family == AF_INET ? peer->under4 : peer->under6,
		.flags = EQ_PEER_USED | (under_family == AF_INET6 ? EQ_PEER_V6 : 0),
	};
	int ret;

	if ((ret = pkt_set_config(m, &c)) ||
	    (ret = pkt_add_prefix(m, &peer->net4, peer->net4_len, PKT_PEER_SLOT)) ||
	    (ret = pkt_add_prefix(m, &peer->net6, peer->net6_len, PKT_PEER_SLOT)) ||
	    (ret = pkt_set_peer(m, PKT_PEER_SLOT, &p)) ||
	    (ret = pkt_add_underlay(m, &peer->under4, PKT_PEER_SLOT)) ||
	    (ret = pkt_add_underlay(m, &peer->under6, PKT_PEER_SLOT)))
		return ret;
	return 0;
}

/* ---- Running a program ---- */

int pkt_run_ctx(int prog_fd, const void *in, size_t len, const void *ctx, size_t ctx_len,
		int repeat, struct pkt_result *r)
{
	LIBBPF_OPTS(bpf_test_run_opts, o,
		.data_in = in,
		.data_size_in = (uint32_t)len,
		.data_out = r->out,
		.data_size_out = sizeof(r->out),
		.ctx_in = ctx,
		.ctx_size_in = (uint32_t)ctx_len,
		.repeat = repeat,
	);
	int ret = err(bpf_prog_test_run_opts(prog_fd, &o));

	r->retval = o.retval;
	r->duration = o.duration;
	r->len = o.data_size_out;
	return ret;
}

int pkt_run(int prog_fd, const void *in, size_t len, struct pkt_result *r)
{
	return pkt_run_ctx(prog_fd, in, len, NULL, 0, 1, r);
}

uint64_t pkt_rand(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}
