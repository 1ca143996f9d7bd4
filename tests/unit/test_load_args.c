// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tests/fabric/load/args.c, eqload's option values: sizes
 * with binary suffixes, rates with decimal ones, seconds, ports, TOS
 * names; every malformed value refused (signs, spaces, hex, exponents,
 * junk, overflow) with the output left alone.
 */
#include "testlib.h"
#include <string.h>
#include "load/args.h"

#define UNTOUCHED	0xabcdef

static void size__values_and_suffixes(void **state)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "0", 0 }, { "1500", 1500 }, { "64k", 65536 }, { "64K", 65536 },
		{ "1m", 1048576 }, { "1M", 1048576 }, { "2g", 2147483648ULL },
		{ "007", 7 }, { "18446744073709551615", UINT64_MAX },
		{ "17179869183g", 17179869183ULL << 30 },
	};
	static const char *const bad[] = {
		"", "k", "12x", "1.5k", "-1", "+1", " 1", "1 ", "0x10", "64kb", "1e3",
		"18446744073709551616", "17179869184g", "1kk", "k1",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = UNTOUCHED;

		if (eql_arg_size(good[i].s, &v) || v != good[i].v)
			fail_msg("'%s' gave %llu", good[i].s, (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = UNTOUCHED;

		if (eql_arg_size(bad[i], &v) == 0 || v != UNTOUCHED)
			fail_msg("'%s' accepted as a size", bad[i]);
	}
}

static void rate__values_and_suffixes(void **state)
{
	static const struct { const char *s; uint64_t v; } good[] = {
		{ "1", 1 }, { "10000000", 10000000 }, { "200m", 200000000 }, { "200M", 200000000 },
		{ "2.5g", 2500000000ULL }, { "1.5k", 1500 }, { "1t", 1000000000000ULL },
		{ "0.001k", 1 }, { "100.", 100 },
	};
	static const char *const bad[] = {
		"", "0", "0.4", "m", "1e9", "nan", "inf", "-5", "1.2.3", "10mbit", "0x10",
		" 1", "1 ", "2000t", ".",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = UNTOUCHED;

		if (eql_arg_rate(good[i].s, &v) || v != good[i].v)
			fail_msg("'%s' gave %llu", good[i].s, (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = UNTOUCHED;

		if (eql_arg_rate(bad[i], &v) == 0 || v != UNTOUCHED)
			fail_msg("'%s' accepted as a rate", bad[i]);
	}
}

static void secs__to_ns(void **state)
{
	static const struct { const char *s; uint64_t ns; } good[] = {
		{ "10", 10000000000ULL }, { "0.5", 500000000 }, { "0.000000001", 1 },
		{ "0", 0 }, { "10000000", 10000000000000000ULL }, { "1.25", 1250000000 },
	};
	static const char *const bad[] = { "", "-1", "1s", "1e3", "10000001", "1,5", "abc", " 1" };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = UNTOUCHED;

		if (eql_arg_secs(good[i].s, &v) || v != good[i].ns)
			fail_msg("'%s' gave %llu ns", good[i].s, (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = UNTOUCHED;

		if (eql_arg_secs(bad[i], &v) == 0 || v != UNTOUCHED)
			fail_msg("'%s' accepted as seconds", bad[i]);
	}
}

static void tos__names_and_numbers(void **state)
{
	static const struct { const char *s; uint8_t tos; } good[] = {
		{ "not-ect", 0 }, { "ect1", 1 }, { "ect0", 2 }, { "ce", 3 },
		{ "0x02", 2 }, { "0xff", 255 }, { "0xB8", 0xb8 }, { "0x1", 1 }, { "255", 255 },
		{ "0", 0 }, { "184", 184 },
	};
	static const char *const bad[] = {
		"", "256", "0x", "0x100", "0xg1", "ect2", "ECT0", "-1", "ect0 ", "1.0",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint8_t v = 0x55;

		if (eql_arg_tos(good[i].s, &v) || v != good[i].tos)
			fail_msg("'%s' gave 0x%02x", good[i].s, v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t v = 0x55;

		if (eql_arg_tos(bad[i], &v) == 0 || v != 0x55)
			fail_msg("'%s' accepted as a TOS", bad[i]);
	}
}

static void port_u64_double(void **state)
{
	uint16_t p = 7;
	uint64_t u = UNTOUCHED;
	double d = -1;

	assert_int_equal(eql_arg_port("1", &p), 0);
	assert_int_equal(p, 1);
	assert_int_equal(eql_arg_port("65535", &p), 0);
	assert_int_equal(p, 65535);
	assert_int_equal(eql_arg_port("0", &p), -1);
	assert_int_equal(eql_arg_port("65536", &p), -1);
	assert_int_equal(eql_arg_port("", &p), -1);
	assert_int_equal(p, 65535);

	assert_int_equal(eql_arg_u64("18446744073709551615", &u), 0);
	assert_int_equal(u, UINT64_MAX);
	assert_int_equal(eql_arg_u64("18446744073709551616", &u), -1);
	assert_int_equal(eql_arg_u64("12k", &u), -1);
	assert_int_equal(u, UINT64_MAX);

	assert_int_equal(eql_arg_double("0.5", 0, 1, &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(eql_arg_double("1.5", 0, 1, &d), -1);
	assert_int_equal(eql_arg_double("nan", 0, 1, &d), -1);
	assert_int_equal(eql_arg_double("-0.5", -1, 1, &d), -1);	/* no signs at all */
	assert_true(d == 0.5);
}

/* Random strings over the characters that matter: no crash, and any
 * accepted size or rate is the number a careful reader would take. */
static void random_strings_never_crash(void **state)
{
	static const char alphabet[] = "0123456789.kmgtKMGTx- e";
	char s[12];

	rng_state = 0x61726773;
	for (int i = 0; i < 500000; i++) {
		size_t len = rnd32() % sizeof(s);
		uint64_t v;
		double d;
		uint8_t t;

		for (size_t j = 0; j < len; j++)
			s[j] = alphabet[rnd32() % (sizeof(alphabet) - 1)];
		s[len] = 0;
		if (eql_arg_size(s, &v) == 0)
			assert_true(strspn(s, "0123456789") >= len - 1 && s[0] >= '0' && s[0] <= '9');
		if (eql_arg_rate(s, &v) == 0)
			assert_true(v >= 1);
		eql_arg_secs(s, &v);
		eql_arg_double(s, 0, 1, &d);
		eql_arg_tos(s, &t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(size__values_and_suffixes),
		cmocka_unit_test(rate__values_and_suffixes),
		cmocka_unit_test(secs__to_ns),
		cmocka_unit_test(tos__names_and_numbers),
		cmocka_unit_test(port_u64_double),
		cmocka_unit_test(random_strings_never_crash),
	};

	return cmocka_run_group_tests_name("load_args", tests, NULL, NULL);
}
