// SPDX-License-Identifier: GPL-2.0-only
/* user/agent/peertab.c: underlay address -> peer slot. */
#include "testlib.h"
#include <string.h>
#include "peertab.h"

static struct peertab t;

static struct eq_addr nth(uint32_t i)
{
	struct eq_addr a = {};

	a.a[10] = a.a[11] = 0xff;
	a.a[12] = 10; a.a[13] = (uint8_t)(i >> 16); a.a[14] = (uint8_t)(i >> 8); a.a[15] = (uint8_t)i;
	return a;
}

/* Every slot full: each address finds its own slot, others find nothing;
 * for the default table and for sizes max_peers may give (not a power of
 * two, the largest). */
static void full_table(uint32_t n)
{
	assert_int_equal(peertab_init(&t, n), 0);
	assert_true(t.nbuckets >= 2 * n && !(t.nbuckets & (t.nbuckets - 1)));
	for (uint32_t s = 0; s < n; s++) {
		struct eq_addr a = nth(s * 7919);

		peertab_set(&t, s, true, &a, EQ_SCHEME_EQDS);
	}
	peertab_rehash(&t);
	for (uint32_t s = 0; s < n; s++) {
		struct eq_addr a = nth(s * 7919);

		assert_int_equal(peertab_find(&t, &a), (int)s);
	}
	for (uint32_t i = 1; i < 5000; i++) {
		struct eq_addr a = nth(i * 7919 + 1);

		assert_int_equal(peertab_find(&t, &a), -1);
	}
	peertab_free(&t);
}

static void test_full_table(void **state)
{
	full_table(EQ_MAX_PEERS);
	full_table(EQ_PEERS_MIN);
	full_table(10000);
	full_table(EQ_PEERS_LIMIT);
}

/* A learnt route survives a reload only while the slot keeps its address. */
static void test_route_kept_or_forgotten(void **state)
{
	struct eq_addr a = nth(1), b = nth(2);

	assert_int_equal(peertab_init(&t, EQ_MAX_PEERS), 0);
	assert_false(peertab_set(&t, 3, true, &a, EQ_SCHEME_EQDS));	/* a new peer: nothing gone */
	t.routed[3] = true;
	assert_false(peertab_set(&t, 3, true, &a, EQ_SCHEME_EQDS));
	assert_true(t.routed[3]);
	assert_true(peertab_set(&t, 3, true, &b, EQ_SCHEME_EQDS));	/* another peer took it */
	assert_false(t.routed[3]);
	t.routed[3] = true;
	assert_true(peertab_set(&t, 3, false, &b, EQ_SCHEME_EQDS));	/* gone */
	assert_false(t.routed[3]);
	assert_false(peertab_set(&t, 3, false, &b, EQ_SCHEME_EQDS));	/* still gone: said once */
	peertab_rehash(&t);
	assert_int_equal(peertab_find(&t, &b), -1);
	assert_false(peertab_set(&t, EQ_MAX_PEERS, true, &a, 1));	/* out of range: ignored */
	peertab_rehash(&t);
	assert_int_equal(peertab_find(&t, &a), -1);
	peertab_free(&t);
}

/* The same address with another scheme is another tunnel: the slot's
 * state is gone (the route to the host stays: it is the same host). */
static void test_scheme_change_is_a_new_peer(void **state)
{
	struct eq_addr a = nth(1);

	assert_int_equal(peertab_init(&t, EQ_PEERS_MIN), 0);
	assert_false(peertab_set(&t, 5, true, &a, EQ_SCHEME_EQDS));
	assert_int_equal(t.scheme[5], EQ_SCHEME_EQDS);
	t.routed[5] = true;
	assert_true(peertab_set(&t, 5, true, &a, EQ_SCHEME_NONE));
	assert_int_equal(t.scheme[5], EQ_SCHEME_NONE);
	assert_true(t.routed[5]);
	assert_false(peertab_set(&t, 5, true, &a, EQ_SCHEME_NONE));
	peertab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_table),
		cmocka_unit_test(test_route_kept_or_forgotten),
		cmocka_unit_test(test_scheme_change_is_a_new_peer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
