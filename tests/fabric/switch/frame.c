// SPDX-License-Identifier: GPL-2.0-only
/*
 * Frame parsing and the rewrites a switch does.  Everything is checked
 * against the frame length before it is read: the switch forwards whatever
 * hosts send, edgeq or not, well formed or not.
 */
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "edgeq/wire.h"
#include "edgeq/csum.h"
#include "switch/frame.h"

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

static uint32_t mix32(uint32_t h)
{
	/* murmur3 finaliser: every input bit affects every output bit */
	h ^= h >> 16; h *= 0x85ebca6b;
	h ^= h >> 13; h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

uint32_t frame_hash(const uint8_t *src, const uint8_t *dst, uint8_t proto,
		    uint16_t sport, uint16_t dport, uint32_t seed)
{
	uint32_t h = seed ^ 0x9e3779b9u, w;

	for (int i = 0; i < 16; i += 4) {
		memcpy(&w, src + i, 4); h = mix32(h ^ w);
		memcpy(&w, dst + i, 4); h = mix32(h ^ w);
	}
	return mix32(h ^ ((uint32_t)proto << 24) ^ ((uint32_t)sport << 8) ^ dport);
}

static void v4mapped(uint8_t out[16], const uint8_t *a)
{
	memset(out, 0, 10);
	out[10] = out[11] = 0xff;
	memcpy(out + 12, a, 4);
}

int frame_parse(const uint8_t *f, uint32_t len, uint16_t eq_port, uint32_t hash_seed,
		struct frame_info *fi)
{
	uint8_t src[16];
	uint32_t l3_len;
	uint16_t sport = 0, dport = 0;

	memset(fi, 0, sizeof(*fi));
	if (len < ETH_HLEN_)
		return FE_MALFORMED;
	fi->l3_off = ETH_HLEN_;
	switch (rd16(f + 12)) {
	case 0x0800: {
		const uint8_t *ip = f + ETH_HLEN_;
		uint32_t ihl, tot;

		if (len < ETH_HLEN_ + 20u || (ip[0] >> 4) != 4)
			return FE_MALFORMED;
		ihl = (ip[0] & 0xf) * 4u;
		tot = rd16(ip + 2);
		if (ihl < 20 || tot < ihl || ETH_HLEN_ + tot > len)
			return FE_MALFORMED;
		fi->family = 4;
		fi->proto = ip[9];
		fi->ecn = ip[1] & 3;
		fi->l4_off = (uint16_t)(ETH_HLEN_ + ihl);
		v4mapped(src, ip + 12);
		v4mapped(fi->dst, ip + 16);
		l3_len = tot;
		/* Only the first fragment carries ports. */
		if (rd16(ip + 6) & 0x1fff)
			fi->proto = 0;
		break;
	}
	case 0x86dd: {
		const uint8_t *ip = f + ETH_HLEN_;

		if (len < ETH_HLEN_ + 40u || (ip[0] >> 4) != 6)
			return FE_MALFORMED;
		l3_len = 40u + rd16(ip + 4);
		if (ETH_HLEN_ + l3_len > len)
			return FE_MALFORMED;
		fi->family = 6;
		fi->proto = ip[6];	/* extension headers: hashed and queued as "other" */
		fi->ecn = (uint8_t)((rd16(ip) >> 4) & 3);
		fi->l4_off = ETH_HLEN_ + 40;
		memcpy(src, ip + 8, 16);
		memcpy(fi->dst, ip + 24, 16);
		break;
	}
	default:
		return FE_NOT_IP;
	}

	fi->cls = FC_OTHER;
	if ((fi->proto == IPPROTO_UDP || fi->proto == IPPROTO_TCP) &&
	    fi->l4_off + 8u <= ETH_HLEN_ + l3_len) {
		sport = rd16(f + fi->l4_off);
		dport = rd16(f + fi->l4_off + 2);
	}
	if (fi->proto == IPPROTO_UDP && dport == eq_port &&
	    fi->l4_off + 8u + EQ_HDR_LEN <= ETH_HLEN_ + l3_len) {
		const struct eq_hdr *eh = (const void *)(f + fi->l4_off + 8);

		if (eq_version(eh) == EQ_WIRE_VERSION && eh->hdr_len >= EQ_HDR_WORDS)
			fi->cls = (eq_type(eh) == EQ_T_DATA && !(eh->flags & EQ_F_TRIMMED))
				? FC_EQ_DATA : FC_EQ_CTRL;
	}
	fi->flow_hash = frame_hash(src, fi->dst, fi->proto, sport, dport, hash_seed);
	return FE_OK;
}

bool frame_set_ce(uint8_t *f, const struct frame_info *fi)
{
	uint8_t *ip = f + fi->l3_off;

	if (fi->ecn == 0)
		return false;
	if (fi->family == 4) {
		uint16_t old = rd16(ip), new_ = (uint16_t)(old | 3), check;

		memcpy(&check, ip + 10, 2);
		check = eq_csum_replace2(check, htons(old), htons(new_));
		memcpy(ip + 10, &check, 2);
		ip[1] |= 3;
	} else {
		ip[1] |= 0x30;	/* traffic class straddles bytes 0-1: ECN is bits 4-5 of byte 1 */
	}
	return true;
}

/* Full UDP checksum over the pseudo-header and the (short) datagram. */
static uint16_t udp_csum(const uint8_t *ip, int family, const uint8_t *udp, uint32_t ulen)
{
	uint32_t sum = 0;
	uint32_t i;

	if (family == 4) {
		for (i = 12; i < 20; i += 2)
			sum += rd16(ip + i);
	} else {
		for (i = 8; i < 40; i += 2)
			sum += rd16(ip + i);
	}
	sum += IPPROTO_UDP + ulen;
	for (i = 0; i + 1 < ulen; i += 2)
		sum += (i == 6) ? 0 : rd16(udp + i);
	if (ulen & 1)
		sum += (uint32_t)udp[ulen - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = (uint16_t)~sum;
	return sum ? (uint16_t)sum : 0xffff;	/* 0 means "no checksum" in UDP */
}

uint32_t frame_trim(uint8_t *f, uint32_t len, const struct frame_info *fi)
{
	uint8_t *ip = f + fi->l3_off, *udp = f + fi->l4_off;
	struct eq_hdr *eh = (void *)(udp + 8);
	uint32_t ulen, newlen;

	if (fi->cls != FC_EQ_DATA)
		return 0;
	if (fi->family == 4 && fi->l4_off != fi->l3_off + 20)
		return 0;	/* edgeq never sends IPv4 options (its receivers drop them) */
	ulen = 8u + eh->hdr_len * 4u;
	newlen = fi->l4_off + ulen;
	if (newlen > len)	/* options claim more than there is: trim nothing */
		return 0;
	eh->ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_TRIMMED);
	eh->flags |= EQ_F_TRIMMED;
	wr16(udp + 4, (uint16_t)ulen);
	if (fi->family == 4) {
		wr16(ip + 2, (uint16_t)(newlen - fi->l3_off));
		ip[10] = ip[11] = 0;
		uint16_t c = eq_ipv4_hdr_csum(ip);	/* folded, in packet order */
		memcpy(ip + 10, &c, 2);
	} else {
		wr16(ip + 4, (uint16_t)ulen);
	}
	wr16(udp + 6, udp_csum(ip, fi->family, udp, ulen));
	return newlen;
}

bool frame_dec_ttl(uint8_t *f, const struct frame_info *fi)
{
	uint8_t *ip = f + fi->l3_off;

	if (fi->family == 4) {
		uint16_t old, new_, check;

		if (ip[8] <= 1)
			return false;
		old = rd16(ip + 8);
		ip[8]--;
		new_ = rd16(ip + 8);
		memcpy(&check, ip + 10, 2);
		check = eq_csum_replace2(check, htons(old), htons(new_));
		memcpy(ip + 10, &check, 2);
		return true;
	}
	if (ip[7] <= 1)
		return false;
	ip[7]--;
	return true;
}

void frame_set_macs(uint8_t *f, const uint8_t dst[6], const uint8_t src[6])
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
}
