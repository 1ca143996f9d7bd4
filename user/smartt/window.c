// SPDX-License-Identifier: GPL-2.0-only
/*
 * SMaRTT's sender window (window.h; docs/smartt.md has where this departs
 * from the paper, and why).
 */
#include <errno.h>
#include "window.h"

typedef unsigned __int128 u128;

#define Q(x)	((uint32_t)((x) * SMARTT_ONE + 0.5))

void smartt_settings_default(struct smartt_settings *s)
{
	*s = (struct smartt_settings){
		.fd = Q(0.8), .fi = Q(0.25), .md = Q(2), .mi = 0, .trtt = Q(1.5),
		.qa_scale = Q(0.8), .fast_mtus = 2, .fast_tol = 3,
		/* The paper gives no EWMA gain: 1/16 opens the gate at the
		 * fifth mark in a row (1 - (15/16)^5 = 0.28). */
		.wtd_alpha = SMARTT_ONE / 16, .wtd_thresh = Q(0.25),
		.max_cwnd = Q(1.25), .ref_bdp = 150000, .trim_bytes = 64, .trimming = true,
	};
}

int smartt_params_set(struct smartt_params *p, const struct smartt_settings *s, uint32_t mtu,
		      uint64_t brtt_ns, uint64_t bdp)
{
	uint64_t gamma, mi;

	if (!mtu || !brtt_ns || !bdp || !s->ref_bdp || s->trtt <= SMARTT_ONE || !s->max_cwnd)
		return -EINVAL;
	p->mtu = mtu;
	p->bdp = bdp;
	p->brtt_ns = brtt_ns;
	p->trtt_ns = (uint64_t)((u128)brtt_ns * s->trtt / SMARTT_ONE);
	/* An MTU's serialisation time is mtu / bdp of a base RTT. */
	p->fast_ns = brtt_ns + (uint64_t)((u128)brtt_ns * mtu * s->fast_tol / bdp);
	/* gamma scales the increase to the path: fi and mi, not fd or md. */
	gamma = (uint64_t)((u128)bdp * SMARTT_ONE / s->ref_bdp);
	mi = s->mi ? s->mi : (uint64_t)SMARTT_ONE * SMARTT_ONE / (s->trtt - SMARTT_ONE);
	p->fi = (uint32_t)((u128)s->fi * gamma / SMARTT_ONE);
	p->mi = (uint32_t)((u128)mi * gamma / SMARTT_ONE);
	p->fd = s->fd;
	p->md = s->trimming ? s->md : 2 * s->md;
	p->qa_scale = s->qa_scale;
	p->fast_mtus = s->fast_mtus;
	p->wtd_alpha = s->wtd_alpha;
	p->wtd_thresh = s->wtd_thresh;
	p->trim_bytes = s->trim_bytes;
	p->min_q = (uint64_t)mtu << 16;
	p->max_q = (uint64_t)((u128)bdp * s->max_cwnd);
	if (p->max_q < p->min_q)
		p->max_q = p->min_q;
	return 0;
}

static void clamp(struct smartt_win *w, const struct smartt_params *p)
{
	if (w->cwnd > p->max_q)
		w->cwnd = p->max_q;
	if (w->cwnd < p->min_q)
		w->cwnd = p->min_q;
}

void smartt_win_init(struct smartt_win *w, const struct smartt_params *p)
{
	*w = (struct smartt_win){ .cwnd = p->bdp << 16 };
	clamp(w, p);
}

static void shrink(struct smartt_win *w, uint64_t q)
{
	w->cwnd = w->cwnd > q ? w->cwnd - q : 0;
}

/* Q16 bytes of each rule (window.h). */
static uint64_t fair_dec(const struct smartt_win *w, const struct smartt_params *p, uint32_t size)
{
	return (uint64_t)((u128)w->cwnd * p->fd * size / ((u128)p->bdp << 16));
}

static uint64_t mult_dec(const struct smartt_params *p, uint32_t size, uint64_t rtt)
{
	uint64_t d = (uint64_t)((u128)(rtt - p->trtt_ns) * p->md * size / rtt);

	return d < (uint64_t)size << 16 ? d : (uint64_t)size << 16;
}

static uint64_t fair_inc(const struct smartt_win *w, const struct smartt_params *p, uint32_t size)
{
	return (uint64_t)((u128)size * p->mtu * p->fi * SMARTT_ONE / w->cwnd);
}

static uint64_t mult_inc(const struct smartt_win *w, const struct smartt_params *p, uint32_t size,
			 uint64_t rtt)
{
	u128 d = (u128)(p->trtt_ns - rtt) * size * p->mtu * p->mi * SMARTT_ONE /
		 ((u128)rtt * w->cwnd);

	return d < (u128)size << 16 ? (uint64_t)d : (uint64_t)size << 16;
}

/* Whether enough of the recent ACKs were marked for the window to come
 * down (§3.6.1): the EWMA of the marks against its threshold. */
static bool wait_to_decrease(struct smartt_win *w, const struct smartt_params *p, bool ecn)
{
	int64_t target = ecn ? SMARTT_ONE : 0;

	w->wtd = (uint32_t)((int64_t)w->wtd + (target - (int64_t)w->wtd) * p->wtd_alpha / SMARTT_ONE);
	return w->wtd >= p->wtd_thresh;
}

/* Alg. 2: the measurement window of one trtt rolls lazily, on feedback;
 * when it ends after a trim or a timeout, the window becomes what was
 * acknowledged in it, and the feedback of what is in flight now, which
 * left before the window came down, is ignored. */
static bool quick_adapt(struct smartt_win *w, const struct smartt_params *p, uint64_t unacked,
			uint64_t now)
{
	bool adapted = false;

	if (now < w->qa_end)
		return false;
	if (w->trigger_qa && w->qa_end) {
		uint64_t acked = w->acked > p->mtu ? w->acked : p->mtu;

		w->trigger_qa = false;
		adapted = true;
		w->cwnd = (uint64_t)((u128)acked * p->qa_scale);
		w->to_ignore = unacked;
		w->ignored = 0;
	}
	w->qa_end = now + p->trtt_ns;
	w->acked = 0;
	return adapted;
}

/* Alg. 3: after more than a window of clean ACKs at the base RTT in a row,
 * fast_mtus per ACK until one is not. */
static bool fast_increase(struct smartt_win *w, const struct smartt_params *p, uint32_t size,
			  uint64_t rtt, bool ecn)
{
	if (rtt <= p->fast_ns && !ecn) {
		w->fast_count += size;
		if (w->fast_count > smartt_cwnd(w) || w->fast_active) {
			w->cwnd += (uint64_t)p->fast_mtus * p->mtu << 16;
			w->fast_active = true;
			return true;
		}
	} else {
		w->fast_count = 0;
		w->fast_active = false;
	}
	return false;
}

enum smartt_rule smartt_on_ack(struct smartt_win *w, const struct smartt_params *p,
			       const struct smartt_fb *fb, uint64_t now)
{
	uint64_t rtt = fb->rtt_ns ? fb->rtt_ns : 1;
	enum smartt_rule r;
	bool can_dec, adapted, fast;

	w->acked += fb->size;
	w->ignored += fb->size;
	if (w->ignored < w->to_ignore)
		return SMARTT_IGNORED;
	can_dec = wait_to_decrease(w, p, fb->ecn);
	adapted = quick_adapt(w, p, fb->unacked, now);
	fast = fast_increase(w, p, fb->size, rtt, fb->ecn);
	if (adapted) {
		r = SMARTT_QA;
	} else if (fast) {
		r = SMARTT_FAST;
	} else if (fb->ecn && !can_dec) {
		r = SMARTT_WAIT;
	} else if (fb->ecn && rtt <= p->trtt_ns) {
		shrink(w, fair_dec(w, p, fb->size));
		r = SMARTT_FD;
	} else if (fb->ecn) {
		shrink(w, mult_dec(p, fb->size, rtt));
		shrink(w, fair_dec(w, p, fb->size));
		r = SMARTT_MD;
	} else if (rtt > p->trtt_ns) {
		w->cwnd += fair_inc(w, p, fb->size);
		r = SMARTT_FI;
	} else {
		w->cwnd += mult_inc(w, p, fb->size, rtt);
		w->cwnd += fair_inc(w, p, fb->size);
		r = SMARTT_MI;
	}
	clamp(w, p);
	return r;
}

enum smartt_rule smartt_on_loss(struct smartt_win *w, const struct smartt_params *p,
				const struct smartt_fb *fb, uint64_t now)
{
	enum smartt_rule r = SMARTT_LOSS;

	/* What came through is what QuickAdapt measures: a trim brought
	 * its header, not its payload.  Counted whole, the trims of an 8 -> 1
	 * incast's first burst made the windows 2.9 times what the port
	 * drains (tests/unit/test_smartt_sim.c).  It was in flight, though:
	 * whole for what is ignored. */
	w->acked += fb->size < p->trim_bytes ? fb->size : p->trim_bytes;
	w->ignored += fb->size;
	w->trigger_qa = true;
	/* A trim of what was in flight when QuickAdapt set the window is
	 * what it set it for: taken off again, the first trims of a 2 -> 1
	 * incast left the windows at 0.55 of what the port drains, not 0.8
	 * (docs/smartt.md). */
	if (w->ignored < w->to_ignore)
		r = SMARTT_IGNORED;
	else if (quick_adapt(w, p, fb->unacked, now))
		r = SMARTT_QA;
	else
		shrink(w, (uint64_t)fb->size << 16);
	clamp(w, p);
	return r;
}
