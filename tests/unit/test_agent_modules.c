// SPDX-License-Identifier: GPL-2.0-only
/*
 * user/agent/modules.c: the agent's instances of the schemes its peers
 * use.  Two mock schemes (ids 1 and 2) record every call; a third id has
 * no module, and one refuses its settings.  Checked: an instance is made
 * once, when its scheme is first asked for, with the clock of that moment
 * and the maps already handed out; the events of time reach every
 * instance (the earliest deadline wins, one that must not sleep keeps the
 * agent awake); a flush reaches every instance; destroy leaves none.
 */
#include "testlib.h"
#include <stdio.h>
#include <string.h>
#include "modules.h"

struct mock {
	int		id;
	uint64_t	created_at, deadline;
	int		runs, syncs, awakes, flushes, destroyed;
	uint32_t	flushed_peer;
	bool		stay_awake;
	struct eq_credit *credit;
	struct eq_rx	*rx;
};

static struct mock mocks[3];

static void *m_create(const struct eqt_env *env, char *err, size_t len, int id)
{
	struct mock *m = &mocks[id];

	if (env->cfg && env->cfg->mtu == 9999) {
		snprintf(err, len, "mock %d refuses mtu 9999", id);
		return NULL;
	}
	m->id = id;
	m->created_at = env->now;
	return m;
}
static void *m1_create(const struct eqt_env *env, char *err, size_t len) { return m_create(env, err, len, 1); }
static void *m2_create(const struct eqt_env *env, char *err, size_t len) { return m_create(env, err, len, 2); }
static void m_destroy(void *s) { ((struct mock *)s)->destroyed++; }
static void m_describe(const void *s, char *buf, size_t len) { snprintf(buf, len, "mock %d", ((const struct mock *)s)->id); }
static uint64_t m_run(void *s, uint64_t now) { ((struct mock *)s)->runs++; return ((struct mock *)s)->deadline; }
static void m_flush(void *s, uint32_t peer, uint64_t now)
{
	((struct mock *)s)->flushes++;
	((struct mock *)s)->flushed_peer = peer;
}
static void m_set_maps(void *s, struct eq_credit *c, struct eq_rx *r)
{
	if (c)
		((struct mock *)s)->credit = c;
	if (r)
		((struct mock *)s)->rx = r;
}
static void m_lease_sync(void *s, uint64_t now) { ((struct mock *)s)->syncs++; }
static bool m_sleep(void *s, uint64_t until) { return ((struct mock *)s)->stay_awake; }
static void m_awake(void *s) { ((struct mock *)s)->awakes++; }

static const struct eqt_scheme_ops mock1 = {
	.name = "mock1", .id = 1, .create = m1_create, .destroy = m_destroy, .describe = m_describe,
	.run = m_run, .flush = m_flush, .set_maps = m_set_maps, .lease_sync = m_lease_sync,
	.sleep = m_sleep, .awake = m_awake,
};
static const struct eqt_scheme_ops mock2 = {
	.name = "mock2", .id = 2, .create = m2_create, .destroy = m_destroy, .describe = m_describe,
	.run = m_run, .flush = m_flush, .set_maps = m_set_maps, .lease_sync = m_lease_sync,
	.sleep = m_sleep, .awake = m_awake,
};

static const struct eqt_scheme_ops *find(uint32_t id)
{
	return id == 1 ? &mock1 : id == 2 ? &mock2 : NULL;
}

static struct eq_config cfg;

static void setup(struct eq_mods *m)
{
	memset(mocks, 0, sizeof(mocks));
	memset(m, 0, sizeof(*m));
	memset(&cfg, 0, sizeof(cfg));
	m->find = find;
	m->env.cfg = &cfg;
}

static void get__makes_each_instance_once_when_first_asked(void **state)
{
	struct eq_mods m;
	char err[100] = "";

	setup(&m);
	assert_null(eq_mods_of(&m, 1));
	struct eq_mod *a = eq_mods_get(&m, 1, 1000, err, sizeof(err));

	assert_non_null(a);
	assert_ptr_equal(a->s, &mocks[1]);
	assert_ptr_equal(a->ops, &mock1);
	assert_int_equal(mocks[1].created_at, 1000);
	mocks[1].created_at = 0;
	assert_ptr_equal(eq_mods_get(&m, 1, 2000, err, sizeof(err)), a);
	assert_int_equal(mocks[1].created_at, 0);	/* not made again */
	assert_ptr_equal(eq_mods_of(&m, 1), a);
	assert_null(eq_mods_of(&m, 2));
	assert_non_null(eq_mods_get(&m, 2, 3000, err, sizeof(err)));
	assert_int_equal(mocks[2].created_at, 3000);
	eq_mods_destroy(&m);
	assert_int_equal(mocks[1].destroyed, 1);
	assert_int_equal(mocks[2].destroyed, 1);
	assert_null(eq_mods_of(&m, 1));
	assert_null(eq_mods_of(&m, 2));
}

static void get__refuses_a_scheme_with_no_module_or_bad_settings(void **state)
{
	struct eq_mods m;
	char err[100] = "";

	setup(&m);
	assert_null(eq_mods_get(&m, 0, 1, err, sizeof(err)));	/* scheme none */
	assert_string_equal(err, "no control loop for scheme 0 in this agent");
	assert_null(eq_mods_get(&m, 7, 1, err, sizeof(err)));
	assert_string_equal(err, "no control loop for scheme 7 in this agent");
	assert_null(eq_mods_get(&m, EQ_MODS_MAX, 1, err, sizeof(err)));
	assert_null(eq_mods_get(&m, 255, 1, err, sizeof(err)));
	cfg.mtu = 9999;
	assert_null(eq_mods_get(&m, 2, 1, err, sizeof(err)));
	assert_string_equal(err, "mock 2 refuses mtu 9999");
	assert_null(eq_mods_of(&m, 2));
	cfg.mtu = 1500;				/* settings fixed: made now */
	assert_non_null(eq_mods_get(&m, 2, 1, err, sizeof(err)));
	eq_mods_destroy(&m);
	assert_int_equal(mocks[2].destroyed, 1);
}

/* Maps handed out before an instance exists reach it when it is made;
 * those handed out later reach every instance. */
static void set_maps__now_and_later(void **state)
{
	struct eq_credit credit[4];
	struct eq_rx rx[4];
	struct eq_mods m;
	char err[100];

	setup(&m);
	eq_mods_set_maps(&m, credit, NULL);
	assert_non_null(eq_mods_get(&m, 1, 1, err, sizeof(err)));
	assert_ptr_equal(mocks[1].credit, credit);
	assert_null(mocks[1].rx);
	eq_mods_set_maps(&m, NULL, rx);
	assert_ptr_equal(mocks[1].rx, rx);
	assert_ptr_equal(mocks[1].credit, credit);
	assert_non_null(eq_mods_get(&m, 2, 1, err, sizeof(err)));
	assert_ptr_equal(mocks[2].credit, credit);
	assert_ptr_equal(mocks[2].rx, rx);
	eq_mods_destroy(&m);
}

static void time__reaches_every_instance(void **state)
{
	struct eq_mods m;
	char err[100], what[100];

	setup(&m);
	assert_int_equal(eq_mods_run(&m, 5), UINT64_MAX);	/* none: no deadline */
	assert_false(eq_mods_sleep(&m, 10));
	assert_non_null(eq_mods_get(&m, 1, 1, err, sizeof(err)));
	assert_non_null(eq_mods_get(&m, 2, 1, err, sizeof(err)));
	mocks[1].deadline = 900;
	mocks[2].deadline = 700;
	assert_int_equal(eq_mods_run(&m, 5), 700);
	mocks[2].deadline = 1700;
	assert_int_equal(eq_mods_run(&m, 5), 900);
	assert_int_equal(mocks[1].runs, 2);
	assert_int_equal(mocks[2].runs, 2);
	eq_mods_lease_sync(&m, 6);
	assert_int_equal(mocks[1].syncs + mocks[2].syncs, 2);
	assert_false(eq_mods_sleep(&m, 10));
	mocks[2].stay_awake = true;
	assert_true(eq_mods_sleep(&m, 10));
	eq_mods_awake(&m);
	assert_int_equal(mocks[1].awakes + mocks[2].awakes, 2);
	eq_mods_flush(&m, 42, 7);
	assert_int_equal(mocks[1].flushes, 1);
	assert_int_equal(mocks[2].flushes, 1);
	assert_int_equal(mocks[1].flushed_peer, 42);
	assert_int_equal(mocks[2].flushed_peer, 42);
	eq_mods_describe(&m, what, sizeof(what));
	assert_string_equal(what, "mock 1; mock 2");
	eq_mods_describe(&m, what, 9);		/* cut, never overrun */
	assert_string_equal(what, "mock 1; ");
	eq_mods_destroy(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(get__makes_each_instance_once_when_first_asked),
		cmocka_unit_test(get__refuses_a_scheme_with_no_module_or_bad_settings),
		cmocka_unit_test(set_maps__now_and_later),
		cmocka_unit_test(time__reaches_every_instance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
