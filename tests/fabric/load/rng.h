/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eqload's pseudo-random numbers: xoshiro256** seeded through splitmix64,
 * so that one --seed gives the same flow sizes and arrival times on every
 * machine and libc (rand() and random() differ between libcs).  Not for
 * anything that needs unpredictability.
 */
#ifndef EDGEQ_LOAD_RNG_H
#define EDGEQ_LOAD_RNG_H

#include <stdint.h>

struct eql_rng {
	uint64_t s[4];
};

/* Any seed is fine, 0 included: splitmix64 spreads it over the state. */
void eql_rng_seed(struct eql_rng *r, uint64_t seed);
uint64_t eql_rng_next(struct eql_rng *r);
/* Uniform in [0, 1), 53 random bits: never 1.0. */
double eql_rng_uniform(struct eql_rng *r);
/* Exponential with the given mean (> 0): the gaps of a Poisson process. */
double eql_rng_exp(struct eql_rng *r, double mean);

#endif
