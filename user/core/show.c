// SPDX-License-Identifier: GPL-2.0-only
/* What a tunnel's core halves show in eq_agent_peers (show.h). */
#include "show.h"

void eqt_tx_show(const struct eqt_tx *t, struct eq_agent_peer *v)
{
	v->tx_state = !t->open ? 0 : t->syn ? 1 : 2;
	v->tx_epoch = t->isn;
	v->backlog_pkts = t->q[0].pkts + t->q[1].pkts + t->rtx.pkts;
	v->backlog_bytes = eqt_tx_backlog(t);
	v->inflight_bytes = t->infl.bytes;
	v->tx_data = t->st.data;
	v->tx_rtx = t->st.rtx;
	v->rx_nacks = t->st.nacks;
	v->rto_fired = t->st.rto_fired;
	v->infl_given_up = t->st.given_up;
	v->srtt_us = (uint32_t)(t->rtt.srtt_ns / 1000);
	v->rsts = t->st.rsts;
	v->bad_ack = t->st.bad_ack;
	v->bad_rst = t->st.bad_rst;
	v->tx_next_seq = t->next_seq;
	v->tx_cum_ack = t->cum_ack;
}

void eqt_rx_show(const struct eqt_rx *r, struct eq_agent_peer *v)
{
	v->rx_expected = r->q.expected;
	v->reorder_pkts = r->q.n;
	v->rx_data = r->st.data;
	v->rx_trimmed = r->st.trimmed;
	v->rx_dup = r->q.dup;
	v->rx_ooo = r->q.ooo;
	v->reorder_gaps = r->q.gaps;
	v->rx_lost = r->q.lost;
	v->rx_late = r->q.late;
	v->rx_relost = r->q.relost;
	v->rx_bad_seq = r->st.bad_window;
	v->rx_bad_epoch = r->st.bad_epoch;
}
