// SPDX-License-Identifier: GPL-2.0-only
/* The wire arbiter (arbiter.h). */
#include <string.h>
#include "arbiter.h"

void eqt_arbiter_init(struct eqt_arbiter *a, uint64_t rate_bps, uint64_t burst, uint32_t quantum,
		      uint32_t framing, uint32_t npeers, uint64_t now)
{
	memset(a, 0, sizeof(*a));
	eqt_pacer_init(&a->pacer, rate_bps, burst, now);
	a->quantum = quantum;
	a->framing = framing;
	a->npeers = npeers;
}

/* Deficit round robin between the classes, as classic DRR: a class gets
 * `quantum` bytes at the start of its turn and sends while its deficit
 * covers its head; what is left stays for its next turn, so any quantum,
 * however small beside a packet, shares the link by bytes.  A class with
 * nothing the scheme lets go passes its turn; its deficit goes only when
 * it has no packet at all. */
uint64_t eqt_arbiter_run(struct eqt_arbiter *a, const struct eqt_arbiter_io *io, uint64_t now)
{
	/* What each class lacked for its head at its last turn, since the
	 * last packet sent: 0 if it had no turn. */
	int64_t lack[EQT_NCLS] = { 0 };

	eqt_pacer_update(&a->pacer, now);
	for (;;) {
		struct eqt_q *q = NULL;
		uint32_t c = a->turn, peer = a->npeers, k;
		int64_t len;

		for (k = 0; k < EQT_NCLS; k++) {
			bool queued;

			c = (a->turn + k) % EQT_NCLS;
			peer = io->pick(io->ctx, c, a->rr[c], &q, &queued);
			if (peer < a->npeers)
				break;
			if (!queued) {
				a->deficit[c] = 0;
				if (c == a->turn)
					a->turn_fed = false;
			}
		}
		if (peer >= a->npeers)
			return EQT_NO_DEADLINE;	/* the turn stays where it is */
		if (c != a->turn) {
			a->turn = c;
			a->turn_fed = false;
		}
		len = q->head->len;
		if (!a->turn_fed) {
			if (lack[c]) {
				/* Every class that can send came short since the
				 * last send: skip the rounds in which none would
				 * (a small quantum takes many). */
				int64_t qn = a->quantum, r = INT64_MAX;

				for (uint32_t i = 0; i < EQT_NCLS; i++)
					if (lack[i] && (lack[i] + qn - 1) / qn < r)
						r = (lack[i] + qn - 1) / qn;
				for (uint32_t i = 0; i < EQT_NCLS; i++)
					if (lack[i])
						a->deficit[i] += (r - 1) * qn;
				memset(lack, 0, sizeof(lack));
			}
			a->deficit[c] += a->quantum;
			a->turn_fed = true;
		}
		if (a->deficit[c] < len) {
			lack[c] = len - a->deficit[c];
			a->turn = (c + 1) % EQT_NCLS;
			a->turn_fed = false;
			continue;
		}
		if (!eqt_pacer_take(&a->pacer, (uint32_t)len + a->framing))
			return eqt_pacer_when(&a->pacer, (uint32_t)len + a->framing);
		a->deficit[c] -= len;
		io->send(io->ctx, peer, q, now);
		a->rr[c] = (peer + 1) % a->npeers;
		memset(lack, 0, sizeof(lack));
	}
}
