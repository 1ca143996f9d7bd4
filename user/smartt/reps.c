// SPDX-License-Identifier: GPL-2.0-only
/*
 * REPS (reps.h; docs/smartt.md, "REPS").
 */
#include <errno.h>
#include <string.h>
#include "reps.h"

int smartt_reps_init(struct smartt_reps *r, uint32_t n, uint64_t bdp)
{
	if (!n || n > SMARTT_REPS_MAX)
		return -EINVAL;
	*r = (struct smartt_reps){ .n = n, .explore_bytes = bdp };
	return 0;
}

void smartt_reps_keep(struct smartt_reps *r, uint32_t keep)
{
	r->keep = keep < r->n ? keep : r->n;
}

void smartt_reps_restart(struct smartt_reps *r)
{
	r->sent = 0;
	r->tried = 0;
	r->have_cached = false;
	memset(r->known, 0, sizeof(r->known));
	memset(r->marked, 0, sizeof(r->marked));
	r->nknown = 0;
	r->refresh_sent = 0;
	r->have_retired = false;
}

/* One bit per entropy: lost_on, known, marked. */
static bool bit(const uint64_t *map, uint32_t e)
{
	return map[e / 64] & (1ULL << (e % 64));
}

static void set_bit(uint64_t *map, uint32_t e, bool on)
{
	if (on)
		map[e / 64] |= 1ULL << (e % 64);
	else
		map[e / 64] &= ~(1ULL << (e % 64));
}

static bool was_lost_on(const struct smartt_reps *r, uint32_t e)
{
	return bit(r->lost_on, e);
}

static void forget_losses(struct smartt_reps *r)
{
	memset(r->lost_on, 0, sizeof(r->lost_on));
	r->nlost = 0;
	r->lost_sent = 0;
}

/* The next entropy out, in turn from the last one let back, comes back. */
static void let_one_back(struct smartt_reps *r)
{
	uint32_t e = r->readmit < r->n ? r->readmit : 0;

	while (!was_lost_on(r, e))	/* nlost > 0: one is out */
		e = e + 1 < r->n ? e + 1 : 0;
	set_bit(r->lost_on, e, false);
	r->nlost--;
	r->readmit = e + 1 < r->n ? e + 1 : 0;
	r->lost_sent = 0;
}

/* The next entropy in turn that lost nothing lately (every one did: the
 * losses are forgotten, the fabric is not one dead path). */
static uint32_t fresh(struct smartt_reps *r)
{
	uint32_t e = r->next;

	if (r->nlost >= r->n)
		forget_losses(r);
	while (r->nlost && was_lost_on(r, e))
		e = e + 1 < r->n ? e + 1 : 0;
	r->next = e + 1 < r->n ? e + 1 : 0;
	if (r->tried < r->n)
		r->tried++;
	return e;
}

static bool is_known(const struct smartt_reps *r, uint32_t e)
{
	return bit(r->known, e);
}

/* Its round trip works: into the working set, if there is room. */
static void know(struct smartt_reps *r, uint32_t e)
{
	if (r->nknown >= r->keep || is_known(r, e) || was_lost_on(r, e) ||
	    (r->have_retired && r->retired == e))
		return;
	set_bit(r->known, e, true);
	r->nknown++;
}

static void unknow(struct smartt_reps *r, uint32_t e)
{
	if (!is_known(r, e))
		return;
	set_bit(r->known, e, false);
	r->nknown--;
}

/* The working set's next after `from`, in turn, other than `skip`, and
 * unmarked if `unmarked`; SMARTT_REPS_MAX if there is none. */
static uint32_t next_known(const struct smartt_reps *r, uint32_t from, uint32_t skip,
			   bool unmarked)
{
	uint32_t e = from + 1 < r->n ? from + 1 : 0, words = (r->n + 63) / 64;

	/* Every word once, and the first again for the bits before `from`. */
	for (uint32_t i = 0; i <= words; i++) {
		uint64_t w = r->known[e / 64] & (unmarked ? ~r->marked[e / 64] : ~0ULL);

		if (skip / 64 == e / 64)
			w &= ~(1ULL << (skip % 64));
		w >>= e % 64;
		if (w)
			return e + (uint32_t)__builtin_ctzll(w);
		e = (e / 64 + 1) * 64;
		if (e >= r->n)
			e = 0;
	}
	return SMARTT_REPS_MAX;
}

/* Another entropy than `left`: once the working set is full, its next
 * whose last ACK was clean, or with marks on all of it (congestion
 * everywhere, as at an incast's last hop, where no path is better) its
 * next; while it is not full, a fresh one, which joins it if its ACK
 * comes back.  A fresh one after each mark, as the seed takes, sent an
 * incast's packets into every path in turn, the dead ones too. */
static uint32_t other(struct smartt_reps *r, uint32_t left)
{
	uint32_t e;

	if (!r->keep || r->nknown < r->keep)
		return fresh(r);
	e = next_known(r, r->turn, left, true);
	if (e == SMARTT_REPS_MAX)
		e = next_known(r, r->turn, left, false);
	if (e == SMARTT_REPS_MAX)
		return fresh(r);	/* a set of one, just left */
	r->turn = e;
	return e;
}

uint32_t smartt_reps_on_send(struct smartt_reps *r, uint32_t bytes)
{
	bool explore = r->sent < r->explore_bytes && r->tried < r->n;
	uint32_t e;

	r->sent += bytes;
	if (r->nlost && (r->lost_sent += bytes) >= SMARTT_REPS_READMIT_BDPS * r->explore_bytes)
		let_one_back(r);
	if (r->keep && r->nknown >= r->keep &&
	    (r->refresh_sent += bytes) >= SMARTT_REPS_READMIT_BDPS * r->explore_bytes) {
		r->refresh_sent = 0;
		r->retired = next_known(r, r->turn, SMARTT_REPS_MAX, false);
		r->have_retired = true;
		unknow(r, r->retired);
	}
	/* Exploring, or nothing came back clean yet: every packet a path
	 * of its own.  (The paper reuses its cache slot, 0 at the start,
	 * once the first BDP is out: a path it never heard from.) */
	if (explore || !r->have_cached)
		e = fresh(r);
	else
		e = r->cached;
	return e;
}

void smartt_reps_on_ack(struct smartt_reps *r, uint32_t entropy, bool ecn)
{
	if (entropy >= r->n) {
		r->cached = fresh(r);	/* one we never use: a peer's mistake */
	} else if (ecn) {
		/* Marked: that path is congested (and works); the next send
		 * takes another. */
		know(r, entropy);
		set_bit(r->marked, entropy, true);
		r->cached = other(r, entropy);
	} else {
		know(r, entropy);
		set_bit(r->marked, entropy, false);
		r->cached = entropy;
		r->clean = entropy;
		r->have_clean = true;
	}
	r->have_cached = true;
}

void smartt_reps_on_loss(struct smartt_reps *r)
{
	if (r->have_cached)
		r->cached = other(r, r->cached);
}

void smartt_reps_on_timeout(struct smartt_reps *r)
{
	if (r->have_cached)
		unknow(r, r->cached);
	smartt_reps_on_loss(r);
}

bool smartt_reps_on_path_lost(struct smartt_reps *r, uint32_t entropy)
{
	if (entropy >= r->n || was_lost_on(r, entropy))
		return false;
	if (!r->nlost)
		r->lost_sent = 0;
	set_bit(r->lost_on, entropy, true);
	r->nlost++;
	unknow(r, entropy);
	if (r->have_clean && r->clean == entropy)
		r->have_clean = false;
	if (r->have_cached && r->cached == entropy)
		r->cached = other(r, entropy);
	return true;
}
