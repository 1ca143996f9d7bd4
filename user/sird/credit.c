// SPDX-License-Identifier: GPL-2.0-only
/*
 * SIRD's receiver credit (credit.h; docs/sird.md).
 */
#include <errno.h>
#include <string.h>
#include "credit.h"

int sird_rx_init(struct sird_rx *r, uint32_t n, uint64_t bdp, uint32_t mtu, uint32_t b_bdps,
		 enum sird_policy policy)
{
	memset(r, 0, sizeof(*r));
	if (!n || n > SIRD_MAX_SENDERS || b_bdps < SIRD_ONE ||
	    sird_aimd_params_set(&r->p, bdp, mtu))
		return -EINVAL;
	r->B = bdp * b_bdps / SIRD_ONE;
	r->b_bdps = b_bdps;
	r->grain = mtu;
	r->policy = policy;
	r->n = n;
	for (uint32_t i = 0; i < n; i++)
		sird_limit_init(&r->s[i].lim, &r->p);
	if (sird_aimd_params_set(&r->dp, r->B, mtu))
		return -EINVAL;
	sird_limit_init(&r->down, &r->dp);
	return 0;
}

uint64_t sird_rx_bucket(const struct sird_rx *r)
{
	uint64_t d = sird_limit_bytes(&r->down), lo = 2ULL * r->grain;

	if (d < lo)	/* a grant must fit, or no DATA comes to raise it */
		d = lo;
	return d < r->B ? d : r->B;
}

void sird_rx_want(struct sird_rx *r, uint32_t i, uint64_t bytes)
{
	if (i < r->n)
		r->s[i].rem += bytes;
}

/* Credit back: never below zero (a sender that sends more than it was
 * granted is the sender's problem, and its data is counted, not owed). */
static void give_back(struct sird_rx *r, uint32_t i, uint64_t bytes)
{
	uint64_t c = bytes < r->s[i].sb ? bytes : r->s[i].sb;

	r->s[i].sb -= c;
	r->b -= c < r->b ? c : r->b;
}

void sird_rx_on_data(struct sird_rx *r, uint32_t i, uint32_t bytes, bool scheduled, bool csn,
		     bool ce)
{
	if (i >= r->n)
		return;
	if (scheduled)
		give_back(r, i, bytes);
	sird_limit_on_data(&r->s[i].lim, &r->p, csn, ce);
	sird_limit_on_data(&r->down, &r->dp, false, ce);
}

void sird_rx_reclaim(struct sird_rx *r, uint32_t i, uint64_t bytes)
{
	if (i < r->n)
		give_back(r, i, bytes);
}

void sird_rx_forget(struct sird_rx *r, uint32_t i)
{
	if (i >= r->n)
		return;
	give_back(r, i, r->s[i].sb);
	r->s[i].rem = 0;
	sird_limit_init(&r->s[i].lim, &r->p);
}

/* Each bucket of l keeps its share of its ceiling, old to new (a bucket
 * at a guessed BDP's ceiling is at the measured one's). */
static void rescale(struct sird_limit *l, const struct sird_aimd_params *p, uint64_t old,
		    uint32_t grain)
{
	for (int k = 0; k < SIRD_NSIG; k++) {
		struct sird_bucket *b = &l->b[k];
		/* Q16 bytes scaled by new/old; 128-bit: a bucket of a BDP of
		 * 16 MB in Q16 times 16 MB overflows 64 bits.  Never under a
		 * grain (the new BDP is one at least): a sender whose limit
		 * is less is granted nothing once its share is 0
		 * (eligible()), and no DATA then comes to raise it.  The
		 * AIMD alone keeps a bucket above 1.4 grains (W/2 + MTU²/W
		 * at the least). */
		unsigned __int128 w = (unsigned __int128)b->w * p->bdp / old;
		uint64_t lo = (p->floor[k] > grain ? p->floor[k] : grain) << 16, hi = p->bdp << 16;

		b->w = w > hi ? hi : w < lo ? lo : (uint64_t)w;
	}
}

int sird_rx_set_bdp(struct sird_rx *r, uint64_t bdp)
{
	struct sird_aimd_params p, dp;
	uint64_t old = r->p.bdp, old_B = r->dp.bdp, B = bdp * r->b_bdps / SIRD_ONE;

	if (sird_aimd_params_set(&p, bdp, r->grain) || sird_aimd_params_set(&dp, B, r->grain))
		return -EINVAL;
	r->p = p;
	r->dp = dp;
	r->B = B;
	for (uint32_t i = 0; i < r->n; i++)
		rescale(&r->s[i].lim, &p, old, r->grain);
	rescale(&r->down, &dp, old_B, r->grain);
	return 0;
}

static uint64_t grain_of(const struct sird_rx *r, uint32_t i)
{
	return r->s[i].rem < r->grain ? r->s[i].rem : r->grain;
}

/* Whether sender i may have a grain now: it wants one, and its share
 * leaves room under its limit. */
static bool eligible(const struct sird_rx *r, uint32_t i)
{
	return r->s[i].rem && r->s[i].sb + grain_of(r, i) <= sird_limit_bytes(&r->s[i].lim);
}

int sird_rx_tick(struct sird_rx *r, uint32_t *bytes)
{
	int pick = -1;

	for (uint32_t k = 0; k < r->n; k++) {
		uint32_t i = (r->next + k) % r->n;

		if (!eligible(r, i))
			continue;
		if (r->policy == SIRD_ROUND_ROBIN) {
			pick = (int)i;
			break;
		}
		if (pick < 0 || r->s[i].rem < r->s[pick].rem)
			pick = (int)i;
	}
	if (pick < 0)
		return -1;
	uint64_t c = grain_of(r, (uint32_t)pick);

	if (r->b + c > sird_rx_bucket(r))
		return -1;		/* the global bucket is spent */
	r->b += c;
	r->s[pick].sb += c;
	r->s[pick].rem -= c;
	r->next = ((uint32_t)pick + 1) % r->n;
	*bytes = (uint32_t)c;
	return pick;
}
