/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A receiving tunnel's mechanics, the core's (issue 13): its epoch, which
 * DATA it admits (epoch.h's verdicts, applied: a new epoch restarts the
 * reorder queue) and the reorder queue that takes it up in order.  What
 * the receiver says back (ACKs, NACKs, pulls, credit) is the scheme's.
 * Pure C, injected clock.
 */
#ifndef EDGEQ_CORE_RX_H
#define EDGEQ_CORE_RX_H

#include "eqt.h"
#include "epoch.h"
#include "reorder.h"

struct eqt_rx_stats {
	uint64_t	data, trimmed;		/* DATA and trimmed headers admitted */
	uint64_t	bad_epoch, bad_window;	/* refused (epoch.h) */
	uint64_t	no_state;		/* not SYN, no epoch here: RST */
};

struct eqt_rx {
	bool		est;		/* an epoch is known */
	uint32_t	isn;
	struct eqt_reorder q;		/* q.expected: the next seq in order */
	struct eqt_rx_stats st;
};

int eqt_rx_init(struct eqt_rx *r, uint32_t lim, uint64_t timeout_ns, uint64_t loss_ns);
void eqt_rx_fini(struct eqt_rx *r, struct eqt_pool *pool);

/* A DATA (or trimmed) packet of `seq` from the peer: the verdict, with
 * what it does to the tunnel done (a new epoch starts the queue at its
 * first seq, delivering what the old one held), and counted.  `window`:
 * how far from the next in order a packet may lie (eqt_rx_admit()). */
enum eqt_admit eqt_rx_in(struct eqt_rx *r, uint32_t seq, bool syn, uint32_t window,
			 const struct eqt_reorder_io *io, uint32_t peer, uint64_t now);

/* The epoch of seq (a SYN packet's, admitted as EQT_ADMIT_NEW_EPOCH)
 * starts: what the queue held of the last goes up, gaps and all.  For a
 * scheme that applies eqt_rx_admit()'s verdicts itself (EQDS: its XDP
 * delivery is closed first). */
void eqt_rx_new_epoch(struct eqt_rx *r, uint32_t seq, const struct eqt_reorder_io *io,
		      uint32_t peer, uint64_t now);
#endif
