// SPDX-License-Identifier: GPL-2.0-only
/*
 * UDP receiver accounting (see rxstats.h).
 */
#include <stdlib.h>
#include <string.h>
#include "load/pace.h"
#include "load/rxstats.h"

#define ECN_CE	3

int eql_rxstats_init(struct eql_rxstats *s)
{
	memset(s, 0, sizeof(*s));
	eql_hist_init(&s->owd);
	return 0;
}

/* Makes the bitmap cover seq; 0, or -1 when out of memory. */
static int cover(struct eql_rxstats *s, uint64_t seq)
{
	uint64_t bits = s->seen_bits ? s->seen_bits : 1ULL << 16;
	uint8_t *p;

	if (seq < s->seen_bits)
		return 0;
	while (bits <= seq)
		bits *= 2;
	if (bits > EQL_RX_SEQ_MAX)
		bits = EQL_RX_SEQ_MAX;
	p = realloc(s->seen, bits / 8);
	if (!p)
		return -1;
	memset(p + s->seen_bits / 8, 0, (bits - s->seen_bits) / 8);
	s->seen = p;
	s->seen_bits = bits;
	return 0;
}

enum eql_rx_verdict eql_rxstats_add(struct eql_rxstats *s, const struct eql_dg_info *d,
				    uint64_t frame_bytes, unsigned int ecn, uint64_t arrival_ns)
{
	uint8_t bit;

	if (!d || d->seq >= EQL_RX_SEQ_MAX || cover(s, d->seq)) {
		s->bad++;
		return EQL_RX_BAD;
	}
	if (!s->pkts) {
		s->first_ns = arrival_ns;
		s->first_bytes = frame_bytes;
	}
	s->pkts++;
	s->bytes += frame_bytes;
	s->last_ns = arrival_ns;
	ecn &= 3;
	if (ecn == ECN_CE)
		s->ce++;
	else if (ecn)
		s->ect++;
	else
		s->not_ect++;
	if (d->trimmed)
		s->trimmed++;
	if (d->has_time && arrival_ns >= d->send_ns)
		eql_hist_add(&s->owd, arrival_ns - d->send_ns);

	bit = (uint8_t)(1u << (d->seq & 7));
	if (s->seen[d->seq / 8] & bit) {
		s->dups++;
		return EQL_RX_DUP;
	}
	s->seen[d->seq / 8] |= bit;
	if (s->distinct && d->seq < s->max_seq)
		s->reordered++;
	if (!s->distinct || d->seq > s->max_seq)
		s->max_seq = d->seq;
	s->distinct++;
	return EQL_RX_NEW;
}

uint64_t eql_rxstats_lost(const struct eql_rxstats *s)
{
	return s->distinct ? s->max_seq + 1 - s->distinct : 0;
}

double eql_rxstats_rate_bps(const struct eql_rxstats *s)
{
	if (s->pkts < 2)
		return 0;
	return eql_rate_bps(s->bytes - s->first_bytes, s->last_ns - s->first_ns);
}

void eql_rxstats_free(struct eql_rxstats *s)
{
	free(s->seen);
	s->seen = NULL;
	s->seen_bits = 0;
}
