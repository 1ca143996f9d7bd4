/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * UEC's NSCC, the `smartt.variant nscc` window: SMaRTT's descendant in
 * the Ultra Ethernet transport, as the UEC simulator's code has it
 * (../shared/notes/wave2-algorithms.md §1.2; docs/smartt.md, "NSCC").  An
 * ECN-gated decision tree on the queueing delay (the RTT less the base
 * RTT) against a target of 0.75 base RTTs:
 *
 *   no ECN, delay >= target  fair increase, 5 MSS·a per RTT (batched)
 *   no ECN, delay <  target  proportional increase, 4 MSS·a·b·(1 - delay/target)
 *                            per RTT (batched), or fast increase on a clear path
 *   ECN, delay >= target     multiplicative decrease on the average delay,
 *                            at most once per base RTT
 *   ECN, delay <  target     nothing: the path's problem (REPS moves)
 *
 * with increases applied every 8 MTUs acknowledged or once per base RTT,
 * plus eta each base RTT, and QuickAdapt (after a trim, a loss, or a delay
 * above 4 targets, when less than an eighth of the window came through in
 * the last base RTT plus target: the window becomes what did).
 *
 * The simulator ties three constants to absolute time (the reference
 * network's 12 us, a "clear path" below 1 us, a 10 ms freeze); here every
 * one is in base RTTs (docs/smartt.md says which and why).  Fixed point as
 * window.h: the window in 1/65536 bytes, fractions in Q16.
 */
#ifndef EDGEQ_SMARTT_NSCC_H
#define EDGEQ_SMARTT_NSCC_H

#include <stdbool.h>
#include <stdint.h>
#include "window.h"		/* SMARTT_ONE */

struct smartt_nscc_settings {
	uint32_t	target;		/* target queueing delay, base RTTs (0.75;
					 * 1.0 without trimming) */
	uint32_t	fi;		/* fair increase, MSS·a per RTT (5) */
	uint32_t	alpha;		/* proportional increase, MSS·a·b per RTT (4) */
	uint32_t	fast_scale;	/* fast increase, ·a per acked byte (0.25) */
	uint32_t	eta;		/* MSS·a per base RTT (0.15) */
	uint32_t	md_gain;	/* multiplicative decrease gain (0.8) */
	uint32_t	md_floor;	/* ... never below this share (0.5) */
	uint32_t	qa_gate;	/* QuickAdapt only below MaxWnd >> this (3) */
	uint32_t	qa_delay;	/* ... or on a delay above this many targets (4) */
	uint32_t	adjust_mtus;	/* increases applied every this many MTUs (8) */
	uint32_t	max_wnd;	/* window cap (and start) in BDPs (1.5) */
	uint32_t	delay_gain;	/* EWMA gain of the delay (0.0125) */
	uint32_t	clear;		/* a clear path's delay, base RTTs (1/12) */
	uint32_t	ref_bdp;	/* a = bdp / this, bytes (150,000) */
	bool		trimming;
};

struct smartt_nscc_params {
	uint32_t	mtu;
	uint64_t	bdp, base_ns, target_ns, clear_ns, qa_delay_ns;
	uint32_t	a, b;		/* Q16: bdp / ref_bdp; target / base RTT */
	uint32_t	fi, alpha, fast_scale, eta, md_gain, md_floor, delay_gain;
	uint32_t	qa_gate, adjust_mtus;
	uint64_t	max_q, min_q;	/* window bounds, Q16 bytes */
};

enum smartt_nscc_rule {
	NSCC_IGNORED,		/* a mark on what was in flight at QuickAdapt */
	NSCC_FAIR,		/* fair increase noted */
	NSCC_PROP,		/* proportional increase noted */
	NSCC_FAST,		/* fast increase */
	NSCC_MD,		/* decrease (or its once-per-RTT wait) */
	NSCC_PATH,		/* marked at a low delay: no window change */
	NSCC_QA,
	NSCC_LOSS,		/* a trim or a timeout took its size off */
};

struct smartt_nscc {
	uint64_t	cwnd;		/* Q16 bytes */
	uint64_t	achieved, received;	/* bytes since the QA window, the adjustment */
	uint64_t	ignored, to_ignore;
	uint64_t	inc;		/* increase owed, Q16 bytes² (applied / cwnd) */
	int64_t		avg;		/* Q16 ns: average queueing delay */
	uint64_t	qa_end, last_adjust, last_dec;	/* ns */
	uint64_t	fast_count;
	bool		increase_mode, trigger_qa;
};

void smartt_nscc_settings_default(struct smartt_nscc_settings *s);
int smartt_nscc_params_set(struct smartt_nscc_params *p, const struct smartt_nscc_settings *s,
			   uint32_t mtu, uint64_t base_ns, uint64_t bdp);
void smartt_nscc_init(struct smartt_nscc *n, const struct smartt_nscc_params *p, uint64_t now);
/* An ACK of `newly` bytes; raw_ns its RTT sample (0: none, e.g. a resend). */
enum smartt_nscc_rule smartt_nscc_on_ack(struct smartt_nscc *n, const struct smartt_nscc_params *p,
					 uint32_t newly, uint64_t raw_ns, bool ecn,
					 uint64_t inflight, uint64_t now);
/* A trimmed packet's NACK: it counts as a base RTT of queue. */
enum smartt_nscc_rule smartt_nscc_on_nack(struct smartt_nscc *n, const struct smartt_nscc_params *p,
					  uint32_t size, uint64_t inflight, uint64_t now);
void smartt_nscc_on_rto(struct smartt_nscc *n, const struct smartt_nscc_params *p, uint32_t size);

static inline uint64_t smartt_nscc_cwnd(const struct smartt_nscc *n)
{
	return n->cwnd >> 16;
}

#endif /* EDGEQ_SMARTT_NSCC_H */
