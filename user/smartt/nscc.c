// SPDX-License-Identifier: GPL-2.0-only
/*
 * UEC's NSCC window (nscc.h; docs/smartt.md, "NSCC").
 */
#include <errno.h>
#include "nscc.h"

typedef unsigned __int128 u128;

#define Q(x)	((uint32_t)((x) * SMARTT_ONE + 0.5))

enum { QA_NONE, QA_IGNORED, QA_ADAPTED };

void smartt_nscc_settings_default(struct smartt_nscc_settings *s)
{
	*s = (struct smartt_nscc_settings){
		.target = Q(0.75), .fi = Q(5), .alpha = Q(4), .fast_scale = Q(0.25), .eta = Q(0.15),
		.md_gain = Q(0.8), .md_floor = Q(0.5), .qa_gate = 3, .qa_delay = 4,
		.adjust_mtus = 8, .max_wnd = Q(1.5), .delay_gain = Q(0.0125),
		.clear = SMARTT_ONE / 12, .ref_bdp = 150000, .trimming = true,
	};
}

int smartt_nscc_params_set(struct smartt_nscc_params *p, const struct smartt_nscc_settings *s,
			   uint32_t mtu, uint64_t base_ns, uint64_t bdp)
{
	/* Without trimming, losses take a timeout to show: the target is a
	 * whole base RTT (the simulator's 1.0 against 0.75). */
	uint32_t target = s->trimming ? s->target : SMARTT_ONE;

	if (!mtu || !base_ns || !bdp || !s->ref_bdp || !target || !s->max_wnd)
		return -EINVAL;
	*p = (struct smartt_nscc_params){
		.mtu = mtu, .bdp = bdp, .base_ns = base_ns,
		.target_ns = (uint64_t)(((u128)base_ns * target + SMARTT_ONE / 2) / SMARTT_ONE),
		.clear_ns = (uint64_t)(((u128)base_ns * s->clear + SMARTT_ONE / 2) / SMARTT_ONE),
		.a = (uint32_t)((u128)bdp * SMARTT_ONE / s->ref_bdp),
		/* b was target / 12 us: the reference network's RTT, taken
		 * here as the path's own. */
		.b = target,
		.fi = s->fi, .alpha = s->alpha, .fast_scale = s->fast_scale, .eta = s->eta,
		.md_gain = s->md_gain, .md_floor = s->md_floor, .delay_gain = s->delay_gain,
		.qa_gate = s->qa_gate, .adjust_mtus = s->adjust_mtus,
		.min_q = (uint64_t)mtu << 16,
		.max_q = (uint64_t)((u128)bdp * s->max_wnd),
	};
	p->qa_delay_ns = p->target_ns * s->qa_delay;
	if (!p->target_ns)
		return -EINVAL;
	if (p->max_q < p->min_q)
		p->max_q = p->min_q;
	return 0;
}

void smartt_nscc_init(struct smartt_nscc *n, const struct smartt_nscc_params *p, uint64_t now)
{
	/* A line-rate start: the window at its cap. */
	*n = (struct smartt_nscc){ .cwnd = p->max_q, .last_adjust = now };
}

static void clamp(struct smartt_nscc *n, const struct smartt_nscc_params *p)
{
	if (n->cwnd > p->max_q)
		n->cwnd = p->max_q;
	if (n->cwnd < p->min_q)
		n->cwnd = p->min_q;
}

/* Q16 of MSS·a times a Q16 factor: bytes, Q16. */
static uint64_t mss_a(const struct smartt_nscc_params *p, uint32_t factor)
{
	return (uint64_t)((u128)p->mtu * p->a * factor / SMARTT_ONE);
}

/* The average queueing delay; a high delay without a mark is not
 * believed (a slow host, not a queue): it counts as a quarter base RTT. */
static void update_delay(struct smartt_nscc *n, const struct smartt_nscc_params *p, uint64_t d,
			 bool ecn)
{
	int64_t sample = (int64_t)((!ecn && d > p->target_ns ? p->base_ns / 4 : d) << 16);

	n->avg += (sample - n->avg) * (int64_t)p->delay_gain / SMARTT_ONE;
}

static int quick_adapt(struct smartt_nscc *n, const struct smartt_nscc_params *p, bool loss,
		       bool ecn, uint64_t d, uint64_t inflight, uint64_t now)
{
	int done = QA_NONE;

	if (n->ignored < n->to_ignore && ecn) {
		done = QA_IGNORED;
	} else if (now > n->qa_end) {
		if (n->qa_end && (n->trigger_qa || loss || d > p->qa_delay_ns) &&
		    n->achieved < (p->max_q >> 16 >> p->qa_gate)) {
			uint64_t a = n->achieved > p->mtu ? n->achieved : p->mtu;

			n->cwnd = a << 16;
			n->to_ignore = inflight;
			n->ignored = 0;
			n->trigger_qa = false;
			done = QA_ADAPTED;
		}
		n->achieved = 0;
		n->qa_end = now + p->base_ns + p->target_ns;
	}
	if (done) {
		n->inc = 0;
		n->received = 0;
	}
	return done;
}

/* After more than a window of bytes on a clear path: fast_scale·a per
 * acked byte until the path is not clear. */
static bool fast_increase(struct smartt_nscc *n, const struct smartt_nscc_params *p,
			  uint32_t newly, uint64_t d)
{
	if (d < p->clear_ns) {
		n->fast_count += newly;
		if (n->fast_count > smartt_nscc_cwnd(n) || n->increase_mode) {
			n->cwnd += (uint64_t)newly * p->fast_scale * p->a / SMARTT_ONE;
			n->increase_mode = true;
			return true;
		}
	} else {
		n->fast_count = 0;
	}
	n->increase_mode = false;
	return false;
}

/* On the average delay, at most once per base RTT. */
static void mult_decrease(struct smartt_nscc *n, const struct smartt_nscc_params *p, uint64_t now)
{
	int64_t t = (int64_t)(p->target_ns << 16);

	n->increase_mode = false;
	n->fast_count = 0;
	if (n->avg > t && now - n->last_dec > p->base_ns) {
		uint64_t cut = (uint64_t)((u128)p->md_gain * (uint64_t)(n->avg - t) / (uint64_t)n->avg);
		uint64_t f = cut < SMARTT_ONE ? SMARTT_ONE - cut : 0;

		if (f < p->md_floor)
			f = p->md_floor;
		n->cwnd = (uint64_t)((u128)n->cwnd * f / SMARTT_ONE);
		n->last_dec = now;
	}
}

/* The increases owed, divided by the window; eta once per base RTT. */
static void fulfill(struct smartt_nscc *n, const struct smartt_nscc_params *p, uint64_t now)
{
	n->cwnd += (uint64_t)((u128)n->inc * SMARTT_ONE / n->cwnd);
	if (now - n->last_adjust >= p->base_ns) {
		n->cwnd += mss_a(p, p->eta);
		n->last_adjust = now;
	}
	n->inc = 0;
	n->received = 0;
}

enum smartt_nscc_rule smartt_nscc_on_ack(struct smartt_nscc *n, const struct smartt_nscc_params *p,
					 uint32_t newly, uint64_t raw_ns, bool ecn,
					 uint64_t inflight, uint64_t now)
{
	enum smartt_nscc_rule r;
	uint64_t d;
	int qa;

	n->achieved += newly;
	n->received += newly;
	n->ignored += newly;
	if (raw_ns && raw_ns >= p->base_ns) {
		d = raw_ns - p->base_ns;
		update_delay(n, p, d, ecn);
	} else {
		d = n->avg > 0 ? (uint64_t)n->avg >> 16 : 0;
	}
	qa = quick_adapt(n, p, false, ecn, d, inflight, now);
	if (qa) {
		clamp(n, p);
		return qa == QA_ADAPTED ? NSCC_QA : NSCC_IGNORED;
	}
	if (!ecn && d >= p->target_ns) {
		n->inc += (uint64_t)newly * mss_a(p, p->fi);
		r = NSCC_FAIR;
	} else if (!ecn) {
		if (fast_increase(n, p, newly, d)) {
			r = NSCC_FAST;
		} else {
			/* alpha·newly·(target - d), alpha = 4·MSS·a·b / target */
			n->inc += (uint64_t)((u128)newly * mss_a(p, p->alpha) * p->b *
					     (p->target_ns - d) / ((u128)p->target_ns * SMARTT_ONE));
			r = NSCC_PROP;
		}
	} else if (d >= p->target_ns) {
		mult_decrease(n, p, now);
		r = NSCC_MD;
	} else {
		r = NSCC_PATH;
	}
	clamp(n, p);
	if (n->received > (uint64_t)p->adjust_mtus * p->mtu || now - n->last_adjust > p->base_ns)
		fulfill(n, p, now);
	clamp(n, p);
	return r;
}

enum smartt_nscc_rule smartt_nscc_on_nack(struct smartt_nscc *n, const struct smartt_nscc_params *p,
					  uint32_t size, uint64_t inflight, uint64_t now)
{
	enum smartt_nscc_rule r = NSCC_LOSS;
	int qa;

	n->ignored += size;
	update_delay(n, p, p->base_ns, true);
	n->trigger_qa = true;
	qa = quick_adapt(n, p, true, true, 0, inflight, now);
	if (qa == QA_ADAPTED)
		r = NSCC_QA;
	else if (qa == QA_IGNORED)
		r = NSCC_IGNORED;
	else
		n->cwnd = n->cwnd > ((uint64_t)size << 16) ? n->cwnd - ((uint64_t)size << 16) : 0;
	clamp(n, p);
	return r;
}

void smartt_nscc_on_rto(struct smartt_nscc *n, const struct smartt_nscc_params *p, uint32_t size)
{
	n->cwnd = n->cwnd > ((uint64_t)size << 16) ? n->cwnd - ((uint64_t)size << 16) : 0;
	clamp(n, p);
}
