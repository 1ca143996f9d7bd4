// SPDX-License-Identifier: GPL-2.0-only
/* The egress port model; see port.h for the picture. */
#include <string.h>
#include <stdio.h>
#include "switch/port.h"

#define NS_PER_S	1000000000ULL

uint64_t port_tx_ns(uint32_t len, uint64_t rate_bps)
{
	return rate_bps ? (uint64_t)len * 8 * NS_PER_S / rate_bps : 0;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13; x ^= x >> 7; x ^= x << 17;
	return *s = x;
}

/* Integrates the data occupancy up to t; called before every change. */
static void occ_advance(struct port *p, uint64_t t)
{
	struct port_occ *o = &p->occ;
	uint64_t dt, b;

	if (t <= o->t_last)
		return;
	dt = t - o->t_last;
	o->area_bytes += (double)p->data_bytes * (double)dt;
	o->area_pkts += (double)p->data_pkts * (double)dt;
	b = p->data_bytes / OCC_BUCKET;
	o->hist_bytes[b < OCC_NBUCKETS ? b : OCC_NBUCKETS - 1] += dt;
	o->hist_pkts[p->data_pkts < OCC_NPKTS ? p->data_pkts : OCC_NPKTS - 1] += dt;
	o->t_last = t;
}

static void occ_peak(struct port *p)
{
	if (p->data_bytes > p->occ.max_bytes)
		p->occ.max_bytes = p->data_bytes;
	if (p->data_pkts > p->occ.max_pkts)
		p->occ.max_pkts = p->data_pkts;
	if (p->prio.bytes > p->occ.prio_max_bytes)
		p->occ.prio_max_bytes = p->prio.bytes;
}

void port_init(struct port *p, const char *name, const struct port_cfg *cfg,
	       uint64_t now, uint64_t seed)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->cfg = *cfg;
	p->up = true;
	p->clock = p->free_at = now;
	p->rng = seed | 1;
	p->occ.t_start = p->occ.t_last = now;
	/* Every fabric port has these (each off while its threshold is);
	 * the order matters: a trimmed header goes on as control. */
	port_add_feature(p, &port_feature_trim);
	port_add_feature(p, &port_feature_prio);
	port_add_feature(p, &port_feature_ecn);
}

void port_stats_reset(struct port *p, uint64_t now)
{
	port_run(p, now);
	memset(&p->st, 0, sizeof(p->st));
	memset(&p->occ, 0, sizeof(p->occ));
	p->occ.t_start = p->occ.t_last = now > p->clock ? now : p->clock;
	occ_peak(p);
}

/* The serialiser finished `k` at time t. */
static void finish(struct port *p, struct pkt *k, uint64_t t)
{
	if (!k->prio) {
		occ_advance(p, t);
		p->data_bytes -= k->len;
		p->data_pkts--;
	}
	p->st.tx_pkts++;
	p->st.tx_bytes += k->len;
	for (int i = 0; i < p->nfeat; i++)
		if (p->feat[i]->departed)
			p->feat[i]->departed(p, k, t);
	if (p->cfg.loss_ppm && xorshift(&p->rng) % 1000000 < p->cfg.loss_ppm) {
		p->st.drop_loss++;
		p->st.drop_loss_bytes += k->len;
		p->st.drop_loss_ctl += k->cls == FC_EQ_CTRL;
		p->st.drop_loss_small += k->cls == FC_EQ_DATA && k->len < PORT_SMALL_DATA;
		fifo_push(&p->gone, k);
		return;
	}
	k->t_ready = t + p->cfg.delay_ns;
	fifo_push(&p->wire, k);
}

void port_run(struct port *p, uint64_t now)
{
	if (now > p->clock)
		p->clock = now;
	now = p->clock;
	for (;;) {
		struct pkt *ph, *dh, *k;
		uint64_t start, bits;

		if (p->svc) {
			if (p->svc_end > now)
				return;
			k = p->svc;
			p->svc = NULL;
			p->free_at = p->svc_end;
			finish(p, k, p->svc_end);
		}
		ph = p->prio.head;
		dh = p->data.head;
		if (!ph && !dh)
			return;
		start = p->free_at;
		if (!ph || (dh && dh->t_arrive < ph->t_arrive)) {
			if (dh->t_arrive > start)
				start = dh->t_arrive;
		} else if (ph->t_arrive > start) {
			start = ph->t_arrive;
		}
		if (start > now)
			return;
		if (start > p->free_at)
			p->rem = 0;	/* the link idled: no fraction of a bit to carry */
		/* Strict priority among what had arrived when the link came free. */
		k = (ph && ph->t_arrive <= start) ? fifo_pop(&p->prio) : fifo_pop(&p->data);
		bits = (uint64_t)k->len * 8 * NS_PER_S + p->rem;
		p->svc = k;
		p->svc_end = start + bits / p->cfg.rate_bps;
		p->rem = bits % p->cfg.rate_bps;
	}
}

enum port_verdict port_enqueue(struct port *p, struct pkt *k, uint64_t t)
{
	struct port_enq e = { .v = PV_QUEUED };

	port_run(p, t);
	t = p->clock;
	if (!p->up) {
		p->st.drop_down++;
		return PV_DROP_DOWN;
	}
	k->t_arrive = t;
	if (!p->cfg.rate_bps) {		/* a delay line: straight onto the wire */
		p->st.enq_pkts++;
		p->st.enq_bytes += k->len;
		p->st.tx_pkts++;
		p->st.tx_bytes += k->len;
		k->prio = 0;
		k->t_ready = t + p->cfg.delay_ns;
		fifo_push(&p->wire, k);
		return PV_QUEUED;
	}
	for (int i = 0; i < p->nfeat; i++)
		if (p->feat[i]->arrive)
			p->feat[i]->arrive(p, k, t, &e);
	if (e.prio) {
		if (p->prio.bytes + k->len > p->cfg.prio_buffer) {
			p->st.drop_prio++;
			return PV_DROP_PRIO;
		}
	} else if (p->data_bytes + k->len > p->cfg.buffer) {
		p->st.drop_full++;
		return PV_DROP_FULL;
	}
	for (int i = 0; i < p->nfeat; i++)
		if (p->feat[i]->queued)
			p->feat[i]->queued(p, k, t, &e);
	if (e.prio) {
		k->prio = 1;
		fifo_push(&p->prio, k);
	} else {
		k->prio = 0;
		occ_advance(p, t);
		fifo_push(&p->data, k);
		p->data_bytes += k->len;
		p->data_pkts++;
	}
	p->st.enq_pkts++;
	p->st.enq_bytes += k->len;
	occ_peak(p);
	port_run(p, t);
	return (enum port_verdict)e.v;
}

struct pkt *port_pop_arrived(struct port *p, uint64_t now)
{
	if (!p->wire.head || p->wire.head->t_ready > now)
		return NULL;
	return fifo_pop(&p->wire);
}

uint64_t port_next_event(const struct port *p)
{
	uint64_t t = UINT64_MAX;

	if (p->svc)
		t = p->svc_end;
	if (p->wire.head && p->wire.head->t_ready < t)
		t = p->wire.head->t_ready;
	return t;
}

static void flush(struct port *p, struct fifo *q)
{
	struct pkt *k;

	while ((k = fifo_pop(q))) {
		p->st.drop_down++;
		fifo_push(&p->gone, k);
	}
}

void port_set_up(struct port *p, bool up, uint64_t now)
{
	port_run(p, now);
	if (p->up == up)
		return;
	p->up = up;
	if (up)
		return;
	occ_advance(p, p->clock);
	if (p->svc) {
		p->st.drop_down++;
		fifo_push(&p->gone, p->svc);
		p->svc = NULL;
	}
	p->free_at = p->clock;
	flush(p, &p->data);
	flush(p, &p->prio);
	flush(p, &p->wire);
	p->data_bytes = 0;
	p->data_pkts = 0;
}

static uint64_t hist_quantile(const uint64_t *h, unsigned int n, double q)
{
	uint64_t total = 0, acc = 0;

	for (unsigned int i = 0; i < n; i++)
		total += h[i];
	if (!total)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		acc += h[i];
		if ((double)acc >= q * (double)total)
			return i;
	}
	return n - 1;
}

void port_occ_summary(struct port *p, uint64_t now, struct port_occ_summary *s)
{
	uint64_t w;

	port_run(p, now);
	occ_advance(p, p->clock);
	w = p->occ.t_last - p->occ.t_start;
	s->window_ns = w;
	s->mean_bytes = w ? p->occ.area_bytes / (double)w : 0;
	s->mean_pkts = w ? p->occ.area_pkts / (double)w : 0;
	s->max_bytes = p->occ.max_bytes;
	s->max_pkts = p->occ.max_pkts;
	s->prio_max_bytes = p->occ.prio_max_bytes;
	/* upper edge of the bucket, but never above what was seen */
	s->p99_bytes = (hist_quantile(p->occ.hist_bytes, OCC_NBUCKETS, 0.99) + 1) * OCC_BUCKET;
	if (s->p99_bytes > s->max_bytes)
		s->p99_bytes = s->max_bytes;
	s->p99_pkts = hist_quantile(p->occ.hist_pkts, OCC_NPKTS, 0.99);
}
