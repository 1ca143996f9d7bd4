// SPDX-License-Identifier: GPL-2.0-only
/*
 * edgeq metrics: everything `status --json` shows, in Prometheus's text
 * exposition format (version 0.0.4), for node_exporter's textfile
 * collector or any scrape that runs a command.  Each attachment is read
 * once into memory, then printed family by family: the format wants all
 * samples of one metric together, after its HELP and TYPE.
 *
 * Per-peer series are per underlay peer (a peer slot), labelled with its
 * address: the counters are the slot's, so a series per overlay prefix
 * would count a peer with two prefixes twice.  edgeq_prefix_info maps
 * prefixes to peers.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "addr.h"
#include "agent_fields.h"
#include "cmd.h"
#include "peers.h"
#include "stats.h"

struct peer_row {
	__u32			slot;
	char			via[EQ_ADDRSTRLEN];
	bool			plain;		/* scheme none beside an agent */
	bool			has_agent;	/* a's fields were read */
	struct eq_peer		p;
	struct eq_peer_stats	st;
	struct eq_agent_peer	a;
};

struct prefix_row {
	char	prefix[EQ_PREFIXSTRLEN];
	char	via[EQ_ADDRSTRLEN];
	const char *route;
};

struct att {
	char		ifname[IF_NAMESIZE + 1];
	struct eq_config c;
	struct eq_stats	s;
	struct eq_agent	ag;
	__u64		age_ns;
	bool		eqds, alive, here, tc, xdp;
	struct peer_row	*peers;
	__u32		npeers;
	struct prefix_row *prefixes;
	__u32		nprefixes, cap_prefixes;
};

struct all {
	struct att	*a;
	int		n, cap;
};

struct reading {
	struct att	*t;
	const struct eq_maps *m;
	int		agent_peers;
	bool		seen[EQ_MAX_PEERS];
};

static int read_prefix(const struct eq_prefix_key *k, const struct eq_prefix_val *v, void *arg)
{
	struct reading *r = arg;
	struct att *t = r->t;
	struct prefix_row *pr;
	struct peer_row *row;

	if (t->nprefixes == t->cap_prefixes) {
		__u32 cap = t->cap_prefixes ? 2 * t->cap_prefixes : 16;
		void *n = realloc(t->prefixes, cap * sizeof(*t->prefixes));

		if (!n)
			return -ENOMEM;
		t->prefixes = n;
		t->cap_prefixes = cap;
	}
	pr = &t->prefixes[t->nprefixes++];
	eq_prefix_format(k, pr->prefix, sizeof(pr->prefix));
	pr->route = v->flags & EQ_PFX_ROUTE_ADDED ? "added" :
		    v->flags & EQ_PFX_ROUTE_MTU ? "mtu-set" : "kept";
	if (v->peer >= EQ_MAX_PEERS)
		return 0;
	if (!r->seen[v->peer]) {
		r->seen[v->peer] = true;
		row = &t->peers[t->npeers++];
		memset(row, 0, sizeof(*row));
		row->slot = v->peer;
		bpf_map_lookup_elem(r->m->peers, &v->peer, &row->p);
		eq_peer_stats_sum(r->m->peer_stats, v->peer, &row->st);
		eq_addr_format(&row->p.underlay, row->via, sizeof(row->via));
		row->plain = (row->p.flags & EQ_PEER_PLAIN) || r->agent_peers < 0;
		row->has_agent = !row->plain &&
				 !bpf_map_lookup_elem(r->agent_peers, &v->peer, &row->a);
	}
	for (__u32 i = 0; i < t->npeers; i++)
		if (t->peers[i].slot == v->peer)
			memcpy(pr->via, t->peers[i].via, sizeof(pr->via));
	return 0;
}

/* One attachment into memory: what status's show_one() reads. */
static int read_attachment(const char *dir, const char *entry, bool first, void *arg)
{
	struct all *all = arg;
	const char *at = strrchr(entry, '@');
	struct reading *r;
	struct eq_maps m;
	struct att *t;
	char path[600];
	int rc;

	if (all->n == all->cap) {
		int cap = all->cap ? 2 * all->cap : 4;
		void *n = realloc(all->a, (size_t)cap * sizeof(*all->a));

		if (!n)
			return 1;
		all->a = n;
		all->cap = cap;
	}
	t = &all->a[all->n];
	memset(t, 0, sizeof(*t));
	eq_pin_ifname(entry, t->ifname, sizeof(t->ifname));
	rc = eq_maps_open(dir, &m);
	if (rc) {
		eq_err("%s: incomplete state at %s (%s); 'edgeq detach %s' cleans it", t->ifname, dir,
		       strerror(-rc), t->ifname);
		return 1;
	}
	eq_config_read(&m, &t->c);
	eq_stats_sum(m.stats, &t->s);
	t->here = at ? strtoull(at + 3, NULL, 10) == eq_netns_ino() : eq_netns_is_init();
	if (t->here && if_nametoindex(t->ifname) == t->c.ifindex) {
		t->tc = eq_hook_live(dir, EQ_PIN_PROG_TC, (int)t->c.ifindex, &t->c);
		t->xdp = eq_hook_live(dir, EQ_PIN_PROG_XDP, (int)t->c.ifindex, &t->c);
	}
	t->eqds = t->c.scheme == EQ_SCHEME_EQDS;
	t->alive = t->eqds && eq_agent_state(dir, &t->c, &t->ag, &t->age_ns);
	t->peers = calloc(EQ_MAX_PEERS, sizeof(*t->peers));
	r = calloc(1, sizeof(*r));
	if (!t->peers || !r) {
		free(r);
		eq_maps_close(&m);
		return 1;
	}
	r->t = t;
	r->m = &m;
	r->agent_peers = -1;
	if (t->eqds && !eq_path(path, sizeof(path), dir, EQ_MAP_AGENT_PEERS))
		r->agent_peers = bpf_obj_get(path);
	rc = eq_prefix_foreach(&m, read_prefix, r);
	if (r->agent_peers >= 0)
		close(r->agent_peers);
	free(r);
	eq_maps_close(&m);
	all->n++;
	(void)first;
	return rc ? 1 : 0;
}

/* A label value as the format wants it: \, " and newline escaped. */
static void label(const char *name, const char *v, bool comma)
{
	printf("%s%s=\"", comma ? "," : "", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			printf("\\%c", *v);
		else if (*v == '\n')
			printf("\\n");
		else
			putchar(*v);
	}
	putchar('"');
}

static void family(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One sample: name{interface="...",<extra>} value. */
static void sample(const char *name, const struct att *t, const char *k1, const char *v1,
		   const char *k2, const char *v2, double value)
{
	printf("%s{", name);
	label("interface", t->ifname, false);
	if (k1)
		label(k1, v1, true);
	if (k2)
		label(k2, v2, true);
	printf("} %.15g\n", value);
}

static void print_attachments(const struct all *all)
{
	char name[128], help[256], port[8], node[8];

	family("edgeq_attachment_info", "gauge",
	       "An attachment of edgeq to an interface (1), its settings as labels.");
	for (int i = 0; i < all->n; i++) {
		const struct att *t = &all->a[i];
		char l4[EQ_ADDRSTRLEN] = "", l6[EQ_ADDRSTRLEN] = "";

		if (t->c.flags & EQ_CFG_HAS_V4)
			eq_addr_format(&t->c.local4, l4, sizeof(l4));
		if (t->c.flags & EQ_CFG_HAS_V6)
			eq_addr_format(&t->c.local6, l6, sizeof(l6));
		snprintf(port, sizeof(port), "%u", t->c.port);
		snprintf(node, sizeof(node), "%u", t->c.node_id);
		printf("edgeq_attachment_info{");
		label("interface", t->ifname, false);
		label("scheme", t->eqds ? "eqds" : "none", true);
		label("xdp_mode", t->c.xdp_mode == EQ_XDP_NATIVE ? "native" :
				  t->c.xdp_mode == EQ_XDP_GENERIC ? "generic" : "none", true);
		label("local4", l4, true);
		label("local6", l6, true);
		label("port", port, true);
		label("node_id", node, true);
		label("entropy", t->c.entropy ? "packet" : "flow", true);
		printf("} 1\n");
	}
	family("edgeq_attachment_complete", "gauge",
	       "1 when the attach finished; 0: half attached (edgeq attach again, or detach).");
	for (int i = 0; i < all->n; i++)
		sample("edgeq_attachment_complete", &all->a[i], NULL, NULL, NULL, NULL,
		       (all->a[i].c.flags & EQ_CFG_COMPLETE) ? 1 : 0);
	family("edgeq_hook_attached", "gauge",
	       "1 when the hook's program is attached to the interface (seen from this network namespace only).");
	for (int i = 0; i < all->n; i++) {
		const struct att *t = &all->a[i];

		if (!t->here)
			continue;
		sample("edgeq_hook_attached", t, "hook", "tc_egress", NULL, NULL, t->tc);
		sample("edgeq_hook_attached", t, "hook", "xdp_ingress", NULL, NULL, t->xdp);
	}
	family("edgeq_mtu_bytes", "gauge", "The tunnel's wire MTU.");
	for (int i = 0; i < all->n; i++)
		sample("edgeq_mtu_bytes", &all->a[i], NULL, NULL, NULL, NULL, all->a[i].c.mtu);
	family("edgeq_link_rate_bytes_per_second", "gauge",
	       "The link rate the pacers use (link_rate, in bytes as Prometheus's base unit).");
	for (int i = 0; i < all->n; i++)
		sample("edgeq_link_rate_bytes_per_second", &all->a[i], NULL, NULL, NULL, NULL,
		       all->a[i].c.link_rate_bps / 8.0);
	for (size_t k = 0; k < eq_stat_count; k++) {
		snprintf(name, sizeof(name), "edgeq_%s_total", eq_stat_names[k]);
		snprintf(help, sizeof(help),
			 "The BPF programs' counter %s, summed over CPUs (README.md, 'Observing state').",
			 eq_stat_names[k]);
		family(name, "counter", help);
		for (int i = 0; i < all->n; i++)
			sample(name, &all->a[i], NULL, NULL, NULL, NULL,
			       (double)eq_stat_get(&all->a[i].s, k));
	}
}

static void print_agents(const struct all *all)
{
	const char *const *cnames = eq_agent_counter_names, *const *snames = eq_agent_socket_counter_names,
		   *const *socks = eq_agent_socket_names;
	char name[128], help[256], pid[16];

	family("edgeq_agent_up", "gauge",
	       "1 when the attachment's agent is alive (heartbeat within agent_dead_ms).");
	for (int i = 0; i < all->n; i++) {
		const struct att *t = &all->a[i];

		snprintf(pid, sizeof(pid), "%u", t->alive ? t->ag.pid : 0);
		if (t->eqds)
			sample("edgeq_agent_up", t, "pid", pid, NULL, NULL, t->alive);
	}
	family("edgeq_agent_heartbeat_age_seconds", "gauge", "Time since the agent's last heartbeat.");
	for (int i = 0; i < all->n; i++)
		if (all->a[i].alive)
			sample("edgeq_agent_heartbeat_age_seconds", &all->a[i], NULL, NULL, NULL, NULL,
			       all->a[i].age_ns / 1e9);
	family("edgeq_agent_wire_queues", "gauge", "Receive queues the agent takes tunnel traffic from.");
	for (int i = 0; i < all->n; i++)
		if (all->a[i].eqds && all->a[i].ag.started_ns)
			sample("edgeq_agent_wire_queues", &all->a[i], NULL, NULL, NULL, NULL,
			       all->a[i].ag.wire_queues ? all->a[i].ag.wire_queues : 1);
	for (size_t k = 0; k < EQ_AGENT_COUNTERS; k++) {
		snprintf(name, sizeof(name), "edgeq_agent_%s_total", cnames[k]);
		snprintf(help, sizeof(help), "The agent's counter %s (README.md, 'Observing state').",
			 cnames[k]);
		family(name, "counter", help);
		for (int i = 0; i < all->n; i++) {
			const struct att *t = &all->a[i];
			const __u64 *c = (const __u64 *)&t->ag.cnt;

			if (t->eqds && t->ag.started_ns)
				sample(name, t, NULL, NULL, NULL, NULL, (double)c[k]);
		}
	}
	for (size_t k = 0; k < EQ_AGENT_SOCKET_COUNTERS; k++) {
		snprintf(name, sizeof(name), "edgeq_agent_socket_%s_total", snames[k]);
		snprintf(help, sizeof(help),
			 "The agent's AF_XDP sockets: %s (the kernel's XDP_STATISTICS, or the agent's count).",
			 snames[k]);
		family(name, "counter", help);
		for (int i = 0; i < all->n; i++) {
			const struct att *t = &all->a[i];

			if (!t->eqds || !t->ag.started_ns)
				continue;
			for (int s = 0; s < EQ_XSK_MAX; s++)
				sample(name, t, "socket", socks[s], NULL, NULL,
				       (double)((const __u64 *)&t->ag.xsk[s])[k]);
		}
	}
}

static void print_peers(const struct all *all)
{
	static const struct { const char *name, *help; size_t off; } bpf[] = {
		{ "edgeq_peer_tx_packets_total", "Packets TC tunnelled to the peer (segments).",
		  offsetof(struct eq_peer_stats, tx_packets) },
		{ "edgeq_peer_tx_bytes_total", "Inner bytes TC tunnelled to the peer.",
		  offsetof(struct eq_peer_stats, tx_bytes) },
		{ "edgeq_peer_rx_packets_total", "Packets from the peer delivered to the stack.",
		  offsetof(struct eq_peer_stats, rx_packets) },
		{ "edgeq_peer_rx_bytes_total", "Inner bytes from the peer delivered to the stack.",
		  offsetof(struct eq_peer_stats, rx_bytes) },
		{ "edgeq_peer_rx_ce_total", "Packets from the peer that arrived CE-marked.",
		  offsetof(struct eq_peer_stats, rx_ce) },
	};
	char name[128], slot[16];

	family("edgeq_prefix_info", "gauge", "An overlay prefix (1) and the underlay peer it goes via.");
	for (int i = 0; i < all->n; i++)
		for (__u32 j = 0; j < all->a[i].nprefixes; j++) {
			const struct prefix_row *pr = &all->a[i].prefixes[j];

			printf("edgeq_prefix_info{");
			label("interface", all->a[i].ifname, false);
			label("prefix", pr->prefix, true);
			label("peer", pr->via, true);
			label("route", pr->route, true);
			printf("} 1\n");
		}
	family("edgeq_peer_info", "gauge", "An underlay peer (1): its scheme and slot.");
	for (int i = 0; i < all->n; i++)
		for (__u32 j = 0; j < all->a[i].npeers; j++) {
			const struct peer_row *p = &all->a[i].peers[j];

			snprintf(slot, sizeof(slot), "%u", p->slot);
			printf("edgeq_peer_info{");
			label("interface", all->a[i].ifname, false);
			label("peer", p->via, true);
			label("scheme", p->plain ? "none" : "eqds", true);
			label("slot", slot, true);
			printf("} 1\n");
		}
	for (size_t k = 0; k < sizeof(bpf) / sizeof(bpf[0]); k++) {
		family(bpf[k].name, "counter", bpf[k].help);
		for (int i = 0; i < all->n; i++)
			for (__u32 j = 0; j < all->a[i].npeers; j++) {
				const struct peer_row *p = &all->a[i].peers[j];
				__u64 v;

				memcpy(&v, (const char *)&p->st + bpf[k].off, sizeof(v));
				sample(bpf[k].name, &all->a[i], "peer", p->via, NULL, NULL, (double)v);
			}
	}
	family("edgeq_peer_tx_seq", "gauge", "The next sequence number TC stamps (wraps at 2^32).");
	for (int i = 0; i < all->n; i++)
		for (__u32 j = 0; j < all->a[i].npeers; j++)
			sample("edgeq_peer_tx_seq", &all->a[i], "peer", all->a[i].peers[j].via, NULL,
			       NULL, all->a[i].peers[j].p.tx_seq);
	family("edgeq_peer_rx_seq_next", "gauge",
	       "The next sequence number XDP expects from the peer (wraps at 2^32).");
	for (int i = 0; i < all->n; i++)
		for (__u32 j = 0; j < all->a[i].npeers; j++)
			sample("edgeq_peer_rx_seq_next", &all->a[i], "peer", all->a[i].peers[j].via,
			       NULL, NULL, all->a[i].peers[j].p.rx_seq_next);
	/* The agent's per-peer state (scheme eqds), field by field. */
	for (size_t k = 0; k < eq_agent_field_count; k++) {
		const struct eq_agent_field *f = &eq_agent_fields[k];

		snprintf(name, sizeof(name), "edgeq_peer_%s", f->metric);
		family(name, f->kind == EQ_FIELD_COUNTER ? "counter" : "gauge", f->help);
		for (int i = 0; i < all->n; i++)
			for (__u32 j = 0; j < all->a[i].npeers; j++) {
				const struct peer_row *p = &all->a[i].peers[j];
				long long v;

				if (!p->has_agent)
					continue;
				v = eq_agent_field_get(&p->a, f);
				sample(name, &all->a[i], "peer", p->via, NULL, NULL,
				       (f->type == EQ_FIELD_U64 ? (double)(unsigned long long)v
								: (double)v) * f->scale);
			}
	}
}

int cmd_metrics(const struct eq_opts *o)
{
	struct all all = { 0 };
	int n, rc;

	rc = eq_attachments_foreach(o->ifname, read_attachment, &all, &n);
	if (rc < 0)
		return eq_not_attached(o->ifname);
	/* A reader must not take a partial exposition for a whole one. */
	if (!rc) {
		print_attachments(&all);
		print_agents(&all);
		print_peers(&all);
	}
	for (int i = 0; i < all.n; i++) {
		free(all.a[i].peers);
		free(all.a[i].prefixes);
	}
	free(all.a);
	return rc ? 1 : 0;
}
