// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tests/fabric/load/datagram.c, the payload of eqload's
 * UDP datagrams: frame bytes and size limits; the plain layout's bytes and
 * round trip; the edgeq layout's header field by field against
 * include/edgeq/wire.h; a datagram cut by a switch the way the fabric
 * trims it is read as trimmed with its seq; foreign datagrams refused;
 * random bytes never crash the decoder.
 */
#include "testlib.h"
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "load/datagram.h"

static void frame_bytes__and_limits(void **state)
{
	/* 1472-byte payload: the 1514-byte frame of a 1500-byte IPv4 MTU. */
	assert_int_equal(eql_dg_frame_bytes(1472, AF_INET), 1514);
	assert_int_equal(eql_dg_frame_bytes(1452, AF_INET6), 1514);
	assert_int_equal(eql_dg_frame_bytes(0, AF_INET), 42);
	assert_int_equal(eql_dg_frame_bytes(0, AF_INET6), 62);
	assert_int_equal(eql_dg_max_payload(AF_INET), 65507);
	assert_int_equal(eql_dg_max_payload(AF_INET6), 65527);
	assert_int_equal(EQL_DG_EDGEQ_MIN, EQ_HDR_LEN + 16);
}

static void plain__layout_is_big_endian_seq_then_time(void **state)
{
	uint8_t buf[64] = { 0 };
	struct eql_dg_info d;

	eql_dg_encode(buf, sizeof(buf), false, 0x0102030405060708ULL, 0x1112131415161718ULL);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(buf[i], 1 + i);
		assert_int_equal(buf[8 + i], 0x11 + i);
	}
	for (size_t i = 16; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);		/* the rest untouched */
	assert_int_equal(eql_dg_decode(buf, sizeof(buf), false, &d), 0);
	assert_int_equal(d.seq, 0x0102030405060708ULL);
	assert_int_equal(d.send_ns, 0x1112131415161718ULL);
	assert_true(d.has_time);
	assert_false(d.trimmed);
}

static void plain__roundtrip_and_short_datagrams(void **state)
{
	uint8_t buf[2000];
	struct eql_dg_info d;

	rng_state = 0x64670001;
	for (int i = 0; i < 100000; i++) {
		uint64_t seq = rnd64(), t = rnd64();
		size_t len = EQL_DG_PLAIN_MIN + rnd32() % (sizeof(buf) - EQL_DG_PLAIN_MIN);

		eql_dg_encode(buf, len, false, seq, t);
		assert_int_equal(eql_dg_decode(buf, len, false, &d), 0);
		assert_int_equal(d.seq, seq);
		assert_int_equal(d.send_ns, t);
	}
	/* 8..15 bytes: a seq without a time; under 8: not ours. */
	eql_dg_encode(buf, sizeof(buf), false, 77, 88);
	assert_int_equal(eql_dg_decode(buf, 8, false, &d), 0);
	assert_int_equal(d.seq, 77);
	assert_false(d.has_time);
	for (size_t len = 0; len < 8; len++)
		assert_int_equal(eql_dg_decode(buf, len, false, &d), -1);
}

static void edgeq__header_is_valid_data(void **state)
{
	uint8_t buf[1472] = { 0 };
	struct eq_hdr h;
	struct eql_dg_info d;

	eql_dg_encode(buf, sizeof(buf), true, 0x1234567890ULL, 999);
	memcpy(&h, buf, sizeof(h));
	assert_int_equal(eq_version(&h), EQ_WIRE_VERSION);
	assert_int_equal(eq_type(&h), EQ_T_DATA);
	assert_int_equal(h.flags, 0);
	assert_int_equal(h.hdr_len, EQ_HDR_WORDS);
	assert_int_equal(h.proto, EQL_DG_EDGEQ_PROTO);
	assert_int_not_equal(h.proto, EQ_PROTO_IPV4);	/* never injected as inner IP */
	assert_int_not_equal(h.proto, EQ_PROTO_IPV6);
	assert_int_equal(ntohs(h.sender_id), EQL_DG_SENDER_ID);
	assert_int_equal(h.path_id, 0);
	assert_int_equal(ntohl(h.data.seq), 0x34567890u);	/* seq mod 2^32 */
	assert_int_equal(h.data.pull_target, 0);
	assert_int_equal(h.data.frame_len, 0);
	/* eqload's own seq and time follow the header, big-endian. */
	assert_int_equal(buf[EQ_HDR_LEN + 3], 0x12);
	assert_int_equal(buf[EQ_HDR_LEN + 7], 0x90);
	assert_int_equal(eql_dg_decode(buf, sizeof(buf), true, &d), 0);
	assert_int_equal(d.seq, 0x1234567890ULL);
	assert_int_equal(d.send_ns, 999);
	assert_false(d.trimmed);
}

/* What the fabric's switch does (tests/fabric/switch/frame.c): type
 * TRIMMED, the flag set, the datagram cut to hdr_len * 4 bytes. */
static void edgeq__switch_trimmed_datagram(void **state)
{
	uint8_t buf[1472] = { 0 };
	struct eq_hdr h;
	struct eql_dg_info d;

	for (uint64_t seq = 0; seq < 100000; seq += 37) {
		eql_dg_encode(buf, sizeof(buf), true, seq, 5);
		memcpy(&h, buf, sizeof(h));
		h.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_TRIMMED);
		h.flags |= EQ_F_TRIMMED;
		memcpy(buf, &h, sizeof(h));
		assert_int_equal(eql_dg_decode(buf, EQ_HDR_LEN, true, &d), 0);
		assert_true(d.trimmed);
		assert_false(d.has_time);
		assert_int_equal(d.seq, seq);
	}
}

/* Any one of the three signs suffices. */
static void edgeq__each_sign_of_trimming(void **state)
{
	uint8_t buf[100] = { 0 };
	struct eq_hdr h;
	struct eql_dg_info d;

	eql_dg_encode(buf, sizeof(buf), true, 5, 6);
	memcpy(&h, buf, sizeof(h));
	/* type only, full length */
	h.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_TRIMMED);
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(eql_dg_decode(buf, sizeof(buf), true, &d), 0);
	assert_true(d.trimmed);
	/* flag only */
	h.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_DATA);
	h.flags = EQ_F_TRIMMED;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(eql_dg_decode(buf, sizeof(buf), true, &d), 0);
	assert_true(d.trimmed);
	/* length only: DATA, but no room for eqload's seq after the header */
	h.flags = 0;
	memcpy(buf, &h, sizeof(h));
	for (size_t len = EQ_HDR_LEN; len < EQ_HDR_LEN + 8; len++) {
		assert_int_equal(eql_dg_decode(buf, len, true, &d), 0);
		assert_true(d.trimmed);
		assert_int_equal(d.seq, 5);
	}
	/* whole */
	assert_int_equal(eql_dg_decode(buf, sizeof(buf), true, &d), 0);
	assert_false(d.trimmed);
}

static void edgeq__refuses_foreign_datagrams(void **state)
{
	uint8_t good[64] = { 0 }, buf[64];
	struct eq_hdr h;
	struct eql_dg_info d;

	eql_dg_encode(good, sizeof(good), true, 1, 2);
	for (size_t len = 0; len < EQ_HDR_LEN; len++)
		assert_int_equal(eql_dg_decode(good, len, true, &d), -1);
	/* wrong version */
	memcpy(buf, good, sizeof(buf));
	buf[0] = eq_mk_ver_type(2, EQ_T_DATA);
	assert_int_equal(eql_dg_decode(buf, sizeof(buf), true, &d), -1);
	/* hdr_len below the fixed header, or beyond the datagram */
	memcpy(buf, good, sizeof(buf));
	buf[2] = EQ_HDR_WORDS - 1;
	assert_int_equal(eql_dg_decode(buf, sizeof(buf), true, &d), -1);
	buf[2] = sizeof(buf) / 4 + 1;
	assert_int_equal(eql_dg_decode(buf, sizeof(buf), true, &d), -1);
	/* control types are not data */
	for (int t = EQ_T_PULL; t <= 15; t++) {
		memcpy(&h, good, sizeof(h));
		h.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, (uint8_t)t);
		memcpy(buf, good, sizeof(buf));
		memcpy(buf, &h, sizeof(h));
		assert_int_equal(eql_dg_decode(buf, sizeof(buf), true, &d), -1);
	}
	/* options: eqload's seq sits after hdr_len words */
	memcpy(buf, good, sizeof(buf));
	memmove(buf + EQ_HDR_LEN + 4, buf + EQ_HDR_LEN, 16);
	memset(buf + EQ_HDR_LEN, 0, 4);			/* four PAD options */
	buf[2] = EQ_HDR_WORDS + 1;
	assert_int_equal(eql_dg_decode(buf, EQ_HDR_LEN + 4 + 16, true, &d), 0);
	assert_int_equal(d.seq, 1);
	assert_int_equal(d.send_ns, 2);
}

static void decode__random_bytes_never_crash(void **state)
{
	uint8_t buf[64];
	struct eql_dg_info d;

	rng_state = 0x64670002;
	for (int i = 0; i < 1000000; i++) {
		size_t len = rnd32() % (sizeof(buf) + 1);
		bool edgeq = i & 1;

		for (size_t j = 0; j < len; j++)
			buf[j] = (uint8_t)rnd32();
		if (edgeq && len && i % 4 == 1)
			buf[0] = (uint8_t)((EQ_WIRE_VERSION << 4) | (buf[0] & 1));
		if (eql_dg_decode(buf, len, edgeq, &d) == 0 && edgeq) {
			assert_true(len >= EQ_HDR_LEN);
			assert_int_equal(buf[0] >> 4, EQ_WIRE_VERSION);
			assert_true(buf[2] >= EQ_HDR_WORDS && buf[2] * 4u <= len);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frame_bytes__and_limits),
		cmocka_unit_test(plain__layout_is_big_endian_seq_then_time),
		cmocka_unit_test(plain__roundtrip_and_short_datagrams),
		cmocka_unit_test(edgeq__header_is_valid_data),
		cmocka_unit_test(edgeq__switch_trimmed_datagram),
		cmocka_unit_test(edgeq__each_sign_of_trimming),
		cmocka_unit_test(edgeq__refuses_foreign_datagrams),
		cmocka_unit_test(decode__random_bytes_never_crash),
	};

	return cmocka_run_group_tests_name("load_datagram", tests, NULL, NULL);
}
