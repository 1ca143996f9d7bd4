// SPDX-License-Identifier: GPL-2.0-only
/* The port features every fabric has (feature.h): trimming, the priority
 * queue, ECN marking. */
#include "switch/feature.h"
#include "switch/port.h"

/* edgeq DATA that would take the data queue above `trim` is cut to its
 * headers and goes on as control (into the priority queue).  Each feature
 * reads its threshold at every packet: `port NAME trim|ecn_k VALUE`
 * changes it while the fabric runs, PORT_OFF turns it off. */
static void trim_arrive(struct port *p, struct pkt *k, uint64_t t, struct port_enq *e)
{
	uint32_t n;

	if (p->cfg.trim == PORT_OFF || k->cls != FC_EQ_DATA || p->data_bytes + k->len <= p->cfg.trim)
		return;
	n = frame_trim(k->data, k->len, &k->fi);
	if (!n)
		return;
	k->len = n;
	k->cls = FC_EQ_CTRL;
	p->st.trims++;
	e->v = PV_TRIMMED;
}

/* edgeq control (and trimmed headers) ahead of data, strictly. */
static void prio_arrive(struct port *p, struct pkt *k, uint64_t t, struct port_enq *e)
{
	if (k->cls != FC_EQ_CTRL)
		return;
	e->prio = true;
	if (e->v != PV_TRIMMED)
		e->v = PV_PRIO;
}

/* An ECN-capable packet that finds more than K bytes queued: CE. */
static void ecn_queued(struct port *p, struct pkt *k, uint64_t t, struct port_enq *e)
{
	if (e->prio || p->cfg.ecn_k == PORT_OFF || p->data_bytes <= p->cfg.ecn_k ||
	    !frame_set_ce(k->data, &k->fi))
		return;
	k->fi.ecn = 3;
	p->st.marks++;
	e->v = PV_MARKED;
}

const struct port_feature port_feature_trim = { .name = "trim", .arrive = trim_arrive };
const struct port_feature port_feature_prio = { .name = "prio", .arrive = prio_arrive };
const struct port_feature port_feature_ecn = { .name = "ecn", .queued = ecn_queued };

int port_add_feature(struct port *p, const struct port_feature *f)
{
	if (p->nfeat >= PORT_FEATURES_MAX)
		return -1;
	p->feat[p->nfeat++] = f;
	return 0;
}
