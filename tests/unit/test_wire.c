// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for include/edgeq/wire.h: the layout of struct eq_hdr against
 * the byte offsets in the diagram at the top of wire.h, the overhead
 * constants, the ver_type nibble helpers (every version and type), the
 * RFC 1982 serial-number comparison eq_seq_before() across the 2^32 wrap,
 * and the options: eq_opt_find() and the segment option (eq_seg_index(),
 * eq_seg_of()).
 */
#include "testlib.h"
#include <arpa/inet.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>
#include <string.h>
#include "edgeq/wire.h"

#define FIELD_SIZE(type, member)	sizeof(((type *)0)->member)

/* ---- struct eq_hdr ---------------------------------------------------- */

static void eq_hdr__size_is_eq_hdr_len(void **state)
{
	assert_int_equal(sizeof(struct eq_hdr), 20);
	assert_int_equal(EQ_HDR_LEN, 20);
	assert_int_equal(sizeof(struct eq_hdr), EQ_HDR_LEN);
	assert_int_equal(EQ_HDR_WORDS, 5);
	assert_int_equal(EQ_HDR_WORDS * 4, EQ_HDR_LEN);
	/* hdr_len is one byte of 4-byte words. */
	assert_int_equal(EQ_HDR_MAX_LEN, 255 * 4);
	/* Packed: fields sit at the wire offsets whatever the ABI. */
	assert_int_equal(_Alignof(struct eq_hdr), 1);
}

static void eq_hdr__common_header_offsets(void **state)
{
	/* Bytes 0-7: ver|type, flags, hdr_len, proto, sender_id, path_id. */
	assert_int_equal(offsetof(struct eq_hdr, ver_type), 0);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, ver_type), 1);
	assert_int_equal(offsetof(struct eq_hdr, flags), 1);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, flags), 1);
	assert_int_equal(offsetof(struct eq_hdr, hdr_len), 2);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, hdr_len), 1);
	assert_int_equal(offsetof(struct eq_hdr, proto), 3);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, proto), 1);
	assert_int_equal(offsetof(struct eq_hdr, sender_id), 4);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, sender_id), 2);
	assert_int_equal(offsetof(struct eq_hdr, path_id), 6);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, path_id), 2);
}

static void eq_hdr__data_body_offsets(void **state)
{
	/* Bytes 8-19 for DATA/TRIMMED/RTS: seq, pull_target, frame_len (RTS: limit). */
	assert_int_equal(offsetof(struct eq_hdr, data.seq), 8);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, data.seq), 4);
	assert_int_equal(offsetof(struct eq_hdr, data.pull_target), 12);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, data.pull_target), 4);
	assert_int_equal(offsetof(struct eq_hdr, data.frame_len), 16);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, data.frame_len), 4);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, data), 12);
}

static void eq_hdr__ctl_body_offsets(void **state)
{
	/* Bytes 8-19 for control packets: ack, pull_no, busy_ns. */
	assert_int_equal(offsetof(struct eq_hdr, ctl.ack), 8);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, ctl.ack), 4);
	assert_int_equal(offsetof(struct eq_hdr, ctl.pull_no), 12);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, ctl.pull_no), 4);
	assert_int_equal(offsetof(struct eq_hdr, ctl.busy_ns), 16);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, ctl.busy_ns), 4);
	assert_int_equal(FIELD_SIZE(struct eq_hdr, ctl), 12);
}

/* Reading a packet through the struct sees big-endian fields at the
 * documented bytes; DATA and control bodies alias the same bytes. */
static void eq_hdr__fields_read_wire_bytes(void **state)
{
	unsigned char wire[EQ_HDR_LEN];
	struct eq_hdr h;

	for (unsigned int i = 0; i < sizeof(wire); i++)
		wire[i] = (unsigned char)(0x10 + i);
	memcpy(&h, wire, sizeof(h));
	assert_int_equal(h.ver_type, 0x10);
	assert_int_equal(h.flags, 0x11);
	assert_int_equal(h.hdr_len, 0x12);
	assert_int_equal(h.proto, 0x13);
	assert_int_equal(ntohs(h.sender_id), 0x1415);
	assert_int_equal(ntohs(h.path_id), 0x1617);
	assert_int_equal(ntohl(h.data.seq), 0x18191a1b);
	assert_int_equal(ntohl(h.data.pull_target), 0x1c1d1e1f);
	assert_int_equal(ntohl(h.data.frame_len), 0x20212223);
	assert_int_equal(ntohl(h.ctl.ack), 0x18191a1b);
	assert_int_equal(ntohl(h.ctl.pull_no), 0x1c1d1e1f);
	assert_int_equal(ntohl(h.ctl.busy_ns), 0x20212223);
}

/* ---- overhead and constants -------------------------------------------- */

static void eq_overhead__v4_and_v6(void **state)
{
	assert_int_equal(EQ_UDP_LEN, sizeof(struct udphdr));
	assert_int_equal(EQ_OVERHEAD_V4, 48);
	assert_int_equal(EQ_OVERHEAD_V4, sizeof(struct iphdr) + sizeof(struct udphdr) + sizeof(struct eq_hdr));
	assert_int_equal(EQ_OVERHEAD_V6, 68);
	assert_int_equal(EQ_OVERHEAD_V6, sizeof(struct ip6_hdr) + sizeof(struct udphdr) + sizeof(struct eq_hdr));
}

static void eq_sport__base_and_mask_split_the_port(void **state)
{
	/* Base and mask are disjoint and together cover 16 bits, so
	 * BASE | (path & MASK) stays in the IANA dynamic range 49152-65535. */
	assert_int_equal(EQ_SPORT_BASE & EQ_SPORT_MASK, 0);
	assert_int_equal(EQ_SPORT_BASE | EQ_SPORT_MASK, 0xffff);
	assert_true(EQ_SPORT_BASE >= 49152);
}

static void eq_flags__distinct_single_bits(void **state)
{
	static const unsigned int f[] = { EQ_F_SYN, EQ_F_TRIMMED, EQ_F_CSN, EQ_F_ECE, EQ_F_RTX };
	unsigned int seen = 0;

	for (unsigned int i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		assert_int_not_equal(f[i], 0);
		assert_int_equal(f[i] & (f[i] - 1), 0);	/* one bit */
		assert_int_equal(f[i] & ~0xffu, 0);		/* fits byte 1 */
		assert_int_equal(seen & f[i], 0);		/* not reused */
		seen |= f[i];
	}
	/* Types fit the low nibble. */
	assert_true(EQ_T_MAX <= 15);
	assert_true(EQ_WIRE_VERSION <= 15);
}

/* ---- eq_version / eq_type / eq_mk_ver_type ------------------------------ */

static void eq_version__high_nibble_of_every_byte(void **state)
{
	struct eq_hdr h;

	memset(&h, 0, sizeof(h));
	for (unsigned int b = 0; b < 256; b++) {
		h.ver_type = (__u8)b;
		assert_int_equal(eq_version(&h), b >> 4);
	}
}

static void eq_type__low_nibble_of_every_byte(void **state)
{
	struct eq_hdr h;

	memset(&h, 0, sizeof(h));
	for (unsigned int b = 0; b < 256; b++) {
		h.ver_type = (__u8)b;
		assert_int_equal(eq_type(&h), b & 0x0f);
		/* The two nibbles rebuild the byte. */
		assert_int_equal(eq_mk_ver_type(eq_version(&h), eq_type(&h)), b);
	}
}

static void eq_mk_ver_type__round_trip_all_versions_and_types(void **state)
{
	unsigned char seen[256] = { 0 };
	struct eq_hdr h;

	memset(&h, 0, sizeof(h));
	for (unsigned int v = 0; v < 16; v++) {
		for (unsigned int t = 0; t < 16; t++) {
			h.ver_type = eq_mk_ver_type((__u8)v, (__u8)t);
			assert_int_equal(eq_version(&h), v);
			assert_int_equal(eq_type(&h), t);
			assert_int_equal(seen[h.ver_type], 0);	/* injective */
			seen[h.ver_type] = 1;
		}
	}
	h.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_DATA);
	assert_int_equal(h.ver_type, 0x10);
}

static void eq_mk_ver_type__type_cannot_spill_into_version(void **state)
{
	struct eq_hdr h;

	memset(&h, 0, sizeof(h));
	for (unsigned int v = 0; v < 16; v++) {
		for (unsigned int t = 0; t < 256; t++) {
			h.ver_type = eq_mk_ver_type((__u8)v, (__u8)t);
			assert_int_equal(eq_version(&h), v);
			assert_int_equal(eq_type(&h), t & 0x0f);
		}
	}
}

/* ---- eq_seq_before -------------------------------------------------------- */

static void eq_seq_before__simple_order(void **state)
{
	assert_true(eq_seq_before(1, 2));
	assert_false(eq_seq_before(2, 1));
	assert_false(eq_seq_before(0, 0));
	assert_false(eq_seq_before(5, 5));
	assert_true(eq_seq_before(0, 0x7fffffff));
	assert_false(eq_seq_before(0x7fffffff, 0));
}

static void eq_seq_before__across_wrap(void **state)
{
	assert_true(eq_seq_before(0xffffffffu, 0));
	assert_false(eq_seq_before(0, 0xffffffffu));
	assert_true(eq_seq_before(0xfffffff0u, 0x10));
	assert_false(eq_seq_before(0x10, 0xfffffff0u));
	assert_true(eq_seq_before(0x7fffffffu, 0x80000000u));
	assert_false(eq_seq_before(0x80000000u, 0x7fffffffu));
	/* 2^31 - 1 ahead is the far edge of "after". */
	assert_true(eq_seq_before(0x80000001u, 0));
	assert_false(eq_seq_before(0, 0x80000001u));
}

/* For every a and every distance 0 < d < 2^31: a is before a + d (mod 2^32)
 * and not the other way round; nothing is before itself; the order is
 * transitive inside a half-space window. */
static void eq_seq_before__order_within_half_space(void **state)
{
	rng_state = 0x5e9;
	for (int i = 0; i < 100000; i++) {
		uint32_t a = rnd32();
		uint32_t d = rnd32() % 0x7fffffffu + 1;	/* 1 .. 2^31-1 */
		uint32_t b = a + d;

		assert_true(eq_seq_before(a, b));
		assert_false(eq_seq_before(b, a));
		assert_false(eq_seq_before(a, a));

		/* c between a and b: a < c < b */
		if (d >= 2) {
			uint32_t c = a + 1 + rnd32() % (d - 1);

			assert_true(eq_seq_before(a, c));
			assert_true(eq_seq_before(c, b));
		}
	}
	/* The window edges around the wrap, for every a of a sweep. */
	for (uint64_t a = 0; a <= 0xffffffffu; a += 0x01000193u) {
		uint32_t x = (uint32_t)a;

		assert_true(eq_seq_before(x, x + 1));
		assert_true(eq_seq_before(x, x + 0x7fffffffu));
		assert_false(eq_seq_before(x + 1, x));
		assert_false(eq_seq_before(x + 0x7fffffffu, x));
	}
}

/* ---- options ------------------------------------------------------------ */

static void eq_opt_find__skips_pads_and_other_kinds(void **state)
{
	/* PAD, QID (4), PAD, PAD, SEG (8), TSTAMP (10) */
	uint8_t o[] = { 0, 4, 4, 0, 7, 0, 0, 5, 8, 1, 2, 3, 4, 5, 6, 1, 10, 0, 0, 0, 0, 0, 0, 0, 0 };
	const uint8_t *end = o + sizeof(o);

	assert_ptr_equal(eq_opt_find(o, end, end, EQ_OPT_QID), o + 1);
	assert_ptr_equal(eq_opt_find(o, end, end, EQ_OPT_SEG), o + 7);
	assert_ptr_equal(eq_opt_find(o, end, end, EQ_OPT_TSTAMP), o + 15);
	assert_null(eq_opt_find(o, end, end, EQ_OPT_CREDIT));
	/* Up to the header's end (lim) or the buffer's, whichever is first. */
	assert_null(eq_opt_find(o, o + 8, end, EQ_OPT_SEG));
	assert_null(eq_opt_find(o, end, o + 8, EQ_OPT_SEG));
	assert_ptr_equal(eq_opt_find(o, o + 9, end, EQ_OPT_SEG), o + 7);
}

static void eq_opt_find__stops_at_a_length_below_2(void **state)
{
	uint8_t o[] = { EQ_OPT_QID, 1, EQ_OPT_SEG, 8, 0, 0, 0, 0, 0, 0 };
	const uint8_t *end = o + sizeof(o);

	assert_null(eq_opt_find(o, end, end, EQ_OPT_SEG));
	o[1] = 0;
	assert_null(eq_opt_find(o, end, end, EQ_OPT_SEG));
	o[1] = 2;
	assert_ptr_equal(eq_opt_find(o, end, end, EQ_OPT_SEG), o + 2);
}

static void eq_opt_find__looks_at_a_bounded_number_of_entries(void **state)
{
	uint8_t o[64];
	const uint8_t *end = o + sizeof(o);

	memset(o, EQ_OPT_PAD, sizeof(o));
	o[EQ_OPT_SCAN - 1] = EQ_OPT_SEG;	/* the last entry it looks at */
	o[EQ_OPT_SCAN] = 8;
	assert_ptr_equal(eq_opt_find(o, end, end, EQ_OPT_SEG), o + EQ_OPT_SCAN - 1);
	memset(o, EQ_OPT_PAD, sizeof(o));
	o[EQ_OPT_SCAN] = EQ_OPT_SEG;		/* one past it */
	o[EQ_OPT_SCAN + 1] = 8;
	assert_null(eq_opt_find(o, end, end, EQ_OPT_SEG));
}

static void eq_opt_seg__layout(void **state)
{
	assert_int_equal(sizeof(struct eq_opt_seg), EQ_OPT_SEG_LEN);
	assert_int_equal(offsetof(struct eq_opt_seg, mss), 2);
	assert_int_equal(offsetof(struct eq_opt_seg, tcp_seq0), 4);
	assert_int_equal(EQ_ROOM_V4, EQ_OVERHEAD_V4);
	assert_int_equal(EQ_ROOM_V6, EQ_OVERHEAD_V6 + EQ_OPT_SEG_LEN);
	assert_int_equal(EQ_OPT_SEG_LEN % 4, 0);	/* keeps hdr_len whole words */
}

static void eq_seg_index__multiples_of_the_size_only(void **state)
{
	assert_int_equal(eq_seg_index(1000, 5000, 5000), 0);
	assert_int_equal(eq_seg_index(1000, 5000, 6000), 1);
	assert_int_equal(eq_seg_index(1000, 5000, 5000 + 1023 * 1000), 1023);
	assert_int_equal(eq_seg_index(1000, 5000, 5000 + 1024 * 1000), -1);	/* EQ_SEG_MAX */
	assert_int_equal(eq_seg_index(1000, 5000, 5999), -1);
	assert_int_equal(eq_seg_index(1000, 5000, 4000), -1);	/* before segment 0 */
	assert_int_equal(eq_seg_index(0, 5000, 5000), -1);
	/* Across the wrap of the TCP sequence space. */
	assert_int_equal(eq_seg_index(1448, 0xffffffffu - 1000, 0xffffffffu - 1000 + 3 * 1448), 3);
}

/* An IPv6 DATA frame's edgeq header with a SEG option, then an inner
 * IPv4 (v = 4) or IPv6 TCP header whose seq is tcp_seq. */
static size_t seg_frame(uint8_t *b, int v, uint32_t tcp_seq0, uint16_t mss, uint32_t tcp_seq)
{
	struct eq_hdr *eq = (struct eq_hdr *)b;
	struct eq_opt_seg so = { EQ_OPT_SEG, EQ_OPT_SEG_LEN, htons(mss), htonl(tcp_seq0) };
	uint8_t *in = b + EQ_HDR_LEN + EQ_OPT_SEG_LEN;
	size_t hl = v == 4 ? 20 : 40;
	uint32_t ts = htonl(tcp_seq);

	memset(b, 0, EQ_HDR_LEN + EQ_OPT_SEG_LEN + hl + 20);
	eq->hdr_len = EQ_HDR_WORDS + EQ_OPT_SEG_LEN / 4;
	memcpy(b + EQ_HDR_LEN, &so, sizeof(so));
	in[0] = v == 4 ? 0x45 : 0x60;
	in[v == 4 ? 9 : 6] = IPPROTO_TCP;
	memcpy(in + hl + 4, &ts, 4);
	return EQ_HDR_LEN + EQ_OPT_SEG_LEN + hl + 20;
}

static void eq_seg_of__index_from_the_inner_tcp_seq(void **state)
{
	uint8_t b[128];
	size_t n;

	for (int v = 4; v <= 6; v += 2) {
		n = seg_frame(b, v, 100, 1428, 100 + 5 * 1428);
		assert_int_equal(eq_seg_of((struct eq_hdr *)b, b + n), 5);
		n = seg_frame(b, v, 100, 1428, 101);
		assert_int_equal(eq_seg_of((struct eq_hdr *)b, b + n), -1);
	}
	/* Without the option: nothing to add. */
	n = seg_frame(b, 4, 100, 1428, 100 + 1428);
	b[EQ_HDR_LEN] = EQ_OPT_QID;
	b[EQ_HDR_LEN + 1] = 8;
	assert_int_equal(eq_seg_of((struct eq_hdr *)b, b + n), 0);
	/* Padded out (as the agent stamps a frame of its own): the same. */
	memset(b + EQ_HDR_LEN, EQ_OPT_PAD, EQ_OPT_SEG_LEN);
	assert_int_equal(eq_seg_of((struct eq_hdr *)b, b + n), 0);
}

static void eq_seg_of__refuses_what_it_cannot_number(void **state)
{
	uint8_t b[128];
	size_t n = seg_frame(b, 4, 100, 1000, 2100);

	/* Trimmed: the header ends where the inner packet would begin. */
	assert_int_equal(eq_seg_of((struct eq_hdr *)b, b + EQ_HDR_LEN + EQ_OPT_SEG_LEN), -1);
	/* The inner TCP header cut short. */
	assert_int_equal(eq_seg_of((struct eq_hdr *)b, b + n - 13), -1);
	assert_int_equal(eq_seg_of((struct eq_hdr *)b, b + n - 12), 2);
	/* Not TCP. */
	b[EQ_HDR_LEN + EQ_OPT_SEG_LEN + 9] = IPPROTO_UDP;
	assert_int_equal(eq_seg_of((struct eq_hdr *)b, b + n), -1);
	/* An IHL below 5. */
	n = seg_frame(b, 4, 100, 1000, 2100);
	b[EQ_HDR_LEN + EQ_OPT_SEG_LEN] = 0x44;
	assert_int_equal(eq_seg_of((struct eq_hdr *)b, b + n), -1);
	/* An option shorter than it must be. */
	n = seg_frame(b, 4, 100, 1000, 2100);
	b[EQ_HDR_LEN + 1] = 6;
	assert_int_equal(eq_seg_of((struct eq_hdr *)b, b + n), -1);
	/* A segment size of 0. */
	n = seg_frame(b, 6, 100, 0, 100);
	assert_int_equal(eq_seg_of((struct eq_hdr *)b, b + n), -1);
}

/* The room options take in a header: each at its length, together,
 * padded to whole words; all four are the most a peer may ask. */
static void eq_opts_room__whole_words(void **state)
{
	assert_int_equal(eq_opts_room(0), 0);
	assert_int_equal(eq_opts_room(1u << EQ_OPT_TSTAMP), 12);
	assert_int_equal(eq_opts_room(1u << EQ_OPT_CREDIT), 8);
	assert_int_equal(eq_opts_room(1u << EQ_OPT_SRC), 12);
	assert_int_equal(eq_opts_room(1u << EQ_OPT_QID), 4);
	assert_int_equal(eq_opts_room(1u << EQ_OPT_TSTAMP | 1u << EQ_OPT_CREDIT), 16);
	assert_int_equal(eq_opts_room(1u << EQ_OPT_TSTAMP | 1u << EQ_OPT_CREDIT | 1u << EQ_OPT_SRC |
				      1u << EQ_OPT_QID), EQ_PEER_OPT_MAX);
	/* PAD and SEG are not a scheme's: no room. */
	assert_int_equal(eq_opts_room(1u << EQ_OPT_PAD | 1u << EQ_OPT_SEG), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eq_hdr__size_is_eq_hdr_len),
		cmocka_unit_test(eq_hdr__common_header_offsets),
		cmocka_unit_test(eq_hdr__data_body_offsets),
		cmocka_unit_test(eq_hdr__ctl_body_offsets),
		cmocka_unit_test(eq_hdr__fields_read_wire_bytes),
		cmocka_unit_test(eq_overhead__v4_and_v6),
		cmocka_unit_test(eq_sport__base_and_mask_split_the_port),
		cmocka_unit_test(eq_flags__distinct_single_bits),
		cmocka_unit_test(eq_version__high_nibble_of_every_byte),
		cmocka_unit_test(eq_type__low_nibble_of_every_byte),
		cmocka_unit_test(eq_mk_ver_type__round_trip_all_versions_and_types),
		cmocka_unit_test(eq_mk_ver_type__type_cannot_spill_into_version),
		cmocka_unit_test(eq_seq_before__simple_order),
		cmocka_unit_test(eq_seq_before__across_wrap),
		cmocka_unit_test(eq_seq_before__order_within_half_space),
		cmocka_unit_test(eq_opt_find__skips_pads_and_other_kinds),
		cmocka_unit_test(eq_opt_find__stops_at_a_length_below_2),
		cmocka_unit_test(eq_opt_find__looks_at_a_bounded_number_of_entries),
		cmocka_unit_test(eq_opt_seg__layout),
		cmocka_unit_test(eq_seg_index__multiples_of_the_size_only),
		cmocka_unit_test(eq_seg_of__index_from_the_inner_tcp_seq),
		cmocka_unit_test(eq_seg_of__refuses_what_it_cannot_number),
		cmocka_unit_test(eq_opts_room__whole_words),
	};

	return cmocka_run_group_tests_name("wire", tests, NULL, NULL);
}
