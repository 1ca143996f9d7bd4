// SPDX-License-Identifier: GPL-2.0-only
/*
 * eqload's UDP payloads (see datagram.h).
 */
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "load/datagram.h"

#define ETH_LEN		14
#define UDP_LEN		8
#define IPV4_LEN	20
#define IPV6_LEN	40

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

size_t eql_dg_max_payload(int family)
{
	/* 16-bit IP total length (IPv4) or payload length (IPv6). */
	return family == AF_INET6 ? 65535 - UDP_LEN : 65535 - IPV4_LEN - UDP_LEN;
}

uint64_t eql_dg_frame_bytes(uint64_t payload, int family)
{
	return payload + UDP_LEN + (family == AF_INET6 ? IPV6_LEN : IPV4_LEN) + ETH_LEN;
}

void eql_dg_encode(uint8_t *buf, size_t len, bool edgeq, uint64_t seq, uint64_t send_ns)
{
	if (edgeq) {
		struct eq_hdr h;

		memset(&h, 0, sizeof(h));
		h.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_DATA);
		h.hdr_len = EQ_HDR_WORDS;
		h.proto = EQL_DG_EDGEQ_PROTO;
		h.sender_id = htons(EQL_DG_SENDER_ID);
		h.data.seq = htonl((uint32_t)seq);
		memcpy(buf, &h, sizeof(h));
		buf += EQ_HDR_LEN;
	}
	put64(buf, seq);
	put64(buf + 8, send_ns);
}

static int decode_edgeq(const uint8_t *buf, size_t len, struct eql_dg_info *out)
{
	struct eq_hdr h;
	size_t hlen;

	if (len < EQ_HDR_LEN)
		return -1;
	memcpy(&h, buf, sizeof(h));
	hlen = (size_t)h.hdr_len * 4;
	if (eq_version(&h) != EQ_WIRE_VERSION || h.hdr_len < EQ_HDR_WORDS || hlen > len)
		return -1;
	if (eq_type(&h) != EQ_T_DATA && eq_type(&h) != EQ_T_TRIMMED)
		return -1;
	memset(out, 0, sizeof(*out));
	if (eq_type(&h) == EQ_T_TRIMMED || (h.flags & EQ_F_TRIMMED) || len < hlen + 8) {
		out->trimmed = true;
		out->seq = ntohl(h.data.seq);
		return 0;
	}
	out->seq = get64(buf + hlen);
	if (len >= hlen + EQL_DG_SEQ_LEN) {
		out->send_ns = get64(buf + hlen + 8);
		out->has_time = true;
	}
	return 0;
}

int eql_dg_decode(const uint8_t *buf, size_t len, bool edgeq, struct eql_dg_info *out)
{
	if (edgeq)
		return decode_edgeq(buf, len, out);
	if (len < 8)
		return -1;
	memset(out, 0, sizeof(*out));
	out->seq = get64(buf);
	if (len >= EQL_DG_SEQ_LEN) {
		out->send_ns = get64(buf + 8);
		out->has_time = true;
	}
	return 0;
}
