// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for include/edgeq/ecn.h: eq_tos_encap() copies the whole TOS
 * (DSCP and ECN) for all 256 values, and eq_ecn_decap() follows the
 * RFC 6040 section 4.2 (Figure 4) table, written out below with the
 * RFC 3168 codepoints, for all 16 inner/outer combinations; plus the
 * invariants behind the table (CE is never lost, Not-ECT never becomes
 * ECT, DSCP bits are ignored).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "edgeq/ecn.h"

/* RFC 3168 codepoints, independent of the header's names. */
#define NOT_ECT	0x0
#define ECT1	0x1
#define ECT0	0x2
#define CE	0x3
#define DROP	-1

/* ---- eq_tos_encap --------------------------------------------------------- */

static void eq_tos_encap__copies_all_256_tos_values(void **state)
{
	for (unsigned int tos = 0; tos < 256; tos++) {
		__u8 out = eq_tos_encap((__u8)tos);

		assert_int_equal(out, tos);
		assert_int_equal(out >> 2, tos >> 2);		/* DSCP */
		assert_int_equal(out & 3, tos & 3);		/* ECN */
	}
}

/* A fabric that changes nothing makes the tunnel transparent: decapsulating
 * against the outer header we built gives back the inner ECN, never a drop. */
static void eq_tos_encap__unmarked_round_trip_is_identity(void **state)
{
	for (unsigned int tos = 0; tos < 256; tos++) {
		__u8 outer = eq_tos_encap((__u8)tos);

		assert_int_equal(eq_ecn_decap((__u8)tos, outer), tos & 3);
	}
}

/* ---- eq_ecn_decap ----------------------------------------------------------- */

static void eq_ecn_decap__codepoints_are_rfc3168(void **state)
{
	assert_int_equal(EQ_ECN_NOT_ECT, NOT_ECT);
	assert_int_equal(EQ_ECN_ECT1, ECT1);
	assert_int_equal(EQ_ECN_ECT0, ECT0);
	assert_int_equal(EQ_ECN_CE, CE);
	assert_int_equal(EQ_ECN_MASK, 3);
	/* The drop marker cannot be mistaken for an ECN value. */
	assert_true(EQ_ECN_DROP > EQ_ECN_MASK);
}

/*
 * RFC 6040 section 4.2, Figure 4 (normal mode):
 *
 *   +---------+------------------------------------------------+
 *   |Arriving |            Arriving Outer Header               |
 *   |   Inner +---------+------------+------------+------------+
 *   |  Header | Not-ECT | ECT(0)     | ECT(1)     |     CE     |
 *   +---------+---------+------------+------------+------------+
 *   | Not-ECT | Not-ECT |Not-ECT(!!!)|Not-ECT(!!!)| <drop>(!!!)|
 *   |  ECT(0) |  ECT(0) | ECT(0)     | ECT(1)     |     CE     |
 *   |  ECT(1) |  ECT(1) | ECT(1) (!) | ECT(1)     |     CE     |
 *   |    CE   |      CE |     CE     |     CE(!!!)|     CE     |
 *   +---------+---------+------------+------------+------------+
 */
static void eq_ecn_decap__rfc6040_table(void **state)
{
	static const struct { int inner, outer, out; } table[] = {
		{ NOT_ECT, NOT_ECT, NOT_ECT }, { NOT_ECT, ECT0, NOT_ECT },
		{ NOT_ECT, ECT1,    NOT_ECT }, { NOT_ECT, CE,   DROP },
		{ ECT0,    NOT_ECT, ECT0 },    { ECT0,    ECT0, ECT0 },
		{ ECT0,    ECT1,    ECT1 },    { ECT0,    CE,   CE },
		{ ECT1,    NOT_ECT, ECT1 },    { ECT1,    ECT0, ECT1 },
		{ ECT1,    ECT1,    ECT1 },    { ECT1,    CE,   CE },
		{ CE,      NOT_ECT, CE },      { CE,      ECT0, CE },
		{ CE,      ECT1,    CE },      { CE,      CE,   CE },
	};
	unsigned int covered = 0;

	assert_int_equal(sizeof(table) / sizeof(table[0]), 16);
	for (unsigned int i = 0; i < 16; i++) {
		__u8 got = eq_ecn_decap((__u8)table[i].inner, (__u8)table[i].outer);
		int want = table[i].out == DROP ? EQ_ECN_DROP : table[i].out;

		if (got != want)
			fail_msg("inner %d outer %d: got %d, want %d",
				 table[i].inner, table[i].outer, got, want);
		covered |= 1u << (table[i].inner * 4 + table[i].outer);
	}
	assert_int_equal(covered, 0xffff);	/* every combination once */
}

static void eq_ecn_decap__ignores_dscp_bits(void **state)
{
	for (unsigned int i = 0; i < 256; i++)
		for (unsigned int o = 0; o < 256; o++)
			assert_int_equal(eq_ecn_decap((__u8)i, (__u8)o),
					 eq_ecn_decap((__u8)(i & 3), (__u8)(o & 3)));
}

/* The invariants the table encodes, over all inputs. */
static void eq_ecn_decap__never_loses_ce_nor_invents_ect(void **state)
{
	for (unsigned int i = 0; i < 4; i++) {
		for (unsigned int o = 0; o < 4; o++) {
			__u8 r = eq_ecn_decap((__u8)i, (__u8)o);

			/* Result is an ECN value, or a drop. */
			assert_true(r <= EQ_ECN_MASK || r == EQ_ECN_DROP);
			/* Drop only for CE over a Not-ECT inner. */
			assert_int_equal(r == EQ_ECN_DROP, i == NOT_ECT && o == CE);
			/* A CE mark, inner or outer, is never lost. */
			if (i == CE || o == CE)
				assert_true(r == CE || r == EQ_ECN_DROP);
			/* A Not-ECT packet never leaves ECN-capable. */
			if (i == NOT_ECT)
				assert_true(r == NOT_ECT || r == EQ_ECN_DROP);
			/* An ECN-capable packet stays ECN-capable. */
			if (i != NOT_ECT)
				assert_int_not_equal(r, NOT_ECT);
			/* Not-ECT outer: the inner leaves unchanged. */
			if (o == NOT_ECT)
				assert_int_equal(r, i);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eq_tos_encap__copies_all_256_tos_values),
		cmocka_unit_test(eq_tos_encap__unmarked_round_trip_is_identity),
		cmocka_unit_test(eq_ecn_decap__codepoints_are_rfc3168),
		cmocka_unit_test(eq_ecn_decap__rfc6040_table),
		cmocka_unit_test(eq_ecn_decap__ignores_dscp_bits),
		cmocka_unit_test(eq_ecn_decap__never_loses_ce_nor_invents_ect),
	};

	return cmocka_run_group_tests_name("ecn", tests, NULL, NULL);
}
