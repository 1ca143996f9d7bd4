// SPDX-License-Identifier: GPL-2.0-only
/* The fabric runtime: forwarding, routing, link commands, statistics. */
#include <stdlib.h>
#include <string.h>
#include "switch/fabric.h"

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13; x ^= x >> 7; x ^= x << 17;
	return *s = x;
}

static int is_switch_port(const struct topo_port *tp) { return tp->from_kind == NODE_SWITCH; }

int fabric_init(struct fabric *f, struct topo *t, uint64_t now)
{
	memset(f, 0, sizeof(*f));
	f->t = t;
	f->rng = 0x2545f4914f6cdd1dULL;
	if (pool_init(&f->pool, t->p.pool))
		return -1;
	for (int i = 0; i < t->nports; i++) {
		port_init(&f->ports[i], t->ports[i].name, &t->ports[i].cfg, now,
			  0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1));
		f->route_up[i] = 1;
		f->route_at[i] = UINT64_MAX;
	}
	for (int s = 0; s < t->nsw; s++)
		f->seed[s] = (uint32_t)(0x85ebca6bu * (uint32_t)(s + 1));
	for (int i = 0; i < t->nports; i++) {
		const struct topo_port *tp = &t->ports[i];

		if (tp->from_kind != NODE_SWITCH || tp->to_kind != NODE_SWITCH)
			continue;
		if (t->sw[tp->from].spine)
			f->spine_down[tp->from][t->sw[tp->to].leaf] = i;
		else
			f->leaf_up[tp->from][tp->to - (t->nsw - t->p.spines)] = i;
	}
	return 0;
}

void fabric_fini(struct fabric *f)
{
	pool_fini(&f->pool);
}

/* Addresses follow positions (topo.c), so the host is computed, then
 * checked against its real address. */
static int host_of(const struct fabric *f, const struct frame_info *fi)
{
	const struct topo *t = f->t;
	int per = t->p.kind == TOPO_STAR ? t->p.hosts : t->p.hosts_per_leaf;
	int leaves = t->p.kind == TOPO_STAR ? 1 : t->p.leaves;
	int l, j, h;

	if (fi->family == 4) {
		l = fi->dst[14];
		j = fi->dst[15] - 1;
	} else {
		l = fi->dst[13];
		j = fi->dst[15] - 1;
	}
	if (l >= leaves || j < 0 || j >= per)
		return -1;
	h = l * per + j;
	if (fi->family == 4 ? memcmp(fi->dst + 12, t->hosts[h].ip4, 4)
			    : memcmp(fi->dst, t->hosts[h].ip6, 16))
		return -1;
	return h;
}

static int route(struct fabric *f, int s, const struct pkt *k)
{
	const struct topo *t = f->t;
	int h = host_of(f, &k->fi), n = 0, cand[TOPO_MAX_SW], dl;

	if (h < 0)
		return -1;
	if (t->hosts[h].sw == s)
		return t->hosts[h].down_port;
	dl = t->hosts[h].leaf;
	if (t->sw[s].spine)
		return f->spine_down[s][dl];
	for (int k2 = 0; k2 < t->p.spines; k2++) {
		int up = f->leaf_up[s][k2];

		if (f->route_up[up] && f->route_up[f->spine_down[t->nsw - t->p.spines + k2][dl]])
			cand[n++] = up;
	}
	if (!n)
		return -1;
	if (t->p.multipath == MP_SPRAY)
		return cand[xorshift(&f->rng) % (uint64_t)n];
	return cand[k->fi.flow_hash % (uint32_t)n];
}

static void forward(struct fabric *f, int s, struct pkt *k, uint64_t t)
{
	struct fabric_sw_stats *st = &f->sws[s];
	int r, out;

	st->rx_pkts++;
	r = frame_parse(k->data, k->len, f->t->p.edgeq_port, f->seed[s], &k->fi);
	if (r) {
		if (r == FE_NOT_IP)
			st->drop_not_ip++;
		else
			st->drop_malformed++;
		goto drop;
	}
	k->cls = k->fi.cls;
	out = route(f, s, k);
	if (out < 0) {
		st->drop_no_route++;
		goto drop;
	}
	if (!frame_dec_ttl(k->data, &k->fi)) {
		st->drop_ttl++;
		goto drop;
	}
	if (!pv_dropped(port_enqueue(&f->ports[out], k, t)))
		return;
drop:
	pool_put(&f->pool, k);
}

struct pkt *fabric_take(struct fabric *f, const uint8_t *frame, uint32_t len)
{
	struct pkt *k;

	if (len > FRAME_MAX || !(k = pool_get(&f->pool))) {
		f->drop_no_buf++;
		return NULL;
	}
	memcpy(k->data, frame, len);
	k->len = len;
	k->cls = FC_OTHER;
	memset(&k->fi, 0, sizeof(k->fi));	/* not the slot's previous packet's */
	return k;
}

void fabric_inject(struct fabric *f, int h, struct pkt *k, uint64_t t)
{
	if (pv_dropped(port_enqueue(&f->ports[f->t->hosts[h].up_port], k, t)))
		pool_put(&f->pool, k);
}

void fabric_from_host(struct fabric *f, int h, const uint8_t *frame, uint32_t len, uint64_t now)
{
	struct pkt *k = fabric_take(f, frame, len);

	if (k)
		fabric_inject(f, h, k, now);
}

static void apply_routes(struct fabric *f, uint64_t now)
{
	for (int i = 0; i < f->t->nports; i++)
		if (f->route_at[i] <= now) {
			f->route_up[i] = f->ports[i].up;
			f->route_at[i] = UINT64_MAX;
		}
}

static void run_once(struct fabric *f, uint64_t now)
{
	const struct topo *t = f->t;
	int moved;

	apply_routes(f, now);
	/* Hops with no delay can hand a packet on within the same instant,
	 * so go round until nothing moves. */
	do {
		moved = 0;
		for (int i = 0; i < t->nports; i++) {
			struct port *p = &f->ports[i];
			const struct topo_port *tp = &t->ports[i];
			struct pkt *k;

			port_run(p, now);
			while ((k = fifo_pop(&p->gone)))
				pool_put(&f->pool, k);
			while ((k = port_pop_arrived(p, now))) {
				moved = 1;
				if (tp->to_kind == NODE_SWITCH) {
					forward(f, tp->to, k, k->t_ready);
					continue;
				}
				frame_set_macs(k->data, t->hosts[tp->to].mac, tp->mac);
				if (f->deliver)
					f->deliver(f->ctx, tp->to, k, k->t_ready);
				pool_put(&f->pool, k);
			}
		}
	} while (moved);
}

/* Events are taken in time order: a packet forwarded at its arrival time
 * must find the next port as it was then, not as a later call left it. */
void fabric_run(struct fabric *f, uint64_t now)
{
	uint64_t e;

	while ((e = fabric_next_event(f)) < now)
		run_once(f, e);
	run_once(f, now);
}

uint64_t fabric_next_event(const struct fabric *f)
{
	uint64_t t = UINT64_MAX;

	for (int i = 0; i < f->t->nports; i++) {
		uint64_t e = port_next_event(&f->ports[i]);

		if (e < t)
			t = e;
		if (f->route_at[i] < t)
			t = f->route_at[i];
	}
	return t;
}

void fabric_sample(struct fabric *f, uint64_t now)
{
	f->queues_busy = 0;
	for (int i = 0; i < f->t->nports; i++) {
		struct port *p = &f->ports[i];
		uint64_t b;

		if (!is_switch_port(&f->t->ports[i]))
			continue;
		port_run(p, now);
		b = p->data_bytes + p->prio.bytes;
		if ((b || f->last_sample_bytes[i]) && f->sample)
			f->sample(f->ctx, i, now, p);
		f->last_sample_bytes[i] = b;
		f->queues_busy |= b != 0;
	}
}

void fabric_reset(struct fabric *f, uint64_t now)
{
	for (int i = 0; i < f->t->nports; i++)
		port_stats_reset(&f->ports[i], now);
	memset(f->sws, 0, sizeof(f->sws));
	f->drop_no_buf = 0;
}

/* ---- commands -------------------------------------------------------------- */

#define REPLY(...) (snprintf(out, outlen, __VA_ARGS__), -1)

static void set_link(struct fabric *f, int i, int up, uint64_t now)
{
	port_set_up(&f->ports[i], up, now);
	f->route_at[i] = now + f->t->p.reroute_ns;
	if (!f->t->p.reroute_ns)
		f->route_up[i] = (uint8_t)up;
}

static int cmd_link(struct fabric *f, char **av, int ac, char *out, size_t outlen, uint64_t now)
{
	char name[64];
	int a, b, up;

	if (ac != 4 || (strcmp(av[3], "down") && strcmp(av[3], "up")))
		return REPLY("usage: link NODE NODE down|up");
	snprintf(name, sizeof(name), "%s-%s", av[1], av[2]);
	a = topo_find_port(f->t, name);
	if (a < 0)
		return REPLY("no link between '%s' and '%s'", av[1], av[2]);
	b = f->t->ports[a].reverse;
	up = !strcmp(av[3], "up");
	set_link(f, a, up, now);
	set_link(f, b, up, now);
	snprintf(out, outlen, "ok link %s %s", name, av[3]);
	return 0;
}

static int port_setting(struct port *p, const char *key, const char *val, char *out, size_t outlen)
{
	struct port_cfg c = p->cfg;
	uint64_t v64;
	uint32_t v;

	if (!strcmp(key, "rate")) {
		if (parse_rate(val, &v64))
			return REPLY("rate '%s': e.g. 500mbit", val);
		c.rate_bps = v64;
	} else if (!strcmp(key, "delay")) {
		if (parse_time(val, &v64) || v64 > 100000000)
			return REPLY("delay '%s': e.g. 20us, at most 100ms", val);
		c.delay_ns = v64;
	} else if (!strcmp(key, "loss")) {
		char *end;
		double pct = strtod(val, &end);

		if (end == val || *end || !(pct >= 0 && pct <= 100))
			return REPLY("loss '%s': a percentage 0-100", val);
		c.loss_ppm = (uint32_t)(pct * 10000 + 0.5);
	} else if (!strcmp(key, "buffer") || !strcmp(key, "prio_buffer") ||
		   !strcmp(key, "ecn_k") || !strcmp(key, "trim")) {
		int thr = !strcmp(key, "ecn_k") || !strcmp(key, "trim");

		if (parse_bytes(val, &v) || (!thr && (v == PORT_OFF || v < 1514)))
			return REPLY("%s '%s': bytes (k, m, p)%s", key, val, thr ? " or off" : "");
		*(!strcmp(key, "buffer") ? &c.buffer : !strcmp(key, "prio_buffer") ? &c.prio_buffer :
		  !strcmp(key, "ecn_k") ? &c.ecn_k : &c.trim) = v;
	} else {
		return REPLY("unknown port setting '%s' (rate, delay, loss, buffer, prio_buffer, ecn_k, trim)", key);
	}
	p->cfg = c;
	return 0;
}

static int cmd_port(struct fabric *f, char **av, int ac, char *out, size_t outlen, uint64_t now)
{
	int all = ac > 1 && !strcmp(av[1], "all"), i;
	struct port scratch;

	if (ac < 4 || ac % 2)
		return REPLY("usage: port NAME|all KEY VALUE [KEY VALUE]...");
	i = all ? -1 : topo_find_port(f->t, av[1]);
	if (!all && i < 0)
		return REPLY("no port '%s' (names are FROM-TO, e.g. tor0-h1)", av[1]);
	/* All or nothing: every setting is checked on a scratch port first. */
	for (int j = 0; j < f->t->nports; j++) {
		if (all ? !is_switch_port(&f->t->ports[j]) : j != i)
			continue;
		scratch.cfg = f->ports[j].cfg;
		snprintf(scratch.name, sizeof(scratch.name), "%s", f->ports[j].name);
		for (int a = 2; a < ac; a += 2)
			if (port_setting(&scratch, av[a], av[a + 1], out, outlen))
				return -1;
	}
	for (int j = 0; j < f->t->nports; j++) {
		if (all ? !is_switch_port(&f->t->ports[j]) : j != i)
			continue;
		port_run(&f->ports[j], now);
		for (int a = 2; a < ac; a += 2)
			port_setting(&f->ports[j], av[a], av[a + 1], out, outlen);
	}
	snprintf(out, outlen, "ok");
	return 0;
}

int fabric_cmd(struct fabric *f, const char *cmd, char *out, size_t outlen, uint64_t now)
{
	char buf[512], *av[16], *save = NULL, *tok;
	int ac = 0;

	snprintf(buf, sizeof(buf), "%s", cmd);
	for (tok = strtok_r(buf, " \t\r\n", &save); tok && ac < 16; tok = strtok_r(NULL, " \t\r\n", &save))
		av[ac++] = tok;
	if (!ac)
		return REPLY("empty command");
	fabric_run(f, now);
	if (!strcmp(av[0], "link"))
		return cmd_link(f, av, ac, out, outlen, now);
	if (!strcmp(av[0], "port"))
		return cmd_port(f, av, ac, out, outlen, now);
	if (!strcmp(av[0], "reset") && ac == 1) {
		fabric_reset(f, now);
		snprintf(out, outlen, "ok");
		return 0;
	}
	return REPLY("unknown command '%s' (link, port, reset, stats, quit)", av[0]);
}

/* ---- statistics ------------------------------------------------------------ */

void fabric_write_ports(struct fabric *f, FILE *o, uint64_t now)
{
	fprintf(o, "#port\trate_bps\tdelay_ns\tup\tenq_pkts\tenq_bytes\ttx_pkts\ttx_bytes\tmarks\ttrims"
		"\tdrop_full\tdrop_prio\tdrop_down\tdrop_loss\tocc_max_bytes\tocc_mean_bytes"
		"\tocc_p99_bytes\tocc_max_pkts\tocc_mean_pkts\tocc_p99_pkts\tprio_max_bytes\twindow_ns"
		"\tdrop_loss_bytes\tdrop_loss_ctl\tdrop_loss_small\n");
	for (int i = 0; i < f->t->nports; i++) {
		struct port *p = &f->ports[i];
		struct port_occ_summary s;

		port_occ_summary(p, now, &s);
		fprintf(o, "%s\t%llu\t%llu\t%d\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu"
			"\t%llu\t%llu\t%.1f\t%llu\t%llu\t%.3f\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n",
			p->name, (unsigned long long)p->cfg.rate_bps,
			(unsigned long long)p->cfg.delay_ns, p->up,
			(unsigned long long)p->st.enq_pkts, (unsigned long long)p->st.enq_bytes,
			(unsigned long long)p->st.tx_pkts, (unsigned long long)p->st.tx_bytes,
			(unsigned long long)p->st.marks, (unsigned long long)p->st.trims,
			(unsigned long long)p->st.drop_full, (unsigned long long)p->st.drop_prio,
			(unsigned long long)p->st.drop_down, (unsigned long long)p->st.drop_loss,
			(unsigned long long)s.max_bytes, s.mean_bytes, (unsigned long long)s.p99_bytes,
			(unsigned long long)s.max_pkts, s.mean_pkts, (unsigned long long)s.p99_pkts,
			(unsigned long long)s.prio_max_bytes, (unsigned long long)s.window_ns,
			(unsigned long long)p->st.drop_loss_bytes,
			(unsigned long long)p->st.drop_loss_ctl,
			(unsigned long long)p->st.drop_loss_small);
	}
}

void fabric_write_switches(struct fabric *f, FILE *o)
{
	fprintf(o, "#switch\trx_pkts\tdrop_not_ip\tdrop_malformed\tdrop_no_route\tdrop_ttl\tdrop_no_buf\n");
	for (int s = 0; s < f->t->nsw; s++)
		fprintf(o, "%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n", f->t->sw[s].name,
			(unsigned long long)f->sws[s].rx_pkts,
			(unsigned long long)f->sws[s].drop_not_ip,
			(unsigned long long)f->sws[s].drop_malformed,
			(unsigned long long)f->sws[s].drop_no_route,
			(unsigned long long)f->sws[s].drop_ttl,
			(unsigned long long)(s == 0 ? f->drop_no_buf : 0));
}
