// SPDX-License-Identifier: GPL-2.0-only
/* RFC 6298's retransmission timeout (rtt.h). */
#include "rtt.h"

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void eqt_rtt_sample(struct eqt_rtt *r, uint64_t sample_ns, uint64_t floor_ns, uint64_t max_ns)
{
	if (!r->srtt_ns) {
		r->srtt_ns = sample_ns;
		r->rttvar_ns = sample_ns / 2;
	} else {
		uint64_t d = r->srtt_ns > sample_ns ? r->srtt_ns - sample_ns : sample_ns - r->srtt_ns;

		r->rttvar_ns = (3 * r->rttvar_ns + d) / 4;
		r->srtt_ns = (7 * r->srtt_ns + sample_ns) / 8;
	}
	r->rto_ns = clamp(r->srtt_ns + 4 * r->rttvar_ns, floor_ns, max_ns);
}

void eqt_rtt_backoff(struct eqt_rtt *r, uint64_t floor_ns, uint64_t max_ns)
{
	uint64_t cur = eqt_rtt_rto(r, floor_ns);

	r->rto_ns = cur > max_ns / 2 ? max_ns : 2 * cur;
}

void eqt_rtt_floor_add(struct eqt_rtt_floor *f, uint64_t srtt_ns, uint64_t now, uint64_t window_ns)
{
	if (!f->cur_at || now - f->cur_at >= window_ns) {
		/* A half that ended more than a window ago holds nothing of
		 * the last window. */
		f->prev = f->cur_at && now - f->cur_at < 2 * window_ns ? f->cur : 0;
		f->cur = srtt_ns;
		f->cur_at = now;
	} else if (srtt_ns < f->cur) {
		f->cur = srtt_ns;
	}
}
