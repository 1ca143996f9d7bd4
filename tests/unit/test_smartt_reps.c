// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/smartt/reps.c: REPS's rules one by one
 * (../shared/notes/smartt-reps.md §6, REPS items 1, 3, 4 and 9; item 2,
 * the echo, is the frame layer's), and a model of spraying over k paths
 * with one black-holed mid-flow (item 6): REPS leaves the dead path within
 * a few round trips and loses an order of magnitude fewer packets than
 * spraying over every entropy alike.
 */
#include "testlib.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "reps.h"

#define PKT	1000

/* 1. Exploration: over the first BDP, entropies 0, 1, 2, ... in order,
 * whatever comes back meanwhile. */
static void explore__the_first_bdp_in_order(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 256, 10 * PKT), 0);
	for (uint32_t i = 0; i < 10; i++) {
		assert_int_equal(smartt_reps_on_send(&r, PKT), i);
		if (i == 4)
			smartt_reps_on_ack(&r, 2, false);
	}
	/* Then the entropy of the last clean ACK. */
	assert_int_equal(smartt_reps_on_send(&r, PKT), 2);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 2);
}

/* ... or until every entropy was tried, if that comes first. */
static void explore__ends_when_all_were_tried(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 4, 100 * PKT), 0);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(smartt_reps_on_send(&r, PKT), i);
	smartt_reps_on_ack(&r, 1, false);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 1);
}

/* 3. Recycle: after a clean ACK with entropy e, new packets use e. */
static void recycle__a_clean_ack(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 256, 2 * PKT), 0);
	smartt_reps_on_send(&r, PKT);
	smartt_reps_on_send(&r, PKT);
	for (uint32_t e = 7; e < 12; e++) {
		smartt_reps_on_ack(&r, e, false);
		assert_int_equal(smartt_reps_on_send(&r, PKT), e);
	}
}

/* 4. Replace: after a marked ACK (or a loss) a fresh entropy, the next in
 * turn, not the marked one unless the space wraps. */
static void replace__after_a_mark_or_a_loss(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 256, 3 * PKT), 0);
	for (int i = 0; i < 3; i++)
		smartt_reps_on_send(&r, PKT);			/* 0, 1, 2 */
	smartt_reps_on_ack(&r, 1, false);
	smartt_reps_on_ack(&r, 1, true);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 3);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 3);
	smartt_reps_on_loss(&r);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 4);
	/* The space wraps. */
	assert_int_equal(smartt_reps_init(&r, 2, 2 * PKT), 0);
	smartt_reps_on_send(&r, PKT);
	smartt_reps_on_send(&r, PKT);
	smartt_reps_on_ack(&r, 1, true);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 0);
	/* An entropy out of range echoed back is never reused. */
	smartt_reps_on_ack(&r, 9, false);
	assert_true(smartt_reps_on_send(&r, PKT) < 2);
}

/* Before any clean ACK, after the exploration: fresh ones, not a cache
 * that never heard from its path; a restart explores again. */
static void restart__explores_again(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 256, 2 * PKT), 0);
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(smartt_reps_on_send(&r, PKT), i);
	smartt_reps_on_ack(&r, 3, false);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 3);
	smartt_reps_restart(&r);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 5);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 6);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 7);
}

/* 9. The entropy set is bounded and configurable. */
static void init__bounds(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 0, PKT), -EINVAL);
	assert_int_equal(smartt_reps_init(&r, SMARTT_REPS_MAX + 1, PKT), -EINVAL);
	assert_int_equal(smartt_reps_init(&r, SMARTT_REPS_MAX, PKT), 0);
	rng_state = 9;
	for (int i = 0; i < 100000; i++) {
		uint32_t e = smartt_reps_on_send(&r, PKT);

		assert_true(e < SMARTT_REPS_MAX);
		if (rnd32() % 4 == 0)
			smartt_reps_on_ack(&r, rnd32() % (2 * SMARTT_REPS_MAX), rnd32() % 2);
	}
}

/* ---- spraying over k model paths, one black-holed ---- */

#define K	4		/* paths */
#define W	32		/* window: packets in flight, one round trip = W slots */
#define RTO_RTTS 3		/* a lost packet is found lost this many RTTs after it left */
#define DEAD	(10 * W)	/* path 0 is black-holed from this slot on */
#define SLOTS	(40 * W)

static unsigned path_of(uint32_t e)
{
	return (e * 2654435761u >> 16) % K;
}

struct ev {
	uint32_t	e;
	bool		lost;
};

struct spray_result {
	unsigned	drops;		/* sends into the dead path after it died */
	unsigned	late, late_dead;	/* sends from `from` on, and into it */
};

/* Each slot: the feedback due (the ACK of what was sent a round trip ago,
 * or the loss of what was sent an RTO ago on the dead path), and a send
 * for each (a window that stays full).  `oblivious`: every entropy in turn,
 * whatever comes back. */
static struct spray_result spray(bool oblivious, unsigned from)
{
	static struct ev due[SLOTS + RTO_RTTS * W + 1][16];
	static unsigned ndue[SLOTS + RTO_RTTS * W + 1];
	struct spray_result res = { 0 };
	struct smartt_reps r;
	uint32_t rr = 0;

	memset(ndue, 0, sizeof(ndue));
	assert_int_equal(smartt_reps_init(&r, 256, W * PKT), 0);
	for (unsigned t = 0; t < SLOTS; t++) {
		unsigned sends = t < W ? 1 : 0;

		for (unsigned i = 0; i < ndue[t]; i++) {
			if (!oblivious) {
				if (due[t][i].lost)
					smartt_reps_on_loss(&r);
				else
					smartt_reps_on_ack(&r, due[t][i].e, false);
			}
			sends++;
		}
		for (unsigned s = 0; s < sends; s++) {
			uint32_t e = oblivious ? rr++ % 256 : smartt_reps_on_send(&r, PKT);
			bool dead = t >= DEAD && path_of(e) == 0;
			unsigned at = t + (dead ? RTO_RTTS * W : W);

			res.drops += dead;
			if (t >= from) {
				res.late++;
				res.late_dead += dead;
			}
			assert_true(ndue[at] < 16);
			due[at][ndue[at]++] = (struct ev){ e, dead };
		}
	}
	return res;
}

static void spray__leaves_a_dead_path(void **state)
{
	unsigned from = DEAD + 10 * W, on_dead = 0;
	struct spray_result reps = spray(false, from), obl = spray(true, from);

	for (uint32_t e = 0; e < 256; e++)
		on_dead += path_of(e) == 0;
	print_message("dead path (%u of 256 entropies): REPS %u drops, %u of %u sends 10 RTTs "
		      "after; oblivious %u drops, %u of %u\n", on_dead, reps.drops, reps.late_dead,
		      reps.late, obl.drops, obl.late_dead, obl.late);
	/* Oblivious spraying keeps sending the dead path its share. */
	assert_true(obl.late_dead * 256 >= obl.late * on_dead * 9 / 10);
	/* REPS: under 1 % ten round trips after the failure ... */
	assert_true(reps.late_dead * 100 < reps.late);
	assert_true(reps.late >= 19 * W);		/* and its window kept going */
	/* ... and an order of magnitude fewer drops. */
	assert_true(reps.drops * 10 <= obl.drops);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(explore__the_first_bdp_in_order),
		cmocka_unit_test(explore__ends_when_all_were_tried),
		cmocka_unit_test(recycle__a_clean_ack),
		cmocka_unit_test(replace__after_a_mark_or_a_loss),
		cmocka_unit_test(restart__explores_again),
		cmocka_unit_test(init__bounds),
		cmocka_unit_test(spray__leaves_a_dead_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
