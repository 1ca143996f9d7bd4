/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a tunnel's core halves show in eq_agent_peers (edgeq/maps.h), the
 * map `edgeq status` and bpftool read: a scheme on the core's halves
 * (core/tx.h, core/rx.h) fills its peers' entries with these, and adds
 * what is its own (credit, the BDP it runs on, edge drops).
 */
#ifndef EDGEQ_CORE_SHOW_H
#define EDGEQ_CORE_SHOW_H

#include "edgeq/maps.h"
#include "rx.h"
#include "tx.h"

/* The sending half: its state, epoch, queues, flight and counters. */
void eqt_tx_show(const struct eqt_tx *t, struct eq_agent_peer *v);
/* The receiving half: where it is in order, its queue and counters. */
void eqt_rx_show(const struct eqt_rx *r, struct eq_agent_peer *v);

#endif
