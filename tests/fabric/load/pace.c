// SPDX-License-Identifier: GPL-2.0-only
/*
 * Pacing arithmetic (see pace.h).
 */
#include "load/pace.h"

typedef unsigned __int128 u128;

#define NS_PER_SEC	1000000000ULL

static uint64_t clamp64(u128 x)
{
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

uint64_t eql_pace_offset_ns(uint64_t k, uint64_t frame_bytes, uint64_t rate_bps)
{
	return clamp64((u128)k * frame_bytes * 8 * NS_PER_SEC / rate_bps);
}

uint64_t eql_pace_due(uint64_t elapsed_ns, uint64_t frame_bytes, uint64_t rate_bps)
{
	/* floor(k*B/R) <= e  <=>  k*B < (e+1)*R  <=>  k < (e+1)*R/B,
	 * with B the frame's bits times 1e9: ceil((e+1)*R/B) values of k. */
	u128 b = (u128)frame_bytes * 8 * NS_PER_SEC;
	u128 num = ((u128)elapsed_ns + 1) * rate_bps;

	return clamp64((num + b - 1) / b);
}

double eql_rate_bps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8.0 * 1e9 / (double)ns : 0.0;
}

double eql_interarrival_ns(double mean_bytes, double load, uint64_t link_bps)
{
	return mean_bytes * 8.0 * 1e9 / (load * (double)link_bps);
}
