// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tests/fabric/switch/frame.c: what the software switch
 * reads from a frame (frame_parse: offsets, family, protocol, ECN,
 * destination, edgeq class, flow hash) and the rewrites it makes
 * (frame_set_ce, frame_trim, frame_dec_ttl, frame_set_macs).
 *
 * Frames are built by fabric_testlib.h with valid checksums, and every
 * rewrite is checked with that file's own checksum routines (not the
 * switch's), for all TOS / TTL values or many random headers with a fixed
 * seed.  Properties besides examples: a truncated frame parses exactly
 * when it still holds the length its IP header claims; random bytes never
 * make the parser report offsets beyond the frame, nor a rewrite write
 * beyond it (frames sit in heap buffers of their exact length, so a build
 * with -fsanitize=address catches over-reads too); a rewrite changes the
 * bytes it should and no others.
 */
#include "fabric_testlib.h"
#include <stdlib.h>

#define SEED	0x5eed
#define EQP	EQ_DEFAULT_PORT

static uint8_t buf[FRAME_MAX], orig[FRAME_MAX];

static int parse(const uint8_t *f, uint32_t len, struct frame_info *fi)
{
	return frame_parse(f, len, EQP, SEED, fi);
}

/* Builds s into buf and parses it, which must succeed. */
static struct frame_info build_parse(const struct tf_spec *s)
{
	struct frame_info fi;

	tf_build(buf, s);
	assert_int_equal(parse(buf, s->len, &fi), FE_OK);
	return fi;
}

/* Bytes of a and b differ only where allowed[i] is set. */
static void assert_only_changed(const uint8_t *a, const uint8_t *b, uint32_t len, const bool *allowed)
{
	for (uint32_t i = 0; i < len; i++)
		if (!allowed[i] && a[i] != b[i])
			fail_msg("byte %u changed: %02x -> %02x", i, a[i], b[i]);
}

/* A random edgeq or plain frame, IPv4 or IPv6. */
static struct tf_spec random_spec(void)
{
	int fam = rnd32() & 1 ? 4 : 6;
	struct tf_spec s = rnd32() & 1
		? tf_eq(fam, fam == 4 ? "10.250.0.1" : "fdee:250::1", fam == 4 ? "10.250.1.2" : "fdee:250::1:2", 0)
		: tf_udp(fam, fam == 4 ? "10.0.0.1" : "fd00::1", fam == 4 ? "10.0.0.2" : "fd00::2",
			 (uint16_t)rnd32(), (uint16_t)rnd32(), 0);

	if (!s.eq && rnd32() % 3 == 0)
		s.proto = IPPROTO_TCP;
	if (s.eq)
		s.eq_hdr_len = (uint8_t)(EQ_HDR_WORDS + rnd32() % 4);
	s.tos = (uint8_t)rnd32();
	s.ttl = (uint8_t)(2 + rnd32() % 254);
	s.ip_id = (uint16_t)rnd32();
	s.flow_label = rnd32();
	s.seed = rnd32();
	for (int i = 0; i < 16; i++)
		if (fam == 6 || i < 4) {
			s.src[i] ^= (uint8_t)(rnd32() & 0x0f);
		}
	s.len = tf_hdrs_len(&s) + rnd32() % (TF_MTU_FRAME - tf_hdrs_len(&s) + 1);
	return s;
}

/* ---- the helpers themselves --------------------------------------------------- */

/* The builder's checksums pass the verifiers, and one flipped bit fails
 * them: otherwise every checksum assertion below would prove nothing. */
static void testlib__frames_have_valid_checksums(void **state)
{
	rng_state = 1;
	for (int n = 0; n < 2000; n++) {
		struct tf_spec s = random_spec();
		uint32_t off, l4len;
		uint8_t proto;
		int fam;

		tf_build(buf, &s);
		if (s.family == 4)
			assert_true(tf_ip4_csum_ok(buf));
		assert_true(tf_l4_csum_ok(buf, s.len));
		tf_l4(buf, &fam, &off, &l4len, &proto);
		assert_int_equal(off + l4len, s.len);
		buf[off + rnd32() % l4len] ^= (uint8_t)(1u << (rnd32() % 8));
		assert_false(tf_l4_csum_ok(buf, s.len));
		if (s.family == 4) {
			buf[TF_ETH + 12] ^= 0x10;
			assert_false(tf_ip4_csum_ok(buf));
		}
	}
}

/* ---- frame_parse: fields -------------------------------------------------------- */

static void frame_parse__ipv4_udp(void **state)
{
	struct tf_spec s = tf_udp(4, "10.1.2.3", "10.250.7.9", 40000, 53, 200);
	uint8_t want[16];
	struct frame_info fi;

	s.tos = 0xb9;	/* DSCP 46, ECT(1) */
	fi = build_parse(&s);
	assert_int_equal(fi.family, 4);
	assert_int_equal(fi.l3_off, 14);
	assert_int_equal(fi.l4_off, 34);
	assert_int_equal(fi.proto, IPPROTO_UDP);
	assert_int_equal(fi.ecn, 1);
	assert_int_equal(fi.cls, FC_OTHER);
	tf_mapped(4, s.dst, want);
	assert_memory_equal(fi.dst, want, 16);
	assert_int_equal(fi.dst[10], 0xff);
	assert_int_equal(fi.dst[15], 9);
}

static void frame_parse__ipv4_tcp_and_other_protocols(void **state)
{
	struct tf_spec s = tf_udp(4, "10.1.2.3", "10.4.5.6", 1234, 80, 120);
	struct frame_info fi;

	s.proto = IPPROTO_TCP;
	s.tos = 2;
	fi = build_parse(&s);
	assert_int_equal(fi.proto, IPPROTO_TCP);
	assert_int_equal(fi.l4_off, 34);
	assert_int_equal(fi.ecn, 2);
	assert_int_equal(fi.cls, FC_OTHER);

	s.proto = IPPROTO_ICMP;
	fi = build_parse(&s);
	assert_int_equal(fi.proto, IPPROTO_ICMP);
	assert_int_equal(fi.cls, FC_OTHER);
	/* No ports for ICMP: the hash is of addresses and protocol only. */
	{
		uint8_t src[16];

		tf_mapped(4, s.src, src);
		assert_int_equal(fi.flow_hash, frame_hash(src, fi.dst, IPPROTO_ICMP, 0, 0, SEED));
	}
}

static void frame_parse__ipv6_udp_and_tcp(void **state)
{
	struct tf_spec s = tf_udp(6, "fd00::1", "fdee:250::3:4", 5000, 6000, 300);
	struct frame_info fi;

	for (unsigned int tc = 0; tc < 256; tc++) {
		s.tos = (uint8_t)tc;
		s.flow_label = 0xfffff;	/* bits next to the traffic class must not leak in */
		s.proto = tc & 1 ? IPPROTO_TCP : IPPROTO_UDP;
		fi = build_parse(&s);
		assert_int_equal(fi.family, 6);
		assert_int_equal(fi.l3_off, 14);
		assert_int_equal(fi.l4_off, 54);
		assert_int_equal(fi.proto, s.proto);
		assert_int_equal(fi.ecn, tc & 3);
		assert_int_equal(fi.cls, FC_OTHER);
		assert_memory_equal(fi.dst, s.dst, 16);
	}
}

static void frame_parse__ipv4_options_move_the_l4_header(void **state)
{
	for (uint8_t w = 0; w <= 10; w++) {
		struct tf_spec s = tf_udp(4, "10.0.0.1", "10.0.0.2", 1, 2, 200);
		struct frame_info fi;

		s.ip_opt_words = w;
		fi = build_parse(&s);
		assert_int_equal(fi.l4_off, 34 + 4 * w);
		assert_true(tf_ip4_csum_ok(buf));
		assert_true(tf_l4_csum_ok(buf, s.len));
	}
}

/* Short IPv4 packets arrive padded to 60 bytes: the padding is no error,
 * and does not count as L4 bytes. */
static void frame_parse__ethernet_padding_is_accepted(void **state)
{
	struct tf_spec s = tf_udp(4, "10.0.0.1", "10.0.0.2", 1, 2, 42);
	struct frame_info fi;

	tf_build(buf, &s);
	memset(buf + 42, 0xee, 18);
	assert_int_equal(parse(buf, 60, &fi), FE_OK);
	assert_int_equal(fi.l4_off, 34);

	/* An edgeq port but only padding where the edgeq header would be:
	 * not edgeq (the header must lie within the IP packet). */
	s = tf_udp(4, "10.0.0.1", "10.0.0.2", 1, EQP, 42);
	tf_build(buf, &s);
	memset(buf + 42, 0x10, 40);	/* looks like version 1, DATA, hdr_len 16 */
	assert_int_equal(parse(buf, 82, &fi), FE_OK);
	assert_int_equal(fi.cls, FC_OTHER);
}

static void frame_parse__non_ip_is_not_ip(void **state)
{
	static const uint16_t types[] = { 0x0806, 0x88cc, 0x8100, 0x88a8, 0x8847, 0x0000, 0xffff, 0x0600 };
	struct frame_info fi;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		memset(buf, 0x45, 100);	/* an IPv4-looking body must not matter */
		tf_wr16(buf + 12, types[i]);
		assert_int_equal(parse(buf, 100, &fi), FE_NOT_IP);
		assert_int_equal(parse(buf, 14, &fi), FE_NOT_IP);
	}
}

/* Each case breaks one field of a valid frame. */
static void frame_parse__malformed_headers(void **state)
{
	struct frame_info fi;
	struct tf_spec s4 = tf_udp(4, "10.0.0.1", "10.0.0.2", 1, 2, 100);
	struct tf_spec s6 = tf_udp(6, "fd00::1", "fd00::2", 1, 2, 100);
	uint8_t *ip = buf + TF_ETH;

	/* shorter than an Ethernet header */
	for (uint32_t len = 0; len < 14; len++) {
		tf_build(buf, &s4);
		assert_int_equal(parse(buf, len, &fi), FE_MALFORMED);
	}
	/* IPv4 ethertype, version 6 */
	tf_build(buf, &s4); ip[0] = 0x65;
	assert_int_equal(parse(buf, 100, &fi), FE_MALFORMED);
	/* IHL below 5 */
	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		tf_build(buf, &s4); ip[0] = (uint8_t)(0x40 | ihl);
		assert_int_equal(parse(buf, 100, &fi), FE_MALFORMED);
	}
	/* IHL beyond the total length */
	tf_build(buf, &s4); ip[0] = 0x4f; tf_wr16(ip + 2, 40);
	assert_int_equal(parse(buf, 100, &fi), FE_MALFORMED);
	/* total length below the header */
	tf_build(buf, &s4); tf_wr16(ip + 2, 19);
	assert_int_equal(parse(buf, 100, &fi), FE_MALFORMED);
	/* total length beyond the frame, by one byte */
	tf_build(buf, &s4); tf_wr16(ip + 2, 87);
	assert_int_equal(parse(buf, 100, &fi), FE_MALFORMED);
	tf_build(buf, &s4); tf_wr16(ip + 2, 86);
	assert_int_equal(parse(buf, 100, &fi), FE_OK);
	/* IPv6 ethertype, version 4 */
	tf_build(buf, &s6); ip[0] = 0x40 | (ip[0] & 0xf);
	assert_int_equal(parse(buf, 100, &fi), FE_MALFORMED);
	/* payload length beyond the frame, by one byte */
	tf_build(buf, &s6); tf_wr16(ip + 4, 47);
	assert_int_equal(parse(buf, 100, &fi), FE_MALFORMED);
	tf_build(buf, &s6); tf_wr16(ip + 4, 46);
	assert_int_equal(parse(buf, 100, &fi), FE_OK);
	tf_build(buf, &s6); tf_wr16(ip + 4, 0xffff);
	assert_int_equal(parse(buf, 100, &fi), FE_MALFORMED);
}

/* Every truncation of a valid frame: it parses exactly when it still holds
 * all the bytes its IP header claims, and then with the same result. */
static void frame_parse__every_truncation(void **state)
{
	rng_state = 2;
	for (int n = 0; n < 300; n++) {
		struct tf_spec s = random_spec();
		struct frame_info full, fi;

		full = build_parse(&s);
		for (uint32_t len = 0; len <= s.len; len++) {
			uint8_t *f = malloc(len ? len : 1);
			int r;

			memcpy(f, buf, len);
			r = parse(f, len, &fi);
			if (len < 14)
				assert_int_equal(r, FE_MALFORMED);
			else
				assert_int_equal(r, len == s.len ? FE_OK : FE_MALFORMED);
			if (r == FE_OK)
				assert_memory_equal(&fi, &full, sizeof(fi));
			free(f);
		}
	}
}

/* Random bytes in random places of valid frames, random lengths: parsing
 * never fails other than by its codes, never reports an offset beyond the
 * frame, and the rewrites never grow a frame nor write beyond it. */
static void frame_parse__random_bytes_stay_within_the_frame(void **state)
{
	int ok = 0, edgeq = 0;

	rng_state = 3;
	for (int n = 0; n < 200000; n++) {
		struct tf_spec s = random_spec();
		struct frame_info fi;
		uint32_t len, hdrs, nmut = 1 + rnd32() % 4;
		uint8_t *f;
		int r;

		tf_build(buf, &s);
		hdrs = tf_hdrs_len(&s);
		for (uint32_t i = 0; i < nmut; i++)	/* mostly in the headers */
			buf[rnd32() % (rnd32() & 1 ? hdrs : s.len)] = (uint8_t)rnd32();
		len = rnd32() & 1 ? s.len : rnd32() % (s.len + 1);
		f = malloc(len ? len : 1);
		memcpy(f, buf, len);
		r = parse(f, len, &fi);
		assert_true(r == FE_OK || r == FE_NOT_IP || r == FE_MALFORMED);
		if (r == FE_OK) {
			ok++;
			assert_true(fi.family == 4 || fi.family == 6);
			assert_int_equal(fi.l3_off, 14);
			assert_true(fi.l4_off <= len);
			assert_true(fi.l4_off >= fi.l3_off + 20);
			assert_true(fi.ecn <= 3);
			if (fi.cls != FC_OTHER) {
				edgeq++;
				assert_int_equal(fi.proto, IPPROTO_UDP);
				assert_true(fi.l4_off + 8u + EQ_HDR_LEN <= len);
			}
			/* The rewrites the switch applies to what parsed. */
			frame_set_ce(f, &fi);
			frame_dec_ttl(f, &fi);
			assert_true(frame_trim(f, len, &fi) <= len);
		}
		free(f);
	}
	/* The mutations left enough frames valid to mean something. */
	assert_true(ok > 50000);
	assert_true(edgeq > 10000);
}

/* ---- frame_parse: edgeq classes -------------------------------------------------- */

static void frame_parse__edgeq_classes(void **state)
{
	static const struct {
		const char *what;
		int family, ver, type, flags, hdr_len, dport, proto, len;
		int cls;
	} cases[] = {
		{ "DATA v4",			4, 1, EQ_T_DATA, 0, 5, EQP, IPPROTO_UDP, 1514, FC_EQ_DATA },
		{ "DATA v6",			6, 1, EQ_T_DATA, 0, 5, EQP, IPPROTO_UDP, 1514, FC_EQ_DATA },
		{ "DATA with options",		4, 1, EQ_T_DATA, 0, 9, EQP, IPPROTO_UDP, 1514, FC_EQ_DATA },
		{ "DATA, RTX and SYN flags",	4, 1, EQ_T_DATA, EQ_F_RTX | EQ_F_SYN, 5, EQP, IPPROTO_UDP, 600, FC_EQ_DATA },
		{ "DATA, reserved flags",	6, 1, EQ_T_DATA, 0xe0, 5, EQP, IPPROTO_UDP, 600, FC_EQ_DATA },
		{ "DATA header only",		4, 1, EQ_T_DATA, 0, 5, EQP, IPPROTO_UDP, 62, FC_EQ_DATA },
		{ "TRIMMED",			4, 1, EQ_T_TRIMMED, EQ_F_TRIMMED, 5, EQP, IPPROTO_UDP, 62, FC_EQ_CTRL },
		{ "TRIMMED type, no flag",	4, 1, EQ_T_TRIMMED, 0, 5, EQP, IPPROTO_UDP, 62, FC_EQ_CTRL },
		{ "DATA type, TRIMMED flag",	6, 1, EQ_T_DATA, EQ_F_TRIMMED, 5, EQP, IPPROTO_UDP, 82, FC_EQ_CTRL },
		{ "PULL",			4, 1, EQ_T_PULL, 0, 5, EQP, IPPROTO_UDP, 62, FC_EQ_CTRL },
		{ "ACK",			6, 1, EQ_T_ACK, EQ_F_ECE, 5, EQP, IPPROTO_UDP, 82, FC_EQ_CTRL },
		{ "NACK",			4, 1, EQ_T_NACK, 0, 5, EQP, IPPROTO_UDP, 62, FC_EQ_CTRL },
		{ "RTS",			4, 1, EQ_T_RTS, 0, 5, EQP, IPPROTO_UDP, 62, FC_EQ_CTRL },
		{ "RST",			4, 1, EQ_T_RST, 0, 5, EQP, IPPROTO_UDP, 62, FC_EQ_CTRL },
		{ "unknown type 9",		4, 1, 9, 0, 5, EQP, IPPROTO_UDP, 62, FC_EQ_CTRL },
		{ "version 0",			4, 0, EQ_T_DATA, 0, 5, EQP, IPPROTO_UDP, 1514, FC_OTHER },
		{ "version 2",			6, 2, EQ_T_DATA, 0, 5, EQP, IPPROTO_UDP, 1514, FC_OTHER },
		{ "version 15",			4, 15, EQ_T_ACK, 0, 5, EQP, IPPROTO_UDP, 62, FC_OTHER },
		{ "hdr_len 4",			4, 1, EQ_T_DATA, 0, 4, EQP, IPPROTO_UDP, 1514, FC_OTHER },
		{ "hdr_len 0",			4, 1, EQ_T_DATA, 0, 0, EQP, IPPROTO_UDP, 1514, FC_OTHER },
		{ "other UDP port",		4, 1, EQ_T_DATA, 0, 5, EQP + 1, IPPROTO_UDP, 1514, FC_OTHER },
		{ "port 0",			6, 1, EQ_T_DATA, 0, 5, 0, IPPROTO_UDP, 1514, FC_OTHER },
		{ "TCP to the edgeq port",	4, 1, EQ_T_DATA, 0, 5, EQP, IPPROTO_TCP, 1514, FC_OTHER },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tf_spec s = tf_eq(cases[i].family, cases[i].family == 4 ? "10.0.0.1" : "fd00::1",
					 cases[i].family == 4 ? "10.0.0.2" : "fd00::2", cases[i].len);
		struct frame_info fi;

		s.eq_ver = (uint8_t)cases[i].ver;
		s.eq_type = (uint8_t)cases[i].type;
		s.eq_flags = (uint8_t)cases[i].flags;
		s.dport = (uint16_t)cases[i].dport;
		s.proto = (uint8_t)cases[i].proto;
		if (s.proto == IPPROTO_TCP) {
			s.eq = false;
		} else if (cases[i].hdr_len < EQ_HDR_WORDS) {
			s.eq_hdr_len = EQ_HDR_WORDS;	/* build a full header, then lie */
		} else {
			s.eq_hdr_len = (uint8_t)cases[i].hdr_len;
		}
		tf_build(buf, &s);
		if (s.eq)
			buf[tf_hdrs_len(&s) - s.eq_hdr_len * 4 + 2] = (uint8_t)cases[i].hdr_len;
		assert_int_equal(parse(buf, s.len, &fi), FE_OK);
		if (fi.cls != cases[i].cls)
			fail_msg("%s: class %d, want %d", cases[i].what, fi.cls, cases[i].cls);
	}
}

/* The edgeq port is a parameter; the source port does not count. */
static void frame_parse__edgeq_port_is_the_destination_port(void **state)
{
	struct tf_spec s = tf_eq(4, "10.0.0.1", "10.0.0.2", 200);
	struct frame_info fi;

	s.dport = 9999;
	s.sport = EQP;
	tf_build(buf, &s);
	assert_int_equal(frame_parse(buf, s.len, EQP, 0, &fi), FE_OK);
	assert_int_equal(fi.cls, FC_OTHER);
	assert_int_equal(frame_parse(buf, s.len, 9999, 0, &fi), FE_OK);
	assert_int_equal(fi.cls, FC_EQ_DATA);
}

/* A UDP datagram to the edgeq port too short for an edgeq header, by one
 * byte, is not edgeq; with the whole header it is. */
static void frame_parse__short_edgeq_header_is_other(void **state)
{
	for (int fam = 4; fam <= 6; fam += 2) {
		struct tf_spec s = tf_eq(fam, fam == 4 ? "10.0.0.1" : "fd00::1", fam == 4 ? "10.0.0.2" : "fd00::2", 0);
		struct frame_info fi;
		uint32_t full;

		s.len = full = tf_hdrs_len(&s);
		tf_build(buf, &s);
		assert_int_equal(parse(buf, full, &fi), FE_OK);
		assert_int_equal(fi.cls, FC_EQ_DATA);
		/* shorten the IP packet (and UDP length) by one byte */
		if (fam == 4) {
			tf_wr16(buf + TF_ETH + 2, (uint16_t)(full - 1 - TF_ETH));
			tf_fix_ip4_csum(buf);
		} else {
			tf_wr16(buf + TF_ETH + 4, (uint16_t)(full - 1 - TF_ETH - 40));
		}
		tf_wr16(buf + fi.l4_off + 4, (uint16_t)(full - 1 - fi.l4_off));
		assert_int_equal(parse(buf, full, &fi), FE_OK);	/* the byte is padding now */
		assert_int_equal(fi.cls, FC_OTHER);
		assert_int_equal(parse(buf, full - 1, &fi), FE_OK);
		assert_int_equal(fi.cls, FC_OTHER);
	}
}

/* Only the first fragment has ports: later ones are hashed without them
 * (proto 0), so are never edgeq; the first is. */
static void frame_parse__ipv4_fragments(void **state)
{
	struct tf_spec s = tf_eq(4, "10.0.0.1", "10.0.0.2", 600);
	struct frame_info fi;

	s.frag = 0x2000;	/* MF, offset 0 */
	fi = build_parse(&s);
	assert_int_equal(fi.proto, IPPROTO_UDP);
	assert_int_equal(fi.cls, FC_EQ_DATA);
	s.frag = 0x4000;	/* DF, not a fragment */
	fi = build_parse(&s);
	assert_int_equal(fi.cls, FC_EQ_DATA);
	for (int b = 0; b <= 13; b++) {
		uint16_t off = b < 13 ? (uint16_t)(1u << b) : 0x1fff;
		uint8_t src[16];

		s.frag = (uint16_t)(off | (b & 1 ? 0x2000 : 0));	/* a middle or last fragment */
		fi = build_parse(&s);
		assert_int_equal(fi.proto, 0);
		assert_int_equal(fi.cls, FC_OTHER);
		tf_mapped(4, s.src, src);
		assert_int_equal(fi.flow_hash, frame_hash(src, fi.dst, 0, 0, 0, SEED));
	}
}

/* ---- frame_set_ce ------------------------------------------------------------------ */

/* All 256 TOS values in many random IPv4 headers (so that every carry of
 * the incremental checksum update happens): ECT becomes CE, Not-ECT is
 * refused untouched, DSCP stays, the header checksum stays valid, and
 * nothing but the TOS and checksum bytes changes. */
static void frame_set_ce__ipv4_keeps_the_checksum(void **state)
{
	bool allowed[FRAME_MAX] = { false };

	allowed[TF_ETH + 1] = allowed[TF_ETH + 10] = allowed[TF_ETH + 11] = true;
	rng_state = 4;
	for (int n = 0; n < 400; n++) {
		struct tf_spec s = tf_udp(4, "10.0.0.1", "10.0.0.2", (uint16_t)rnd32(), (uint16_t)rnd32(), 0);

		for (int i = 0; i < 4; i++) {
			s.src[i] = (uint8_t)rnd32();
			s.dst[i] = (uint8_t)rnd32();
		}
		s.ip_id = (uint16_t)rnd32();
		s.ttl = (uint8_t)rnd32();
		s.len = 42 + rnd32() % 1473;
		for (unsigned int tos = 0; tos < 256; tos++) {
			struct frame_info fi;
			bool r;

			s.tos = (uint8_t)tos;
			fi = build_parse(&s);
			memcpy(orig, buf, s.len);
			r = frame_set_ce(buf, &fi);
			assert_int_equal(r, (tos & 3) != 0);
			assert_int_equal(buf[TF_ETH + 1], r ? (tos | 3) : tos);
			assert_true(tf_ip4_csum_ok(buf));
			assert_true(tf_l4_csum_ok(buf, s.len));	/* the pseudo-header has no TOS */
			assert_only_changed(orig, buf, s.len, allowed);
			if (!r)
				assert_memory_equal(orig, buf, s.len);
			/* And it parses as CE. */
			assert_int_equal(parse(buf, s.len, &fi), FE_OK);
			assert_int_equal(fi.ecn, r ? 3 : 0);
		}
	}
}

/* IPv6: the traffic class straddles bytes 0 and 1; ECN are its two low
 * bits.  Version, DSCP and flow label stay; no checksum to fix. */
static void frame_set_ce__ipv6_traffic_class(void **state)
{
	bool allowed[FRAME_MAX] = { false };

	allowed[TF_ETH + 1] = true;
	rng_state = 5;
	for (int n = 0; n < 20; n++) {
		struct tf_spec s = tf_udp(6, "fd00::1", "fd00::2", 1, 2, 100 + rnd32() % 1400);

		s.flow_label = rnd32();
		for (unsigned int tc = 0; tc < 256; tc++) {
			struct frame_info fi;
			uint32_t w;
			bool r;

			s.tos = (uint8_t)tc;
			fi = build_parse(&s);
			memcpy(orig, buf, s.len);
			r = frame_set_ce(buf, &fi);
			assert_int_equal(r, (tc & 3) != 0);
			w = (uint32_t)buf[TF_ETH] << 24 | (uint32_t)buf[TF_ETH + 1] << 16 |
			    (uint32_t)buf[TF_ETH + 2] << 8 | buf[TF_ETH + 3];
			assert_int_equal(w >> 28, 6);
			assert_int_equal((w >> 20) & 0xff, r ? (tc | 3) : tc);
			assert_int_equal(w & 0xfffff, s.flow_label & 0xfffff);
			assert_only_changed(orig, buf, s.len, allowed);
			assert_true(tf_l4_csum_ok(buf, s.len));
			assert_int_equal(parse(buf, s.len, &fi), FE_OK);
			assert_int_equal(fi.ecn, r ? 3 : 0);
		}
	}
}

/* Marking twice changes nothing the second time. */
static void frame_set_ce__is_idempotent(void **state)
{
	for (int fam = 4; fam <= 6; fam += 2) {
		struct tf_spec s = tf_udp(fam, fam == 4 ? "10.0.0.1" : "fd00::1",
					  fam == 4 ? "10.0.0.2" : "fd00::2", 7, 8, 300);
		struct frame_info fi;

		s.tos = 0x02;
		fi = build_parse(&s);
		assert_true(frame_set_ce(buf, &fi));
		memcpy(orig, buf, s.len);
		assert_int_equal(parse(buf, s.len, &fi), FE_OK);
		assert_true(frame_set_ce(buf, &fi));
		assert_memory_equal(orig, buf, s.len);
	}
}

/* ---- frame_trim ------------------------------------------------------------------------ */

/* Random edgeq DATA packets, both families, options of 0 to 40 words:
 * the result is Ethernet + IP + UDP + the whole edgeq header, marked
 * TRIMMED by type and flag, every length field and checksum right, the
 * header (options included) otherwise byte for byte what it was. */
static void frame_trim__cuts_to_the_edgeq_header(void **state)
{
	rng_state = 6;
	for (int n = 0; n < 5000; n++) {
		int fam = n & 1 ? 6 : 4;
		struct tf_spec s = tf_eq(fam, fam == 4 ? "10.250.0.1" : "fdee:250::1",
					 fam == 4 ? "10.250.1.7" : "fdee:250::1:7", 0);
		uint32_t hl, newlen, l4;
		struct frame_info fi, fi2;
		uint8_t *eh;

		s.eq_hdr_len = (uint8_t)(EQ_HDR_WORDS + (n % 7 == 0 ? rnd32() % 41 : rnd32() % 4));
		s.eq_flags = (uint8_t)(rnd32() & (EQ_F_SYN | EQ_F_RTX | EQ_F_CSN | 0xe0));
		s.tos = (uint8_t)rnd32();
		s.ttl = (uint8_t)rnd32();
		s.ip_id = (uint16_t)rnd32();
		s.flow_label = rnd32();
		s.seed = rnd32();
		for (int i = 0; i < (fam == 4 ? 4 : 16); i++)
			s.src[i] = (uint8_t)rnd32();
		s.len = tf_hdrs_len(&s) + rnd32() % (TF_MTU_FRAME - tf_hdrs_len(&s) + 1);
		fi = build_parse(&s);
		assert_int_equal(fi.cls, FC_EQ_DATA);
		memcpy(orig, buf, s.len);

		hl = s.eq_hdr_len * 4u;
		l4 = fam == 4 ? 34 : 54;
		newlen = frame_trim(buf, s.len, &fi);
		assert_int_equal(newlen, l4 + 8 + hl);
		assert_true(newlen <= s.len);
		eh = buf + l4 + 8;
		assert_int_equal(eh[0], EQ_WIRE_VERSION << 4 | EQ_T_TRIMMED);
		assert_int_equal(eh[1], s.eq_flags | EQ_F_TRIMMED);
		assert_int_equal(eh[2], s.eq_hdr_len);
		assert_memory_equal(eh + 3, orig + l4 + 8 + 3, hl - 3);	/* ids, seq, options */
		assert_memory_equal(buf, orig, 14);			/* Ethernet */
		if (fam == 4) {
			assert_int_equal(tf_rd16(buf + TF_ETH + 2), newlen - TF_ETH);
			assert_true(tf_ip4_csum_ok(buf));
			/* only the length and checksum of the IP header changed */
			assert_memory_equal(buf + TF_ETH, orig + TF_ETH, 2);
			assert_memory_equal(buf + TF_ETH + 4, orig + TF_ETH + 4, 6);
			assert_memory_equal(buf + TF_ETH + 12, orig + TF_ETH + 12, 8);
		} else {
			assert_int_equal(tf_rd16(buf + TF_ETH + 4), newlen - 54);
			assert_memory_equal(buf + TF_ETH, orig + TF_ETH, 4);
			assert_memory_equal(buf + TF_ETH + 6, orig + TF_ETH + 6, 34);
		}
		assert_memory_equal(buf + l4, orig + l4, 4);		/* ports */
		assert_int_equal(tf_rd16(buf + l4 + 4), 8 + hl);
		assert_true(tf_l4_csum_ok(buf, newlen));
		/* The result parses, as edgeq control, same flow. */
		assert_int_equal(parse(buf, newlen, &fi2), FE_OK);
		assert_int_equal(fi2.cls, FC_EQ_CTRL);
		assert_int_equal(fi2.flow_hash, fi.flow_hash);
		assert_int_equal(fi2.ecn, fi.ecn);
		/* Trimming it again does nothing. */
		assert_int_equal(frame_trim(buf, newlen, &fi2), 0);
	}
}

/* A DATA packet that is nothing but its header trims to itself. */
static void frame_trim__header_only_packet(void **state)
{
	struct tf_spec s = tf_eq(4, "10.0.0.1", "10.0.0.2", 62);
	struct frame_info fi = build_parse(&s);

	assert_int_equal(frame_trim(buf, 62, &fi), 62);
	assert_int_equal(buf[42] & 0xf, EQ_T_TRIMMED);
	assert_true(tf_ip4_csum_ok(buf));
	assert_true(tf_l4_csum_ok(buf, 62));
}

/* Not DATA, or not trimmable: returns 0 and leaves every byte alone. */
static void frame_trim__refuses_what_it_must_not_cut(void **state)
{
	struct frame_info fi;
	struct tf_spec s;

	/* plain UDP, TCP */
	s = tf_udp(4, "10.0.0.1", "10.0.0.2", 1, 2, 1000);
	fi = build_parse(&s);
	memcpy(orig, buf, s.len);
	assert_int_equal(frame_trim(buf, s.len, &fi), 0);
	assert_memory_equal(orig, buf, s.len);
	s.proto = IPPROTO_TCP;
	fi = build_parse(&s);
	memcpy(orig, buf, s.len);
	assert_int_equal(frame_trim(buf, s.len, &fi), 0);
	assert_memory_equal(orig, buf, s.len);
	/* edgeq control and trimmed packets */
	for (uint8_t type = EQ_T_TRIMMED; type <= EQ_T_RST; type++) {
		s = tf_eq(6, "fd00::1", "fd00::2", 300);
		s.eq_type = type;
		fi = build_parse(&s);
		assert_int_equal(fi.cls, FC_EQ_CTRL);
		memcpy(orig, buf, s.len);
		assert_int_equal(frame_trim(buf, s.len, &fi), 0);
		assert_memory_equal(orig, buf, s.len);
	}
	/* wrong version */
	s = tf_eq(4, "10.0.0.1", "10.0.0.2", 1000);
	s.eq_ver = 2;
	fi = build_parse(&s);
	memcpy(orig, buf, s.len);
	assert_int_equal(frame_trim(buf, s.len, &fi), 0);
	assert_memory_equal(orig, buf, s.len);
	/* IPv4 options: edgeq never sends them */
	s = tf_eq(4, "10.0.0.1", "10.0.0.2", 1000);
	s.ip_opt_words = 2;
	fi = build_parse(&s);
	assert_int_equal(fi.cls, FC_EQ_DATA);
	memcpy(orig, buf, s.len);
	assert_int_equal(frame_trim(buf, s.len, &fi), 0);
	assert_memory_equal(orig, buf, s.len);
	/* options claiming more than the frame holds */
	s = tf_eq(4, "10.0.0.1", "10.0.0.2", 200);
	fi = build_parse(&s);
	buf[44] = 255;	/* hdr_len: 1020 bytes */
	memcpy(orig, buf, s.len);
	assert_int_equal(frame_trim(buf, s.len, &fi), 0);
	assert_memory_equal(orig, buf, s.len);
}

/* ---- frame_dec_ttl ----------------------------------------------------------------------- */

static void frame_dec_ttl__ipv4_keeps_the_checksum(void **state)
{
	bool allowed[FRAME_MAX] = { false };

	allowed[TF_ETH + 8] = allowed[TF_ETH + 10] = allowed[TF_ETH + 11] = true;
	rng_state = 7;
	for (int n = 0; n < 200; n++) {
		struct tf_spec s = tf_udp(4, "10.0.0.1", "10.0.0.2", (uint16_t)rnd32(), 2, 60 + rnd32() % 1400);

		for (int i = 0; i < 4; i++)
			s.src[i] = (uint8_t)rnd32();
		s.ip_id = (uint16_t)rnd32();
		s.tos = (uint8_t)rnd32();
		s.ip_opt_words = (uint8_t)(n % 3);
		for (unsigned int ttl = 0; ttl < 256; ttl++) {
			struct frame_info fi;
			bool r;

			s.ttl = (uint8_t)ttl;
			fi = build_parse(&s);
			memcpy(orig, buf, s.len);
			r = frame_dec_ttl(buf, &fi);
			assert_int_equal(r, ttl > 1);
			assert_int_equal(buf[TF_ETH + 8], r ? ttl - 1 : ttl);
			assert_true(tf_ip4_csum_ok(buf));
			assert_only_changed(orig, buf, s.len, allowed);
			if (!r)
				assert_memory_equal(orig, buf, s.len);
		}
	}
}

static void frame_dec_ttl__ipv6_hop_limit(void **state)
{
	bool allowed[FRAME_MAX] = { false };
	struct tf_spec s = tf_udp(6, "fd00::1", "fd00::2", 1, 2, 500);

	allowed[TF_ETH + 7] = true;
	for (unsigned int hl = 0; hl < 256; hl++) {
		struct frame_info fi;
		bool r;

		s.ttl = (uint8_t)hl;
		fi = build_parse(&s);
		memcpy(orig, buf, s.len);
		r = frame_dec_ttl(buf, &fi);
		assert_int_equal(r, hl > 1);
		assert_int_equal(buf[TF_ETH + 7], r ? hl - 1 : hl);
		assert_only_changed(orig, buf, s.len, allowed);
		assert_true(tf_l4_csum_ok(buf, s.len));	/* not in the pseudo-header */
	}
}

/* ---- frame_set_macs ------------------------------------------------------------------------ */

static void frame_set_macs__destination_then_source(void **state)
{
	static const uint8_t d[6] = { 0x02, 0xe0, 0, 1, 2, 1 }, sm[6] = { 0x02, 0xe1, 0, 3, 4, 1 };
	struct tf_spec s = tf_udp(4, "10.0.0.1", "10.0.0.2", 1, 2, 100);

	tf_build(buf, &s);
	memcpy(orig, buf, s.len);
	frame_set_macs(buf, d, sm);
	assert_memory_equal(buf, d, 6);
	assert_memory_equal(buf + 6, sm, 6);
	assert_memory_equal(buf + 12, orig + 12, s.len - 12);
}

/* ---- frame_hash ------------------------------------------------------------------------------ */

/* Every input changes the hash: one bit flipped anywhere in the tuple or
 * the seed gives another value (bar a 2^-32 chance, none in 20000 here). */
static void frame_hash__depends_on_every_field_and_the_seed(void **state)
{
	rng_state = 8;
	for (int n = 0; n < 20000; n++) {
		uint8_t src[16], dst[16], s2[16], d2[16];
		uint16_t sp = (uint16_t)rnd32(), dp = (uint16_t)rnd32();
		uint8_t proto = (uint8_t)rnd32();
		uint32_t seed = rnd32(), h, bit;

		for (int i = 0; i < 16; i++) {
			src[i] = (uint8_t)rnd32();
			dst[i] = (uint8_t)rnd32();
		}
		h = frame_hash(src, dst, proto, sp, dp, seed);
		assert_int_equal(h, frame_hash(src, dst, proto, sp, dp, seed));	/* deterministic */
		memcpy(s2, src, 16);
		memcpy(d2, dst, 16);
		bit = rnd32() % 128;
		s2[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(h, frame_hash(s2, dst, proto, sp, dp, seed));
		d2[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_not_equal(h, frame_hash(src, d2, proto, sp, dp, seed));
		assert_int_not_equal(h, frame_hash(src, dst, (uint8_t)(proto ^ (1u << (n % 8))), sp, dp, seed));
		assert_int_not_equal(h, frame_hash(src, dst, proto, (uint16_t)(sp ^ (1u << (n % 16))), dp, seed));
		assert_int_not_equal(h, frame_hash(src, dst, proto, sp, (uint16_t)(dp ^ (1u << (n % 16))), seed));
		assert_int_not_equal(h, frame_hash(src, dst, proto, sp, dp, seed ^ (1u << (n % 32))));
		/* direction matters: a->b and b->a are different flows */
		if (memcmp(src, dst, 16))
			assert_int_not_equal(h, frame_hash(dst, src, proto, sp, dp, seed));
	}
}

/* frame_parse hashes the 5-tuple and nothing else of the packet. */
static void frame_hash__parse_hashes_the_5_tuple(void **state)
{
	rng_state = 9;
	for (int n = 0; n < 2000; n++) {
		struct tf_spec s = random_spec();
		struct frame_info fi, fi2;
		uint8_t src[16];
		uint16_t sp = s.sport, dp = s.dport;

		fi = build_parse(&s);
		tf_mapped(s.family, s.src, src);
		assert_int_equal(fi.flow_hash, frame_hash(src, fi.dst, s.proto, sp, dp, SEED));
		/* TOS, TTL, id, flow label, length, payload: same hash */
		s.tos ^= 0xff; s.ttl ^= 0x7f; s.ip_id ^= 0x1234; s.flow_label ^= 0x5555; s.seed++;
		s.len = tf_hdrs_len(&s) + (s.len - tf_hdrs_len(&s)) / 2;
		fi2 = build_parse(&s);
		assert_int_equal(fi2.flow_hash, fi.flow_hash);
		/* another seed: another hash */
		assert_int_equal(frame_parse(buf, s.len, EQP, SEED + 1, &fi2), FE_OK);
		assert_int_not_equal(fi2.flow_hash, fi.flow_hash);
		/* another source port: another hash */
		s.sport ^= 1;
		fi2 = build_parse(&s);
		assert_int_not_equal(fi2.flow_hash, fi.flow_hash);
	}
}

/* Flows differing only in the source port (the edgeq path id) spread
 * evenly over 2..8 ECMP next hops: chi-square far below what a stuck bit
 * would give (a 1-in-10^4 bound for 7 degrees of freedom is ~29). */
static void frame_hash__spreads_source_ports_evenly(void **state)
{
	uint8_t src[16], dst[16];

	tf_mapped(4, (const uint8_t[]){ 10, 250, 0, 1 }, src);
	tf_mapped(4, (const uint8_t[]){ 10, 250, 1, 1 }, dst);
	for (uint32_t nh = 2; nh <= 8; nh++) {
		uint32_t cnt[8] = { 0 }, n = 16384;
		double chi = 0, e = (double)n / nh;

		for (uint32_t i = 0; i < n; i++)
			cnt[frame_hash(src, dst, IPPROTO_UDP, (uint16_t)(EQ_SPORT_BASE | i), EQP, SEED) % nh]++;
		for (uint32_t k = 0; k < nh; k++)
			chi += (cnt[k] - e) * (cnt[k] - e) / e;
		if (chi > 30)
			fail_msg("%u next hops: chi-square %.1f", nh, chi);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(testlib__frames_have_valid_checksums),
		cmocka_unit_test(frame_parse__ipv4_udp),
		cmocka_unit_test(frame_parse__ipv4_tcp_and_other_protocols),
		cmocka_unit_test(frame_parse__ipv6_udp_and_tcp),
		cmocka_unit_test(frame_parse__ipv4_options_move_the_l4_header),
		cmocka_unit_test(frame_parse__ethernet_padding_is_accepted),
		cmocka_unit_test(frame_parse__non_ip_is_not_ip),
		cmocka_unit_test(frame_parse__malformed_headers),
		cmocka_unit_test(frame_parse__every_truncation),
		cmocka_unit_test(frame_parse__random_bytes_stay_within_the_frame),
		cmocka_unit_test(frame_parse__edgeq_classes),
		cmocka_unit_test(frame_parse__edgeq_port_is_the_destination_port),
		cmocka_unit_test(frame_parse__short_edgeq_header_is_other),
		cmocka_unit_test(frame_parse__ipv4_fragments),
		cmocka_unit_test(frame_set_ce__ipv4_keeps_the_checksum),
		cmocka_unit_test(frame_set_ce__ipv6_traffic_class),
		cmocka_unit_test(frame_set_ce__is_idempotent),
		cmocka_unit_test(frame_trim__cuts_to_the_edgeq_header),
		cmocka_unit_test(frame_trim__header_only_packet),
		cmocka_unit_test(frame_trim__refuses_what_it_must_not_cut),
		cmocka_unit_test(frame_dec_ttl__ipv4_keeps_the_checksum),
		cmocka_unit_test(frame_dec_ttl__ipv6_hop_limit),
		cmocka_unit_test(frame_set_macs__destination_then_source),
		cmocka_unit_test(frame_hash__depends_on_every_field_and_the_seed),
		cmocka_unit_test(frame_hash__parse_hashes_the_5_tuple),
		cmocka_unit_test(frame_hash__spreads_source_ports_evenly),
	};

	return cmocka_run_group_tests_name("fabric_frame", tests, NULL, NULL);
}
