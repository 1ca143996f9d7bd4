// SPDX-License-Identifier: GPL-2.0-only
/*
 * SIRD's per-sender credit limits (aimd.h; docs/sird.md).
 */
#include <errno.h>
#include "aimd.h"

typedef unsigned __int128 u128;

int sird_aimd_params_set(struct sird_aimd_params *p, uint64_t bdp, uint32_t mtu)
{
	if (!mtu || bdp < mtu)
		return -EINVAL;
	*p = (struct sird_aimd_params){
		.bdp = bdp, .mtu = mtu, .g = (uint32_t)(0.08 * SIRD_ONE + 0.5), .ai = 1,
		.floor = { bdp / 10, bdp * 3 / 100 },
	};
	return 0;
}

static uint32_t window_pkts(uint64_t w_q, uint32_t mtu)
{
	uint64_t n = (w_q >> 16) / mtu;

	return n ? (uint32_t)n : 1;
}

void sird_limit_init(struct sird_limit *l, const struct sird_aimd_params *p)
{
	uint32_t n = window_pkts(p->bdp << 16, p->mtu);

	*l = (struct sird_limit){ .next_alpha = n };
	for (int x = 0; x < SIRD_NSIG; x++)
		l->b[x] = (struct sird_bucket){ .w = p->bdp << 16, .next_md = n };
}

void sird_limit_on_data(struct sird_limit *l, const struct sird_aimd_params *p, bool csn, bool ce)
{
	bool mark[SIRD_NSIG] = { csn, ce };
	uint64_t w = l->b[SIRD_CSN].w < l->b[SIRD_NET].w ? l->b[SIRD_CSN].w : l->b[SIRD_NET].w;
	/* + AI MTUs per window of W: AI · MTU² / W a packet. */
	int64_t inc = (int64_t)((u128)p->ai * p->mtu * p->mtu * ((u128)1 << 32) / w);
	bool window_end;

	l->pkts++;
	for (int x = 0; x < SIRD_NSIG; x++) {
		l->b[x].marked += mark[x];
		l->b[x].since_md++;
	}
	window_end = l->pkts >= l->next_alpha;
	for (int x = 0; x < SIRD_NSIG; x++) {
		struct sird_bucket *b = &l->b[x];
		int64_t delta = inc, nw;

		if (window_end) {
			uint64_t frac = (uint64_t)b->marked * SIRD_ONE / l->pkts;

			b->alpha = (uint32_t)(((uint64_t)(SIRD_ONE - p->g) * b->alpha +
					       (uint64_t)p->g * frac) / SIRD_ONE);
			b->marked = 0;
		}
		if (mark[x] && b->since_md >= b->next_md) {
			delta -= (int64_t)((u128)b->w * b->alpha / SIRD_ONE / 2);
			b->since_md = 0;
			b->next_md = window_pkts(w, p->mtu) * 3 / 2;
		}
		nw = (int64_t)b->w + delta;
		if (nw < (int64_t)(p->floor[x] << 16))
			nw = (int64_t)(p->floor[x] << 16);
		if (nw > (int64_t)(p->bdp << 16))
			nw = (int64_t)(p->bdp << 16);
		b->w = (uint64_t)nw;
	}
	if (window_end) {
		l->pkts = 0;
		l->next_alpha = window_pkts(w, p->mtu);
	}
}
