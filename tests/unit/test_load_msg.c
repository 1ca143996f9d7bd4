// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tests/fabric/load/msg.c, the eqload request header: the
 * exact bytes on the wire, encode/decode round trips at and between the
 * limits, rejection of a bad magic (every byte), of resp_len 0 or above
 * 64 MiB and of req_len above 2^48 (the stream marker excepted), and
 * random headers that never decode to out-of-range values.
 */
#include "testlib.h"
#include <string.h>
#include "load/msg.h"

static void encode__bytes_are_network_order(void **state)
{
	static const uint8_t want[EQL_MSG_HDR_LEN] = {
		'E', 'Q', 'L', 'D',			/* magic */
		0x00, 0x00, 0x01, 0x02,			/* resp_len 258 */
		0x00, 0x00, 0x01, 0x23,			/* req_len high */
		0x45, 0x67, 0x89, 0xab,			/* req_len low */
	};
	struct eql_msg m = { .resp_len = 258, .req_len = 0x123456789abULL };
	uint8_t out[EQL_MSG_HDR_LEN];

	assert_int_equal(EQL_MSG_MAGIC, ('E' << 24) | ('Q' << 16) | ('L' << 8) | 'D');
	eql_msg_encode(out, &m);
	assert_memory_equal(out, want, sizeof(want));
}

static void roundtrip__valid_headers(void **state)
{
	static const struct eql_msg edges[] = {
		{ 1, 0 }, { 1, 1 }, { EQL_MSG_RESP_MAX, 0 }, { 1, EQL_MSG_REQ_MAX },
		{ 64, EQL_MSG_REQ_STREAM }, { EQL_MSG_RESP_MAX, EQL_MSG_REQ_MAX },
	};
	uint8_t buf[EQL_MSG_HDR_LEN];
	struct eql_msg got;

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		assert_int_equal(eql_msg_check(&edges[i]), EQL_MSG_OK);
		eql_msg_encode(buf, &edges[i]);
		assert_int_equal(eql_msg_decode(buf, &got), EQL_MSG_OK);
		assert_int_equal(got.resp_len, edges[i].resp_len);
		assert_int_equal(got.req_len, edges[i].req_len);
	}
	rng_state = 0x6d736701;
	for (int i = 0; i < 100000; i++) {
		struct eql_msg m = { .resp_len = 1 + rnd32() % EQL_MSG_RESP_MAX,
				     .req_len = rnd64() % (EQL_MSG_REQ_MAX + 1) };

		eql_msg_encode(buf, &m);
		assert_int_equal(eql_msg_decode(buf, &got), EQL_MSG_OK);
		assert_int_equal(got.resp_len, m.resp_len);
		assert_int_equal(got.req_len, m.req_len);
	}
}

static void decode__rejects_bad_magic_in_every_byte(void **state)
{
	struct eql_msg m = { .resp_len = 1, .req_len = 100 }, got;
	uint8_t buf[EQL_MSG_HDR_LEN];

	for (int byte = 0; byte < 4; byte++) {
		for (int bit = 0; bit < 8; bit++) {
			eql_msg_encode(buf, &m);
			buf[byte] ^= (uint8_t)(1u << bit);
			assert_int_equal(eql_msg_decode(buf, &got), EQL_MSG_BAD_MAGIC);
		}
	}
	/* Byte order matters: the magic little-endian is not the magic. */
	eql_msg_encode(buf, &m);
	buf[0] = 'D'; buf[1] = 'L'; buf[2] = 'Q'; buf[3] = 'E';
	assert_int_equal(eql_msg_decode(buf, &got), EQL_MSG_BAD_MAGIC);
}

static void decode__rejects_bad_lengths(void **state)
{
	static const struct { struct eql_msg m; enum eql_msg_err want; } cases[] = {
		{ { 0, 10 }, EQL_MSG_BAD_RESP },
		{ { EQL_MSG_RESP_MAX + 1, 10 }, EQL_MSG_BAD_RESP },
		{ { UINT32_MAX, 10 }, EQL_MSG_BAD_RESP },
		{ { 1, EQL_MSG_REQ_MAX + 1 }, EQL_MSG_BAD_REQ },
		{ { 1, EQL_MSG_REQ_STREAM - 1 }, EQL_MSG_BAD_REQ },
		{ { 0, EQL_MSG_REQ_MAX + 1 }, EQL_MSG_BAD_RESP },	/* first problem wins */
	};
	uint8_t buf[EQL_MSG_HDR_LEN];
	struct eql_msg got;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(eql_msg_check(&cases[i].m), cases[i].want);
		eql_msg_encode(buf, &cases[i].m);
		assert_int_equal(eql_msg_decode(buf, &got), cases[i].want);
		assert_non_null(eql_msg_strerror(cases[i].want));
	}
	assert_string_not_equal(eql_msg_strerror(EQL_MSG_BAD_RESP), eql_msg_strerror(EQL_MSG_BAD_REQ));
}

/* What the server trusts: a header that decodes OK is within limits. */
static void decode__random_headers_never_escape_limits(void **state)
{
	uint8_t buf[EQL_MSG_HDR_LEN];
	struct eql_msg got;
	int ok = 0;

	rng_state = 0x6d736702;
	for (int i = 0; i < 1000000; i++) {
		for (int j = 0; j < EQL_MSG_HDR_LEN; j++)
			buf[j] = (uint8_t)rnd32();
		if (i % 2) {	/* half with a valid magic: the length checks run */
			memcpy(buf, "EQLD", 4);
			buf[4] &= 0x07;		/* resp_len < 2^27: valid half the time */
			if (i % 4 == 1)
				buf[8] = buf[9] = 0;	/* req_len < 2^48 */
		}
		if (eql_msg_decode(buf, &got) != EQL_MSG_OK)
			continue;
		ok++;
		assert_true(got.resp_len >= 1 && got.resp_len <= EQL_MSG_RESP_MAX);
		assert_true(got.req_len <= EQL_MSG_REQ_MAX || got.req_len == EQL_MSG_REQ_STREAM);
	}
	/* About half of the quarter with small lengths. */
	assert_true(ok > 100000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(encode__bytes_are_network_order),
		cmocka_unit_test(roundtrip__valid_headers),
		cmocka_unit_test(decode__rejects_bad_magic_in_every_byte),
		cmocka_unit_test(decode__rejects_bad_lengths),
		cmocka_unit_test(decode__random_headers_never_escape_limits),
	};

	return cmocka_run_group_tests_name("load_msg", tests, NULL, NULL);
}
