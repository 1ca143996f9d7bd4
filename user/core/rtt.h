/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tunnel's retransmission timeout, RFC 6298's estimator: a part of the
 * transport core every control loop shares (issue 13, docs/architecture.md).
 * Samples are ACKs of packets sent once (Karn's rule is the caller's: only
 * it knows how often a packet went).  Here the round trip includes the
 * agents' wake-ups on both hosts, so it varies far more than a network's:
 * the floor is a setting (`rto_us`), not RFC 6298's 1 s, and the cap is a
 * setting too.
 */
#ifndef EDGEQ_EQT_RTT_H
#define EDGEQ_EQT_RTT_H

#include <stdint.h>

struct eqt_rtt {
	uint64_t	srtt_ns;	/* smoothed round trip; 0 before the first sample */
	uint64_t	rttvar_ns;	/* its mean deviation */
	uint64_t	rto_ns;		/* the timeout; 0 before the first sample */
};

/* RFC 6298 §2.2-2.3: the first sample sets srtt = R, rttvar = R/2; later
 * ones move them by 1/8 and 1/4.  The RTO is srtt + 4 rttvar within
 * [floor_ns, max_ns]. */
void eqt_rtt_sample(struct eqt_rtt *r, uint64_t sample_ns, uint64_t floor_ns, uint64_t max_ns);

/* RFC 6298 §5.5: the timer fired; the RTO doubles, up to max_ns, until a
 * new sample resets it. */
void eqt_rtt_backoff(struct eqt_rtt *r, uint64_t floor_ns, uint64_t max_ns);

/* The timeout to arm: the estimate, or the floor before any sample. */
static inline uint64_t eqt_rtt_rto(const struct eqt_rtt *r, uint64_t floor_ns)
{
	return r->rto_ns ? r->rto_ns : floor_ns;
}

/* The loop's usual round trip at its lowest: the lowest smoothed RTT
 * over the last one to two `window_ns` (two halves; a new one begins, the
 * older is dropped).  Not the lowest sample: the round trip includes both
 * agents' wake-ups, and one lucky pair of them (172 us, where the loop
 * took 1 ms under load) gave SMaRTT a base RTT, a BDP and a window cap
 * that carried an eighth of the link.  The smoothed RTT moves an eighth
 * per sample, so one such sample barely moves it; and a floor that
 * forgets follows the loop when the host gets busier. */
struct eqt_rtt_floor {
	uint64_t	cur, prev;	/* the lowest of this half, and of the last */
	uint64_t	cur_at;		/* when this half began (0: no sample yet) */
};

void eqt_rtt_floor_add(struct eqt_rtt_floor *f, uint64_t srtt_ns, uint64_t now, uint64_t window_ns);

/* 0 before the first sample. */
static inline uint64_t eqt_rtt_floor(const struct eqt_rtt_floor *f)
{
	return f->prev && f->prev < f->cur ? f->prev : f->cur;
}

#endif
