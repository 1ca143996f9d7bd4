/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which peers have a tunnel, as a bitmap of 64-bit words: the loops over
 * peers visit only those (a scan of every one of 1024 slots per packet
 * capped the agent).
 */
#ifndef EDGEQ_CORE_LIVE_H
#define EDGEQ_CORE_LIVE_H

#include <stdint.h>

static inline uint32_t eqt_live_words(uint32_t npeers)
{
	return (npeers + 63) / 64;
}

static inline void eqt_live_set(uint64_t *m, uint32_t i) { m[i / 64] |= 1ULL << (i % 64); }
static inline void eqt_live_clear(uint64_t *m, uint32_t i) { m[i / 64] &= ~(1ULL << (i % 64)); }

/* The first peer at or after `from` in the bitmap a (or in a | b when b
 * is given), wrapping around; npeers if there is none. */
static inline uint32_t eqt_live_next(const uint64_t *a, const uint64_t *b, uint32_t npeers,
				     uint32_t from)
{
	uint32_t words = eqt_live_words(npeers);

	from %= npeers;
	for (uint32_t k = 0; k <= words; k++) {
		uint32_t w = (from / 64 + k) % words;
		uint64_t bits = a[w] | (b ? b[w] : 0);

		if (k == 0)
			bits &= ~0ULL << (from % 64);
		else if (k == words)
			bits &= (from % 64) ? ~(~0ULL << (from % 64)) : 0;
		if (bits)
			return w * 64 + (uint32_t)__builtin_ctzll(bits);
	}
	return npeers;
}

static inline uint32_t eqt_live_count(const uint64_t *m, uint32_t npeers)
{
	uint32_t n = 0;

	for (uint32_t w = 0; w < eqt_live_words(npeers); w++)
		n += (uint32_t)__builtin_popcountll(m[w]);
	return n;
}

#endif
