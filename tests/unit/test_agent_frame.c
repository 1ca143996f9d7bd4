// SPDX-License-Identifier: GPL-2.0-only
/* user/agent/frame.c: parse, stamp, build and decapsulate edgeq frames. */
#include "testlib.h"
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include "edgeq/wire.h"
#include "edgeq/csum.h"
#include "edgeq/ecn.h"
#include "frame.h"

#define PORT 7446

static const uint8_t MAC_A[6] = { 2, 0, 0, 0, 0, 0xa }, MAC_B[6] = { 2, 0, 0, 0, 0, 0xb };

/* An encapsulated frame as TC builds it: eth | IPv4 | UDP | edgeq | inner
 * IPv4/UDP with `payload` bytes; outer and inner TOS given. */
static uint32_t mk_frame(uint8_t *f, uint32_t payload, uint8_t outer_tos, uint8_t inner_tos)
{
	uint32_t inner = 20 + 8 + payload, udp = 8 + EQ_HDR_LEN + inner, n = 14 + 20 + udp;
	uint8_t *ip = f + 14, *u = ip + 20, *eq = u + 8, *in = eq + EQ_HDR_LEN;
	uint16_t c;

	memset(f, 0, n);
	memcpy(f, MAC_B, 6);
	memcpy(f + 6, MAC_A, 6);
	f[12] = 0x08;
	ip[0] = 0x45; ip[1] = outer_tos; ip[2] = (20 + udp) >> 8; ip[3] = (20 + udp) & 0xff;
	ip[4] = 0x12; ip[5] = 0x34;	/* an ID as GSO counts it */
	ip[8] = 64; ip[9] = 17;
	ip[12] = 10; ip[13] = 0; ip[14] = 0; ip[15] = 1;
	ip[16] = 10; ip[17] = 0; ip[18] = 0; ip[19] = 2;
	c = eq_ipv4_hdr_csum(ip);
	memcpy(ip + 10, &c, 2);
	u[0] = 0xc0; u[1] = 0x07; u[2] = PORT >> 8; u[3] = PORT & 0xff;
	u[4] = udp >> 8; u[5] = udp & 0xff;
	eq[0] = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_DATA);
	eq[2] = EQ_HDR_WORDS;
	eq[3] = EQ_PROTO_IPV4;
	in[0] = 0x45; in[1] = inner_tos; in[2] = inner >> 8; in[3] = inner & 0xff;
	in[8] = 64; in[9] = 17;
	c = eq_ipv4_hdr_csum(in);
	memcpy(in + 10, &c, 2);
	for (uint32_t i = 0; i < payload; i++)
		in[28 + i] = (uint8_t)i;
	return n;
}

static void test_parse_data(void **state)
{
	uint8_t f[2048];
	uint32_t n = mk_frame(f, 100, 0, 0);
	struct eqf_info fi;

	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_false(fi.v6);
	assert_int_equal(fi.eq_off, 14 + 20 + 8);
	assert_int_equal(fi.inner_off, 14 + 20 + 8 + EQ_HDR_LEN);
	assert_int_equal(fi.inner_len, 128);
	assert_int_equal(fi.inner_l4, 17);
	assert_int_equal(fi.hdr.type, EQ_T_DATA);
	assert_int_equal(fi.dst.a[15], 2);
	assert_int_equal(fi.src.a[15], 1);
	assert_int_equal(fi.src.a[10], 0xff);
	assert_int_equal(eqf_parse(f, n, PORT + 1, &fi), -EINVAL);	/* another port */
}

/* Every truncation and every single-byte corruption of the headers is
 * either rejected or parsed into offsets that stay inside the frame. */
static void test_parse_never_trusts(void **state)
{
	uint8_t f[2048], g[2048];
	uint32_t n = mk_frame(f, 64, 0, 0);
	struct eqf_info fi;

	for (uint32_t len = 0; len < n; len++)
		assert_int_equal(eqf_parse(f, len, PORT, &fi), -EINVAL);
	rng_state = 42;
	for (int i = 0; i < 20000; i++) {
		memcpy(g, f, n);
		g[rnd32() % (14 + 20 + 8 + EQ_HDR_LEN + 20)] = (uint8_t)rnd32();
		if (eqf_parse(g, n, PORT, &fi) == 0 && fi.hdr.type == EQ_T_DATA)
			assert_true(fi.inner_off + fi.inner_len <= n);
	}
}

static void test_stamp(void **state)
{
	uint8_t f[2048];
	uint32_t n = mk_frame(f, 100, 2, 2);
	struct eqf_info fi, back;
	struct eqt_hdr h = { .type = EQ_T_DATA, .flags = EQ_F_SYN | EQ_F_RTX,
			      .seq_ack = 0xabcd0400, .pull = 77, .aux = n };

	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	eqf_stamp_data(f, &fi, &h, 0);
	assert_int_equal(eqf_parse(f, n, PORT, &back), 0);
	assert_int_equal(back.hdr.flags, EQ_F_SYN | EQ_F_RTX);
	assert_int_equal(back.hdr.seq_ack, 0xabcd0400);
	assert_int_equal(back.hdr.pull, 77);
	assert_int_equal(back.hdr.aux, n);
	assert_int_equal(f[14 + 4], 0);		/* IP ID 0: seq is per frame now */
	assert_int_equal(f[14 + 5], 0);
	assert_int_equal(eq_ipv4_hdr_csum(f + 14), 0);	/* a valid header checksum */
}

/* A scheme that reacts to CE itself asks for ECT on its DATA
 * (eqt_hdr.ect): a Not-ECT outer header becomes ECT(0), with a valid
 * IPv4 checksum; one the inner packet made ECT or the path marked stays
 * as it was; without the ask nothing changes (RFC 6040's copy). */
static void test_stamp_ect(void **state)
{
	static const struct { uint8_t tos; bool ect; uint8_t want; } c[] = {
		{ 0, true, EQ_ECN_ECT0 }, { 0, false, 0 }, { EQ_ECN_ECT1, true, EQ_ECN_ECT1 },
		{ EQ_ECN_CE, true, EQ_ECN_CE }, { 0x20, true, 0x20 | EQ_ECN_ECT0 },
	};

	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint8_t f[2048];
		uint32_t n = mk_frame(f, 100, c[i].tos, 0);
		struct eqf_info fi, back;
		struct eqt_hdr h = { .type = EQ_T_DATA, .seq_ack = 1, .aux = n, .ect = c[i].ect };

		assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
		eqf_stamp_data(f, &fi, &h, 0);
		assert_int_equal(f[14 + 1], c[i].want);
		assert_int_equal(eq_ipv4_hdr_csum(f + 14), 0);
		assert_int_equal(eqf_parse(f, n, PORT, &back), 0);
		assert_int_equal(back.outer_ecn, c[i].want & EQ_ECN_MASK);
	}
}

static void test_ctl_roundtrip(void **state)
{
	uint8_t f[2048], buf[128];
	uint32_t n = mk_frame(f, 10, 0, 0), m;
	struct eqf_info fi, ci;
	struct eqf_route r;
	struct eqt_hdr h = { .type = EQ_T_PULL, .seq_ack = 5, .pull = 9, .aux = 1234 };

	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	eqf_route_reply(f, &fi, PORT, 7, &r);
	assert_memory_equal(r.eth_dst, MAC_A, 6);
	assert_memory_equal(r.eth_src, MAC_B, 6);
	m = eqf_build_ctl(buf, sizeof(buf), &r, &h, 0x1234, 0);
	assert_int_equal(m, 14 + 20 + 8 + EQ_HDR_LEN);
	assert_int_equal(eqf_ctl_eq_off(&r), 14 + 20 + 8);	/* the header ends the frame */
	assert_int_equal(eqf_build_ctl(buf, m - 1, &r, &h, 0, 0), 0);
	assert_int_equal(eqf_parse(buf, m, PORT, &ci), 0);
	assert_int_equal(ci.hdr.type, EQ_T_PULL);
	assert_int_equal(ci.hdr.seq_ack, 5);
	assert_int_equal(ci.hdr.pull, 9);
	assert_int_equal(ci.hdr.aux, 1234);
	assert_memory_equal(&ci.src, &fi.dst, sizeof(ci.src));	/* back to the sender */
	assert_memory_equal(&ci.dst, &fi.src, sizeof(ci.dst));
	assert_int_equal(eq_ipv4_hdr_csum(buf + 14), 0);
	assert_int_equal(buf[14 + 6] & 0x40, 0x40);	/* DF */
	assert_int_equal(((buf[34] << 8) | buf[35]) & EQ_SPORT_MASK, 0x1234 & EQ_SPORT_MASK);

	r.v6 = true;
	memset(r.src.a, 0, 16); r.src.a[0] = 0xfd; r.src.a[15] = 1;
	memset(r.dst.a, 0, 16); r.dst.a[0] = 0xfd; r.dst.a[15] = 2;
	m = eqf_build_ctl(buf, sizeof(buf), &r, &h, 1, 0);
	assert_int_equal(m, 14 + 40 + 8 + EQ_HDR_LEN);
	assert_int_equal(eqf_ctl_eq_off(&r), 14 + 40 + 8);
	assert_int_equal(eqf_parse(buf, m, PORT, &ci), 0);
	assert_true(ci.v6);
	assert_int_equal(ci.hdr.pull, 9);
	assert_memory_equal(&ci.dst, &r.dst, 16);
}

static void test_decap_ecn(void **state)
{
	struct { uint8_t outer, inner, want; } cases[] = {
		{ EQ_ECN_CE, EQ_ECN_ECT0, EQ_ECN_CE },		/* the fabric's mark reaches TCP */
		{ EQ_ECN_ECT0, EQ_ECN_ECT0, EQ_ECN_ECT0 },
		{ EQ_ECN_NOT_ECT, EQ_ECN_ECT1, EQ_ECN_ECT1 },
		{ EQ_ECN_CE, EQ_ECN_NOT_ECT, 0xff },		/* RFC 6040: drop */
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t f[2048], *in;
		uint32_t n = mk_frame(f, 50, cases[i].outer, cases[i].inner), out = 0;
		struct eqf_info fi;

		assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
		in = eqf_decap(f, &fi, MAC_A, MAC_B, &out);
		if (cases[i].want == 0xff) {
			assert_null(in);
			continue;
		}
		assert_non_null(in);
		assert_int_equal(out, 14 + 20 + 8 + 50);
		assert_memory_equal(in, MAC_A, 6);
		assert_memory_equal(in + 6, MAC_B, 6);
		assert_int_equal(in[12], 0x08);
		assert_int_equal(in[13], 0x00);
		assert_int_equal(in[14 + 1] & 3, cases[i].want);
		assert_int_equal(eq_ipv4_hdr_csum(in + 14), 0);
		for (uint32_t b = 0; b < 50; b++)
			assert_int_equal(in[14 + 28 + b], (uint8_t)b);	/* payload untouched */
	}
}

/* mk_frame's inner packet made TCP: a 20-byte header with `flags`, then
 * `payload` bytes. */
static uint32_t mk_tcp(uint8_t *f, uint32_t payload, uint8_t flags)
{
	uint32_t n = mk_frame(f, 20 - 8 + payload, 0, 0);
	uint8_t *in = f + 14 + 20 + 8 + EQ_HDR_LEN;
	uint16_t c;

	in[9] = 6;
	in[10] = in[11] = 0;
	c = eq_ipv4_hdr_csum(in);
	memcpy(in + 10, &c, 2);
	in[20 + 12] = 5 << 4;
	in[20 + 13] = flags;
	return n;
}

static void test_tcp_pure_ack(void **state)
{
	uint8_t f[2048];
	struct eqf_info fi;
	uint32_t n;

	n = mk_tcp(f, 0, 0x10);				/* ACK */
	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_true(eqf_tcp_pure_ack(f, &fi));
	n = mk_tcp(f, 1, 0x10);				/* one byte of data */
	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_false(eqf_tcp_pure_ack(f, &fi));
	for (uint8_t fl = 0x01; fl <= 0x04; fl <<= 1) {	/* FIN, SYN, RST */
		n = mk_tcp(f, 0, 0x10 | fl);
		assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
		assert_false(eqf_tcp_pure_ack(f, &fi));
	}
	n = mk_frame(f, 0, 0, 0);			/* UDP, no payload */
	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_false(eqf_tcp_pure_ack(f, &fi));
	n = mk_tcp(f, 0, 0x10);				/* header longer than the packet */
	f[14 + 20 + 8 + EQ_HDR_LEN + 20 + 12] = 15 << 4;
	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_false(eqf_tcp_pure_ack(f, &fi));
}

/* eqf_flow: one flow, one bucket, whatever its payload; other ports,
 * other buckets (the edge queue's sparse flows first tells flows apart
 * by it). */
static void test_flow_bucket(void **state)
{
	uint8_t f[2048], seen[256] = { 0 };
	uint8_t *tcp = f + 14 + 20 + 8 + EQ_HDR_LEN + 20;
	struct eqf_info fi;
	uint32_t n, distinct = 0;
	uint8_t b0;

	(void)state;
	n = mk_tcp(f, 100, 0x18);
	tcp[0] = 0x9c; tcp[1] = 0x40;	/* source port 40000 */
	tcp[2] = 0x14; tcp[3] = 0x51;	/* destination port 5201 */
	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	b0 = eqf_flow(f, &fi);
	n = mk_tcp(f, 1000, 0x10);	/* the same flow, more payload */
	tcp[0] = 0x9c; tcp[1] = 0x40;
	tcp[2] = 0x14; tcp[3] = 0x51;
	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_int_equal(eqf_flow(f, &fi), b0);
	for (uint32_t port = 40000; port < 40064; port++) {
		tcp[0] = (uint8_t)(port >> 8);
		tcp[1] = (uint8_t)port;
		if (!seen[eqf_flow(f, &fi)]++)
			distinct++;
	}
	print_message("# 64 source ports: %u buckets of 256\n", distinct);
	assert_true(distinct >= 48);	/* a birthday bound: about 57 expected */
}

/* A segment of a TCP GSO packet over an IPv6 underlay, as TC's fast path
 * sends it (wire.h, the segment option): header seq 1000, segment size
 * 1400, inner TCP seq tcp_seq0 + 3 * 1400, 100 bytes of payload.  TRIMMED:
 * cut after the edgeq header, as a switch trims. */
static uint32_t mk_seg_frame(uint8_t *f, uint32_t tcp_seq0, bool trimmed)
{
	uint32_t inner = 20 + 20 + 100, eql = EQ_HDR_LEN + EQ_OPT_SEG_LEN;
	uint32_t udp = 8 + eql + (trimmed ? 0 : inner), n = 14 + 40 + udp;
	uint8_t *ip = f + 14, *u = ip + 40, *eq = u + 8, *in = eq + eql;
	struct eq_opt_seg so = { EQ_OPT_SEG, EQ_OPT_SEG_LEN, htons(1400), htonl(tcp_seq0) };
	uint32_t seq = htonl(1000), ts = htonl(tcp_seq0 + 3 * 1400);
	uint16_t c;

	memset(f, 0, n);
	memcpy(f, MAC_B, 6);
	memcpy(f + 6, MAC_A, 6);
	f[12] = 0x86; f[13] = 0xdd;
	ip[0] = 0x60; ip[4] = udp >> 8; ip[5] = udp & 0xff; ip[6] = 17; ip[7] = 64;
	ip[8] = 0xfd; ip[23] = 1; ip[24] = 0xfd; ip[39] = 2;
	u[0] = 0xc0; u[1] = 0x07; u[2] = PORT >> 8; u[3] = PORT & 0xff;
	u[4] = udp >> 8; u[5] = udp & 0xff;
	eq[0] = eq_mk_ver_type(EQ_WIRE_VERSION, trimmed ? EQ_T_TRIMMED : EQ_T_DATA);
	eq[1] = EQ_F_FAST;
	eq[2] = eql / 4;
	eq[3] = EQ_PROTO_IPV4;
	memcpy(eq + 8, &seq, 4);
	memcpy(eq + EQ_HDR_LEN, &so, sizeof(so));
	if (trimmed)
		return n;
	in[0] = 0x45; in[2] = inner >> 8; in[3] = inner & 0xff; in[8] = 64; in[9] = 6;
	c = eq_ipv4_hdr_csum(in);
	memcpy(in + 10, &c, 2);
	memcpy(in + 20 + 4, &ts, 4);
	in[20 + 12] = 5 << 4;
	in[20 + 13] = 0x10;
	return n;
}

static void test_parse_seg_option(void **state)
{
	uint8_t f[2048];
	uint32_t n = mk_seg_frame(f, 77, false);
	struct eqf_info fi;

	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_true(fi.v6);
	assert_int_equal(fi.hdr.seq_ack, 1003);		/* the fourth segment */
	assert_int_equal(fi.inner_off, 14 + 40 + 8 + EQ_HDR_LEN + EQ_OPT_SEG_LEN);
	assert_int_equal(fi.inner_len, 140);
	assert_int_equal(fi.inner_l4, 6);
	/* An inner seq that is no segment of the option's: refused. */
	f[14 + 40 + 8 + EQ_HDR_LEN + 7] ^= 1;
	assert_int_equal(eqf_parse(f, n, PORT, &fi), -EINVAL);
	/* A trimmed segment has no inner seq left: told apart. */
	n = mk_seg_frame(f, 77, true);
	assert_int_equal(eqf_parse(f, n, PORT, &fi), -ENOMSG);
}

/* The agent sends a segment under a seq of its own: the option must not
 * add to it at the receiver, and stays padding through a second stamp. */
static void test_stamp_pads_seg_option(void **state)
{
	uint8_t f[2048];
	uint32_t n = mk_seg_frame(f, 0xfffff000u, false);
	struct eqf_info fi, back;
	struct eqt_hdr h = { .type = EQ_T_DATA, .flags = EQ_F_RTX, .seq_ack = 5000, .aux = n };
	static const uint8_t pad[EQ_OPT_SEG_LEN];

	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_int_equal(fi.hdr.seq_ack, 1003);
	for (int i = 0; i < 2; i++) {
		eqf_stamp_data(f, &fi, &h, 0);
		assert_memory_equal(f + fi.eq_off + EQ_HDR_LEN, pad, sizeof(pad));
		assert_int_equal(eqf_parse(f, n, PORT, &back), 0);
		assert_int_equal(back.hdr.seq_ack, 5000);
		assert_int_equal(back.inner_off, fi.inner_off);
		fi = back;
	}
}

/* Every option a control frame can carry: written after the fixed
 * header, hdr_len counting them in whole words, and parsed back. */
static void test_ctl_options_roundtrip(void **state)
{
	uint8_t f[2048], buf[128];
	uint32_t n = mk_frame(f, 10, 0, 0), m;
	struct eqf_info fi, ci;
	struct eqf_route r;
	struct eqt_hdr h = { .type = EQ_T_ACK, .seq_ack = 5,
			     .opts = EQT_OPT(EQ_OPT_TSTAMP) | EQT_OPT(EQ_OPT_CREDIT) |
				     EQT_OPT(EQ_OPT_SRC) | EQT_OPT(EQ_OPT_QID),
			     .ts = 0xdeadbeef, .ts_echo = 7, .credit = 9000, .src_qbytes = 123456,
			     .src_mbps = 100000, .qid = 0xbeef };

	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_int_equal(fi.hdr.opts, 0);
	eqf_route_reply(f, &fi, PORT, 7, &r);
	assert_int_equal(eqf_opts_len(&h), 32);		/* 10 + 6 + 10 + 4, padded */
	m = eqf_build_ctl(buf, sizeof(buf), &r, &h, 1, 0);
	assert_int_equal(m, 14 + 20 + 8 + EQ_HDR_LEN + 32);
	assert_int_equal(buf[14 + 20 + 8 + 2], EQ_HDR_WORDS + 8);
	assert_int_equal(eqf_parse(buf, m, PORT, &ci), 0);
	assert_int_equal(ci.hdr.opts, h.opts);
	assert_int_equal(ci.hdr.ts, 0xdeadbeef);
	assert_int_equal(ci.hdr.ts_echo, 7);
	assert_int_equal(ci.hdr.credit, 9000);
	assert_int_equal(ci.hdr.src_qbytes, 123456);
	assert_int_equal(ci.hdr.src_mbps, 100000);
	assert_int_equal(ci.hdr.qid, 0xbeef);
	assert_int_equal(ci.hdr.seq_ack, 5);
	/* One option alone: its own length, padded. */
	h.opts = EQT_OPT(EQ_OPT_CREDIT);
	m = eqf_build_ctl(buf, sizeof(buf), &r, &h, 1, 0);
	assert_int_equal(m, 14 + 20 + 8 + EQ_HDR_LEN + 8);
	assert_int_equal(eqf_parse(buf, m, PORT, &ci), 0);
	assert_int_equal(ci.hdr.opts, EQT_OPT(EQ_OPT_CREDIT));
	assert_int_equal(ci.hdr.credit, 9000);
	assert_int_equal(eqf_build_ctl(buf, m - 1, &r, &h, 1, 0), 0);	/* too small: nothing */
	/* REPS's echo: PATH beside the others, the five padded to 36. */
	h.opts = EQT_OPT(EQ_OPT_TSTAMP) | EQT_OPT(EQ_OPT_CREDIT) | EQT_OPT(EQ_OPT_SRC) |
		 EQT_OPT(EQ_OPT_QID) | EQT_OPT(EQ_OPT_PATH);
	h.path_echo = 0x2abc;
	assert_int_equal(eqf_opts_len(&h), 36);
	m = eqf_build_ctl(buf, sizeof(buf), &r, &h, 1, 0);
	assert_int_equal(eqf_parse(buf, m, PORT, &ci), 0);
	assert_int_equal(ci.hdr.opts, h.opts);
	assert_int_equal(ci.hdr.path_echo, 0x2abc);
	assert_int_equal(ci.hdr.qid, 0xbeef);
	assert_int_equal(ci.hdr.path_id, 1);		/* the ACK's own path */
}

/* REPS: a DATA frame's path is the scheme's when it says so: the header's
 * path_id, the outer UDP source port and an IPv6 flow label (its traffic
 * class kept); otherwise TC's entropy stays. */
static void test_stamp_path(void **state)
{
	uint8_t f[2048];
	uint32_t n = mk_frame(f, 100, 0, 0);
	struct eqf_info fi, back;
	struct eqt_hdr h = { .type = EQ_T_DATA, .seq_ack = 1, .aux = n, .path_id = 0x1a5 };

	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	eqf_stamp_data(f, &fi, &h, 0);		/* not path_set: TC's stays */
	assert_int_equal(f[34] << 8 | f[35], 0xc007);
	assert_int_equal(eqf_parse(f, n, PORT, &back), 0);
	assert_int_equal(back.hdr.path_id, 0);
	h.path_set = true;
	eqf_stamp_data(f, &fi, &h, 0);
	assert_int_equal(f[34] << 8 | f[35], EQ_SPORT_BASE | 0x1a5);
	assert_int_equal(eqf_parse(f, n, PORT, &back), 0);
	assert_int_equal(back.hdr.path_id, 0x1a5);
	assert_int_equal(eq_ipv4_hdr_csum(f + 14), 0);
	h.path_id = 0xffff;			/* only the 14 bits a port has */
	eqf_stamp_data(f, &fi, &h, 0);
	assert_int_equal(f[34] << 8 | f[35], EQ_SPORT_BASE | EQ_SPORT_MASK);

	n = mk_seg_frame(f, 5000, false);
	f[14] = 0x6a; f[15] = 0xbf; f[16] = 0xff;	/* traffic class 0xab, label 0xfffff */
	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	h.path_id = 0x3001;
	eqf_stamp_data(f, &fi, &h, 0);
	assert_int_equal(f[14], 0x6a);
	assert_int_equal(f[15], 0xb0);		/* the class's low half, label 0x03001 */
	assert_int_equal(f[16], 0x30);
	assert_int_equal(f[17], 0x01);
	assert_int_equal(f[54] << 8 | f[55], EQ_SPORT_BASE | 0x3001);
	assert_int_equal(eqf_parse(f, n, PORT, &back), 0);
	assert_int_equal(back.hdr.path_id, 0x3001);
}

/* What a receiver makes of options it does not know, or that lie: an
 * unknown kind is skipped, a known one longer than defined is read and
 * its extra bytes skipped, one shorter than defined is ignored, and a
 * length below 2 or past the header ends the walk, keeping what came
 * before it. */
static void test_parse_options_that_lie(void **state)
{
	static const struct { uint8_t opt[16]; uint32_t opts, credit; } cases[] = {
		/* unknown kind 9 (len 4), then CREDIT */
		{ { 9, 4, 0, 0, EQ_OPT_CREDIT, 6, 0, 0, 1, 0, 0, 0 }, EQT_OPT(EQ_OPT_CREDIT), 256 },
		/* CREDIT of 8 bytes (2 extra), then QID */
		{ { EQ_OPT_CREDIT, 8, 0, 0, 0, 5, 0xee, 0xee, EQ_OPT_QID, 4, 0, 1 },
		  EQT_OPT(EQ_OPT_CREDIT) | EQT_OPT(EQ_OPT_QID), 5 },
		/* CREDIT of 4 bytes: too short to hold its value */
		{ { EQ_OPT_CREDIT, 4, 0, 0, 0, 0, 0, 0 }, 0, 0 },
		/* CREDIT, then a length of 1: the walk ends, CREDIT stands */
		{ { EQ_OPT_CREDIT, 6, 0, 0, 0, 7, 3, 1, 0, 0, 0, 0 }, EQT_OPT(EQ_OPT_CREDIT), 7 },
		/* TSTAMP whose length runs past the header: nothing */
		{ { EQ_OPT_TSTAMP, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t buf[128];
		struct eqt_hdr h = { .type = EQ_T_ACK, .opts = EQT_OPT(EQ_OPT_TSTAMP) |
								EQT_OPT(EQ_OPT_CREDIT) };
		struct eqf_route r = { .port = PORT };
		struct eqf_info ci;
		uint32_t m;

		r.src.a[10] = r.src.a[11] = r.dst.a[10] = r.dst.a[11] = 0xff;
		m = eqf_build_ctl(buf, sizeof(buf), &r, &h, 1, 0);	/* 16 bytes of room */
		memcpy(buf + 14 + 20 + 8 + EQ_HDR_LEN, cases[i].opt, 16);
		assert_int_equal(eqf_parse(buf, m, PORT, &ci), 0);
		if (ci.hdr.opts != cases[i].opts || ci.hdr.credit != cases[i].credit)
			fail_msg("case %zu: opts %#x credit %u, wanted %#x %u", i, ci.hdr.opts,
				 ci.hdr.credit, cases[i].opts, cases[i].credit);
	}
}

/* A DATA frame with option room (TC reserves it per peer): the agent's
 * options go in, padded; without room they do not, and it says so. */
static void test_stamp_options(void **state)
{
	uint8_t f[2048];
	uint32_t n = mk_seg_frame(f, 77, false), ts = 0x01020304;
	struct eqf_info fi, back;
	struct eqt_hdr h = { .type = EQ_T_DATA, .seq_ack = 9, .opts = EQT_OPT(EQ_OPT_QID), .qid = 3 };

	/* 8 bytes of room (the segment option's): QID fits, and the segment
	 * option goes (the seq is the frame's own). */
	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_int_equal(eqf_stamp_data(f, &fi, &h, 0), 0);
	assert_int_equal(eqf_parse(f, n, PORT, &back), 0);
	assert_int_equal(back.hdr.seq_ack, 9);
	assert_int_equal(back.hdr.opts, EQT_OPT(EQ_OPT_QID));
	assert_int_equal(back.hdr.qid, 3);
	assert_int_equal(back.inner_off, fi.inner_off);
	/* TSTAMP (10 bytes, 12 with padding) does not fit in 8. */
	h.opts = EQT_OPT(EQ_OPT_TSTAMP);
	h.ts = ts;
	assert_int_equal(eqf_stamp_data(f, &back, &h, 0), -ENOSPC);
	assert_int_equal(eqf_parse(f, n, PORT, &back), 0);
	assert_int_equal(back.hdr.opts, 0);	/* padding left, no option */
	assert_int_equal(back.hdr.seq_ack, 9);
	/* No room at all. */
	n = mk_frame(f, 10, 0, 0);
	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_int_equal(eqf_stamp_data(f, &fi, &h, 0), -ENOSPC);
	h.opts = 0;
	assert_int_equal(eqf_stamp_data(f, &fi, &h, 0), 0);
}

/* mk_frame()'s frame with `room` bytes of option room (PAD) after the
 * fixed header, as TC leaves it for a keyed peer: its new length. */
static uint32_t mk_room_frame(uint8_t *f, uint32_t payload, uint32_t room)
{
	uint32_t n = mk_frame(f, payload, 0, 0), eq = 14 + 20 + 8, udp, tot;
	uint16_t c;

	memmove(f + eq + EQ_HDR_LEN + room, f + eq + EQ_HDR_LEN, n - eq - EQ_HDR_LEN);
	memset(f + eq + EQ_HDR_LEN, EQ_OPT_PAD, room);
	n += room;
	tot = n - 14;
	udp = tot - 20;
	f[14 + 2] = tot >> 8; f[14 + 3] = tot & 0xff;
	f[14 + 4] = f[14 + 5] = 0;	/* ID 0: the seq as it is */
	f[14 + 10] = f[14 + 11] = 0;
	c = eq_ipv4_hdr_csum(f + 14);
	memcpy(f + 14 + 10, &c, 2);
	f[34 + 4] = udp >> 8; f[34 + 5] = udp & 0xff;
	f[eq + 2] = (EQ_HDR_LEN + room) / 4;
	return n;
}

static const uint8_t KEY1[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t KEY2[16] = { 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
				  0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf };

static struct eq_peer_keys keys_of(const uint8_t *key, uint8_t id)
{
	struct eq_peer_keys k = { .id = { id }, .valid = 1, .tx = 0 };

	memcpy(k.key[0], key, 16);
	return k;
}

/* A control frame signed (auth.h): the tag checks with the key that made
 * it, by its id, and with nothing else; every byte of the header, the
 * option included, and of the outer addresses is covered. */
static void test_auth_ctl(void **state)
{
	for (int v6 = 0; v6 <= 1; v6++) {
		uint8_t buf[160];
		struct eqt_hdr h = { .type = EQ_T_PULL, .seq_ack = 5, .pull = 9, .aux = 77,
				     .opts = EQT_OPT(EQ_OPT_CREDIT), .credit = 3000 };
		struct eqf_route r = { .port = PORT, .v6 = v6 };
		struct eq_peer_keys k = keys_of(KEY1, 3), other = keys_of(KEY2, 3),
				    wrong_id = keys_of(KEY1, 4), both = keys_of(KEY2, 9);
		struct eqf_info ci;
		uint32_t m, eq_len = EQ_HDR_LEN + 8 + EQ_OPT_AUTH_LEN, addr_off;

		if (v6) {
			r.src.a[0] = r.dst.a[0] = 0xfd;
			r.src.a[15] = 1;
			r.dst.a[15] = 2;
		} else {
			r.src.a[10] = r.src.a[11] = r.dst.a[10] = r.dst.a[11] = 0xff;
			r.src.a[12] = r.dst.a[12] = 10;
			r.src.a[15] = 1;
			r.dst.a[15] = 2;
		}
		m = eqf_build_ctl(buf, sizeof(buf), &r, &h, 1, EQ_OPT_AUTH_LEN);
		assert_int_equal(m, 14 + (v6 ? 40 : 20) + 8 + eq_len);
		assert_int_equal(eqf_auth_sign(buf + m - eq_len, eq_len, &r.src, &r.dst, KEY1, 3), 0);
		assert_int_equal(eqf_parse(buf, m, PORT, &ci), 0);
		assert_int_equal(ci.eq_len, eq_len);
		assert_int_equal(ci.hdr.credit, 3000);		/* the options still read */
		assert_int_equal(buf[m - EQ_OPT_AUTH_LEN], EQ_OPT_AUTH);
		assert_int_equal(buf[m - EQ_OPT_AUTH_LEN + 2], 3);	/* the key id */
		assert_int_equal(eqf_auth_check(buf, &ci, &k), 0);
		assert_int_equal(eqf_auth_check(buf, &ci, &other), -EBADMSG);
		assert_int_equal(eqf_auth_check(buf, &ci, &wrong_id), -ENOKEY);
		/* Two keys (a rotation): found by its id. */
		memcpy(both.key[1], KEY1, 16);
		both.id[1] = 3;
		both.valid = 3;
		assert_int_equal(eqf_auth_check(buf, &ci, &both), 0);
		for (uint32_t i = m - eq_len; i < m; i++) {
			buf[i] ^= 0x10;
			if (!eqf_parse(buf, m, PORT, &ci) && eqf_auth_check(buf, &ci, &k) == 0)
				fail_msg("byte %u of the header changed and the tag still checks", i);
			buf[i] ^= 0x10;
		}
		addr_off = 14 + (v6 ? 8 : 12);
		for (uint32_t i = addr_off; i < addr_off + (v6 ? 32 : 8); i++) {
			buf[i] ^= 0x01;
			if (!v6) {	/* a header checksum that still holds */
				buf[24] = buf[25] = 0;
				uint16_t c = eq_ipv4_hdr_csum(buf + 14);

				memcpy(buf + 24, &c, 2);
			}
			assert_int_equal(eqf_parse(buf, m, PORT, &ci), 0);
			if (eqf_auth_check(buf, &ci, &k) != -EBADMSG)
				fail_msg("outer address byte %u changed and the tag still checks", i);
			buf[i] ^= 0x01;
		}
		/* Built without the room: nothing to sign in, nothing to check. */
		m = eqf_build_ctl(buf, sizeof(buf), &r, &h, 1, 0);
		assert_int_equal(eqf_auth_sign(buf + m - EQ_HDR_LEN, EQ_HDR_LEN, &r.src, &r.dst, KEY1, 3),
				 -ENOSPC);
		assert_int_equal(eqf_parse(buf, m, PORT, &ci), 0);
		assert_int_equal(eqf_auth_check(buf, &ci, &k), -ENOKEY);
	}
}

/* A DATA frame with the AUTH room TC left: stamped around it, signed; a
 * trimming switch's type change keeps the tag good, any other does not. */
static void test_auth_data(void **state)
{
	uint8_t f[2048];
	uint32_t n = mk_room_frame(f, 100, 12 + EQ_OPT_AUTH_LEN);
	struct eqt_hdr h = { .type = EQ_T_DATA, .seq_ack = 42, .pull = 7, .aux = n,
			     .opts = EQT_OPT(EQ_OPT_TSTAMP), .ts = 99 };
	struct eq_peer_keys k = keys_of(KEY2, 1);
	struct eqf_info fi;

	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_int_equal(eqf_stamp_data(f, &fi, &h, EQ_OPT_AUTH_LEN), 0);
	assert_int_equal(eqf_auth_sign(f + fi.eq_off, fi.eq_len, &fi.src, &fi.dst, KEY2, 1), 0);
	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_int_equal(fi.hdr.seq_ack, 42);
	assert_int_equal(fi.hdr.ts, 99);
	assert_int_equal(eqf_auth_check(f, &fi, &k), 0);
	f[fi.eq_off] = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_TRIMMED);
	assert_int_equal(eqf_auth_check(f, &fi, &k), 0);
	f[fi.eq_off] = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_ACK);
	assert_int_equal(eqf_auth_check(f, &fi, &k), -EBADMSG);
	f[fi.eq_off] = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_DATA);
	/* The payload is not covered (auth.h says why). */
	f[n - 1] ^= 0xff;
	assert_int_equal(eqf_auth_check(f, &fi, &k), 0);
	/* Options that would leave no room for the AUTH option: stamped
	 * without them, the room kept. */
	h.opts = EQT_OPT(EQ_OPT_TSTAMP) | EQT_OPT(EQ_OPT_SRC);
	assert_int_equal(eqf_stamp_data(f, &fi, &h, EQ_OPT_AUTH_LEN), -ENOSPC);
	assert_int_equal(eqf_auth_sign(f + fi.eq_off, fi.eq_len, &fi.src, &fi.dst, KEY2, 1), 0);
	assert_int_equal(eqf_parse(f, n, PORT, &fi), 0);
	assert_int_equal(fi.hdr.opts, 0);
	assert_int_equal(eqf_auth_check(f, &fi, &k), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_data),
		cmocka_unit_test(test_parse_never_trusts),
		cmocka_unit_test(test_stamp),
		cmocka_unit_test(test_stamp_ect),
		cmocka_unit_test(test_ctl_roundtrip),
		cmocka_unit_test(test_decap_ecn),
		cmocka_unit_test(test_tcp_pure_ack),
		cmocka_unit_test(test_flow_bucket),
		cmocka_unit_test(test_parse_seg_option),
		cmocka_unit_test(test_stamp_pads_seg_option),
		cmocka_unit_test(test_ctl_options_roundtrip),
		cmocka_unit_test(test_parse_options_that_lie),
		cmocka_unit_test(test_stamp_options),
		cmocka_unit_test(test_stamp_path),
		cmocka_unit_test(test_auth_ctl),
		cmocka_unit_test(test_auth_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
