/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Topology descriptions ("8 hosts on one ToR", "2 leaves x 4 hosts, 2
 * spines") and their expansion into hosts, switches and directed ports,
 * with names, addresses and MACs.  One expansion serves both the shell
 * builder (`eqswitch plan` prints what to create) and the running switch,
 * so they cannot disagree.  Pure C; tests/unit/test_fabric_topo.c.
 */
#ifndef EDGEQ_FABRIC_TOPO_H
#define EDGEQ_FABRIC_TOPO_H

#include <stdint.h>
#include "switch/port.h"

#define TOPO_MAX_HOSTS	256
#define TOPO_MAX_SW	32
#define TOPO_MAX_PORTS	(2 * TOPO_MAX_HOSTS + 2 * 16 * 16)
#define TOPO_NAME_MAX	16

enum topo_kind { TOPO_STAR, TOPO_LEAFSPINE };
#define TOPO_SAME	(UINT32_MAX - 1)	/* core_ecn_k: as ecn_k */
enum multipath { MP_ECMP, MP_SPRAY };

struct topo_params {
	int kind;
	int hosts;			/* star */
	int leaves, hosts_per_leaf, spines;	/* leafspine */
	uint64_t rate, core_rate;	/* host links, leaf-spine links (bit/s) */
	uint64_t delay_ns;		/* every link, one way */
	uint32_t buffer, prio_buffer, ecn_k, trim;	/* every switch port */
	uint32_t core_ecn_k;		/* leaf-spine ports' ecn_k: TOPO_SAME (ecn_k's),
					 * PORT_OFF or bytes: SIRD's simulator marks
					 * only there (NThr) */
	uint16_t edgeq_port;
	int multipath;
	uint64_t reroute_ns;		/* a failed link leaves ECMP groups after this */
	uint64_t sample_ns;		/* queue time-series interval */
	uint32_t pool;			/* packet slots in the switch */
};

enum node_kind { NODE_HOST, NODE_SWITCH };

struct topo_host {
	char name[TOPO_NAME_MAX];
	int leaf, idx;			/* idx within its leaf */
	int sw;				/* the switch it hangs off */
	int down_port, up_port;		/* switch->host and host->switch ports */
	uint8_t mac[6];
	uint8_t ip4[4];
	uint8_t ip6[16];
};

struct topo_switch {
	char name[TOPO_NAME_MAX];
	int spine;			/* 1: a spine */
	int leaf;			/* leaf (or ToR) number, -1 for spines */
};

struct topo_port {
	char name[2 * TOPO_NAME_MAX + 2];	/* "from-to" */
	int from_kind, from, to_kind, to;
	int reverse;			/* the port of the other direction */
	uint8_t mac[6];			/* the switch side's MAC (host links) */
	struct port_cfg cfg;
};

struct topo {
	struct topo_params p;
	int nhosts, nsw, nports;
	struct topo_host hosts[TOPO_MAX_HOSTS];
	struct topo_switch sw[TOPO_MAX_SW];
	struct topo_port ports[TOPO_MAX_PORTS];
};

void topo_defaults(struct topo_params *p);
/* Applies one "key value" setting; err gets a message on failure. */
int topo_set(struct topo_params *p, const char *key, const char *val, char *err, size_t errlen);
/* Parses a description (lines "key value", '#' comments). */
int topo_parse(struct topo_params *p, const char *text, char *err, size_t errlen);
int topo_expand(struct topo *t, char *err, size_t errlen);

/* Value parsers shared with the control commands. */
int parse_rate(const char *s, uint64_t *bps);
int parse_bytes(const char *s, uint32_t *bytes);	/* "off" -> PORT_OFF */
int parse_time(const char *s, uint64_t *ns);

int topo_find_port(const struct topo *t, const char *name);
int topo_find_node(const struct topo *t, const char *name, int *kind);

#endif
