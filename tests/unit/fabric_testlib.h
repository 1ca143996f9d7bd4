/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the unit tests of the software switch
 * (tests/unit/test_fabric_*.c; the switch is tests/fabric/switch/):
 *
 *  - struct tf_spec + tf_build(): an Ethernet frame of any length with an
 *    IPv4 or IPv6 header, a UDP, TCP or other L4 header, optionally an
 *    edgeq header (any version, type, flags, hdr_len with options), a
 *    payload pattern, and valid checksums everywhere.
 *  - tf_ip4_csum_ok(), tf_l4_csum_ok(): checksum verifiers written here
 *    byte by byte from RFC 1071 / RFC 768 / RFC 8200, independent of
 *    include/edgeq/csum.h and of the switch's own UDP checksum.
 *
 * Include this (it includes testlib.h, hence cmocka) once per test file.
 */
#ifndef EDGEQ_TEST_UNIT_FABRIC_TESTLIB_H
#define EDGEQ_TEST_UNIT_FABRIC_TESTLIB_H

#include "testlib.h"
#include <stdbool.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "edgeq/wire.h"
#include "switch/frame.h"

#define TF_ETH		14
#define TF_MTU_FRAME	1514

struct tf_spec {
	int	 family;		/* 4 or 6 */
	uint8_t	 proto;			/* IPPROTO_UDP, IPPROTO_TCP or anything */
	uint8_t	 tos;			/* IPv4 TOS / IPv6 traffic class, ECN included */
	uint8_t	 ttl;			/* TTL / hop limit */
	uint8_t	 ip_opt_words;		/* IPv4 options (NOPs), 4-byte words */
	uint16_t ip_id;
	uint16_t frag;			/* IPv4 flags + fragment offset (host order) */
	uint32_t flow_label;		/* IPv6, 20 bits */
	uint8_t	 src[16], dst[16];	/* IPv4: the first 4 bytes */
	uint16_t sport, dport;
	uint32_t len;			/* the whole frame */
	uint32_t seed;			/* payload pattern */
	bool	 eq;			/* an edgeq header after the UDP header */
	uint8_t	 eq_ver, eq_type, eq_flags;
	uint8_t	 eq_hdr_len;		/* words; options are hdr_len*4 - 20 bytes */
	uint32_t eq_seq;
	uint8_t	 mac_dst[6], mac_src[6];
};

static inline void tf_addr(int family, const char *s, uint8_t out[16])
{
	memset(out, 0, 16);
	if (inet_pton(family == 4 ? AF_INET : AF_INET6, s, out) != 1)
		fail_msg("inet_pton(\"%s\") failed", s);
}

/* A UDP datagram src:sport -> dst:dport, `len` bytes of frame in all. */
static inline struct tf_spec tf_udp(int family, const char *src, const char *dst,
				    uint16_t sport, uint16_t dport, uint32_t len)
{
	struct tf_spec s = {
		.family = family, .proto = IPPROTO_UDP, .ttl = 64, .sport = sport,
		.dport = dport, .len = len, .eq_ver = EQ_WIRE_VERSION, .eq_type = EQ_T_DATA,
		.eq_hdr_len = EQ_HDR_WORDS, .eq_seq = 1,
		.mac_dst = {0x02, 0, 0, 0, 0, 0xd1}, .mac_src = {0x02, 0, 0, 0, 0, 0x51},
	};

	tf_addr(family, src, s.src);
	tf_addr(family, dst, s.dst);
	return s;
}

/* An edgeq packet (default: DATA, version 1, hdr_len 5) to port 7446. */
static inline struct tf_spec tf_eq(int family, const char *src, const char *dst, uint32_t len)
{
	struct tf_spec s = tf_udp(family, src, dst, EQ_SPORT_BASE | 5, EQ_DEFAULT_PORT, len);

	s.eq = true;
	s.proto = IPPROTO_UDP;
	return s;
}

/* ---- independent checksums (RFC 1071, byte by byte) ------------------------ */

static inline uint64_t tf_sum(const uint8_t *p, size_t n, uint64_t acc)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		acc += (uint64_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		acc += (uint64_t)p[n - 1] << 8;
	return acc;
}

static inline uint16_t tf_fold(uint64_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

static inline uint16_t tf_rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline void tf_wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

/* The IPv4 header (options included) of frame f sums to all ones. */
static inline bool tf_ip4_csum_ok(const uint8_t *f)
{
	const uint8_t *ip = f + TF_ETH;

	return tf_fold(tf_sum(ip, (ip[0] & 0xf) * 4u, 0)) == 0xffff;
}

/* Sum of the pseudo-header for an L4 segment of `l4len` bytes. */
static inline uint64_t tf_pseudo(const uint8_t *ip, int family, uint8_t proto, uint32_t l4len)
{
	if (family == 4)
		return tf_sum(ip + 12, 8, 0) + proto + l4len;
	return tf_sum(ip + 8, 32, 0) + proto + (l4len >> 16) + (l4len & 0xffff);
}

/* L4 offset and length from the IP header of f (no IPv6 extension headers). */
static inline void tf_l4(const uint8_t *f, int *family, uint32_t *off, uint32_t *l4len, uint8_t *proto)
{
	const uint8_t *ip = f + TF_ETH;

	if ((ip[0] >> 4) == 4) {
		*family = 4;
		*off = TF_ETH + (ip[0] & 0xf) * 4u;
		*l4len = tf_rd16(ip + 2) - (ip[0] & 0xf) * 4u;
		*proto = ip[9];
	} else {
		*family = 6;
		*off = TF_ETH + 40;
		*l4len = tf_rd16(ip + 4);
		*proto = ip[6];
	}
}

/* The UDP or TCP checksum of f is present and right, over the lengths its
 * IP header claims (which must lie within len). */
static inline bool tf_l4_csum_ok(const uint8_t *f, uint32_t len)
{
	uint32_t off, l4len;
	uint8_t proto;
	int family;

	tf_l4(f, &family, &off, &l4len, &proto);
	if (off + l4len > len)
		return false;
	if (proto == IPPROTO_UDP && tf_rd16(f + off + 6) == 0)
		return false;	/* "no checksum": never what the switch should write */
	return tf_fold(tf_pseudo(f + TF_ETH, family, proto, l4len) + tf_sum(f + off, l4len, 0)) == 0xffff;
}

/* ---- building frames ------------------------------------------------------- */

/* Fills in the L4 checksum of a frame whose headers are complete. */
static inline void tf_fix_l4_csum(uint8_t *f)
{
	uint32_t off, l4len;
	uint8_t proto;
	int family;
	uint16_t c;

	tf_l4(f, &family, &off, &l4len, &proto);
	if (proto != IPPROTO_UDP && proto != IPPROTO_TCP)
		return;
	uint8_t *ck = f + off + (proto == IPPROTO_UDP ? 6 : 16);
	tf_wr16(ck, 0);
	c = (uint16_t)~tf_fold(tf_pseudo(f + TF_ETH, family, proto, l4len) + tf_sum(f + off, l4len, 0));
	if (proto == IPPROTO_UDP && c == 0)
		c = 0xffff;
	tf_wr16(ck, c);
}

static inline void tf_fix_ip4_csum(uint8_t *f)
{
	uint8_t *ip = f + TF_ETH;

	tf_wr16(ip + 10, 0);
	tf_wr16(ip + 10, (uint16_t)~tf_fold(tf_sum(ip, (ip[0] & 0xf) * 4u, 0)));
}

/* Header bytes in front of the payload (L4 and edgeq included). */
static inline uint32_t tf_hdrs_len(const struct tf_spec *s)
{
	uint32_t n = TF_ETH + (s->family == 4 ? 20u + s->ip_opt_words * 4u : 40u);

	if (s->proto == IPPROTO_UDP)
		n += 8 + (s->eq ? s->eq_hdr_len * 4u : 0);
	else if (s->proto == IPPROTO_TCP)
		n += 20;
	return n;
}

/* Writes the frame into f (at least s->len bytes); returns s->len. */
static inline uint32_t tf_build(uint8_t *f, const struct tf_spec *s)
{
	uint32_t l3 = TF_ETH, ihl = s->family == 4 ? 20u + s->ip_opt_words * 4u : 40u;
	uint32_t l4 = l3 + ihl, pay;
	uint8_t *ip = f + l3;

	if (s->len < tf_hdrs_len(s) || s->len > FRAME_MAX)
		fail_msg("tf_build: %u bytes cannot hold the headers (%u)", s->len, tf_hdrs_len(s));
	memcpy(f, s->mac_dst, 6);
	memcpy(f + 6, s->mac_src, 6);
	tf_wr16(f + 12, s->family == 4 ? 0x0800 : 0x86dd);
	memset(ip, 0, ihl);
	if (s->family == 4) {
		ip[0] = (uint8_t)(0x40 | ihl / 4);
		ip[1] = s->tos;
		tf_wr16(ip + 2, (uint16_t)(s->len - l3));
		tf_wr16(ip + 4, s->ip_id);
		tf_wr16(ip + 6, s->frag);
		ip[8] = s->ttl;
		ip[9] = s->proto;
		memcpy(ip + 12, s->src, 4);
		memcpy(ip + 16, s->dst, 4);
		memset(ip + 20, 1, ihl - 20);	/* NOP options */
	} else {
		uint32_t w = 6u << 28 | (uint32_t)s->tos << 20 | (s->flow_label & 0xfffff);

		ip[0] = (uint8_t)(w >> 24); ip[1] = (uint8_t)(w >> 16);
		ip[2] = (uint8_t)(w >> 8); ip[3] = (uint8_t)w;
		tf_wr16(ip + 4, (uint16_t)(s->len - l4));
		ip[6] = s->proto;
		ip[7] = s->ttl;
		memcpy(ip + 8, s->src, 16);
		memcpy(ip + 24, s->dst, 16);
	}
	pay = l4;
	if (s->proto == IPPROTO_UDP) {
		uint8_t *u = f + l4;

		tf_wr16(u, s->sport);
		tf_wr16(u + 2, s->dport);
		tf_wr16(u + 4, (uint16_t)(s->len - l4));
		tf_wr16(u + 6, 0);
		pay = l4 + 8;
		if (s->eq) {
			uint8_t *e = f + pay;
			uint32_t hl = s->eq_hdr_len * 4u;

			memset(e, 0, hl);
			e[0] = (uint8_t)(s->eq_ver << 4 | (s->eq_type & 0xf));
			e[1] = s->eq_flags;
			e[2] = s->eq_hdr_len;
			e[3] = EQ_PROTO_IPV4;
			tf_wr16(e + 4, 0x0102);			/* sender_id */
			tf_wr16(e + 6, s->sport & EQ_SPORT_MASK);	/* path_id */
			e[8] = (uint8_t)(s->eq_seq >> 24); e[9] = (uint8_t)(s->eq_seq >> 16);
			e[10] = (uint8_t)(s->eq_seq >> 8); e[11] = (uint8_t)s->eq_seq;
			for (uint32_t i = EQ_HDR_LEN; i < hl; i++)	/* options: recognisable bytes */
				e[i] = (uint8_t)(0xa0 + i);
			pay += hl;
		}
	} else if (s->proto == IPPROTO_TCP) {
		uint8_t *t = f + l4;

		memset(t, 0, 20);
		tf_wr16(t, s->sport);
		tf_wr16(t + 2, s->dport);
		t[12] = 5 << 4;
		t[13] = 0x10;	/* ACK */
		tf_wr16(t + 14, 65535);
		pay = l4 + 20;
	}
	for (uint32_t i = pay; i < s->len; i++)
		f[i] = (uint8_t)(i * 7 + s->seed * 13 + 1);
	if (s->family == 4)
		tf_fix_ip4_csum(f);
	tf_fix_l4_csum(f);
	return s->len;
}

/* The 16-byte form frame_parse gives a destination: IPv4 as ::ffff:a.b.c.d. */
static inline void tf_mapped(int family, const uint8_t *a, uint8_t out[16])
{
	if (family == 6) {
		memcpy(out, a, 16);
		return;
	}
	memset(out, 0, 10);
	out[10] = out[11] = 0xff;
	memcpy(out + 12, a, 4);
}

#endif /* EDGEQ_TEST_UNIT_FABRIC_TESTLIB_H */
