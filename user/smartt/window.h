/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SMaRTT's sender window (seed 003, Alg. 1-3; ../shared/notes/smartt-reps.md
 * §2.2-2.4; docs/smartt.md): on every ACK the window moves by one of four
 * rules, chosen by the echoed ECN mark and the RTT against a target RTT
 * (trtt = 1.5 base RTTs):
 *
 *   ECN, rtt <= trtt   fair decrease         cwnd -= cwnd/bdp * fd * size
 *   ECN, rtt >  trtt   multiplicative dec.   cwnd -= min(size, (rtt-trtt)/rtt * md * size), then FD
 *   no ECN, rtt > trtt fair increase         cwnd += size/cwnd * mtu * fi
 *   no ECN, rtt <= trtt multiplicative inc.  cwnd += min(size, (trtt-rtt)/rtt * size/cwnd * mtu * mi), then FI
 *
 * with Wait-To-Decrease (no decrease while fewer than a quarter of recent
 * ACKs were marked: REPS gets the first go at a congested path),
 * QuickAdapt (after a trim or a timeout, once per trtt: the window becomes
 * what was acknowledged in the last trtt, times 0.8, and the feedback of
 * what was in flight then is ignored) and FastIncrease (after a window's
 * worth of clean ACKs at the base RTT, two MTUs per ACK).
 *
 * Pure C, no clock of its own, fixed point: the window is kept in 1/65536
 * bytes (a fair increase on a large window is a fraction of a byte per
 * ACK, and truncating it would stop the window from growing), the gains
 * are Q16.  Every constant is a setting in the units of the path it runs
 * on (BDP, base RTT, MTU): smartt_params_set() turns the settings and the
 * measured base RTT and BDP into what the rules use.
 */
#ifndef EDGEQ_SMARTT_WINDOW_H
#define EDGEQ_SMARTT_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#define SMARTT_ONE	65536u		/* 1.0 in Q16 */

/* The settings, as the user gives them: fractions in Q16. */
struct smartt_settings {
	uint32_t	fd;		/* fair-decrease gain (0.8) */
	uint32_t	fi;		/* fair-increase gain before gamma (0.25) */
	uint32_t	md;		/* multiplicative-decrease gain (2; doubled
					 * when losses are found by timeouts) */
	uint32_t	mi;		/* multiplicative-increase gain before gamma
					 * (0: brtt / (trtt - brtt), 2 at 1.5) */
	uint32_t	trtt;		/* target RTT in base RTTs (1.5) */
	uint32_t	qa_scale;	/* QuickAdapt: what was acked, times this (0.8) */
	uint32_t	fast_mtus;	/* FastIncrease: MTUs per ACK (2) */
	uint32_t	fast_tol;	/* "at the base RTT": within this many MTU
					 * serialisation times of it (3) */
	uint32_t	wtd_alpha;	/* Wait-To-Decrease EWMA gain (1/16) */
	uint32_t	wtd_thresh;	/* ... decrease from this share of marks (0.25) */
	uint32_t	max_cwnd;	/* window cap in BDPs (1.25; Alg. 1 says 1.0) */
	uint32_t	ref_bdp;	/* gamma = bdp / this, in bytes (150,000: the
					 * paper's 100 Gbit/s and 12 us) */
	uint32_t	trim_bytes;	/* what a trim or a timeout adds to
					 * QuickAdapt's "acked" (64: htsim's) */
	bool		trimming;	/* the fabric trims; else timeouts, md x 2 */
};

/* What the rules use: the settings on this path (smartt_params_set()). */
struct smartt_params {
	uint32_t	mtu;
	uint64_t	bdp;		/* bytes */
	uint64_t	brtt_ns, trtt_ns, fast_ns;	/* base, target, "at the base" */
	uint32_t	fd, md, fi, mi;	/* Q16, fi and mi times gamma */
	uint32_t	qa_scale, fast_mtus, wtd_alpha, wtd_thresh, trim_bytes;
	uint64_t	max_q, min_q;	/* window bounds, Q16 bytes */
};

/* Which rule an ACK or a loss applied (for tests and counters). */
enum smartt_rule {
	SMARTT_IGNORED,		/* feedback of what was in flight at QuickAdapt */
	SMARTT_FD,
	SMARTT_MD,		/* MD, then FD */
	SMARTT_FI,
	SMARTT_MI,		/* MI, then FI */
	SMARTT_WAIT,		/* marked, but Wait-To-Decrease holds the window */
	SMARTT_QA,		/* QuickAdapt set the window */
	SMARTT_FAST,		/* FastIncrease */
	SMARTT_LOSS,		/* a trim or a timeout took its size off */
};

/* One flow's (here: one tunnel's) state. */
struct smartt_win {
	uint64_t	cwnd;		/* Q16 bytes */
	uint64_t	acked;		/* bytes acked or lost in this QuickAdapt window */
	uint64_t	ignored, to_ignore;	/* bytes of feedback ignored, to ignore */
	uint64_t	qa_end;		/* ns: this QuickAdapt window ends (0: none yet) */
	uint64_t	fast_count;	/* clean bytes at the base RTT in a row */
	uint32_t	wtd;		/* Q16 EWMA of the ECN marks */
	bool		trigger_qa, fast_active;
};

/* One piece of feedback: the bytes of the packet it is about, its RTT
 * sample, the echoed CE mark, and the bytes still in flight. */
struct smartt_fb {
	uint32_t	size;
	uint64_t	rtt_ns;
	bool		ecn;
	uint64_t	unacked;
};

void smartt_settings_default(struct smartt_settings *s);
/* 0, or -EINVAL for settings no path can use (e.g. trtt <= 1 base RTT). */
int smartt_params_set(struct smartt_params *p, const struct smartt_settings *s, uint32_t mtu,
		      uint64_t brtt_ns, uint64_t bdp);
/* A window of one BDP (a line-rate start, as htsim's), within the bounds. */
void smartt_win_init(struct smartt_win *w, const struct smartt_params *p);
enum smartt_rule smartt_on_ack(struct smartt_win *w, const struct smartt_params *p,
			       const struct smartt_fb *fb, uint64_t now);
/* A trimmed packet's NACK, or a timeout: the same path (§3.3). */
enum smartt_rule smartt_on_loss(struct smartt_win *w, const struct smartt_params *p,
				const struct smartt_fb *fb, uint64_t now);

static inline uint64_t smartt_cwnd(const struct smartt_win *w)
{
	return w->cwnd >> 16;
}

#endif /* EDGEQ_SMARTT_WINDOW_H */
