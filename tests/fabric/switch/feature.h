/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What an egress port does to a packet beyond queueing it, as features
 * behind one small interface: trimming, ECN marking and the priority
 * queue are features (features.c), and a scheme's switch logic (Bolt's
 * notifications at enqueue and dequeue, BFC's per-queue pauses) is added
 * as one more, not as edits in the port's forwarding path (port.c).
 *
 * A packet on its way in meets each feature's arrive() in the port's
 * order (it may cut the packet, change its class, choose the priority
 * queue); the port then drops it tail-first if its queue is full, or takes
 * it, and each feature's queued() sees it taken (it may mark it); each
 * departed() sees it once its last bit left.  A delay line (rate 0) has no
 * queue and no features.
 */
#ifndef EDGEQ_FABRIC_FEATURE_H
#define EDGEQ_FABRIC_FEATURE_H

#include <stdbool.h>
#include <stdint.h>

struct port;
struct pkt;

/* What the features decided for one packet on its way in. */
struct port_enq {
	int	v;		/* enum port_verdict so far: PV_QUEUED unless a feature said */
	bool	prio;		/* into the priority queue */
};

struct port_feature {
	const char	*name;
	void	(*arrive)(struct port *p, struct pkt *k, uint64_t t, struct port_enq *e);
	void	(*queued)(struct port *p, struct pkt *k, uint64_t t, struct port_enq *e);
	void	(*departed)(struct port *p, struct pkt *k, uint64_t t);
};

#define PORT_FEATURES_MAX	8

/* The built-in ones (features.c); port_init() installs them on every
 * port, in this order; trimming and ECN do nothing while their threshold
 * (`trim`, `ecn_k`) is PORT_OFF, and follow it when a command changes it. */
extern const struct port_feature port_feature_trim, port_feature_prio, port_feature_ecn;

/* One more, after those: 0, or -1 if the port has PORT_FEATURES_MAX. */
int port_add_feature(struct port *p, const struct port_feature *f);

#endif
