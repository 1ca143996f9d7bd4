// SPDX-License-Identifier: GPL-2.0-only
/*
 * xoshiro256** 1.0 (Blackman and Vigna, public domain reference code),
 * seeded with splitmix64 as its authors recommend: a state of all zeros
 * would be a fixed point, and nearby seeds must not give nearby streams.
 */
#include <math.h>
#include "load/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void eql_rng_seed(struct eql_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t eql_rng_next(struct eql_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double eql_rng_uniform(struct eql_rng *r)
{
	/* The top 53 bits fill a double's mantissa exactly. */
	return (double)(eql_rng_next(r) >> 11) * 0x1.0p-53;
}

double eql_rng_exp(struct eql_rng *r, double mean)
{
	/* Inversion: 1 - u is in (0, 1], so the log is finite. */
	return -mean * log1p(-eql_rng_uniform(r));
}
