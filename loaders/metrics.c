// SPDX-License-Identifier: GPL-2.0-only
/*
 * edgeq metrics: everything `status --json` shows, in Prometheus's text
 * exposition format (version 0.0.4), for node_exporter's textfile
 * collector or any scrape that runs a command.  Each attachment is read
 * once into memory, then printed family by family: the format wants all
 * samples of one metric together, after its HELP and TYPE.
 *
 * Per-peer series are per underlay peer (snapshot.h), labelled with its
 * address; edgeq_prefix_info maps prefixes to peers.
 */
#include <stdio.h>
#include <string.h>
#include "agent_fields.h"
#include "cmd.h"
#include "snapshot.h"
#include "stats.h"

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
static void sample(const char *name, const struct eq_snap_att *t, const char *k1, const char *v1,
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

static void print_attachments(const struct eq_snap *all)
{
	char name[128], help[256], port[8], node[8];

	family("edgeq_attachment_info", "gauge",
	       "An attachment of edgeq to an interface (1), its settings as labels.");
	for (int i = 0; i < all->n; i++) {
		const struct eq_snap_att *t = &all->a[i];
		char l4[EQ_ADDRSTRLEN] = "", l6[EQ_ADDRSTRLEN] = "";

		if (t->c.flags & EQ_CFG_HAS_V4)
			eq_addr_format(&t->c.local4, l4, sizeof(l4));
		if (t->c.flags & EQ_CFG_HAS_V6)
			eq_addr_format(&t->c.local6, l6, sizeof(l6));
		snprintf(port, sizeof(port), "%u", t->c.port);
		snprintf(node, sizeof(node), "%u", t->c.node_id);
		printf("edgeq_attachment_info{");
		label("interface", t->ifname, false);
		label("scheme", eq_scheme_name(t->c.scheme), true);
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
		const struct eq_snap_att *t = &all->a[i];

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

static void print_agents(const struct eq_snap *all)
{
	const char *const *cnames = eq_agent_counter_names, *const *snames = eq_agent_socket_counter_names,
		   *const *socks = eq_agent_socket_names;
	char name[128], help[256];

	/* The pid is a value of its own, not a label of agent_up: a restart
	 * would otherwise end one series and start another. */
	family("edgeq_agent_up", "gauge",
	       "1 when the attachment's agent is alive (heartbeat within agent_dead_ms).");
	for (int i = 0; i < all->n; i++)
		if (all->a[i].eqds)
			sample("edgeq_agent_up", &all->a[i], NULL, NULL, NULL, NULL, all->a[i].alive);
	family("edgeq_agent_pid", "gauge", "The live agent's process id.");
	for (int i = 0; i < all->n; i++)
		if (all->a[i].alive)
			sample("edgeq_agent_pid", &all->a[i], NULL, NULL, NULL, NULL, all->a[i].ag.pid);
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
			const struct eq_snap_att *t = &all->a[i];
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
			const struct eq_snap_att *t = &all->a[i];

			if (!t->eqds || !t->ag.started_ns)
				continue;
			for (int s = 0; s < EQ_XSK_MAX; s++)
				sample(name, t, "socket", socks[s], NULL, NULL,
				       (double)((const __u64 *)&t->ag.xsk[s])[k]);
		}
	}
}

/* Each scheme's own per-peer state (eq_<scheme>_peers), field by field,
 * as its map's BTF names them: edgeq_peer_<scheme>_<field>.  Untyped: the
 * BTF says what a field is called, not whether it counts or measures. */
static void print_scheme_peers(const struct eq_snap *all)
{
	char name[128], help[160];

	for (__u32 sc = 0; sc < EQ_SCHEME_IDS; sc++) {
		const struct eq_btf_value *v = NULL;

		for (int i = 0; i < all->n && !v; i++)
			v = all->a[i].own[sc];
		for (uint32_t k = 0; v && k < v->n; k++) {
			snprintf(name, sizeof(name), "edgeq_peer_%s_%s", eq_scheme_name(sc), v->f[k].name);
			snprintf(help, sizeof(help), "The scheme %s's own per-peer %s (eq_%s_peers).",
				 eq_scheme_name(sc), v->f[k].name, eq_scheme_name(sc));
			family(name, "untyped", help);
			for (int i = 0; i < all->n; i++) {
				const struct eq_btf_value *fv = all->a[i].own[sc];

				for (__u32 j = 0; fv && j < all->a[i].npeers; j++) {
					const struct eq_snap_peer *p = &all->a[i].peers[j];

					for (uint32_t x = 0; p->own && p->scheme == sc && x < fv->n; x++)
						if (!strcmp(fv->f[x].name, v->f[k].name))
							sample(name, &all->a[i], "peer", p->via, NULL, NULL,
							       fv->f[x].is_signed ?
							       (double)eq_btf_field_get(p->own, &fv->f[x]) :
							       (double)(unsigned long long)
							       eq_btf_field_get(p->own, &fv->f[x]));
				}
			}
		}
	}
}

static void print_peers(const struct eq_snap *all)
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
			const struct eq_snap_prefix *pr = &all->a[i].prefixes[j];

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
			const struct eq_snap_peer *p = &all->a[i].peers[j];

			snprintf(slot, sizeof(slot), "%u", p->slot);
			printf("edgeq_peer_info{");
			label("interface", all->a[i].ifname, false);
			label("peer", p->via, true);
			label("scheme", eq_scheme_name(p->scheme), true);
			label("slot", slot, true);
			printf("} 1\n");
		}
	for (size_t k = 0; k < sizeof(bpf) / sizeof(bpf[0]); k++) {
		family(bpf[k].name, "counter", bpf[k].help);
		for (int i = 0; i < all->n; i++)
			for (__u32 j = 0; j < all->a[i].npeers; j++) {
				const struct eq_snap_peer *p = &all->a[i].peers[j];
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
				const struct eq_snap_peer *p = &all->a[i].peers[j];
				long long v;

				if (!p->has_agent)
					continue;
				v = eq_agent_field_get(&p->a, f);
				sample(name, &all->a[i], "peer", p->via, NULL, NULL,
				       (f->type == EQ_FIELD_U64 ? (double)(unsigned long long)v
								: (double)v) * f->scale);
			}
	}
	print_scheme_peers(all);
}

int cmd_metrics(const struct eq_opts *o)
{
	struct eq_snap all;
	int rc = eq_snap_read(o->ifname, &all);

	if (rc < 0)
		return eq_not_attached(o->ifname);
	/* A reader must not take a partial exposition for a whole one. */
	if (!rc) {
		print_attachments(&all);
		print_agents(&all);
		print_peers(&all);
	}
	eq_snap_free(&all);
	return rc ? 1 : 0;
}
