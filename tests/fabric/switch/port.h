/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One egress port of the software switch: the model of a switch output
 * queue and the link behind it, in virtual time.  Pure C, no I/O, no
 * clock: every call takes the time, so tests drive it with a mocked clock
 * (tests/unit/test_fabric_port.c) and the switch with CLOCK_MONOTONIC.
 *
 *   enqueue ──► priority FIFO (edgeq control, trimmed headers) ─┐ strict
 *           └─► data FIFO (everything else)  ───────────────────┴► serialiser ──► wire ──► far end
 *               drop-tail at `buffer`, CE above `ecn_k`,           at `rate`      `delay`
 *               edgeq DATA trimmed above `trim`
 *
 * Trimming, the priority queue and ECN marking are features (feature.h),
 * installed from the config; a scheme's switch logic is one more.
 *
 * A packet occupies the queue from its arrival until its last bit has been
 * serialised, so an arriving packet waits occupancy / rate: the queueing
 * delay the fabric's accuracy test checks.  Serialisation start times are
 * computed from the previous packet's end, not from when the caller got
 * round to it, so a late caller changes nothing but the moment the packet
 * is handed on.
 */
#ifndef EDGEQ_FABRIC_PORT_H
#define EDGEQ_FABRIC_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include "switch/pkt.h"
#include "switch/feature.h"

#define PORT_OFF	UINT32_MAX	/* a threshold that is not in use */
#define OCC_BUCKET	512		/* bytes per occupancy histogram bucket */
#define OCC_NBUCKETS	8192		/* up to 4 MiB; above counts in the last */
#define OCC_NPKTS	4096		/* packet-count histogram */

struct port_cfg {
	uint64_t rate_bps;	/* frame bits per second; 0: a delay line only */
	uint64_t delay_ns;	/* propagation delay of the link */
	uint32_t buffer;	/* data queue limit, bytes: drop-tail above */
	uint32_t prio_buffer;	/* priority queue limit, bytes */
	uint32_t ecn_k;		/* CE-mark ECT packets that find more than K bytes */
	uint32_t trim;		/* trim edgeq DATA that would take the queue above this */
	uint32_t loss_ppm;	/* random loss on the link, parts per million */
};

enum port_verdict {
	PV_QUEUED,		/* data queue */
	PV_MARKED,		/* data queue, CE set */
	PV_PRIO,		/* priority queue */
	PV_TRIMMED,		/* cut to its header, priority queue */
	PV_DROP_FULL,		/* data queue full */
	PV_DROP_PRIO,		/* priority queue full */
	PV_DROP_DOWN,		/* link down */
};

static inline bool pv_dropped(enum port_verdict v) { return v >= PV_DROP_FULL; }

/* A DATA frame this short carries a small inner packet (a bare TCP ACK
 * through the tunnel takes about 130 bytes). */
#define PORT_SMALL_DATA	256

struct port_stats {
	uint64_t enq_pkts, enq_bytes;
	uint64_t tx_pkts, tx_bytes;	/* serialised onto the link */
	uint64_t marks, trims;
	uint64_t drop_full, drop_prio, drop_down, drop_loss;
	uint64_t drop_loss_bytes;	/* ... their bytes: what kind of packets a
					 * lossy link took (DATA or control) */
	uint64_t drop_loss_ctl;		/* ... of them edgeq control (or trimmed) */
	uint64_t drop_loss_small;	/* ... edgeq DATA of a small inner packet
					 * (under PORT_SMALL_DATA bytes: a TCP ACK) */
};

/* Data-queue occupancy, weighted by time since the last reset. */
struct port_occ {
	uint64_t t_start, t_last;
	double   area_bytes, area_pkts;	/* occupancy x ns */
	uint64_t max_bytes, max_pkts, prio_max_bytes;
	uint64_t hist_bytes[OCC_NBUCKETS];	/* ns spent in each bucket */
	uint64_t hist_pkts[OCC_NPKTS];
};

struct port;

struct port {
	char name[40];
	struct port_cfg cfg;
	bool up;
	struct fifo data, prio;
	struct fifo wire;		/* serialised, propagating */
	struct fifo gone;		/* dropped after acceptance (loss, link down): the owner frees them */
	struct pkt *svc;		/* being serialised */
	uint64_t svc_end;
	uint64_t free_at;		/* the serialiser is free from this time */
	uint64_t rem;			/* carried remainder of bits x 1e9 / rate */
	uint64_t clock;			/* latest time seen */
	uint64_t data_bytes;		/* data occupancy: queued + in service */
	uint32_t data_pkts;
	uint64_t rng;
	struct port_stats st;
	struct port_occ occ;
	const struct port_feature *feat[PORT_FEATURES_MAX];	/* feature.h, in order */
	int nfeat;
};

void port_init(struct port *p, const char *name, const struct port_cfg *cfg,
	       uint64_t now, uint64_t seed);
enum port_verdict port_enqueue(struct port *p, struct pkt *k, uint64_t t);
/* Serialises everything due by `now`; lost packets go to p->gone. */
void port_run(struct port *p, uint64_t now);
/* The next packet that has reached the far end by `now`, or NULL. */
struct pkt *port_pop_arrived(struct port *p, uint64_t now);
/* When port_run or port_pop_arrived next has work; UINT64_MAX if idle. */
uint64_t port_next_event(const struct port *p);
/* Link up/down: going down loses everything queued and on the wire. */
void port_set_up(struct port *p, bool up, uint64_t now);
void port_stats_reset(struct port *p, uint64_t now);

/* Derived figures of the occupancy since the last reset, up to `now`. */
struct port_occ_summary {
	double mean_bytes, mean_pkts;
	uint64_t max_bytes, max_pkts, p99_bytes, p99_pkts, prio_max_bytes;
	uint64_t window_ns;
};
void port_occ_summary(struct port *p, uint64_t now, struct port_occ_summary *s);

uint64_t port_tx_ns(uint32_t len, uint64_t rate_bps);

#endif
