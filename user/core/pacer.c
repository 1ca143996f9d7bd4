// SPDX-License-Identifier: GPL-2.0-only
/* Token-bucket pacing (pacer.h). */
#include "pacer.h"

#define SCALE	8000000000ULL	/* bits per byte x ns per second */

void eqt_pacer_init(struct eqt_pacer *p, uint64_t rate_bps, uint64_t burst, uint64_t now)
{
	p->rate_bps = rate_bps ? rate_bps : 1;
	p->burst = burst;
	p->last_ns = now;
	p->tokens_x8e9 = 0;
}

/* What the bucket holds at most, in its units. */
static int64_t cap_of(const struct eqt_pacer *p)
{
	return (int64_t)(p->burst * SCALE);
}

void eqt_pacer_set_burst(struct eqt_pacer *p, uint64_t burst)
{
	p->burst = burst;
	if (p->tokens_x8e9 > cap_of(p))
		p->tokens_x8e9 = cap_of(p);
}

void eqt_pacer_update(struct eqt_pacer *p, uint64_t now)
{
	int64_t cap = cap_of(p);
	uint64_t dt;

	if (now <= p->last_ns)
		return;
	dt = now - p->last_ns;
	p->last_ns = now;
	/* dt * rate overflows 63 bits only after ~9 s at 1 Tbit/s: cap first
	 * (a debt is at most one burst, so twice the cap refills anything). */
	if (dt > 2 * (uint64_t)cap / p->rate_bps + 1)
		p->tokens_x8e9 = cap;
	else if ((p->tokens_x8e9 += (int64_t)(dt * p->rate_bps)) > cap)
		p->tokens_x8e9 = cap;
}

int eqt_pacer_take(struct eqt_pacer *p, uint32_t len)
{
	int64_t need = (int64_t)len * (int64_t)SCALE;

	if (p->tokens_x8e9 < need)
		return 0;
	p->tokens_x8e9 -= need;
	return 1;
}

uint32_t eqt_pacer_take_units(struct eqt_pacer *p, uint32_t unit, uint32_t max)
{
	int64_t need = (int64_t)unit * (int64_t)SCALE, n;

	if (!need || p->tokens_x8e9 < need)
		return 0;
	n = p->tokens_x8e9 / need;
	if (n > max)
		n = max;
	p->tokens_x8e9 -= n * need;
	return (uint32_t)n;
}

void eqt_pacer_spend(struct eqt_pacer *p, uint32_t len)
{
	int64_t debt = -cap_of(p);

	p->tokens_x8e9 -= (int64_t)len * (int64_t)SCALE;
	if (p->tokens_x8e9 < debt)
		p->tokens_x8e9 = debt;
}

uint64_t eqt_pacer_when(const struct eqt_pacer *p, uint32_t len)
{
	int64_t need = (int64_t)len * (int64_t)SCALE;

	/* More than the bucket holds: the pull pacer, told to wait for a
	 * batch above the burst, spun at 99 % of a CPU for ever. */
	if (need > cap_of(p))
		need = cap_of(p);

	if (p->tokens_x8e9 >= need)
		return p->last_ns;
	return p->last_ns + ((uint64_t)(need - p->tokens_x8e9) + p->rate_bps - 1) / p->rate_bps;
}
