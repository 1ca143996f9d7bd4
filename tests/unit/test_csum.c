// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for include/edgeq/csum.h: eq_csum_fold(), eq_ipv4_hdr_csum()
 * and eq_csum_replace2() (RFC 1071 / RFC 1624), against a straightforward
 * byte-by-byte reference checksum written here, over many random IPv4
 * headers with a fixed seed.  Properties: a header with its checksum filled
 * in sums to zero, and the incremental update equals a full recompute for
 * any single 16-bit change (and for chains of changes).
 */
#include "testlib.h"
#include <arpa/inet.h>
#include <string.h>
/* csum.h uses clang's "#pragma unroll" (for the BPF verifier), which gcc's
 * -Wall reports as unknown; tolerate it here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "edgeq/csum.h"
#pragma GCC diagnostic pop

#define ITERATIONS	20000
#define CHECK_WORD	5	/* the IPv4 header checksum is the 6th word */

/* A 20-byte IPv4 header, 2-byte aligned as in a packet. */
union ip4 {
	__u16	w[10];
	__u8	b[20];
};

/* Reference (RFC 1071): one's complement sum of the big-endian 16-bit
 * words, carries added back until none are left, complemented.  Returns
 * the checksum as a number (host order). */
static uint16_t ref_csum(const __u8 *p, size_t len)
{
	uint64_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint64_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint16_t ref_fold(uint32_t s)
{
	uint64_t sum = s;

	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* A random but plausible header: version 4, IHL 5, checksum 0. */
static void random_header(union ip4 *h)
{
	for (int i = 0; i < 10; i++)
		h->w[i] = (__u16)rnd32();
	h->b[0] = 0x45;
	h->w[CHECK_WORD] = 0;
}

static void set_check(union ip4 *h, uint16_t host_check)
{
	h->b[10] = (__u8)(host_check >> 8);
	h->b[11] = (__u8)host_check;
}

/* ---- eq_csum_fold ------------------------------------------------------------ */

static void eq_csum_fold__examples(void **state)
{
	assert_int_equal(eq_csum_fold(0), 0xffff);
	assert_int_equal(eq_csum_fold(0xffff), 0x0000);
	assert_int_equal(eq_csum_fold(0x10000), 0xfffe);	/* carry folds in */
	assert_int_equal(eq_csum_fold(0x12345), 0xdcb9);	/* ~(0x2345 + 1) */
	assert_int_equal(eq_csum_fold(0x1fffe), 0x0000);	/* second fold */
	assert_int_equal(eq_csum_fold(0xffffffffu), 0x0000);	/* largest input */
	assert_int_equal(eq_csum_fold(0xffff0000u), 0x0000);
	assert_int_equal(eq_csum_fold(0x0001ffffu), 0xfffe);
}

static void eq_csum_fold__matches_reference(void **state)
{
	rng_state = 1;
	for (int i = 0; i < 200000; i++) {
		uint32_t s = rnd32();

		/* Mix in small and large sums, where the folds differ. */
		if (i % 3 == 1)
			s &= 0x3ffff;
		assert_int_equal(eq_csum_fold(s), ref_fold(s));
	}
}

/* ---- eq_ipv4_hdr_csum ---------------------------------------------------------- */

/* The classic example header 45 00 00 73 00 00 40 00 40 11 [b8 61]
 * c0 a8 00 01 c0 a8 00 c7: checksum 0xb861. */
static void eq_ipv4_hdr_csum__known_header(void **state)
{
	static const __u8 bytes[20] = {
		0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
	};
	union ip4 h;

	memcpy(h.b, bytes, sizeof(bytes));
	assert_int_equal(ntohs(eq_ipv4_hdr_csum(&h)), 0xb861);
	assert_int_equal(ref_csum(h.b, 20), 0xb861);
}

static void eq_ipv4_hdr_csum__matches_reference_random_headers(void **state)
{
	rng_state = 2;
	for (int i = 0; i < ITERATIONS; i++) {
		union ip4 h;
		uint16_t want;
		__u16 c;

		random_header(&h);
		want = ref_csum(h.b, 20);	/* check field is 0 */
		c = eq_ipv4_hdr_csum(&h);
		/* Stored as is, the bytes are the big-endian reference value. */
		memcpy(&h.b[10], &c, 2);
		assert_int_equal(h.b[10] << 8 | h.b[11], want);
		/* The same through the check field being included as is:
		 * a header whose check is the reference value verifies. */
		set_check(&h, want);
		assert_int_equal(eq_ipv4_hdr_csum(&h), 0);
	}
}

/* With the checksum in place the header verifies: the recomputed checksum
 * over all 20 bytes is 0, and the reference sum is all ones. */
static void eq_ipv4_hdr_csum__filled_header_sums_to_zero(void **state)
{
	rng_state = 3;
	for (int i = 0; i < ITERATIONS; i++) {
		union ip4 h;

		random_header(&h);
		h.w[CHECK_WORD] = eq_ipv4_hdr_csum(&h);
		assert_int_equal(eq_ipv4_hdr_csum(&h), 0);
		assert_int_equal(ref_csum(h.b, 20), 0);
	}
}

/* The sum is over the header as it sits in memory, so it is independent of
 * host byte order: byte-swapping every word byte-swaps the checksum. */
static void eq_ipv4_hdr_csum__byte_order_independent(void **state)
{
	rng_state = 4;
	for (int i = 0; i < ITERATIONS; i++) {
		union ip4 h, s;
		__u16 c;

		random_header(&h);
		for (int j = 0; j < 10; j++)
			s.w[j] = (__u16)(h.w[j] << 8 | h.w[j] >> 8);
		c = eq_ipv4_hdr_csum(&h);
		assert_int_equal(eq_ipv4_hdr_csum(&s), (__u16)(c << 8 | c >> 8));
	}
}

/* ---- eq_csum_replace2 ---------------------------------------------------------- */

/* RFC 1624 section 4: m = 0x5555 -> 0x3285 with the other words summing to
 * 0xCD7A; HC = 0xDD2F.  Eqn. 3 gives 0x0000 (a full recompute's answer);
 * the flawed eqn. 2 of RFC 1141 would give 0xFFFF. */
static void eq_csum_replace2__rfc1624_example(void **state)
{
	assert_int_equal(eq_csum_replace2(0xdd2f, 0x5555, 0x3285), 0x0000);
	/* and back again */
	assert_int_equal(eq_csum_replace2(0x0000, 0x3285, 0x5555), 0xdd2f);
}

static void eq_csum_replace2__same_word_keeps_checksum(void **state)
{
	rng_state = 5;
	for (int i = 0; i < ITERATIONS; i++) {
		union ip4 h;
		int k = (int)(rnd32() % 10);

		random_header(&h);
		h.w[CHECK_WORD] = eq_ipv4_hdr_csum(&h);
		if (k == CHECK_WORD)
			k = 0;
		assert_int_equal(eq_csum_replace2(h.w[CHECK_WORD], h.w[k], h.w[k]), h.w[CHECK_WORD]);
	}
}

/* The property: any single 16-bit change, updated incrementally, equals a
 * full recompute; and the updated header still verifies. */
static void eq_csum_replace2__equals_full_recompute(void **state)
{
	rng_state = 6;
	for (int i = 0; i < 50000; i++) {
		union ip4 h;
		int k;
		__u16 old, new_, inc;

		random_header(&h);
		h.w[CHECK_WORD] = eq_ipv4_hdr_csum(&h);
		do
			k = (int)(rnd32() % 10);
		while (k == CHECK_WORD);
		old = h.w[k];
		switch (i % 4) {
		case 0: new_ = (__u16)rnd32(); break;
		case 1: new_ = 0; break;			/* to +0 */
		case 2: new_ = 0xffff; break;			/* to -0 */
		default: new_ = (__u16)(old ^ (1u << (rnd32() % 16))); break;
		}
		inc = eq_csum_replace2(h.w[CHECK_WORD], old, new_);
		h.w[k] = new_;
		h.w[CHECK_WORD] = 0;
		assert_int_equal(inc, eq_ipv4_hdr_csum(&h));
		assert_int_equal(ntohs(inc), ref_csum(h.b, 20));
		h.w[CHECK_WORD] = inc;
		assert_int_equal(ref_csum(h.b, 20), 0);
	}
}

/* A router's life: decrement the TTL (the high byte of word 4) hop by hop,
 * and rewrite addresses (NAT), updating incrementally each time; the
 * checksum never drifts from a full recompute. */
static void eq_csum_replace2__chained_updates_do_not_drift(void **state)
{
	rng_state = 7;
	for (int i = 0; i < 200; i++) {
		union ip4 h;

		random_header(&h);
		h.b[8] = 255;
		h.w[CHECK_WORD] = eq_ipv4_hdr_csum(&h);
		while (h.b[8] > 0) {
			__u16 old = h.w[4], full;
			int k = 6 + (int)(rnd32() % 4);		/* saddr/daddr word */
			__u16 oldk, newk = (__u16)rnd32();

			h.b[8]--;
			h.w[CHECK_WORD] = eq_csum_replace2(h.w[CHECK_WORD], old, h.w[4]);
			oldk = h.w[k];
			h.w[k] = newk;
			h.w[CHECK_WORD] = eq_csum_replace2(h.w[CHECK_WORD], oldk, newk);

			assert_int_equal(eq_ipv4_hdr_csum(&h), 0);
			full = h.w[CHECK_WORD];
			h.w[CHECK_WORD] = 0;
			assert_int_equal(eq_ipv4_hdr_csum(&h), full);
			h.w[CHECK_WORD] = full;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eq_csum_fold__examples),
		cmocka_unit_test(eq_csum_fold__matches_reference),
		cmocka_unit_test(eq_ipv4_hdr_csum__known_header),
		cmocka_unit_test(eq_ipv4_hdr_csum__matches_reference_random_headers),
		cmocka_unit_test(eq_ipv4_hdr_csum__filled_header_sums_to_zero),
		cmocka_unit_test(eq_ipv4_hdr_csum__byte_order_independent),
		cmocka_unit_test(eq_csum_replace2__rfc1624_example),
		cmocka_unit_test(eq_csum_replace2__same_word_keeps_checksum),
		cmocka_unit_test(eq_csum_replace2__equals_full_recompute),
		cmocka_unit_test(eq_csum_replace2__chained_updates_do_not_drift),
	};

	return cmocka_run_group_tests_name("csum", tests, NULL, NULL);
}
