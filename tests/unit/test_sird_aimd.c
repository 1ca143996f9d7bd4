// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/sird/aimd.c: SIRD's per-sender buckets on synthetic
 * packet traces (../shared/notes/sird.md §6, item 3): without marks a
 * bucket grows one MTU per window up to a BDP; with every packet marked,
 * alpha follows 1 - 0.92^n after n windows, a bucket decreases at most
 * once per 1.5 windows and comes down to its floor (0.1 BDP for csn, 0.03
 * for CE); the limit is the smaller bucket.
 */
#include "testlib.h"
#include <errno.h>
#include <math.h>
#include "aimd.h"

#define BDP	100000ULL
#define MTU	1538u

static struct sird_aimd_params params(void)
{
	struct sird_aimd_params p;

	assert_int_equal(sird_aimd_params_set(&p, BDP, MTU), 0);
	return p;
}

static double bytes(const struct sird_bucket *b)
{
	return (double)b->w / SIRD_ONE;
}

static void params__defaults_and_refusals(void **state)
{
	struct sird_aimd_params p = params();

	assert_int_equal(p.floor[SIRD_CSN], BDP / 10);
	assert_int_equal(p.floor[SIRD_NET], BDP * 3 / 100);
	assert_int_equal(p.g, 5243);			/* 0.08 */
	assert_int_equal(sird_aimd_params_set(&p, MTU - 1, MTU), -EINVAL);
	assert_int_equal(sird_aimd_params_set(&p, BDP, 0), -EINVAL);
}

/* No marks: one MTU a window of packets (a window is W / MTU of them),
 * up to a BDP and no further. */
static void ai__one_mtu_a_window_up_to_a_bdp(void **state)
{
	struct sird_aimd_params p = params();
	struct sird_limit l;
	double w0;

	sird_limit_init(&l, &p);
	for (int x = 0; x < SIRD_NSIG; x++)
		l.b[x].w = (uint64_t)30000 << 16;
	w0 = bytes(&l.b[SIRD_CSN]);
	for (uint32_t i = 0; i < 30000 / MTU; i++)		/* 19 packets: a window */
		sird_limit_on_data(&l, &p, false, false);
	assert_true(bytes(&l.b[SIRD_CSN]) - w0 <= MTU);
	assert_true(bytes(&l.b[SIRD_CSN]) - w0 >= 0.9 * MTU);
	assert_true(l.b[SIRD_CSN].w == l.b[SIRD_NET].w);
	for (int i = 0; i < 100000; i++)
		sird_limit_on_data(&l, &p, false, false);
	assert_int_equal(l.b[SIRD_CSN].w, BDP << 16);
	assert_int_equal(sird_limit_bytes(&l), BDP);
	assert_int_equal(l.b[SIRD_CSN].alpha, 0);
}

/* Every packet marked: alpha after n windows is 1 - 0.92^n; a decrease
 * at most once per 1.5 windows; down to the floors. */
static void md__alpha_and_the_floors(void **state)
{
	struct sird_aimd_params p = params();
	struct sird_limit l;
	unsigned windows = 0, since = 0, mds = 0;
	uint64_t lo[SIRD_NSIG] = { UINT64_MAX, UINT64_MAX };

	sird_limit_init(&l, &p);
	for (int i = 0; i < 20000; i++) {
		uint32_t next_md = l.b[SIRD_CSN].next_md;
		uint64_t before = l.b[SIRD_CSN].w;

		sird_limit_on_data(&l, &p, true, true);
		since++;
		if (l.b[SIRD_CSN].since_md == 0) {		/* a decrease now */
			mds++;
			if (mds > 1)
				assert_true(since >= next_md);
			assert_true(l.b[SIRD_CSN].w < before || l.b[SIRD_CSN].w == p.floor[SIRD_CSN] << 16);
			since = 0;
		}
		if (l.pkts == 0) {				/* a window ended */
			windows++;
			if (windows <= 20) {
				double want = 1 - pow(0.92, windows);

				if (fabs((double)l.b[SIRD_CSN].alpha / SIRD_ONE - want) > 0.002)
					fail_msg("window %u: alpha %.4f, want %.4f", windows,
						 (double)l.b[SIRD_CSN].alpha / SIRD_ONE, want);
			}
		}
		for (int x = 0; x < SIRD_NSIG; x++)
			if (l.b[x].w < lo[x])
				lo[x] = l.b[x].w;
	}
	assert_true(mds > 10);
	assert_int_equal(lo[SIRD_CSN], p.floor[SIRD_CSN] << 16);
	assert_int_equal(lo[SIRD_NET], p.floor[SIRD_NET] << 16);
	/* Never below, and the limit is the smaller: the network's. */
	assert_true(sird_limit_bytes(&l) < BDP / 10 + 3 * MTU);
}

/* The limit is the smaller bucket: csn marks alone bring the sender's
 * bucket down and leave the network's at a BDP. */
static void limit__the_smaller_bucket(void **state)
{
	struct sird_aimd_params p = params();
	struct sird_limit l;

	sird_limit_init(&l, &p);
	for (int i = 0; i < 5000; i++)
		sird_limit_on_data(&l, &p, true, false);
	assert_int_equal(l.b[SIRD_NET].w, BDP << 16);
	assert_true(l.b[SIRD_CSN].w < l.b[SIRD_NET].w);
	assert_int_equal(sird_limit_bytes(&l), l.b[SIRD_CSN].w >> 16);
	for (int i = 0; i < 5000; i++)
		sird_limit_on_data(&l, &p, false, true);
	assert_int_equal(sird_limit_bytes(&l),
			 (l.b[SIRD_CSN].w < l.b[SIRD_NET].w ? l.b[SIRD_CSN].w : l.b[SIRD_NET].w) >> 16);
	assert_true(l.b[SIRD_NET].w < (BDP << 16));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(params__defaults_and_refusals),
		cmocka_unit_test(ai__one_mtu_a_window_up_to_a_bdp),
		cmocka_unit_test(md__alpha_and_the_floors),
		cmocka_unit_test(limit__the_smaller_bucket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
