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

/* An entropy a packet was lost on (a LOST NACK names it) is skipped when
 * a fresh one is taken, the cache leaves it at once, and they come back
 * one at a time, in turn, one per 64 BDPs sent; when every entropy lost a
 * packet, the losses are forgotten rather than none left. */
static void lost_path__skipped_until_let_back(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 8, 2 * PKT), 0);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 0);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 1);
	smartt_reps_on_ack(&r, 1, false);
	assert_true(smartt_reps_on_path_lost(&r, 1));	/* the cached one: left */
	assert_true(smartt_reps_on_path_lost(&r, 3));
	assert_false(smartt_reps_on_path_lost(&r, 3));	/* once is enough */
	assert_false(smartt_reps_on_path_lost(&r, 99));	/* not ours: ignored */
	assert_int_equal(r.nlost, 2);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 2);	/* the cache's replacement */
	smartt_reps_on_ack(&r, 2, true);			/* marked: a fresh one */
	assert_int_equal(smartt_reps_on_send(&r, PKT), 4);	/* 3 skipped */
	for (uint32_t want = 5; want < 8; want++) {
		smartt_reps_on_ack(&r, 0, true);
		assert_int_equal(smartt_reps_on_send(&r, PKT), want);
	}
	smartt_reps_on_ack(&r, 0, true);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 0);	/* round again, */
	smartt_reps_on_ack(&r, 0, true);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 2);	/* 1 and 3 still out */
	/* 64 BDPs (of 2 packets) after the first was named, 1 is back, and
	 * 3 is not; 64 BDPs later, 3 too. */
	for (uint32_t i = 7; i < SMARTT_REPS_READMIT_BDPS * 2 - 1; i++)	/* 7 sent */
		smartt_reps_on_send(&r, PKT);
	assert_int_equal(r.nlost, 2);
	smartt_reps_on_send(&r, PKT);
	assert_int_equal(r.nlost, 1);
	assert_false(r.lost_on[0] & (1u << 1));
	assert_true(r.lost_on[0] & (1u << 3));
	for (uint32_t i = 1; i < SMARTT_REPS_READMIT_BDPS * 2; i++)
		smartt_reps_on_send(&r, PKT);
	assert_int_equal(r.nlost, 1);
	smartt_reps_on_send(&r, PKT);
	assert_int_equal(r.nlost, 0);
	/* Every entropy lost a packet: forgotten, not a loop with none left. */
	for (uint32_t e = 0; e < 8; e++)
		smartt_reps_on_path_lost(&r, e);
	smartt_reps_on_ack(&r, 5, true);
	assert_true(smartt_reps_on_send(&r, PKT) < 8);
	assert_int_equal(r.nlost, 0);
}

/* A round trip is known to work by a clean ACK that came back by its
 * entropy, not by the entropy being in the cache: a mark puts a fresh one
 * there, which nothing came back by yet.  A loss named on it unproves it. */
static void proven__by_a_clean_ack_only(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 8, 2 * PKT), 0);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 0);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 1);
	assert_false(smartt_reps_proven(&r, 0));
	smartt_reps_on_ack(&r, 1, false);
	assert_true(smartt_reps_proven(&r, 1));
	smartt_reps_on_ack(&r, 0, true);		/* marked: a fresh one, 2 */
	assert_int_equal(smartt_reps_on_send(&r, PKT), 2);
	assert_false(smartt_reps_proven(&r, 2));
	assert_false(smartt_reps_proven(&r, 0));
	assert_true(smartt_reps_proven(&r, 1));	/* still the last clean */
	smartt_reps_on_ack(&r, 2, false);
	assert_true(smartt_reps_proven(&r, 2));
	assert_false(smartt_reps_proven(&r, 1));	/* one at a time */
	smartt_reps_on_path_lost(&r, 2);
	assert_false(smartt_reps_proven(&r, 2));
	smartt_reps_on_ack(&r, 99, false);		/* not ours: proves nothing */
	assert_false(smartt_reps_proven(&r, 99));
}

/* The working set (smartt.paths_kept): the entropies whose ACKs came
 * back, marked or clean, up to `keep`; a mark or a loss moves to the
 * next of them in turn whose last ACK was clean (never the one just
 * left) once it is full, to the next of them when all are marked, and
 * to a fresh one while it is not full.  A loss named on one takes it out,
 * and the next mark tries a fresh one to fill its place. */
static void working_set__a_mark_moves_within_it(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 256, 4 * PKT), 0);
	smartt_reps_keep(&r, 3);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(smartt_reps_on_send(&r, PKT), i);	/* explore */
	smartt_reps_on_ack(&r, 0, false);
	smartt_reps_on_ack(&r, 1, true);	/* marked, but it came back */
	assert_int_equal(smartt_reps_on_send(&r, PKT), 4);	/* not full: fresh */
	smartt_reps_on_ack(&r, 2, false);
	assert_int_equal(r.nknown, 3);
	smartt_reps_on_ack(&r, 3, false);	/* no room: not kept */
	assert_int_equal(r.nknown, 3);
	/* Full: in turn among 0, 1, 2, those last marked skipped (1). */
	smartt_reps_on_ack(&r, 3, true);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 2);
	smartt_reps_on_ack(&r, 2, true);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 0);
	smartt_reps_on_ack(&r, 1, false);	/* clean again (and recycled) */
	assert_int_equal(smartt_reps_on_send(&r, PKT), 1);
	smartt_reps_on_ack(&r, 0, true);	/* the turn goes on from 0 */
	assert_int_equal(smartt_reps_on_send(&r, PKT), 1);
	smartt_reps_on_loss(&r);		/* a loss: 1 left, 0 and 2 marked */
	assert_int_equal(smartt_reps_on_send(&r, PKT), 2);	/* the next */
	/* A loss named on 0: out, not kept again by a late ACK, and the
	 * next mark fills its place. */
	assert_true(smartt_reps_on_path_lost(&r, 0));
	assert_int_equal(r.nknown, 2);
	smartt_reps_on_ack(&r, 0, false);
	assert_int_equal(r.nknown, 2);
	smartt_reps_on_ack(&r, 2, true);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 5);
	smartt_reps_on_ack(&r, 5, false);
	assert_int_equal(r.nknown, 3);
	/* A restart forgets it; keep 0 is the seed's rule. */
	smartt_reps_restart(&r);
	assert_int_equal(r.nknown, 0);
	assert_int_equal(smartt_reps_init(&r, 256, 2 * PKT), 0);
	smartt_reps_keep(&r, 0);
	smartt_reps_on_send(&r, PKT);
	smartt_reps_on_send(&r, PKT);
	smartt_reps_on_ack(&r, 0, false);
	smartt_reps_on_ack(&r, 0, true);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 2);
	assert_int_equal(r.nknown, 0);
	/* More than the set: all of it. */
	smartt_reps_keep(&r, 1000);
	assert_int_equal(r.keep, 256);
}

/* The set is refreshed one entropy at a time, one per 64 BDPs sent while
 * it is full: the next in turn leaves it, its ACKs do not bring it back,
 * and the next mark tries a fresh one, which takes its place. */
static void working_set__refreshed_one_at_a_time(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 256, PKT), 0);	/* a BDP: 1 packet */
	smartt_reps_keep(&r, 2);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 0);
	smartt_reps_on_ack(&r, 0, false);
	smartt_reps_on_ack(&r, 0, true);			/* not full: fresh */
	assert_int_equal(smartt_reps_on_send(&r, PKT), 1);
	smartt_reps_on_ack(&r, 1, false);
	assert_int_equal(r.nknown, 2);
	/* Full from here: 64 BDPs later, one leaves (the next in turn
	 * after 0: 1). */
	for (int i = 0; i < SMARTT_REPS_READMIT_BDPS - 1; i++)
		assert_int_equal(smartt_reps_on_send(&r, PKT), 1);
	assert_int_equal(r.nknown, 2);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 1);
	assert_int_equal(r.nknown, 1);
	smartt_reps_on_ack(&r, 1, false);		/* its ACKs keep it out */
	assert_int_equal(r.nknown, 1);
	smartt_reps_on_ack(&r, 1, true);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 2);	/* tried in its place */
	smartt_reps_on_ack(&r, 2, false);
	assert_int_equal(r.nknown, 2);
	assert_true(r.known[0] & (1u << 2));
	assert_false(r.known[0] & (1u << 1));
}

/* A timeout: the entropy in use leaves the set, and a fresh one is tried
 * (the others marked, the set's next unmarked would be another like it:
 * one whose last ACK came before its link died). */
static void working_set__a_timeout_leaves_it(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 256, 3 * PKT), 0);
	smartt_reps_keep(&r, 3);
	for (uint32_t i = 0; i < 3; i++)
		smartt_reps_on_send(&r, PKT);
	smartt_reps_on_ack(&r, 1, true);
	smartt_reps_on_ack(&r, 2, true);
	smartt_reps_on_ack(&r, 0, false);
	assert_int_equal(r.nknown, 3);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 0);
	smartt_reps_on_timeout(&r);
	assert_int_equal(r.nknown, 2);
	assert_false(r.known[0] & 1u);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 5);	/* fresh (the marks took 3, 4) */
	/* Without a set, as a loss: a fresh one. */
	assert_int_equal(smartt_reps_init(&r, 256, PKT), 0);
	smartt_reps_on_send(&r, PKT);
	smartt_reps_on_ack(&r, 0, false);
	smartt_reps_on_timeout(&r);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 1);
}

/* One entropy kept, and it is marked: a fresh one, not itself. */
static void working_set__of_one(void **state)
{
	struct smartt_reps r;

	assert_int_equal(smartt_reps_init(&r, 16, PKT), 0);
	smartt_reps_keep(&r, 1);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 0);
	smartt_reps_on_ack(&r, 0, false);
	smartt_reps_on_ack(&r, 0, true);
	assert_int_equal(smartt_reps_on_send(&r, PKT), 1);
	assert_int_equal(r.nknown, 1);
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
#define SLOTS	(400 * W)	/* long enough to turn through all 256 entropies
				 * many times under marks */

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
static struct spray_result spray_marked(bool oblivious, unsigned from, unsigned mark_every,
				       bool report_paths, uint32_t keep);

static struct spray_result spray(bool oblivious, unsigned from)
{
	return spray_marked(oblivious, from, 0, false, 0);
}

/* mark_every: every so many ACKs comes back CE-marked (congestion on
 * every path), which sends REPS to a fresh entropy; report_paths: each
 * loss names the entropy it went by (smartt_reps_on_path_lost()), as the
 * receiver's LOST NACK lets the sender do; keep: the working set's size. */
static struct spray_result spray_marked(bool oblivious, unsigned from, unsigned mark_every,
				       bool report_paths, uint32_t keep)
{
	static struct ev due[SLOTS + RTO_RTTS * W + 1][16];
	static unsigned ndue[SLOTS + RTO_RTTS * W + 1];
	struct spray_result res = { 0 };
	struct smartt_reps r;
	uint32_t rr = 0, acks = 0;

	memset(ndue, 0, sizeof(ndue));
	assert_int_equal(smartt_reps_init(&r, 256, W * PKT), 0);
	smartt_reps_keep(&r, keep);
	for (unsigned t = 0; t < SLOTS; t++) {
		unsigned sends = t < W ? 1 : 0;

		for (unsigned i = 0; i < ndue[t]; i++) {
			if (!oblivious) {
				if (due[t][i].lost) {
					if (report_paths)
						smartt_reps_on_path_lost(&r, due[t][i].e);
					smartt_reps_on_loss(&r);
				} else {
					smartt_reps_on_ack(&r, due[t][i].e,
							   mark_every && ++acks % mark_every == 0);
				}
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

/* Marks on every path (one ACK in 4): the seed's REPS takes a fresh
 * entropy at each, one after the other, and a quarter of those go into
 * the dead path, each time its turn comes round, for as long as it is
 * dead (390 round trips here).  With each loss naming its entropy, an entropy that
 * lost a packet is not fresh again until it is let back, one every 64
 * BDPs: the dead path's 63 entropies are each lost on once, and one more
 * packet goes per entropy let back while the path is still dead. */
static void spray__marks_everywhere_losses_named(void **state)
{
	unsigned from = DEAD + 10 * W;
	struct spray_result seed = spray_marked(false, from, 4, false, 0),
			    named = spray_marked(false, from, 4, true, 0);

	print_message("marks on 1 ACK in 4: the seed's REPS %u drops (%u of %u sends 10 RTTs "
		      "after), with losses named %u (%u of %u)\n", seed.drops, seed.late_dead,
		      seed.late, named.drops, named.late_dead, named.late);
	assert_true(named.late >= seed.late);		/* as much sent */
	assert_true(named.drops * 3 <= seed.drops);
	/* once each, and once per entropy let back (6 in 390 round trips) */
	assert_true(named.drops <= 64 + 390 / SMARTT_REPS_READMIT_BDPS + 1);
}

/* The same marks with a working set of 16: a mark moves within it, so
 * after the first BDP's exploration a fresh entropy is tried only to
 * replace one the dead path took.  The dead path costs what of the set
 * led into it when it died, and what of the replacements does, not one
 * packet per entropy of the 256 that leads into it. */
static void spray__a_working_set_tries_few(void **state)
{
	unsigned from = DEAD + 10 * W;
	struct spray_result named = spray_marked(false, from, 4, true, 0),
			    kept = spray_marked(false, from, 4, true, 16);

	print_message("marks on 1 ACK in 4, losses named: %u drops (%u of %u sends 10 RTTs after); "
		      "with a working set of 16, %u (%u of %u)\n", named.drops, named.late_dead,
		      named.late, kept.drops, kept.late_dead, kept.late);
	assert_true(kept.late >= named.late);		/* as much sent */
	assert_true(kept.late_dead * 100 < kept.late);
	assert_true(kept.drops * 2 <= named.drops);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(explore__the_first_bdp_in_order),
		cmocka_unit_test(explore__ends_when_all_were_tried),
		cmocka_unit_test(recycle__a_clean_ack),
		cmocka_unit_test(replace__after_a_mark_or_a_loss),
		cmocka_unit_test(restart__explores_again),
		cmocka_unit_test(lost_path__skipped_until_let_back),
		cmocka_unit_test(proven__by_a_clean_ack_only),
		cmocka_unit_test(working_set__a_mark_moves_within_it),
		cmocka_unit_test(working_set__refreshed_one_at_a_time),
		cmocka_unit_test(working_set__a_timeout_leaves_it),
		cmocka_unit_test(working_set__of_one),
		cmocka_unit_test(init__bounds),
		cmocka_unit_test(spray__leaves_a_dead_path),
		cmocka_unit_test(spray__marks_everywhere_losses_named),
		cmocka_unit_test(spray__a_working_set_tries_few),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
