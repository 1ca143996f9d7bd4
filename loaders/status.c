// SPDX-License-Identifier: GPL-2.0-only
/*
 * edgeq status: what bpftool shows of the pinned maps, plus what it cannot
 * derive: which hooks are live, per-peer figures joined with their
 * prefixes, and counters summed over CPUs.  --json for scripts, written
 * through jansson: an interface name may hold a quote or a backslash.
 */
#include <errno.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <jansson.h>
#include "addr.h"
#include "agent_fields.h"
#include "scheme_state.h"
#include "cmd.h"
#include "peers.h"
#include "stats.h"

struct view {
	const struct eq_maps *m;
	json_t *peers;		/* --json: the attachment's "peers" array; NULL: text */
	bool first;
	int agent_peers;	/* eq_agent_peers, or -1 */
	const struct eq_config *c;
	struct eq_scheme_maps own;	/* each scheme's own state (scheme_state.h) */
};

/* What the peer's scheme keeps of its own, printed from its map's BTF:
 * into obj's member named after the scheme (--json), or one text line of
 * its fields. */
static void show_scheme_peer(struct view *vw, __u32 slot, __u32 scheme, json_t *obj)
{
	_Alignas(8) unsigned char val[EQ_SCHEME_VALUE_MAX];
	const struct eq_btf_value *v = eq_scheme_own(&vw->own, scheme, slot, val);

	if (!v)
		return;
	if (obj) {
		json_t *o = json_object();

		for (uint32_t i = 0; i < v->n; i++)
			json_object_set_new(o, v->f[i].name, json_integer(eq_btf_field_get(val, &v->f[i])));
		json_object_set_new(obj, eq_scheme_name(scheme), o);
		return;
	}
	printf("      %s:", eq_scheme_name(scheme));
	for (uint32_t i = 0; i < v->n; i++)
		printf("%s %s %lld", i ? "," : "", v->f[i].name, eq_btf_field_get(val, &v->f[i]));
	printf("\n");
}

/* --json: {"interfaces": [...]}, each attachment appended by show_one(). */
static json_t *interfaces;

static json_t *u64(unsigned long long v)
{
	return json_integer((json_int_t)v);
}

/* A JSON string of a name the kernel took: any bytes but '/' and NUL, so
 * perhaps not UTF-8, which JSON needs: such bytes become '?'. */
static json_t *name_json(const char *name)
{
	json_t *j = json_string(name);
	char buf[512];
	size_t i;

	if (j)
		return j;
	for (i = 0; name[i] && i < sizeof(buf) - 1; i++)
		buf[i] = (unsigned char)name[i] < 0x80 ? name[i] : '?';
	buf[i] = '\0';
	return json_string(buf);
}

/* The agent's view of a peer slot, when the attachment has one: into
 * obj's "agent" with --json. */
static void show_agent_peer(const struct view *vw, __u32 slot, json_t *obj)
{
	struct eq_agent_peer a = {};

	if (vw->agent_peers < 0 || bpf_map_lookup_elem(vw->agent_peers, &slot, &a))
		return;
	if (obj) {
		json_t *agent = json_object();

		for (size_t i = 0; i < eq_agent_field_count; i++)
			json_object_set_new(agent, eq_agent_fields[i].json,
					    json_integer(eq_agent_field_get(&a, &eq_agent_fields[i])));
		json_object_set_new(obj, "agent", agent);
		return;
	}
	static const char *const states[] = { "closed", "syn-sent", "established" };

	printf("      agent: tunnel %s, BDP %u B (srtt %u us), credit %lld B (%llu B lent to TC), backlog %u pkts, in flight "
	       "%llu B; sent %llu (%llu by TC's fast path, %llu retransmitted, %llu NACKs, %llu RTOs, "
	       "%llu RSTs taken, receiver silent %llu times), edge drops %llu marks %llu; received %llu (%llu delivered by XDP, %llu trimmed, "
	       "%llu dup, %llu out of order, %llu gaps, %llu NACKed lost of which %llu came late, %llu NACKs again); "
	       "refused %llu acks, %llu RSTs, %llu DATA, %llu SYNs\n",
	       a.tx_state < 3 ? states[a.tx_state] : "?", a.bdp, a.srtt_us, (long long)a.credit,
	       (unsigned long long)a.lease_bytes, a.backlog_pkts,
	       (unsigned long long)a.inflight_bytes, (unsigned long long)a.tx_data,
	       (unsigned long long)a.tx_fast,
	       (unsigned long long)a.tx_rtx, (unsigned long long)a.rx_nacks,
	       (unsigned long long)a.rto_fired,
	       (unsigned long long)a.rsts, (unsigned long long)a.peer_silent, (unsigned long long)a.edge_drops, (unsigned long long)a.edge_marks,
	       (unsigned long long)a.rx_data, (unsigned long long)a.rx_direct,
	       (unsigned long long)a.rx_trimmed,
	       (unsigned long long)a.rx_dup, (unsigned long long)a.rx_ooo,
	       (unsigned long long)a.reorder_gaps, (unsigned long long)a.rx_lost,
	       (unsigned long long)a.rx_late, (unsigned long long)a.rx_relost,
	       (unsigned long long)a.bad_ack, (unsigned long long)a.bad_rst,
	       (unsigned long long)a.rx_bad_seq, (unsigned long long)a.rx_bad_epoch);
}

/* A keyed peer's keys (auth.h), by id, never their bytes: into obj's
 * "keys" (--json) or a text line. */
static void show_keys(const struct view *vw, __u32 slot, const struct eq_peer *p, json_t *obj)
{
	struct eq_peer_keys k;
	char line[64] = "";

	if (!(p->flags & EQ_PEER_KEYED) || vw->m->keys < 0 ||
	    bpf_map_lookup_elem(vw->m->keys, &slot, &k))
		return;
	json_t *ids = obj ? json_array() : NULL;

	for (int i = 0; i < 2; i++) {
		if (!(k.valid & (1u << i)))
			continue;
		if (ids)
			json_array_append_new(ids, json_integer(k.id[i]));
		else
			snprintf(line + strlen(line), sizeof(line) - strlen(line), "%skey %u %s",
				 line[0] ? ", " : "", k.id[i], i == (k.tx & 1) ? "signs" : "accepted");
	}
	if (obj)
		json_object_set_new(obj, "keys", json_pack("{s:o, s:I}", "ids", ids, "signs",
							  (json_int_t)k.id[k.tx & 1]));
	else
		printf("      headers signed and checked: %s\n", line);
}

static int show_prefix(const struct eq_prefix_key *k, const struct eq_prefix_val *v, void *arg)
{
	struct view *vw = arg;
	char pfx[EQ_PREFIXSTRLEN], via[EQ_ADDRSTRLEN];
	struct eq_peer p = {};
	struct eq_peer_stats c = {};

	bpf_map_lookup_elem(vw->m->peers, &v->peer, &p);
	eq_peer_stats_sum(vw->m->peer_stats, v->peer, &c);
	__u32 sc = eq_peer_scheme(&p, vw->c);
	eq_prefix_format(k, pfx, sizeof(pfx));
	eq_addr_format(&p.underlay, via, sizeof(via));
	if (vw->peers) {
		json_t *o = json_pack("{s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:s, s:s}",
				      "prefix", pfx, "via", via, "slot", (json_int_t)v->peer,
				      "tx_packets", u64(c.tx_packets), "tx_bytes", u64(c.tx_bytes),
				      "rx_packets", u64(c.rx_packets), "rx_bytes", u64(c.rx_bytes),
				      "rx_ce", u64(c.rx_ce), "tx_seq", (json_int_t)p.tx_seq,
				      "rx_seq_next", (json_int_t)p.rx_seq_next, "route",
				      v->flags & EQ_PFX_ROUTE_ADDED ? "added" :
				      v->flags & EQ_PFX_ROUTE_MTU ? "mtu-set" : "kept",
				      "scheme", eq_scheme_name(sc));

		show_keys(vw, v->peer, &p, o);
		if (sc != EQ_SCHEME_NONE) {
			show_agent_peer(vw, v->peer, o);
			show_scheme_peer(vw, v->peer, sc, o);
		}
		json_array_append_new(vw->peers, o);
	} else {
		printf("    %-24s %-18s %10llu %12llu %10llu %12llu %6llu  %s\n", pfx, via,
		       (unsigned long long)c.tx_packets, (unsigned long long)c.tx_bytes,
		       (unsigned long long)c.rx_packets, (unsigned long long)c.rx_bytes,
		       (unsigned long long)c.rx_ce,
		       v->flags & EQ_PFX_ROUTE_ADDED ? "added" : v->flags & EQ_PFX_ROUTE_MTU ? "mtu-set" : "kept");
		show_keys(vw, v->peer, &p, NULL);
		if (sc == EQ_SCHEME_NONE) {
			if (vw->agent_peers >= 0)
				printf("      scheme none: the plain tunnel, not the agent\n");
		} else {
			show_agent_peer(vw, v->peer, NULL);
			show_scheme_peer(vw, v->peer, sc, NULL);
		}
	}
	vw->first = false;
	return 0;
}

/* The agent's own counters and its sockets', as published with its
 * heartbeat (eq_agent): members of obj (--json), or text lines (the
 * non-zero ones). */
static void show_agent_counters(const struct eq_agent *ag, json_t *obj)
{
	const char *const *cnames = eq_agent_counter_names, *const *snames = eq_agent_socket_counter_names,
		   *const *socks = eq_agent_socket_names;
	const __u64 *c = (const __u64 *)&ag->cnt;
	char wire[32];

	if (obj) {
		json_t *cnt = json_object(), *sockets = json_object();

		for (size_t i = 0; i < EQ_AGENT_COUNTERS; i++)
			json_object_set_new(cnt, cnames[i], u64(c[i]));
		for (int k = 0; k < EQ_XSK_MAX; k++) {
			const __u64 *x = (const __u64 *)&ag->xsk[k];
			json_t *sock = json_object();

			for (size_t i = 0; i < EQ_AGENT_SOCKET_COUNTERS; i++)
				json_object_set_new(sock, snames[i], u64(x[i]));
			json_object_set_new(sockets, socks[k], sock);
		}
		json_object_set_new(obj, "agent_counters", cnt);
		json_object_set_new(obj, "agent_sockets", sockets);
		json_object_set_new(obj, "agent_wire_queues", json_integer(ag->wire_queues));
		return;
	}
	snprintf(wire, sizeof(wire), "wire (%u queue%s)", ag->wire_queues ? ag->wire_queues : 1,
		 ag->wire_queues > 1 ? "s" : "");
	printf("  agent counters (non-zero):");
	for (size_t i = 0; i < EQ_AGENT_COUNTERS; i++)
		if (c[i])
			printf(" %s %llu", cnames[i], (unsigned long long)c[i]);
	printf("\n");
	for (int k = 0; k < EQ_XSK_MAX; k++) {
		const __u64 *x = (const __u64 *)&ag->xsk[k];

		printf("  socket   %s", k == EQ_XSK_WIRE ? wire : socks[k]);
		for (size_t i = 0; i < EQ_AGENT_SOCKET_COUNTERS; i++)
			if (x[i] || i < 2)
				printf(" %s %llu", snames[i], (unsigned long long)x[i]);
		printf("\n");
	}
}

bool eq_hook_live(const char *dir, const char *name, int ifindex, const struct eq_config *c)
{
	char path[512];
	int fd;
	bool live;

	if (eq_path(path, sizeof(path), dir, name))
		return false;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	live = strcmp(name, EQ_PIN_PROG_TC) ? eq_xdp_is_ours(ifindex, fd) : eq_tc_is_ours(ifindex, fd, c);
	close(fd);
	return live;
}

/* Show one pin directory; entry is its name under the pin root. */
static int show_one(const char *dir, const char *entry, bool json, bool first)
{
	char ifname[IF_NAMESIZE + 1], l4[EQ_ADDRSTRLEN] = "-", l6[EQ_ADDRSTRLEN] = "-";
	struct eq_config c = {};
	struct eq_stats s = {};
	struct eq_maps m;
	const char *at = strrchr(entry, '@');
	bool here = at ? strtoull(at + 3, NULL, 10) == eq_netns_ino() : eq_netns_is_init();
	bool tc = false, xdp = false;
	int rc;

	eq_pin_ifname(entry, ifname, sizeof(ifname));
	rc = eq_maps_open(dir, &m);
	if (rc) {
		eq_err("%s: incomplete state at %s (%s); 'edgeq detach %s' cleans it", ifname, dir,
		       strerror(-rc), ifname);
		return 1;
	}
	eq_config_read(&m, &c);
	eq_stats_sum(m.stats, &s);
	if (here && if_nametoindex(ifname) == c.ifindex) {
		tc = eq_hook_live(dir, EQ_PIN_PROG_TC, (int)c.ifindex, &c);
		xdp = eq_hook_live(dir, EQ_PIN_PROG_XDP, (int)c.ifindex, &c);
	}
	if (c.flags & EQ_CFG_HAS_V4)
		eq_addr_format(&c.local4, l4, sizeof(l4));
	if (c.flags & EQ_CFG_HAS_V6)
		eq_addr_format(&c.local6, l6, sizeof(l6));
	const char *mode = c.xdp_mode == EQ_XDP_NATIVE ? "native" : c.xdp_mode == EQ_XDP_GENERIC ? "generic" : "none";
	const char *xdp_how = (c.flags & EQ_CFG_XDP_MULTIPROG) ? "libxdp dispatcher" :
			      "alone (libxdp dispatcher not available)";
	struct view vw = { .m = &m, .first = true, .agent_peers = -1, .c = &c };
	static const char *const downs[] = { "tunnel", "pass", "drop" };
	const char *down = c.on_agent_down < 3 ? downs[c.on_agent_down] : "?";
	struct eq_agent ag = {};
	__u64 age = 0;
	bool eqds = eq_scheme_has_agent(c.scheme);
	bool alive = eqds && eq_agent_state(dir, &c, &ag, &age);
	char path[600];

	eq_scheme_maps_init(&vw.own, dir);
	if (eqds && !eq_path(path, sizeof(path), dir, EQ_MAP_AGENT_PEERS))
		vw.agent_peers = bpf_obj_get(path);

	if (json) {
		json_t *stats = json_object();
		json_t *o = json_pack("{s:o, s:o, s:I, s:o, s:b, s:b, s:b, s:s, s:b, s:b, s:s, "
				      "s:s, s:I, s:I, s:o, s:s, s:I, s:s, s:b, s:I, s:I}",
			"ifname", name_json(ifname), "pin_dir", name_json(dir), "ifindex", (json_int_t)c.ifindex,
			"netns_ino", u64(c.netns_ino), "in_this_netns", here, "tc_attached", tc,
			"xdp_attached", xdp, "xdp_mode", mode,
			"xdp_multiprog", !!(c.flags & EQ_CFG_XDP_MULTIPROG),
			"created_clsact", !!(c.flags & EQ_CFG_CREATED_CLSACT), "local4", l4, "local6", l6,
			"port", (json_int_t)c.port, "mtu", (json_int_t)c.mtu,
			"link_rate_bps", u64(c.link_rate_bps), "entropy", c.entropy ? "packet" : "flow",
			"node_id", (json_int_t)c.node_id, "scheme", eq_scheme_name(c.scheme),
			"complete", !!(c.flags & EQ_CFG_COMPLETE),
			"max_peers", (json_int_t)m.peer_slots, "max_prefixes", (json_int_t)eq_max_prefixes(&c));

		vw.peers = json_array();
		if (eqds) {
			json_t *a = json_pack("{s:I, s:b, s:I, s:f, s:s, s:s, s:I, s:I}",
				"agent_pid", (json_int_t)(alive ? ag.pid : 0), "agent_alive", alive,
				"agent_priority", (json_int_t)c.agent_priority,
				"agent_heartbeat_age_ms", age / 1e6,
				"agent_xsk_mode", ag.xsk_mode == 2 ? "zero-copy" : ag.xsk_mode == 1 ? "copy" : "none",
				"on_agent_down", down, "agent_ifindex", (json_int_t)c.agent_ifindex,
				"agent_peer_ifindex", (json_int_t)c.agent_peer_ifindex);

			json_object_update(o, a);
			json_decref(a);
			show_agent_counters(&ag, o);
		}
		eq_prefix_foreach(&m, show_prefix, &vw);
		json_object_set_new(o, "peers", vw.peers);
		for (size_t i = 0; i < eq_stat_count; i++)
			json_object_set_new(stats, eq_stat_names[i], u64(eq_stat_get(&s, i)));
		json_object_set_new(o, "stats", stats);
		json_array_append_new(interfaces, o);
	} else {
		char prio[32] = "";

		if (c.agent_priority)	/* agent_priority: docs/agent.md, "Scheduling" */
			snprintf(prio, sizeof(prio), " (SCHED_FIFO %u)", c.agent_priority);
		printf("%s%s: %s\n", first ? "" : "\n", ifname,
		       !here ? "attached in another network namespace (use --netns to see its hooks)" :
		       !(c.flags & EQ_CFG_COMPLETE) ?
		       "HALF ATTACHED: an attach was killed before it finished; 'edgeq attach' "
		       "again rolls it back, or 'edgeq detach'" :
		       tc && xdp ? "attached" : "STALE: hooks missing; 'edgeq detach' cleans up");
		printf("  pins     %s\n", dir);
		if (here)
			printf("  hooks    TC egress %s%s, XDP %s %s, %s\n", tc ? "on" : "MISSING",
			       (c.flags & EQ_CFG_CREATED_CLSACT) ? " (clsact made by edgeq)" : "",
			       mode, xdp ? "on" : "MISSING", xdp_how);
		printf("  tunnel   local %s %s, udp port %u, wire mtu %u, link %.2f Gbit/s, entropy per %s, node id %u\n",
		       l4, l6, c.port, c.mtu, c.link_rate_bps / 1e9, c.entropy ? "packet" : "flow", c.node_id);
		if (eqds && alive)
			printf("  agent    edgeqd pid %u%s, alive (heartbeat %.0f ms ago), wire socket %s; "
			       "if it stops: %s\n", ag.pid, prio, age / 1e6,
			       ag.xsk_mode == 2 ? "zero-copy" : "copy mode", down);
		else if (eqds && (c.flags & EQ_CFG_COMPLETE))
			printf("  agent    DOWN (%s): peer traffic follows on_agent_down %s; "
			       "'edgeq agent start %s'\n", ag.pid ? "heartbeat stale" : "not running",
			       down, ifname);
		else if (eqds)
			printf("  agent    not started: the attach did not get that far\n");
		if (eqds && ag.started_ns)	/* an agent ran: its last counters */
			show_agent_counters(&ag, NULL);
		printf("  peers    room for %u underlay peers (max_peers) and %u prefixes (max_prefixes)\n"
		       "    %-24s %-18s %10s %12s %10s %12s %6s  %s\n", m.peer_slots,
		       eq_max_prefixes(&c), "prefix", "via", "tx pkts", "tx bytes", "rx pkts",
		       "rx bytes", "rx CE", "route");
		eq_prefix_foreach(&m, show_prefix, &vw);
		if (vw.first)
			printf("    (none: add one with 'edgeq peer add PREFIX via ADDR dev %s')\n", ifname);
		printf("  counters (non-zero, summed over CPUs)\n");
		for (size_t i = 0; i < eq_stat_count; i++)
			if (eq_stat_get(&s, i))
				printf("    %-18s %llu\n", eq_stat_names[i], (unsigned long long)eq_stat_get(&s, i));
	}
	if (vw.agent_peers >= 0)
		close(vw.agent_peers);
	eq_scheme_maps_close(&vw.own);
	eq_maps_close(&m);
	return 0;
}

static int show_attachment(const char *dir, const char *entry, bool first, void *arg)
{
	return show_one(dir, entry, *(const bool *)arg, first);
}

int cmd_status(const struct eq_opts *o)
{
	bool json = o->json;
	int n, rc;

	if (json)
		interfaces = json_array();
	rc = eq_attachments_foreach(o->ifname, show_attachment, &json, &n);
	if (json) {
		json_t *root = json_pack("{s:o}", "interfaces", interfaces);

		json_dumpf(root, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(4));
		printf("\n");
		json_decref(root);
		interfaces = NULL;
	}
	if (rc < 0)
		return eq_not_attached(o->ifname);
	if (!json && !n)
		printf("edgeq is not attached to any interface\n");
	return rc;
}
