// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topology descriptions and their expansion.  Addresses and MACs follow
 * the position of a host so that they can be read off a capture:
 *   host j on leaf l:  10.250.l.(j+1)   fdee:250::l:(j+1)   02:e0:00:l:j:01
 *   its switch port:                                        02:e1:00:l:j:01
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "switch/topo.h"

#define MTU_FRAME 1514

void topo_defaults(struct topo_params *p)
{
	memset(p, 0, sizeof(*p));
	p->kind = TOPO_STAR;
	p->hosts = 2;
	p->leaves = 2;
	p->hosts_per_leaf = 4;
	p->spines = 2;
	p->rate = 1000000000ULL;
	p->core_rate = 0;		/* 0: same as rate */
	p->delay_ns = 10000;
	p->buffer = 200 * MTU_FRAME;
	p->prio_buffer = 64 * 1024;
	p->ecn_k = PORT_OFF;
	p->core_ecn_k = TOPO_SAME;
	p->trim = PORT_OFF;
	p->edgeq_port = 7446;
	p->multipath = MP_ECMP;
	p->reroute_ns = 10000000;
	p->sample_ns = 100000;
	p->pool = 65536;
}

/* number + unit; units is a list of {suffix, multiplier}, first match wins */
struct unit { const char *sfx; double mul; };

static int parse_units(const char *s, const struct unit *u, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !(v >= 0) || !isfinite(v))	/* NaN passes every range check */
		return -1;
	for (; u->sfx; u++)
		if (!strcasecmp(end, u->sfx)) {
			*out = v * u->mul;
			return 0;
		}
	return -1;
}

int parse_rate(const char *s, uint64_t *bps)
{
	static const struct unit u[] = {
		{"", 1}, {"bit", 1}, {"k", 1e3}, {"kbit", 1e3}, {"m", 1e6}, {"mbit", 1e6},
		{"g", 1e9}, {"gbit", 1e9}, {NULL, 0} };
	double v;

	if (parse_units(s, u, &v) || v < 1e6 || v > 400e9)
		return -1;
	*bps = (uint64_t)(v + 0.5);
	return 0;
}

int parse_bytes(const char *s, uint32_t *bytes)
{
	static const struct unit u[] = {
		{"", 1}, {"b", 1}, {"k", 1e3}, {"kb", 1e3}, {"m", 1e6}, {"mb", 1e6},
		{"p", MTU_FRAME}, {"pkt", MTU_FRAME}, {NULL, 0} };
	double v;

	if (!strcasecmp(s, "off")) {
		*bytes = PORT_OFF;
		return 0;
	}
	if (parse_units(s, u, &v) || v >= 4e9)
		return -1;
	*bytes = (uint32_t)(v + 0.5);
	return 0;
}

int parse_time(const char *s, uint64_t *ns)
{
	static const struct unit u[] = {
		{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {NULL, 0} };
	double v;

	if (parse_units(s, u, &v) || v > 3600e9)
		return -1;
	*ns = (uint64_t)(v + 0.5);
	return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

int topo_set(struct topo_params *p, const char *key, const char *val, char *err, size_t errlen)
{
	uint32_t b;

	if (!strcmp(key, "topology")) {
		if (!strcmp(val, "star")) p->kind = TOPO_STAR;
		else if (!strcmp(val, "leafspine")) p->kind = TOPO_LEAFSPINE;
		else FAIL("topology '%s': use star or leafspine", val);
	} else if (!strcmp(key, "hosts")) {
		if (parse_int(val, 2, 254, &p->hosts))
			FAIL("hosts '%s': a number from 2 to 254", val);
	} else if (!strcmp(key, "leaves")) {
		if (parse_int(val, 2, 16, &p->leaves))
			FAIL("leaves '%s': a number from 2 to 16", val);
	} else if (!strcmp(key, "hosts_per_leaf")) {
		if (parse_int(val, 1, 64, &p->hosts_per_leaf))
			FAIL("hosts_per_leaf '%s': a number from 1 to 64", val);
	} else if (!strcmp(key, "spines")) {
		if (parse_int(val, 1, 8, &p->spines))
			FAIL("spines '%s': a number from 1 to 8", val);
	} else if (!strcmp(key, "rate") || !strcmp(key, "core_rate")) {
		if (parse_rate(val, !strcmp(key, "rate") ? &p->rate : &p->core_rate))
			FAIL("%s '%s': a rate from 1mbit to 400gbit, e.g. 1gbit, 500mbit", key, val);
	} else if (!strcmp(key, "delay")) {
		if (parse_time(val, &p->delay_ns) || p->delay_ns > 100000000)
			FAIL("delay '%s': a time up to 100ms, e.g. 20us", val);
	} else if (!strcmp(key, "reroute")) {
		if (parse_time(val, &p->reroute_ns))
			FAIL("reroute '%s': a time, e.g. 10ms", val);
	} else if (!strcmp(key, "sample")) {
		if (parse_time(val, &p->sample_ns) || p->sample_ns < 10000)
			FAIL("sample '%s': a time of at least 10us", val);
	} else if (!strcmp(key, "buffer") || !strcmp(key, "prio_buffer")) {
		if (parse_bytes(val, &b) || b == PORT_OFF || b < MTU_FRAME)
			FAIL("%s '%s': bytes (k, m, or p = %d-byte packets), at least one packet",
			     key, val, MTU_FRAME);
		*(!strcmp(key, "buffer") ? &p->buffer : &p->prio_buffer) = b;
	} else if (!strcmp(key, "ecn_k") || !strcmp(key, "trim") || !strcmp(key, "core_ecn_k")) {
		if (parse_bytes(val, &b) || b == TOPO_SAME)
			FAIL("%s '%s': bytes (k, m, or p = %d-byte packets) or off", key, val, MTU_FRAME);
		*(!strcmp(key, "ecn_k") ? &p->ecn_k : !strcmp(key, "trim") ? &p->trim : &p->core_ecn_k) = b;
	} else if (!strcmp(key, "edgeq_port")) {
		int v;

		if (parse_int(val, 1, 65535, &v))
			FAIL("edgeq_port '%s': a UDP port", val);
		p->edgeq_port = (uint16_t)v;
	} else if (!strcmp(key, "multipath")) {
		if (!strcmp(val, "ecmp")) p->multipath = MP_ECMP;
		else if (!strcmp(val, "spray")) p->multipath = MP_SPRAY;
		else FAIL("multipath '%s': use ecmp or spray", val);
	} else if (!strcmp(key, "pool")) {
		int v;

		if (parse_int(val, 1024, 1 << 20, &v))
			FAIL("pool '%s': packet slots, 1024 to 1048576", val);
		p->pool = (uint32_t)v;
	} else {
		FAIL("unknown setting '%s' (topology, hosts, leaves, hosts_per_leaf, spines, rate, "
		     "core_rate, delay, buffer, prio_buffer, ecn_k, core_ecn_k, trim, edgeq_port, "
		     "multipath, "
		     "reroute, sample, pool)", key);
	}
	return 0;
}

int topo_parse(struct topo_params *p, const char *text, char *err, size_t errlen)
{
	char line[256], key[64], val[128], e[200];
	int lineno = 0;

	while (*text) {
		size_t n = strcspn(text, "\n");
		char *hash;
		int k;

		lineno++;
		if (n >= sizeof(line))
			FAIL("line %d: too long", lineno);
		memcpy(line, text, n);
		line[n] = 0;
		text += n + (text[n] == '\n');
		if ((hash = strchr(line, '#')))
			*hash = 0;
		k = sscanf(line, "%63s %127s %1s", key, val, e);
		if (k <= 0)
			continue;
		if (k != 2)
			FAIL("line %d: expected 'key value', got '%s'", lineno, line);
		if (topo_set(p, key, val, e, sizeof(e)))
			FAIL("line %d: %s", lineno, e);
	}
	return 0;
}

static int add_port(struct topo *t, int fk, int f, int tk, int to, const struct port_cfg *cfg)
{
	struct topo_port *p = &t->ports[t->nports];
	const char *fn = fk == NODE_HOST ? t->hosts[f].name : t->sw[f].name;
	const char *tn = tk == NODE_HOST ? t->hosts[to].name : t->sw[to].name;

	/* strings of t itself: GCC cannot see they never overlap p->name */
	char name[sizeof(p->name)];
	size_t a = strlen(fn);

	memcpy(name, fn, a);
	name[a] = '-';
	memcpy(name + a + 1, tn, strlen(tn) + 1);
	memcpy(p->name, name, sizeof(name));
	p->from_kind = fk; p->from = f; p->to_kind = tk; p->to = to;
	p->reverse = -1;
	p->cfg = *cfg;
	return t->nports++;
}

static void link_pair(struct topo *t, int a, int b)
{
	t->ports[a].reverse = b;
	t->ports[b].reverse = a;
}

int topo_expand(struct topo *t, char *err, size_t errlen)
{
	struct topo_params *p = &t->p;
	int leaves = p->kind == TOPO_STAR ? 1 : p->leaves;
	int per = p->kind == TOPO_STAR ? p->hosts : p->hosts_per_leaf;
	struct port_cfg sw = {
		.rate_bps = p->rate, .delay_ns = p->delay_ns, .buffer = p->buffer,
		.prio_buffer = p->prio_buffer, .ecn_k = p->ecn_k, .trim = p->trim,
	};
	/* The host side of a host link: the host's qdisc (tbf, fabric.sh)
	 * paces it, and the switch serialises it again at the same rate,
	 * because the switch takes frames off its sockets in batches: without
	 * this a batch would reach the egress queue as one instantaneous
	 * burst.  Its buffer stands for the host NIC's ring: deep, no AQM. */
	struct port_cfg core = sw, uplink = {
		.rate_bps = p->rate, .delay_ns = p->delay_ns, .buffer = 4000000,
		.prio_buffer = 1000000, .ecn_k = PORT_OFF, .trim = PORT_OFF,
	};

	if (p->core_rate)
		core.rate_bps = p->core_rate;
	if (p->core_ecn_k != TOPO_SAME)
		core.ecn_k = p->core_ecn_k;
	if (leaves * per > TOPO_MAX_HOSTS)
		FAIL("%d hosts: at most %d", leaves * per, TOPO_MAX_HOSTS);
	if (p->trim != PORT_OFF && p->trim > p->buffer)
		FAIL("trim (%u) above buffer (%u): nothing would ever be trimmed", p->trim, p->buffer);
	t->nhosts = t->nsw = t->nports = 0;
	for (int l = 0; l < leaves; l++) {
		struct topo_switch *s = &t->sw[t->nsw++];

		snprintf(s->name, sizeof(s->name), p->kind == TOPO_STAR ? "tor%d" : "leaf%d", l);
		s->leaf = l;
	}
	if (p->kind == TOPO_LEAFSPINE)
		for (int k = 0; k < p->spines; k++) {
			struct topo_switch *s = &t->sw[t->nsw++];

			snprintf(s->name, sizeof(s->name), "spine%d", k);
			s->spine = 1;
			s->leaf = -1;
		}
	for (int l = 0; l < leaves; l++)
		for (int j = 0; j < per; j++) {
			struct topo_host *h = &t->hosts[t->nhosts];
			int i = t->nhosts++;

			snprintf(h->name, sizeof(h->name), "h%d", i);
			h->leaf = l;
			h->idx = j;
			h->sw = l;
			memcpy(h->mac, (uint8_t[]){0x02, 0xe0, 0, (uint8_t)l, (uint8_t)j, 1}, 6);
			memcpy(h->ip4, (uint8_t[]){10, 250, (uint8_t)l, (uint8_t)(j + 1)}, 4);
			memset(h->ip6, 0, 16);
			h->ip6[0] = 0xfd; h->ip6[1] = 0xee; h->ip6[2] = 0x02; h->ip6[3] = 0x50;
			h->ip6[13] = (uint8_t)l;
			h->ip6[15] = (uint8_t)(j + 1);
			h->down_port = add_port(t, NODE_SWITCH, l, NODE_HOST, i, &sw);
			h->up_port = add_port(t, NODE_HOST, i, NODE_SWITCH, l, &uplink);
			link_pair(t, h->down_port, h->up_port);
			memcpy(t->ports[h->down_port].mac,
			       (uint8_t[]){0x02, 0xe1, 0, (uint8_t)l, (uint8_t)j, 1}, 6);
		}
	if (p->kind == TOPO_LEAFSPINE)
		for (int l = 0; l < leaves; l++)
			for (int k = 0; k < p->spines; k++) {
				int up = add_port(t, NODE_SWITCH, l, NODE_SWITCH, leaves + k, &core);
				int down = add_port(t, NODE_SWITCH, leaves + k, NODE_SWITCH, l, &core);

				link_pair(t, up, down);
			}
	return 0;
}

int topo_find_port(const struct topo *t, const char *name)
{
	for (int i = 0; i < t->nports; i++)
		if (!strcmp(t->ports[i].name, name))
			return i;
	return -1;
}

int topo_find_node(const struct topo *t, const char *name, int *kind)
{
	for (int i = 0; i < t->nhosts; i++)
		if (!strcmp(t->hosts[i].name, name)) {
			*kind = NODE_HOST;
			return i;
		}
	for (int i = 0; i < t->nsw; i++)
		if (!strcmp(t->sw[i].name, name)) {
			*kind = NODE_SWITCH;
			return i;
		}
	return -1;
}
