// SPDX-License-Identifier: GPL-2.0-only
/*
 * user/agent/schemes.c: the registry of schemes.  Every module listed has
 * a unique name and id and fills every hook of core/scheme.h; EQDS is
 * found by its id and its config name; scheme none runs no module.
 */
#include "testlib.h"
#include <string.h>
#include "schemes.h"

static void registry__finds_eqds_by_id_and_name(void **state)
{
	const struct eqt_scheme_ops *o = eq_scheme_find(EQ_SCHEME_EQDS);

	assert_non_null(o);
	assert_string_equal(o->name, "eqds");
	assert_ptr_equal(eq_scheme_by_name("eqds"), o);
}

static void registry__finds_sird_by_id_and_name(void **state)
{
	const struct eqt_scheme_ops *o = eq_scheme_find(EQ_SCHEME_SIRD);

	assert_non_null(o);
	assert_string_equal(o->name, "sird");
	assert_ptr_equal(eq_scheme_by_name("sird"), o);
}

static void registry__none_and_unknown_have_no_module(void **state)
{
	assert_null(eq_scheme_find(EQ_SCHEME_NONE));
	assert_null(eq_scheme_find(999));
	assert_null(eq_scheme_by_name("none"));
	assert_null(eq_scheme_by_name("bolt"));
	assert_null(eq_scheme_by_name(""));
}

/* Every id up to 16 that has a module: its hooks are all there, and no
 * other id or name leads to it. */
static void registry__every_module_is_whole_and_unique(void **state)
{
	int found = 0;

	for (uint32_t id = 0; id < 16; id++) {
		const struct eqt_scheme_ops *o = eq_scheme_find(id);

		if (!o)
			continue;
		found++;
		assert_int_equal(o->id, id);
		assert_ptr_equal(eq_scheme_by_name(o->name), o);
		assert_non_null(o->create);
		assert_non_null(o->destroy);
		assert_non_null(o->describe);
		assert_non_null(o->from_host);
		assert_non_null(o->fast_sent);
		assert_non_null(o->from_wire);
		assert_non_null(o->run);
		assert_non_null(o->flush);
		assert_non_null(o->set_maps);
		assert_non_null(o->lease_sync);
		assert_non_null(o->sleep);
		assert_non_null(o->awake);
		assert_non_null(o->publish);
		/* Its own published state: each field inside its struct, in
		 * order, whole integers (scheme_map.c builds the BTF from it). */
		assert_true(o->stats_size <= 256);
		assert_true(!o->nstats || o->stats);
		for (uint32_t i = 0; i < o->nstats; i++) {
			const struct eqt_stat *st = &o->stats[i];

			assert_true(st->size == 4 || st->size == 8);
			assert_true(st->off % st->size == 0);
			assert_true(st->off + st->size <= o->stats_size);
			if (i)
				assert_true(st->off >= o->stats[i - 1].off + o->stats[i - 1].size);
			for (uint32_t j = 0; j < i; j++)
				assert_string_not_equal(st->name, o->stats[j].name);
		}
		for (uint32_t other = 0; other < 16; other++)
			if (other != id)
				assert_ptr_not_equal(eq_scheme_find(other), o);
	}
	assert_true(found >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry__finds_eqds_by_id_and_name),
		cmocka_unit_test(registry__finds_sird_by_id_and_name),
		cmocka_unit_test(registry__none_and_unknown_have_no_module),
		cmocka_unit_test(registry__every_module_is_whole_and_unique),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
