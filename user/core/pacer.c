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

void eqt_pacer_update(struct eqt_pacer *p, uint64_t now)
{
	uint64_t cap = p->burst * SCALE, dt;

	if (now <= p->last_ns)
		return;
	dt = now - p->last_ns;
	p->last_ns = now;
	/* dt * rate overflows 64 bits only after ~18 s at 1 Tbit/s: cap first. */
	if (dt > cap / p->rate_bps + 1)
		p->tokens_x8e9 = cap;
	else if ((p->tokens_x8e9 += dt * p->rate_bps) > cap)
		p->tokens_x8e9 = cap;
}

int eqt_pacer_take(struct eqt_pacer *p, uint32_t len)
{
	uint64_t need = (uint64_t)len * SCALE;

	if (p->tokens_x8e9 < need)
		return 0;
	p->tokens_x8e9 -= need;
	return 1;
}

uint32_t eqt_pacer_take_units(struct eqt_pacer *p, uint32_t unit, uint32_t max)
{
	uint64_t need = (uint64_t)unit * SCALE, n;

	if (!need)
		return 0;
	n = p->tokens_x8e9 / need;
	if (n > max)
		n = max;
	p->tokens_x8e9 -= n * need;
	return (uint32_t)n;
}

uint64_t eqt_pacer_when(const struct eqt_pacer *p, uint32_t len)
{
	uint64_t need = (uint64_t)len * SCALE;

	if (p->tokens_x8e9 >= need)
		return p->last_ns;
	return p->last_ns + (need - p->tokens_x8e9 + p->rate_bps - 1) / p->rate_bps;
}
