// SPDX-License-Identifier: GPL-2.0-only
/* edgeq frames in the agent: parse, stamp, build, decapsulate. */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include "edgeq/wire.h"
#include "edgeq/csum.h"
#include "edgeq/ecn.h"
#include "frame.h"

static void v4_mapped(struct eq_addr *a, const void *v4)
{
	memset(a->a, 0, 10);
	a->a[10] = a->a[11] = 0xff;
	memcpy(&a->a[12], v4, 4);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* The options from o up to lim into h (docs/wire.md 2.6): each kind this
 * version knows, at its defined length or longer (a longer one's extra
 * bytes skipped); unknown kinds skipped; a malformed one (len below 2, or
 * past lim) ends the walk, as every receiver's walk does, and what came
 * before it stands.  SEG is not here: the seq (eqf_parse) reads it. */
static void parse_opts(const uint8_t *o, const uint8_t *lim, struct eqt_hdr *h)
{
	while (o < lim) {
		if (o[0] == EQ_OPT_PAD) {
			o++;
			continue;
		}
		if (lim - o < 2 || o[1] < 2 || o[1] > lim - o)
			return;
		switch (o[0]) {
		case EQ_OPT_TSTAMP:
			if (o[1] >= EQ_OPT_TSTAMP_LEN) {
				h->ts = get32(o + 2);
				h->ts_echo = get32(o + 6);
				h->opts |= EQT_OPT(EQ_OPT_TSTAMP);
			}
			break;
		case EQ_OPT_CREDIT:
			if (o[1] >= EQ_OPT_CREDIT_LEN) {
				h->credit = get32(o + 2);
				h->opts |= EQT_OPT(EQ_OPT_CREDIT);
			}
			break;
		case EQ_OPT_SRC:
			if (o[1] >= EQ_OPT_SRC_LEN) {
				h->src_qbytes = get32(o + 2);
				h->src_mbps = get32(o + 6);
				h->opts |= EQT_OPT(EQ_OPT_SRC);
			}
			break;
		case EQ_OPT_QID:
			if (o[1] >= EQ_OPT_QID_LEN) {
				h->qid = (uint16_t)(o[2] << 8 | o[3]);
				h->opts |= EQT_OPT(EQ_OPT_QID);
			}
			break;
		case EQ_OPT_PATH:
			if (o[1] >= EQ_OPT_PATH_LEN) {
				h->path_echo = (uint16_t)(o[2] << 8 | o[3]);
				h->opts |= EQT_OPT(EQ_OPT_PATH);
			}
			break;
		}
		o += o[1];
	}
}

uint32_t eqf_opts_len(const struct eqt_hdr *h)
{
	return eq_opts_room(h->opts);
}

/* h's options into o (room bytes, at least eqf_opts_len(h)), the rest of
 * room padded. */
static void write_opts(uint8_t *o, uint32_t room, const struct eqt_hdr *h)
{
	uint8_t *p = o;

	memset(o, EQ_OPT_PAD, room);
	if (h->opts & EQT_OPT(EQ_OPT_TSTAMP)) {
		p[0] = EQ_OPT_TSTAMP;
		p[1] = EQ_OPT_TSTAMP_LEN;
		put32(p + 2, h->ts);
		put32(p + 6, h->ts_echo);
		p += EQ_OPT_TSTAMP_LEN;
	}
	if (h->opts & EQT_OPT(EQ_OPT_CREDIT)) {
		p[0] = EQ_OPT_CREDIT;
		p[1] = EQ_OPT_CREDIT_LEN;
		put32(p + 2, h->credit);
		p += EQ_OPT_CREDIT_LEN;
	}
	if (h->opts & EQT_OPT(EQ_OPT_SRC)) {
		p[0] = EQ_OPT_SRC;
		p[1] = EQ_OPT_SRC_LEN;
		put32(p + 2, h->src_qbytes);
		put32(p + 6, h->src_mbps);
		p += EQ_OPT_SRC_LEN;
	}
	if (h->opts & EQT_OPT(EQ_OPT_QID)) {
		p[0] = EQ_OPT_QID;
		p[1] = EQ_OPT_QID_LEN;
		p[2] = h->qid >> 8;
		p[3] = (uint8_t)h->qid;
		p += EQ_OPT_QID_LEN;
	}
	if (h->opts & EQT_OPT(EQ_OPT_PATH)) {
		p[0] = EQ_OPT_PATH;
		p[1] = EQ_OPT_PATH_LEN;
		p[2] = h->path_echo >> 8;
		p[3] = (uint8_t)h->path_echo;
	}
}

int eqf_parse(const uint8_t *f, uint32_t len, uint16_t port, struct eqf_info *fi)
{
	const struct ethhdr *eth = (const void *)f;
	const struct udphdr *udp;
	const struct eq_hdr *eq;
	uint32_t l3 = ETH_HLEN, udp_len, eq_len, ip_id = 0;

	memset(fi, 0, sizeof(*fi));
	if (len < ETH_HLEN)
		return -EINVAL;
	fi->l3_off = l3;
	if (eth->h_proto == htons(ETH_P_IP)) {
		struct iphdr ip;

		if (len < l3 + sizeof(ip))
			return -EINVAL;
		memcpy(&ip, f + l3, sizeof(ip));
		if (ip.version != 4 || ip.ihl != 5 || ip.protocol != IPPROTO_UDP ||
		    ntohs(ip.tot_len) > len - l3 || ntohs(ip.tot_len) < sizeof(ip) + sizeof(*udp))
			return -EINVAL;
		v4_mapped(&fi->src, &ip.saddr);
		v4_mapped(&fi->dst, &ip.daddr);
		fi->outer_ecn = ip.tos & EQ_ECN_MASK;
		ip_id = ntohs(ip.id);
		udp = (const void *)(f + l3 + sizeof(ip));
		udp_len = ntohs(ip.tot_len) - sizeof(ip);
	} else if (eth->h_proto == htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;

		if (len < l3 + sizeof(ip6))
			return -EINVAL;
		memcpy(&ip6, f + l3, sizeof(ip6));
		if (ip6.version != 6 || ip6.nexthdr != IPPROTO_UDP ||
		    ntohs(ip6.payload_len) > len - l3 - sizeof(ip6))
			return -EINVAL;
		memcpy(fi->src.a, &ip6.saddr, 16);
		memcpy(fi->dst.a, &ip6.daddr, 16);
		fi->v6 = true;
		fi->outer_ecn = (ip6.flow_lbl[0] >> 4) & EQ_ECN_MASK;
		udp = (const void *)(f + l3 + sizeof(ip6));
		udp_len = ntohs(ip6.payload_len);
	} else {
		return -EINVAL;
	}
	if (udp_len < sizeof(*udp) + EQ_HDR_LEN || ntohs(udp->dest) != port ||
	    ntohs(udp->len) != udp_len)
		return -EINVAL;
	fi->eq_off = (const uint8_t *)udp - f + sizeof(*udp);
	eq = (const void *)(f + fi->eq_off);
	eq_len = eq->hdr_len * 4u;
	fi->eq_len = (uint16_t)eq_len;
	if (eq_version(eq) != EQ_WIRE_VERSION || eq_type(eq) > EQ_T_MAX ||
	    eq_len < EQ_HDR_LEN || eq_len > udp_len - sizeof(*udp))
		return -EINVAL;
	fi->hdr.type = eq_type(eq);
	fi->hdr.flags = eq->flags;
	fi->hdr.path_id = ntohs(eq->path_id);
	fi->hdr.seq_ack = ntohl(eq->data.seq);
	fi->hdr.pull = ntohl(eq->data.pull_target);
	fi->hdr.aux = ntohl(eq->data.frame_len);
	fi->hdr.ce = fi->outer_ecn == EQ_ECN_CE;
	fi->hdr.wire_len = len;
	if (eq_len > EQ_HDR_LEN)
		parse_opts(f + fi->eq_off + EQ_HDR_LEN, f + fi->eq_off + eq_len, &fi->hdr);
	if (fi->hdr.type == EQ_T_DATA || fi->hdr.type == EQ_T_TRIMMED) {
		/* Segments of a GSO packet share the header: the outer IPv4
		 * ID, which segmentation counts up from 0, says which one this
		 * is (wire.h).  Every other sender sends ID 0. */
		fi->hdr.seq_ack += ip_id;
		/* Over IPv6, the segment option and the inner TCP seq do; a
		 * trimmed segment has none left to read. */
		if (eq_len > EQ_HDR_LEN) {
			int idx = eq_seg_of(eq, f + len);

			if (idx < 0)
				return fi->hdr.type == EQ_T_TRIMMED ? -ENOMSG : -EINVAL;
			fi->hdr.seq_ack += (uint32_t)idx;
		}
		/* frame_len is a full segment's: the last one is shorter. */
		if (fi->hdr.type == EQ_T_DATA && fi->hdr.aux > len)
			fi->hdr.aux = len;
	}
	if (fi->hdr.type != EQ_T_DATA)
		return 0;
	fi->inner_off = fi->eq_off + eq_len;
	fi->inner_len = udp_len - sizeof(*udp) - eq_len;
	fi->inner_proto = eq->proto;
	if (eq->proto == EQ_PROTO_IPV4) {
		if (fi->inner_len < 20 || (f[fi->inner_off] >> 4) != 4 ||
		    ((f[fi->inner_off + 2] << 8) | f[fi->inner_off + 3]) != fi->inner_len)
			return -EINVAL;
		fi->inner_l4 = f[fi->inner_off + 9];
	} else if (eq->proto == EQ_PROTO_IPV6) {
		if (fi->inner_len < 40 || (f[fi->inner_off] >> 4) != 6 ||
		    ((f[fi->inner_off + 4] << 8) | f[fi->inner_off + 5]) + 40u != fi->inner_len)
			return -EINVAL;
		fi->inner_l4 = f[fi->inner_off + 6];
	} else {
		return -EINVAL;
	}
	return 0;
}

static void write_eq(struct eq_hdr *eq, const struct eqt_hdr *h)
{
	eq->ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, h->type);
	eq->flags = h->flags;
	eq->data.seq = htonl(h->seq_ack);
	eq->data.pull_target = htonl(h->pull);
	eq->data.frame_len = htonl(h->aux);
}

/* The scheme's path for a DATA packet (REPS): the outer UDP source port
 * the fabric's ECMP hashes, and an IPv6 underlay's flow label, as TC
 * writes its own entropy (tc_egress.bpf.c).  The outer UDP checksum is
 * 0, as TC leaves it: nothing to fix. */
static void stamp_path(uint8_t *f, const struct eqf_info *fi, uint16_t path)
{
	uint16_t sport = htons(EQ_SPORT_BASE | path);

	memcpy(f + fi->eq_off - sizeof(struct udphdr), &sport, sizeof(sport));
	if (fi->v6) {
		f[fi->l3_off + 1] &= 0xf0;	/* the traffic class's low half stays */
		f[fi->l3_off + 2] = path >> 8;
		f[fi->l3_off + 3] = (uint8_t)path;
	}
}

int eqf_stamp_data(uint8_t *f, const struct eqf_info *fi, const struct eqt_hdr *h, uint32_t keep)
{
	uint32_t room, need = eqf_opts_len(h) + keep;
	struct eq_hdr eq;
	int rc = 0;

	memcpy(&eq, f + fi->eq_off, sizeof(eq));
	write_eq(&eq, h);
	if (h->path_set)
		eq.path_id = htons(h->path_id & EQ_SPORT_MASK);
	memcpy(f + fi->eq_off, &eq, sizeof(eq));
	if (h->path_set)
		stamp_path(f, fi, h->path_id & EQ_SPORT_MASK);
	room = eq.hdr_len * 4u - EQ_HDR_LEN;
	if (need > room)
		rc = -ENOSPC;
	if (room) {
		/* The whole room is the agent's now: the scheme's options if
		 * they fit, padding for the rest.  What TC wrote goes: the
		 * segment option (the seq is this segment's own), and a
		 * TSTAMP of when TC encapsulated, not of this send. */
		static const struct eqt_hdr none;

		write_opts(f + fi->eq_off + EQ_HDR_LEN, room, rc ? &none : h);
	}
	if (fi->v6 && h->ect && !(f[fi->l3_off + 1] & (EQ_ECN_MASK << 4)))
		f[fi->l3_off + 1] |= EQ_ECN_ECT0 << 4;
	if (!fi->v6) {
		struct iphdr ip;

		/* Every segment of a GSO packet carries its own seq now: the
		 * receiver must not add the ID the segmentation counted. */
		memcpy(&ip, f + fi->l3_off, sizeof(ip));
		if (h->ect && !(ip.tos & EQ_ECN_MASK))
			ip.tos |= EQ_ECN_ECT0;
		ip.id = 0;
		ip.check = 0;
		ip.check = eq_ipv4_hdr_csum(&ip);
		memcpy(f + fi->l3_off, &ip, sizeof(ip));
	}
	return rc;
}

uint32_t eqf_ctl_eq_off(const struct eqf_route *r)
{
	return ETH_HLEN + (r->v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr)) +
	       sizeof(struct udphdr);
}

uint32_t eqf_build_ctl(uint8_t *buf, uint32_t size, const struct eqf_route *r,
		       const struct eqt_hdr *h, uint16_t path, uint32_t tail)
{
	uint32_t l3 = r->v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	uint32_t opts = eqf_opts_len(h) + ((tail + 3) & ~3u);
	uint32_t len = eqf_ctl_eq_off(r) + EQ_HDR_LEN + opts;
	struct ethhdr eth;
	struct udphdr udp;
	struct eq_hdr eq;

	if (size < len)
		return 0;
	memcpy(eth.h_dest, r->eth_dst, 6);
	memcpy(eth.h_source, r->eth_src, 6);
	eth.h_proto = htons(r->v6 ? ETH_P_IPV6 : ETH_P_IP);
	memcpy(buf, &eth, sizeof(eth));
	if (r->v6) {
		struct ipv6hdr ip6 = { .version = 6 };

		ip6.flow_lbl[0] = (path >> 16) & 0x0f;
		ip6.flow_lbl[1] = path >> 8;
		ip6.flow_lbl[2] = path;
		ip6.payload_len = htons(len - ETH_HLEN - l3);
		ip6.nexthdr = IPPROTO_UDP;
		ip6.hop_limit = 64;
		memcpy(&ip6.saddr, r->src.a, 16);
		memcpy(&ip6.daddr, r->dst.a, 16);
		memcpy(buf + ETH_HLEN, &ip6, sizeof(ip6));
	} else {
		struct iphdr ip = { .version = 4, .ihl = 5, .ttl = 64, .protocol = IPPROTO_UDP };

		ip.tot_len = htons(len - ETH_HLEN);
		ip.frag_off = htons(0x4000);
		memcpy(&ip.saddr, &r->src.a[12], 4);
		memcpy(&ip.daddr, &r->dst.a[12], 4);
		ip.check = eq_ipv4_hdr_csum(&ip);
		memcpy(buf + ETH_HLEN, &ip, sizeof(ip));
	}
	udp.source = htons(EQ_SPORT_BASE | (path & EQ_SPORT_MASK));
	udp.dest = htons(r->port);
	udp.len = htons(len - ETH_HLEN - l3);
	udp.check = 0;
	memcpy(buf + ETH_HLEN + l3, &udp, sizeof(udp));
	memset(&eq, 0, sizeof(eq));
	eq.hdr_len = EQ_HDR_WORDS + opts / 4;
	eq.sender_id = htons(r->node_id);
	eq.path_id = htons(path & EQ_SPORT_MASK);
	write_eq(&eq, h);
	memcpy(buf + ETH_HLEN + l3 + sizeof(udp), &eq, sizeof(eq));
	if (opts)
		write_opts(buf + ETH_HLEN + l3 + sizeof(udp) + EQ_HDR_LEN, opts, h);
	return len;
}

/* The message a tag covers (auth.h) into msg: its length. */
static uint32_t auth_msg(uint8_t *msg, const uint8_t *eq, uint32_t eq_len,
			 const struct eq_addr *src, const struct eq_addr *dst)
{
	memcpy(msg, src->a, 16);
	memcpy(msg + 16, dst->a, 16);
	memcpy(msg + EQ_AUTH_ADDRS, eq, eq_len - EQ_AUTH_TAG_LEN);
	/* A trimming switch turned DATA into TRIMMED: the tag is DATA's. */
	if (eq_type((const struct eq_hdr *)eq) == EQ_T_TRIMMED)
		msg[EQ_AUTH_ADDRS] = eq_mk_ver_type(eq_version((const struct eq_hdr *)eq), EQ_T_DATA);
	return EQ_AUTH_ADDRS + eq_len - EQ_AUTH_TAG_LEN;
}

int eqf_auth_sign(uint8_t *eq, uint32_t eq_len, const struct eq_addr *src,
		  const struct eq_addr *dst, const uint8_t *key, uint8_t id)
{
	uint8_t msg[EQ_AUTH_MSG_MAX];
	struct eq_opt_auth *o;

	if (eq_len < EQ_HDR_LEN + EQ_OPT_AUTH_LEN || eq_len > EQ_AUTH_HDR_MAX)
		return -ENOSPC;
	o = (void *)(eq + eq_len - EQ_OPT_AUTH_LEN);
	o->kind = EQ_OPT_AUTH;
	o->len = EQ_OPT_AUTH_LEN;
	o->key_id = id;
	o->zero = 0;
	eq_auth_tag(key, msg, auth_msg(msg, eq, eq_len, src, dst), o->tag);
	return 0;
}

int eqf_auth_check(const uint8_t *f, const struct eqf_info *fi, const struct eq_peer_keys *k)
{
	const uint8_t *eq = f + fi->eq_off;
	uint8_t msg[EQ_AUTH_MSG_MAX], tag[EQ_AUTH_TAG_LEN], diff = 0;
	const struct eq_opt_auth *o;
	int slot;

	if (fi->eq_len < EQ_HDR_LEN + EQ_OPT_AUTH_LEN || fi->eq_len > EQ_AUTH_HDR_MAX)
		return -ENOKEY;
	o = (const void *)(eq + fi->eq_len - EQ_OPT_AUTH_LEN);
	if (o->kind != EQ_OPT_AUTH || o->len != EQ_OPT_AUTH_LEN ||
	    (slot = eq_key_slot(k, o->key_id)) < 0)
		return -ENOKEY;
	eq_auth_tag(k->key[slot], msg, auth_msg(msg, eq, fi->eq_len, &fi->src, &fi->dst), tag);
	/* In constant time: how many bytes matched says nothing. */
	for (int i = 0; i < EQ_AUTH_TAG_LEN; i++)
		diff |= tag[i] ^ o->tag[i];
	return diff ? -EBADMSG : 0;
}

void eqf_route_reply(const uint8_t *f, const struct eqf_info *fi, uint16_t port,
		     uint16_t node_id, struct eqf_route *r)
{
	const struct ethhdr *eth = (const void *)f;

	memcpy(r->eth_dst, eth->h_source, 6);
	memcpy(r->eth_src, eth->h_dest, 6);
	r->src = fi->dst;
	r->dst = fi->src;
	r->v6 = fi->v6;
	r->port = port;
	r->node_id = node_id;
}

uint8_t *eqf_decap(uint8_t *f, const struct eqf_info *fi, const uint8_t dst[6],
		   const uint8_t src[6], uint32_t *out_len)
{
	uint8_t *in = f + fi->inner_off;
	struct ethhdr eth;
	uint8_t inner_ecn, ecn;

	if (fi->inner_proto == EQ_PROTO_IPV4) {
		inner_ecn = in[1] & EQ_ECN_MASK;
		ecn = eq_ecn_decap(inner_ecn, fi->outer_ecn);
		if (ecn == EQ_ECN_DROP)
			return NULL;
		if (ecn != inner_ecn) {
			uint16_t old, new_, check;

			memcpy(&old, in, 2);
			in[1] = (in[1] & ~EQ_ECN_MASK) | ecn;
			memcpy(&new_, in, 2);
			memcpy(&check, in + 10, 2);
			check = eq_csum_replace2(check, old, new_);
			memcpy(in + 10, &check, 2);
		}
	} else {
		inner_ecn = (in[1] >> 4) & EQ_ECN_MASK;
		ecn = eq_ecn_decap(inner_ecn, fi->outer_ecn);
		if (ecn == EQ_ECN_DROP)
			return NULL;
		in[1] = (in[1] & 0xcf) | (ecn << 4);
	}
	memcpy(eth.h_dest, dst, 6);
	memcpy(eth.h_source, src, 6);
	eth.h_proto = htons(fi->inner_proto == EQ_PROTO_IPV6 ? ETH_P_IPV6 : ETH_P_IP);
	memcpy(in - ETH_HLEN, &eth, sizeof(eth));
	*out_len = fi->inner_len + ETH_HLEN;
	return in - ETH_HLEN;
}

bool eqf_tcp_pure_ack(const uint8_t *f, const struct eqf_info *fi)
{
	uint32_t ihl, doff;
	const uint8_t *tcp;

	if (fi->hdr.type != EQ_T_DATA || fi->inner_l4 != 6)
		return false;
	ihl = fi->inner_proto == EQ_PROTO_IPV4 ? (f[fi->inner_off] & 0x0fu) * 4 : 40;
	if (ihl < 20 || ihl + 20 > fi->inner_len)
		return false;
	tcp = f + fi->inner_off + ihl;
	doff = (uint32_t)(tcp[12] >> 4) * 4;
	return doff >= 20 && ihl + doff == fi->inner_len && !(tcp[13] & 0x07);	/* FIN SYN RST */
}

uint8_t eqf_flow(const uint8_t *f, const struct eqf_info *fi)
{
	bool v4 = fi->inner_proto == EQ_PROTO_IPV4;
	uint32_t ihl, alen = v4 ? 8 : 32, h = 2166136261u;	/* FNV-1a */
	const uint8_t *ip = f + fi->inner_off;

	if (fi->hdr.type != EQ_T_DATA || fi->inner_len < (v4 ? 20 : 40))
		return 0;
	ihl = v4 ? (ip[0] & 0x0fu) * 4 : 40;
	for (uint32_t i = 0; i < alen; i++)	/* source and destination */
		h = (h ^ ip[(v4 ? 12 : 8) + i]) * 16777619u;
	h = (h ^ fi->inner_l4) * 16777619u;
	if ((fi->inner_l4 == 6 || fi->inner_l4 == 17) && ihl >= 20 && ihl + 4 <= fi->inner_len)
		for (uint32_t i = 0; i < 4; i++)	/* the ports */
			h = (h ^ ip[ihl + i]) * 16777619u;
	return (uint8_t)(h ^ h >> 8 ^ h >> 16 ^ h >> 24);
}
