// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/common/addr.c: parsing and formatting of addresses
 * and prefixes.  IPv4 is stored IPv4-mapped (::ffff:a.b.c.d) with its
 * prefix length offset by 96, host bits are cleared, and
 * eq_prefix_contains() is checked against a bit-by-bit reference.  Round
 * trips (parse -> format -> parse) run over many generated addresses and
 * prefixes (fixed seed); invalid inputs include empty, out-of-range and
 * malformed lengths, garbage and overlong strings.
 */
#include "testlib.h"
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "addr.h"

#define ROUNDS	20000

static const unsigned char mapped_hdr[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static struct eq_addr v4(uint32_t host)
{
	struct eq_addr a;

	memcpy(a.a, mapped_hdr, 12);
	a.a[12] = (unsigned char)(host >> 24);
	a.a[13] = (unsigned char)(host >> 16);
	a.a[14] = (unsigned char)(host >> 8);
	a.a[15] = (unsigned char)host;
	return a;
}

/* A random IPv6 address; about half its 16-bit words are zero, so that
 * "::" compression lands everywhere.  Never IPv4-mapped. */
static struct eq_addr random_v6(void)
{
	struct eq_addr a;

	do {
		for (int i = 0; i < 8; i++) {
			uint32_t r = rnd32();
			uint16_t w = (r & 0x10000) ? (uint16_t)r : 0;

			a.a[2 * i] = (unsigned char)(w >> 8);
			a.a[2 * i + 1] = (unsigned char)w;
		}
	} while (eq_addr_is_v4(&a));
	return a;
}

static int bit(const struct eq_addr *a, unsigned int i)
{
	return a->a[i / 8] >> (7 - i % 8) & 1;
}

/* Reference for eq_prefix_contains(): the first plen bits are equal. */
static bool ref_contains(const struct eq_addr *p, unsigned int plen, const struct eq_addr *a)
{
	for (unsigned int i = 0; i < plen && i < 128; i++)
		if (bit(p, i) != bit(a, i))
			return false;
	return true;
}

static void fmt_addr(const struct eq_addr *a, char *buf)
{
	eq_addr_format(a, buf, EQ_ADDRSTRLEN);
}

/* ---- eq_addr_is_v4 ------------------------------------------------------------ */

static void eq_addr_is_v4__only_the_mapped_range(void **state)
{
	struct eq_addr a;

	assert_true(eq_addr_is_v4(&(struct eq_addr){ { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 1, 2, 3, 4 } }));
	assert_true(eq_addr_is_v4(&(struct eq_addr){ { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0 } }));
	assert_false(eq_addr_is_v4(&(struct eq_addr){ { 0 } }));			/* :: */
	assert_false(eq_addr_is_v4(&(struct eq_addr){ { [15] = 1 } }));		/* ::1 */
	a = addr("::1.2.3.4");		/* IPv4-compatible, not mapped */
	assert_false(eq_addr_is_v4(&a));
	a = addr("::fffe:1.2.3.4");
	assert_false(eq_addr_is_v4(&a));
	a = addr("::1:ffff:1.2.3.4");
	assert_false(eq_addr_is_v4(&a));
	a = addr("ffff::");
	assert_false(eq_addr_is_v4(&a));
}

/* Every bit of the 96-bit ::ffff: prefix matters; the last 32 do not. */
static void eq_addr_is_v4__every_prefix_bit_matters(void **state)
{
	struct eq_addr base = v4(0xc0000201);

	for (unsigned int i = 0; i < 128; i++) {
		struct eq_addr a = base;

		a.a[i / 8] ^= (unsigned char)(0x80 >> (i % 8));
		assert_int_equal(eq_addr_is_v4(&a), i >= 96);
	}
}

/* ---- eq_addr_parse ---------------------------------------------------------------- */

static void eq_addr_parse__v4_is_stored_mapped(void **state)
{
	static const unsigned char want[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1 };
	struct eq_addr a;

	memset(&a, 0xaa, sizeof(a));
	assert_int_equal(eq_addr_parse("192.0.2.1", &a), 0);
	assert_memory_equal(a.a, want, 16);
	assert_true(eq_addr_is_v4(&a));
}

static void eq_addr_parse__v6_is_stored_as_is(void **state)
{
	static const unsigned char want[16] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	struct eq_addr a;

	memset(&a, 0xaa, sizeof(a));
	assert_int_equal(eq_addr_parse("2001:db8::1", &a), 0);
	assert_memory_equal(a.a, want, 16);
	assert_false(eq_addr_is_v4(&a));
	assert_int_equal(eq_addr_parse("2001:DB8:0:0:0:0:0:1", &a), 0);
	assert_memory_equal(a.a, want, 16);
}

/* One storage for one address: the v4-mapped IPv6 spellings equal v4. */
static void eq_addr_parse__mapped_v6_text_equals_v4(void **state)
{
	struct eq_addr a = addr("192.0.2.1");
	struct eq_addr b = addr("::ffff:192.0.2.1");
	struct eq_addr c = addr("::ffff:c000:201");
	struct eq_addr d = addr("0:0:0:0:0:ffff:192.0.2.1");

	assert_memory_equal(&a, &b, sizeof(a));
	assert_memory_equal(&a, &c, sizeof(a));
	assert_memory_equal(&a, &d, sizeof(a));
}

static void eq_addr_parse__invalid(void **state)
{
	static const char *const bad[] = {
		"", " ", "garbage", "1.2.3", "1.2.3.4.5", "1.2.3.256", "256.0.0.0",
		"1.2.3.-1", "1.2.3.4 ", " 1.2.3.4", "1.2.3.4/32", "1.2.3.4\n",
		"0x1.2.3.4", "1..2.3", ":", ":::", "1::2::3", "12345::", "g::1",
		"1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "::ffff:1.2.3", "::/0",
		"2001:db8::1%eth0", "[::1]", "localhost",
	};
	char longs[3][2048];
	struct eq_addr a;
	unsigned int accepted = 0;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (eq_addr_parse(bad[i], &a) != -EINVAL) {
			print_error("eq_addr_parse(\"%s\") accepted\n", bad[i]);
			accepted++;
		}
	}
	assert_int_equal(accepted, 0);
	/* Overlong strings. */
	memset(longs[0], '1', sizeof(longs[0]) - 1);
	longs[0][sizeof(longs[0]) - 1] = '\0';
	snprintf(longs[1], sizeof(longs[1]), "%s", "1.2.3.4");
	memset(longs[1] + 7, '4', sizeof(longs[1]) - 8);
	longs[1][sizeof(longs[1]) - 1] = '\0';
	strcpy(longs[2], "0000:0000:0000:0000:0000:0000:0000:00001");
	for (unsigned int i = 0; i < 3; i++)
		assert_int_equal(eq_addr_parse(longs[i], &a), -EINVAL);
}

/* parse(format(a)) == a for random IPv4 addresses, and the text is the
 * plain dotted quad. */
static void eq_addr_parse__v4_round_trip(void **state)
{
	char text[32], buf[EQ_ADDRSTRLEN];

	rng_state = 11;
	for (int i = 0; i < ROUNDS; i++) {
		uint32_t h = i < 4 ? (uint32_t[]){ 0, 0xffffffffu, 0x7f000001, 0x80000000u }[i] : rnd32();
		struct eq_addr want = v4(h), a;

		snprintf(text, sizeof(text), "%u.%u.%u.%u", h >> 24, h >> 16 & 0xff, h >> 8 & 0xff, h & 0xff);
		assert_int_equal(eq_addr_parse(text, &a), 0);
		assert_memory_equal(&a, &want, sizeof(a));
		fmt_addr(&a, buf);
		assert_string_equal(buf, text);
	}
}

/* parse(format(a)) == a for random IPv6 addresses, and the text is already
 * canonical (formatting it again changes nothing). */
static void eq_addr_parse__v6_round_trip(void **state)
{
	char buf[EQ_ADDRSTRLEN], buf2[EQ_ADDRSTRLEN];

	rng_state = 12;
	for (int i = 0; i < ROUNDS; i++) {
		struct eq_addr a = random_v6(), b;

		fmt_addr(&a, buf);
		assert_non_null(strchr(buf, ':'));
		assert_int_equal(eq_addr_parse(buf, &b), 0);
		assert_memory_equal(&a, &b, sizeof(a));
		assert_false(eq_addr_is_v4(&b));
		fmt_addr(&b, buf2);
		assert_string_equal(buf, buf2);
	}
}

/* ---- eq_addr_format ---------------------------------------------------------------- */

static void eq_addr_format__examples(void **state)
{
	static const struct { const char *in, *out; } ex[] = {
		{ "10.0.0.1", "10.0.0.1" },
		{ "0.0.0.0", "0.0.0.0" },
		{ "255.255.255.255", "255.255.255.255" },
		{ "::ffff:1.2.3.4", "1.2.3.4" },	/* mapped prints as IPv4 */
		{ "::ffff:0:0", "0.0.0.0" },
		{ "2001:DB8:0:0:0:0:0:1", "2001:db8::1" },
		{ "::", "::" },
		{ "::1", "::1" },
		{ "fe80::1:0:0:1", "fe80::1:0:0:1" },
		{ "::1.2.3.4", "::1.2.3.4" },		/* compatible stays IPv6 */
	};
	char buf[EQ_ADDRSTRLEN];

	for (unsigned int i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		struct eq_addr a = addr(ex[i].in);

		fmt_addr(&a, buf);
		assert_string_equal(buf, ex[i].out);
	}
}

static void eq_addr_format__longest_fits_eq_addrstrlen(void **state)
{
	char buf[EQ_ADDRSTRLEN];
	struct eq_addr a;

	assert_int_equal(EQ_ADDRSTRLEN, INET6_ADDRSTRLEN);
	memset(&a, 0xff, sizeof(a));
	eq_addr_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
	a = v4(0xffffffffu);
	eq_addr_format(&a, buf, sizeof(buf));
	assert_string_equal(buf, "255.255.255.255");
}

/* A buffer too small for the text still ends up a C string (empty or
 * truncated), never left unterminated. */
static void eq_addr_format__short_buffer_is_terminated(void **state)
{
	struct eq_addr addrs[2] = { v4(0xc0a864c8), addr("2001:db8:1:2:3:4:5:6") };

	for (unsigned int i = 0; i < 2; i++) {
		for (size_t len = 1; len < 8; len++) {
			char buf[16];

			memset(buf, 'X', sizeof(buf));
			eq_addr_format(&addrs[i], buf, len);
			if (!memchr(buf, '\0', len))
				fail_msg("eq_addr_format(len %zu) left the buffer unterminated", len);
			assert_int_equal(buf[len], 'X');	/* and wrote nothing beyond */
		}
	}
}

/* ---- eq_prefix_parse ------------------------------------------------------------- */

static void eq_prefix_parse__v4_length_offset_by_96(void **state)
{
	char text[32];

	for (unsigned int plen = 0; plen <= 32; plen++) {
		struct eq_prefix_key k;

		snprintf(text, sizeof(text), "192.0.2.1/%u", plen);
		k = prefix(text);
		assert_int_equal(k.prefixlen, plen + 96);
		assert_true(eq_addr_is_v4(&k.addr));
	}
}

static void eq_prefix_parse__v6_length_as_is(void **state)
{
	char text[64];

	for (unsigned int plen = 0; plen <= 128; plen++) {
		struct eq_prefix_key k;

		snprintf(text, sizeof(text), "2001:db8::1/%u", plen);
		k = prefix(text);
		assert_int_equal(k.prefixlen, plen);
	}
}

static void eq_prefix_parse__no_length_is_host_prefix(void **state)
{
	struct eq_prefix_key k = prefix("10.1.2.3");
	struct eq_addr a = addr("10.1.2.3");

	assert_int_equal(k.prefixlen, 128);
	assert_memory_equal(&k.addr, &a, sizeof(a));
	k = prefix("2001:db8::1");
	a = addr("2001:db8::1");
	assert_int_equal(k.prefixlen, 128);
	assert_memory_equal(&k.addr, &a, sizeof(a));
	k = prefix("::ffff:10.1.2.3");
	a = v4(0x0a010203);
	assert_int_equal(k.prefixlen, 128);
	assert_memory_equal(&k.addr, &a, sizeof(a));
}

static void eq_prefix_parse__v4_host_bits_cleared(void **state)
{
	struct eq_prefix_key k = prefix("10.1.2.3/8");
	struct eq_prefix_key want = { 104, v4(0x0a000000) };

	assert_memory_equal(&k, &want, sizeof(k));
	k = prefix("192.0.2.255/25");
	want = (struct eq_prefix_key){ 121, v4(0xc0000280) };
	assert_memory_equal(&k, &want, sizeof(k));
	/* /0 keeps the ::ffff: part: an IPv4 default route is IPv4 only. */
	k = prefix("203.0.113.7/0");
	want = (struct eq_prefix_key){ 96, v4(0) };
	assert_memory_equal(&k, &want, sizeof(k));
}

static void eq_prefix_parse__v6_host_bits_cleared(void **state)
{
	struct eq_prefix_key k = prefix("2001:db8:ffff:ffff::1/35");
	struct eq_prefix_key want = { 35, addr("2001:db8:e000::") };

	assert_memory_equal(&k, &want, sizeof(k));
	k = prefix("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/0");
	want = (struct eq_prefix_key){ 0, addr("::") };
	assert_memory_equal(&k, &want, sizeof(k));
	k = prefix("2001:db8::1/127");
	want = (struct eq_prefix_key){ 127, addr("2001:db8::") };
	assert_memory_equal(&k, &want, sizeof(k));
}

/* For every length and random addresses: bits inside the prefix are kept,
 * bits after it are zero. */
static void eq_prefix_parse__host_bits_property(void **state)
{
	char text[EQ_PREFIXSTRLEN + 8], a_text[EQ_ADDRSTRLEN];

	rng_state = 13;
	for (int round = 0; round < 50; round++) {
		struct eq_addr a;

		do
			for (int i = 0; i < 16; i++)
				a.a[i] = (unsigned char)rnd32();
		while (eq_addr_is_v4(&a));
		fmt_addr(&a, a_text);
		for (unsigned int plen = 0; plen <= 128; plen++) {
			struct eq_prefix_key k;

			snprintf(text, sizeof(text), "%s/%u", a_text, plen);
			k = prefix(text);
			assert_int_equal(k.prefixlen, plen);
			for (unsigned int b = 0; b < 128; b++)
				assert_int_equal(bit(&k.addr, b), b < plen ? bit(&a, b) : 0);
		}
	}
}

/* The length is read in the family of the text: "::ffff:a.b.c.d/104" is
 * the same key as "a.b.c.d/8"; an IPv6 spelling takes IPv6 lengths. */
static void eq_prefix_parse__mapped_text_takes_v6_length(void **state)
{
	struct eq_prefix_key a = prefix("::ffff:10.0.0.0/104");
	struct eq_prefix_key b = prefix("10.0.0.0/8");
	struct eq_prefix_key k;

	assert_memory_equal(&a, &b, sizeof(a));
	k = prefix("::ffff:10.1.2.3/33");		/* > 32: fine for IPv6 */
	assert_int_equal(k.prefixlen, 33);
	k = prefix("::ffff:10.1.2.3/128");
	assert_int_equal(k.prefixlen, 128);
	assert_int_equal(eq_prefix_parse("::ffff:10.1.2.3/129", &k), -EINVAL);
}

static void eq_prefix_parse__invalid(void **state)
{
	static const char *const bad[] = {
		"", "/", "/8", "//", "garbage", "garbage/8",
		"1.2.3.4/33", "1.2.3.4/64", "1.2.3.4/128", "::/129", "2001:db8::/200",
		"1.2.3.4/", "1.2.3.4/x", "1.2.3.4/24x", "1.2.3.4/x24", "1.2.3.4/2 4",
		"1.2.3.4/24/8", "1.2.3.4//24", "1.2.3.4/0x10", "1.2.3.4/1e1",
		"1.2.3.4/99999999999999999999999", "1.2.3.4/4294967392",
		"1.2.3.4/18446744073709551648", "1.2.3.4/-1", "1.2.3.4/-0",
		"1.2.3.4/+8", "1.2.3.4/ 8", "1.2.3.4/\t8", "1.2.3.4/8 ",
		"1.2.3.4 /8", " 1.2.3.4/8", "1.2.3/8", "1.2.3.4.5/8",
		"2001:db8::/64 ", "2001:db8::/", ":::/0", "1.2.3.4%eth0/8",
	};
	struct eq_prefix_key k;
	unsigned int accepted = 0;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (eq_prefix_parse(bad[i], &k) != -EINVAL) {
			print_error("eq_prefix_parse(\"%s\") accepted\n", bad[i]);
			accepted++;
		}
	}
	assert_int_equal(accepted, 0);
}

/* Overlong input around the internal buffer size, with and without a
 * slash, is refused without overrunning anything. */
static void eq_prefix_parse__overlong(void **state)
{
	struct eq_prefix_key k;
	char *s = malloc(70000);

	assert_non_null(s);
	for (size_t n = EQ_PREFIXSTRLEN - 3; n <= EQ_PREFIXSTRLEN + 3; n++) {
		memset(s, '1', n);
		s[n] = '\0';
		assert_int_equal(eq_prefix_parse(s, &k), -EINVAL);
		strcpy(s + n, "/8");
		assert_int_equal(eq_prefix_parse(s, &k), -EINVAL);
	}
	/* A valid address padded with zeros in the last group. */
	strcpy(s, "2001:db8:0:0:0:0:0:");
	memset(s + strlen(s), '0', 40);
	strcpy(s + 19 + 40, "1/64");
	assert_int_equal(eq_prefix_parse(s, &k), -EINVAL);
	/* Very long, and a very long length. */
	memset(s, '1', 69999);
	s[69999] = '\0';
	assert_int_equal(eq_prefix_parse(s, &k), -EINVAL);
	strcpy(s, "10.0.0.0/");
	memset(s + 9, '9', 69990);
	s[69999] = '\0';
	assert_int_equal(eq_prefix_parse(s, &k), -EINVAL);
	free(s);
}

/* parse -> format -> parse gives the same key for random IPv4 and IPv6
 * prefixes; the formatted text is stable; the key contains the address
 * it was written with. */
static void eq_prefix_parse__round_trip(void **state)
{
	char text[EQ_PREFIXSTRLEN + 8], a_text[EQ_ADDRSTRLEN];
	char out[EQ_PREFIXSTRLEN], out2[EQ_PREFIXSTRLEN];

	rng_state = 14;
	for (int i = 0; i < ROUNDS; i++) {
		bool is4 = rnd32() & 1;
		struct eq_addr a = is4 ? v4(rnd32()) : random_v6();
		unsigned int plen = rnd32() % (is4 ? 33 : 129);
		struct eq_prefix_key k1, k2;

		fmt_addr(&a, a_text);
		snprintf(text, sizeof(text), "%s/%u", a_text, plen);
		k1 = prefix(text);
		assert_int_equal(k1.prefixlen, is4 ? plen + 96 : plen);
		assert_true(eq_prefix_contains(&k1, &a));

		eq_prefix_format(&k1, out, sizeof(out));
		k2 = prefix(out);
		assert_memory_equal(&k1, &k2, sizeof(k1));
		eq_prefix_format(&k2, out2, sizeof(out2));
		assert_string_equal(out, out2);
		/* The length printed is the one written (host bits aside). */
		assert_int_equal(strtoul(strrchr(out, '/') + 1, NULL, 10), plen);
	}
}

/* ---- eq_prefix_format --------------------------------------------------------------- */

static void eq_prefix_format__examples(void **state)
{
	static const struct { const char *in, *out; } ex[] = {
		{ "10.0.0.0/8", "10.0.0.0/8" },
		{ "10.1.2.3/8", "10.0.0.0/8" },
		{ "10.1.2.3", "10.1.2.3/32" },
		{ "0.0.0.0/0", "0.0.0.0/0" },
		{ "::ffff:10.0.0.0/104", "10.0.0.0/8" },
		{ "2001:db8::/32", "2001:db8::/32" },
		{ "2001:db8::1", "2001:db8::1/128" },
		{ "::/0", "::/0" },
		{ "::ffff:10.1.2.3/80", "::/80" },	/* below 96: not IPv4 */
		{ "::ffff:10.1.2.3/95", "::fffe:0:0/95" },
	};
	char buf[EQ_PREFIXSTRLEN];

	for (unsigned int i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		struct eq_prefix_key k = prefix(ex[i].in);

		eq_prefix_format(&k, buf, sizeof(buf));
		assert_string_equal(buf, ex[i].out);
	}
}

static void eq_prefix_format__longest_fits_eq_prefixstrlen(void **state)
{
	struct eq_prefix_key k;
	char buf[EQ_PREFIXSTRLEN];

	memset(&k.addr, 0xff, sizeof(k.addr));
	k.prefixlen = 128;
	eq_prefix_format(&k, buf, sizeof(buf));
	assert_string_equal(buf, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128");
	k = (struct eq_prefix_key){ 128, v4(0xffffffffu) };
	eq_prefix_format(&k, buf, sizeof(buf));
	assert_string_equal(buf, "255.255.255.255/32");
	assert_true(EQ_PREFIXSTRLEN >= EQ_ADDRSTRLEN + 4);	/* "/128" */
}

static void eq_prefix_format__truncates_to_buffer(void **state)
{
	struct eq_prefix_key k = prefix("2001:db8:1:2::/64");
	const char *full = "2001:db8:1:2::/64";

	for (size_t len = 1; len <= strlen(full) + 1; len++) {
		char buf[64];

		memset(buf, 'X', sizeof(buf));
		eq_prefix_format(&k, buf, len);
		assert_int_equal(strlen(buf), len - 1);
		assert_memory_equal(buf, full, len - 1);
		assert_int_equal(buf[len], 'X');
	}
}

/* ---- eq_prefix_contains -------------------------------------------------------------- */

static void eq_prefix_contains__examples(void **state)
{
	struct eq_prefix_key p8 = prefix("10.0.0.0/8"), h = prefix("10.1.2.3");
	struct eq_prefix_key d4 = prefix("0.0.0.0/0"), d6 = prefix("::/0");
	struct eq_prefix_key n64 = prefix("2001:db8:1:2::/64");
	struct eq_addr a;

	a = addr("10.0.0.0");		assert_true(eq_prefix_contains(&p8, &a));
	a = addr("10.255.255.255");	assert_true(eq_prefix_contains(&p8, &a));
	a = addr("11.0.0.0");		assert_false(eq_prefix_contains(&p8, &a));
	a = addr("9.255.255.255");	assert_false(eq_prefix_contains(&p8, &a));
	a = addr("10.1.2.3");		assert_true(eq_prefix_contains(&h, &a));
	a = addr("10.1.2.2");		assert_false(eq_prefix_contains(&h, &a));
	a = addr("198.51.100.1");	assert_true(eq_prefix_contains(&d4, &a));
	a = addr("2001:db8::1");	assert_false(eq_prefix_contains(&d4, &a));
	a = addr("::");			assert_false(eq_prefix_contains(&d4, &a));
	a = addr("2001:db8::1");	assert_true(eq_prefix_contains(&d6, &a));
	a = addr("198.51.100.1");	assert_true(eq_prefix_contains(&d6, &a));
	a = addr("2001:db8:1:2:ffff::1"); assert_true(eq_prefix_contains(&n64, &a));
	a = addr("2001:db8:1:3::");	assert_false(eq_prefix_contains(&n64, &a));
	/* An IPv6 prefix never contains IPv4 unless it covers ::ffff:0:0/96. */
	a = addr("10.1.2.3");		assert_false(eq_prefix_contains(&n64, &a));
}

/* Against the bit-by-bit reference, for random prefixes and addresses
 * that share a random number of leading bits with the prefix. */
static void eq_prefix_contains__matches_reference(void **state)
{
	rng_state = 15;
	for (int i = 0; i < 100000; i++) {
		bool is4 = rnd32() & 1;
		struct eq_addr p = is4 ? v4(rnd32()) : random_v6(), a = p;
		unsigned int plen = is4 ? 96 + rnd32() % 33 : rnd32() % 129;
		unsigned int keep = rnd32() % 129;
		struct eq_prefix_key k;

		/* Random bits after the first `keep`. */
		for (unsigned int b = keep; b < 128; b++)
			if (rnd32() & 1)
				a.a[b / 8] ^= (unsigned char)(0x80 >> (b % 8));
		k.prefixlen = plen;
		k.addr = p;
		for (unsigned int b = plen; b < 128; b++)	/* as parsed */
			k.addr.a[b / 8] &= (unsigned char)~(0x80 >> (b % 8));
		assert_int_equal(eq_prefix_contains(&k, &a), ref_contains(&p, plen, &a));
	}
}

/* Flipping one bit of a contained address leaves it inside exactly when
 * the bit is a host bit. */
static void eq_prefix_contains__one_bit_flips(void **state)
{
	rng_state = 16;
	for (int i = 0; i < 500; i++) {
		struct eq_addr p = random_v6();
		unsigned int plen = rnd32() % 129;
		struct eq_prefix_key k = { plen, p };

		for (unsigned int b = plen; b < 128; b++)
			k.addr.a[b / 8] &= (unsigned char)~(0x80 >> (b % 8));
		assert_true(eq_prefix_contains(&k, &p));
		for (unsigned int b = 0; b < 128; b++) {
			struct eq_addr a = p;

			a.a[b / 8] ^= (unsigned char)(0x80 >> (b % 8));
			assert_int_equal(eq_prefix_contains(&k, &a), b >= plen);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eq_addr_is_v4__only_the_mapped_range),
		cmocka_unit_test(eq_addr_is_v4__every_prefix_bit_matters),
		cmocka_unit_test(eq_addr_parse__v4_is_stored_mapped),
		cmocka_unit_test(eq_addr_parse__v6_is_stored_as_is),
		cmocka_unit_test(eq_addr_parse__mapped_v6_text_equals_v4),
		cmocka_unit_test(eq_addr_parse__invalid),
		cmocka_unit_test(eq_addr_parse__v4_round_trip),
		cmocka_unit_test(eq_addr_parse__v6_round_trip),
		cmocka_unit_test(eq_addr_format__examples),
		cmocka_unit_test(eq_addr_format__longest_fits_eq_addrstrlen),
		cmocka_unit_test(eq_addr_format__short_buffer_is_terminated),
		cmocka_unit_test(eq_prefix_parse__v4_length_offset_by_96),
		cmocka_unit_test(eq_prefix_parse__v6_length_as_is),
		cmocka_unit_test(eq_prefix_parse__no_length_is_host_prefix),
		cmocka_unit_test(eq_prefix_parse__v4_host_bits_cleared),
		cmocka_unit_test(eq_prefix_parse__v6_host_bits_cleared),
		cmocka_unit_test(eq_prefix_parse__host_bits_property),
		cmocka_unit_test(eq_prefix_parse__mapped_text_takes_v6_length),
		cmocka_unit_test(eq_prefix_parse__invalid),
		cmocka_unit_test(eq_prefix_parse__overlong),
		cmocka_unit_test(eq_prefix_parse__round_trip),
		cmocka_unit_test(eq_prefix_format__examples),
		cmocka_unit_test(eq_prefix_format__longest_fits_eq_prefixstrlen),
		cmocka_unit_test(eq_prefix_format__truncates_to_buffer),
		cmocka_unit_test(eq_prefix_contains__examples),
		cmocka_unit_test(eq_prefix_contains__matches_reference),
		cmocka_unit_test(eq_prefix_contains__one_bit_flips),
	};

	return cmocka_run_group_tests_name("addr", tests, NULL, NULL);
}
