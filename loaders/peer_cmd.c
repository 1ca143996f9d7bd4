// SPDX-License-Identifier: GPL-2.0-only
/* edgeq peer add|del|list: change the peer table of a live attachment. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <jansson.h>
#include "addr.h"
#include "cmd.h"
#include "config.h"
#include "settings.h"
#include "peers.h"

static int open_iface(const char *ifname, struct eq_maps *m, struct eq_config *c)
{
	char dir[512];
	int rc;

	if (eq_pin_dir(ifname, dir, sizeof(dir)))
		return -ENAMETOOLONG;
	rc = eq_maps_open(dir, m);
	if (rc) {
		eq_err("edgeq is not attached to %s (no maps at %s)", ifname, dir);
		return rc;
	}
	rc = eq_config_read(m, c);
	if (rc)
		eq_maps_close(m);
	return rc;
}

static int peer_add(const char *ifname, const char *prefix, const char *via, const char *scheme)
{
	struct eq_prefix_key k;
	struct eq_prefix_val v;
	struct eq_config c;
	struct eq_addr a;
	struct eq_maps m;
	char err[512];
	__u32 slot;
	int rc, lock;

	if (eq_prefix_parse(prefix, &k)) {
		eq_err("'%s' is not a prefix (ADDRESS[/LEN])", prefix);
		return 2;
	}
	if (eq_addr_parse(via, &a)) {
		eq_err("'%s' is not an IPv4 or IPv6 address", via);
		return 2;
	}
	lock = eq_lock();
	if (lock < 0)
		return 1;
	if (open_iface(ifname, &m, &c)) {
		eq_unlock(lock);
		return 1;
	}
	if (!(c.flags & (eq_addr_is_v4(&a) ? EQ_CFG_HAS_V4 : EQ_CFG_HAS_V6))) {
		eq_err("%s: peer via %s needs a local %s address in the config", ifname, via,
		       eq_addr_is_v4(&a) ? "IPv4" : "IPv6");
		rc = -EINVAL;
		goto out;
	}
	/* The attachment's default scheme, or the one asked for; an agent
	 * cannot be added to an attachment that runs none. */
	int sc = scheme ? eq_scheme_parse(scheme) : (int)c.peer_scheme;

	if (sc < 0) {
		char names[128];

		eq_scheme_names(NULL, names, sizeof(names));
		eq_err("scheme '%s': use %s", scheme, names);
		rc = -EINVAL;
		goto out;
	}
	if (sc == EQ_SCHEME_EQDS && c.scheme != EQ_SCHEME_EQDS) {
		eq_err("%s: attached without an agent (no peer of scheme eqds): a peer of scheme "
		       "eqds needs one; say so in the config and attach again", ifname);
		rc = -EINVAL;
		goto out;
	}
	rc = eq_peer_add(&m, &k, &a, (__u8)sc, c.scheme == EQ_SCHEME_EQDS && sc == EQ_SCHEME_NONE,
			 &slot);
	if (rc == -EEXIST)
		eq_err("%s: prefix %s already goes to another peer; delete it first", ifname, prefix);
	else if (rc == -EBUSY)
		eq_err("%s: peer via %s has the other scheme; one underlay peer has one scheme", ifname,
		       via);
	else if (rc == -ENOSPC)
		eq_err("%s: all %u peer slots (max_peers) or %u prefixes (max_prefixes) are in use: "
		       "raise them in the config and attach again (docs/config.md)", ifname,
		       m.peer_slots, eq_max_prefixes(&c));
	else if (rc)
		eq_err("%s: cannot add peer %s: %s", ifname, prefix, strerror(-rc));
	if (rc || eq_prefix_get(&m, &k, &v))
		goto out;
	if (!v.flags) {
		rc = eq_route_apply(ifname, &k, eq_peer_inner_mtu(c.mtu, !eq_addr_is_v4(&a), sc),
				    &v.flags,
				    err, sizeof(err));
		if (v.flags)
			eq_prefix_set(&m, &k, &v);
		if (rc) {
			eq_err("%s: %s", ifname, err);
			eq_peer_del(&m, &k);
			goto out;
		}
	}
out:
	eq_maps_close(&m);
	eq_unlock(lock);
	return rc ? 1 : 0;
}

static int peer_del(const char *ifname, const char *prefix)
{
	struct eq_prefix_key k;
	struct eq_prefix_val v;
	struct eq_config c;
	struct eq_maps m;
	int rc, lock;

	if (eq_prefix_parse(prefix, &k)) {
		eq_err("'%s' is not a prefix (ADDRESS[/LEN])", prefix);
		return 2;
	}
	lock = eq_lock();
	if (lock < 0)
		return 1;
	if (open_iface(ifname, &m, &c)) {
		eq_unlock(lock);
		return 1;
	}
	rc = eq_prefix_get(&m, &k, &v);
	if (rc) {
		eq_err("%s: no peer prefix %s", ifname, prefix);
	} else {
		eq_route_undo(ifname, &k, v.flags);
		rc = eq_peer_del(&m, &k);
		if (rc)
			eq_err("%s: cannot delete %s: %s", ifname, prefix, strerror(-rc));
	}
	eq_maps_close(&m);
	eq_unlock(lock);
	return rc ? 1 : 0;
}

struct list_ctx {
	const struct eq_maps *m;
	json_t *list;		/* --json; NULL: text */
};

static int list_one(const struct eq_prefix_key *k, const struct eq_prefix_val *v, void *arg)
{
	struct list_ctx *l = arg;
	char pfx[EQ_PREFIXSTRLEN], via[EQ_ADDRSTRLEN];
	struct eq_peer p = {};

	bpf_map_lookup_elem(l->m->peers, &v->peer, &p);
	eq_prefix_format(k, pfx, sizeof(pfx));
	eq_addr_format(&p.underlay, via, sizeof(via));
	if (l->list)
		json_array_append_new(l->list, json_pack("{s:s, s:s, s:I}", "prefix", pfx, "via", via,
							 "slot", (json_int_t)v->peer));
	else
		printf("%s via %s\n", pfx, via);
	return 0;
}

static int peer_list(const char *ifname, bool json)
{
	struct eq_config c;
	struct eq_maps m;
	struct list_ctx l = { &m, NULL };

	if (open_iface(ifname, &m, &c))
		return 1;
	if (json)
		l.list = json_array();
	eq_prefix_foreach(&m, list_one, &l);
	if (json) {
		json_dumpf(l.list, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
		printf("\n");
		json_decref(l.list);
	}
	eq_maps_close(&m);
	return 0;
}

/* argv: add PREFIX via ADDR [scheme S] | del PREFIX | list  (dev IFACE is in o->ifname) */
int cmd_peer(const struct eq_opts *o, int argc, char **argv)
{
	if (!o->ifname) {
		eq_err("peer commands need 'dev IFACE'");
		return 2;
	}
	if (argc == 4 && !strcmp(argv[0], "add") && !strcmp(argv[2], "via"))
		return peer_add(o->ifname, argv[1], argv[3], NULL);
	if (argc == 6 && !strcmp(argv[0], "add") && !strcmp(argv[2], "via") &&
	    !strcmp(argv[4], "scheme"))
		return peer_add(o->ifname, argv[1], argv[3], argv[5]);
	if (argc == 2 && !strcmp(argv[0], "del"))
		return peer_del(o->ifname, argv[1]);
	if (argc == 1 && !strcmp(argv[0], "list"))
		return peer_list(o->ifname, o->json);
	eq_err("usage: edgeq peer add PREFIX via ADDR [scheme none|eqds] dev IFACE | peer del PREFIX dev IFACE | "
	       "peer list dev IFACE");
	return 2;
}
