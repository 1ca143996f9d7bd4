/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a UDP receiver saw, accumulated datagram by datagram, pure: counts,
 * order, duplicates, loss, ECN marks, trimming, arrival rate and one-way
 * delay.
 *
 * Loss and duplicates come from a bitmap of the sequence numbers seen,
 * which grows up to EQL_RX_SEQ_MAX (32 MiB): a datagram with a higher seq
 * is counted as bad rather than let a stray packet claim that memory.
 */
#ifndef EDGEQ_LOAD_RXSTATS_H
#define EDGEQ_LOAD_RXSTATS_H

#include <stdint.h>
#include "load/datagram.h"
#include "load/stats.h"

#define EQL_RX_SEQ_MAX	(1ULL << 28)

enum eql_rx_verdict {
	EQL_RX_NEW,		/* first time this seq arrives */
	EQL_RX_DUP,		/* seq seen before */
	EQL_RX_BAD,		/* not one of ours (counted in bad only) */
};

struct eql_rxstats {
	uint64_t pkts, bytes;		/* frame bytes, dups and trimmed included */
	uint64_t bad;			/* not eqload datagrams, or seq too high */
	uint64_t distinct, dups, reordered;
	uint64_t max_seq;		/* valid when distinct > 0 */
	uint64_t ce, ect, not_ect;	/* by the ECN field on arrival */
	uint64_t trimmed;
	uint64_t first_ns, last_ns, first_bytes;
	uint8_t *seen;			/* bitmap of seqs */
	uint64_t seen_bits;
	struct eql_hist owd;		/* ns; datagrams with a send time */
};

/* eql_rxstats_init: returns 0, or -1 when out of memory. */
int eql_rxstats_init(struct eql_rxstats *s);
/*
 * One datagram: d as decoded (NULL if it did not decode), its frame bytes,
 * the ECN field (0..3) and its arrival time (CLOCK_MONOTONIC ns).  Out of
 * memory for the bitmap counts the datagram as bad.
 */
enum eql_rx_verdict eql_rxstats_add(struct eql_rxstats *s, const struct eql_dg_info *d,
				    uint64_t frame_bytes, unsigned int ecn, uint64_t arrival_ns);
/* Sequence numbers up to the highest seen that never arrived. */
uint64_t eql_rxstats_lost(const struct eql_rxstats *s);
/* Arrival rate: frame bits after the first datagram over last - first. */
double eql_rxstats_rate_bps(const struct eql_rxstats *s);
void eql_rxstats_free(struct eql_rxstats *s);

#endif
