// SPDX-License-Identifier: GPL-2.0-only
/*
 * REPS for the ACKs' way back (ackpath.h).
 */
#include "ackpath.h"

static void drop(struct smartt_ackpath *a, uint32_t i)
{
	a->s[i] = a->s[--a->n];
}

void smartt_ackpath_covered(struct smartt_ackpath *a, uint32_t seq, uint32_t entropy,
			    uint64_t sent_ns)
{
	uint32_t i = a->n;

	if (a->n == SMARTT_ACKPATH_SUSPECTS) {	/* the oldest sent gives way */
		i = 0;
		for (uint32_t k = 1; k < a->n; k++)
			if (a->s[k].sent_ns < a->s[i].sent_ns)
				i = k;
	} else {
		a->n++;
	}
	a->s[i].seq = seq;
	a->s[i].entropy = entropy;
	a->s[i].sent_ns = sent_ns;
}

uint32_t smartt_ackpath_acked(struct smartt_ackpath *a, uint32_t seq, uint64_t sent_ns,
			      uint64_t reo_ns, uint32_t *lost, uint32_t max)
{
	uint32_t named = 0;

	for (uint32_t i = 0; i < a->n; i++)
		if (a->s[i].seq == seq) {	/* late, not lost */
			if (!sent_ns)
				sent_ns = a->s[i].sent_ns;
			drop(a, i);
			break;
		}
	if (!sent_ns)
		return 0;
	for (uint32_t i = 0; i < a->n;) {
		if (a->s[i].sent_ns + reo_ns < sent_ns) {
			if (named < max)
				lost[named++] = a->s[i].entropy;
			drop(a, i);
			continue;
		}
		i++;
	}
	return named;
}
