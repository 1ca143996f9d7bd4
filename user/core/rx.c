// SPDX-License-Identifier: GPL-2.0-only
/* A receiving tunnel's mechanics (rx.h). */
#include <string.h>
#include "rx.h"

int eqt_rx_init(struct eqt_rx *r, uint32_t lim, uint64_t timeout_ns, uint64_t loss_ns)
{
	memset(r, 0, sizeof(*r));
	return eqt_reorder_init(&r->q, lim, timeout_ns, loss_ns);
}

void eqt_rx_fini(struct eqt_rx *r, struct eqt_pool *pool)
{
	eqt_reorder_fini(&r->q, pool);
}

void eqt_rx_new_epoch(struct eqt_rx *r, uint32_t seq, const struct eqt_reorder_io *io,
		      uint32_t peer, uint64_t now)
{
	r->est = true;
	r->isn = eqt_epoch_of(seq);
	eqt_reorder_restart(&r->q, io, peer, r->isn, now);
}

enum eqt_admit eqt_rx_in(struct eqt_rx *r, uint32_t seq, bool syn, uint32_t window,
			 const struct eqt_reorder_io *io, uint32_t peer, uint64_t now)
{
	enum eqt_admit v = eqt_rx_admit(r->est, r->isn, r->q.expected, window, seq, syn);

	switch (v) {
	case EQT_ADMIT_NEW_EPOCH:
		eqt_rx_new_epoch(r, seq, io, peer, now);
		break;
	case EQT_ADMIT_NO_STATE:
		r->st.no_state++;
		break;
	case EQT_REFUSE_OLD_EPOCH:
	case EQT_REFUSE_BAD_EPOCH:
		r->st.bad_epoch++;
		break;
	case EQT_REFUSE_WINDOW:
		r->st.bad_window++;
		break;
	case EQT_ADMIT:
		break;
	}
	return v;
}
