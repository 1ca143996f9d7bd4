/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the cmocka unit tests in tests/unit/ (each test_*.c is
 * its own program; include this once, in place of cmocka's headers):
 *
 *  - rng_state, rnd64(), rnd32(): splitmix64, a small PRNG that gives the
 *    same sequence on every libc.  Each test sets rng_state to a fixed
 *    seed of its own before drawing, so failures reproduce.
 *  - addr(), prefix(): parse text that must be a valid address or prefix
 *    (user/common/addr.h); a parse error fails the test, naming the text.
 */
#ifndef EDGEQ_TEST_UNIT_TESTLIB_H
#define EDGEQ_TEST_UNIT_TESTLIB_H

/* cmocka.h needs these first, in this order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "addr.h"

/* splitmix64: a small PRNG with a fixed seed, the same on every libc. */
static uint64_t rng_state;

static inline uint64_t rnd64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint32_t rnd32(void)
{
	return (uint32_t)(rnd64() >> 32);
}

/* The address in s, which must parse. */
static inline struct eq_addr addr(const char *s)
{
	struct eq_addr a;

	if (eq_addr_parse(s, &a))
		fail_msg("eq_addr_parse(\"%s\") failed", s);
	return a;
}

/* The prefix in s, which must parse (host bits cleared). */
static inline struct eq_prefix_key prefix(const char *s)
{
	struct eq_prefix_key k;

	if (eq_prefix_parse(s, &k))
		fail_msg("eq_prefix_parse(\"%s\") failed", s);
	return k;
}

#endif /* EDGEQ_TEST_UNIT_TESTLIB_H */
