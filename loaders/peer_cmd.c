// SPDX-License-Identifier: GPL-2.0-only
/* edgeq peer add|del|list: change the peer table of a live attachment. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <jansson.h>
#include "addr.h"
#include "cmd.h"
#include "config.h"
#include "settings.h"
#include "peers.h"
#include "keys.h"

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

/* The peer table's lock taken, then the attachment's maps opened: the
 * lock, or -1 (said why). */
static int open_locked(const char *ifname, struct eq_maps *m, struct eq_config *c)
{
	int lock = eq_lock();

	if (lock < 0)
		return -1;
	if (open_iface(ifname, m, c)) {
		eq_unlock(lock);
		return -1;
	}
	return lock;
}

static int peer_add(const char *ifname, const char *prefix, const char *via, const char *scheme,
		    const char *key)
{
	struct eq_peer_keys keys;
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
	if (key) {
		__u8 kb[EQ_SIPHASH_KEY_LEN], id;

		if (eq_key_arg(key, kb, &id, err, sizeof(err))) {
			eq_err("%s", err);
			return 2;
		}
		eq_keys_one(&keys, kb, id);
	}
	lock = open_locked(ifname, &m, &c);
	if (lock < 0)
		return 1;
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
	if (eq_scheme_has_agent(sc) && !eq_scheme_has_agent(c.scheme)) {
		eq_err("%s: attached without an agent (every peer of scheme none): a peer of scheme "
		       "%s needs one; say so in the config and attach again", ifname,
		       eq_scheme_name(sc));
		rc = -EINVAL;
		goto out;
	}
	rc = eq_peer_add(&m, &k, &a, (__u8)sc, eq_scheme_has_agent(c.scheme) && sc == EQ_SCHEME_NONE,
			 key ? &keys : NULL, &slot);
	if (rc == -EEXIST)
		eq_err("%s: prefix %s already goes to another peer; delete it first", ifname, prefix);
	else if (rc == -EBUSY)
		eq_err("%s: peer via %s has the other scheme; one underlay peer has one scheme", ifname,
		       via);
	else if (rc == -EKEYREJECTED)
		eq_err("%s: peer via %s has %s: one underlay peer has one key (edgeq peer key "
		       "changes it)", ifname, via, key ? "another key, or none" : "a key");
	else if (rc == -EOPNOTSUPP)
		eq_err("%s: attached by an edgeq without keys: detach and attach again to use "
		       "them", ifname);
	else if (rc == -ENOSPC)
		eq_err("%s: all %u peer slots (max_peers) or %u prefixes (max_prefixes) are in use: "
		       "raise them in the config and attach again (docs/config.md)", ifname,
		       m.peer_slots, eq_max_prefixes(&c));
	else if (rc)
		eq_err("%s: cannot add peer %s: %s", ifname, prefix, strerror(-rc));
	if (rc || eq_prefix_get(&m, &k, &v))
		goto out;
	if (!v.flags) {
		struct eq_peer pe = {};

		bpf_map_lookup_elem(m.peers, &slot, &pe);
		rc = eq_route_apply(ifname, &k, eq_peer_inner_mtu(c.mtu, !eq_addr_is_v4(&a), sc,
								  pe.flags & EQ_PEER_KEYED),
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
	lock = open_locked(ifname, &m, &c);
	if (lock < 0)
		return 1;
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

/* edgeq peer key ADDR accept KEY | sign ID | drop ID: replacing a peer's
 * key without a restart (keys.h), on both hosts in step: accept the new
 * key, then sign with it, then drop the old one. */
static int peer_key(const char *ifname, const char *via, const char *op, const char *arg)
{
	struct eq_underlay_val uv;
	struct eq_peer_keys keys;
	struct eq_config c;
	struct eq_peer p;
	struct eq_addr a;
	struct eq_maps m;
	__u8 kb[EQ_SIPHASH_KEY_LEN], id = 0;
	char err[300];
	int rc, lock;

	if (eq_addr_parse(via, &a)) {
		eq_err("'%s' is not an IPv4 or IPv6 address", via);
		return 2;
	}
	if (!strcmp(op, "accept")) {
		if (eq_key_arg(arg, kb, &id, err, sizeof(err))) {
			eq_err("%s", err);
			return 2;
		}
	} else if (eq_key_id_parse(arg, &id)) {
		eq_err("'%s' is not a key id (0-255)", arg);
		return 2;
	}
	lock = open_locked(ifname, &m, &c);
	if (lock < 0)
		return 1;
	rc = -ENOENT;
	if (bpf_map_lookup_elem(m.underlay, &a, &uv) || bpf_map_lookup_elem(m.peers, &uv.peer, &p)) {
		eq_err("%s: no peer via %s", ifname, via);
		goto out;
	}
	if (!(p.flags & EQ_PEER_KEYED) || m.keys < 0 ||
	    bpf_map_lookup_elem(m.keys, &uv.peer, &keys)) {
		eq_err("%s: peer via %s has no key: give one when it is added (peer add ... key, "
		       "or the config's peer line)", ifname, via);
		goto out;
	}
	rc = !strcmp(op, "accept") ? eq_keys_accept(&keys, kb, id) :
	     !strcmp(op, "sign") ? eq_keys_sign(&keys, id) : eq_keys_drop(&keys, id);
	if (rc == -EEXIST)
		eq_err("%s: key id %u of peer %s is another key: give the new one another id", ifname,
		       id, via);
	else if (rc == -EBUSY && !strcmp(op, "accept"))
		eq_err("%s: peer %s has two keys already: drop the one that does not sign first",
		       ifname, via);
	else if (rc == -EBUSY)
		eq_err("%s: key id %u signs for peer %s: sign with the other first", ifname, id, via);
	else if (rc == -ENOENT)
		eq_err("%s: peer %s has no key id %u", ifname, via, id);
	else if (!rc && bpf_map_update_elem(m.keys, &uv.peer, &keys, BPF_EXIST))
		rc = -errno;
	else if (!rc)
		eq_info("%s: peer %s: key id %u %s", ifname, via, id,
			!strcmp(op, "accept") ? "accepted" : !strcmp(op, "sign") ? "signs" : "dropped");
out:
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
	if (argc >= 4 && argc % 2 == 0 && !strcmp(argv[0], "add") && !strcmp(argv[2], "via")) {
		const char *scheme = NULL, *key = NULL;
		int i;

		for (i = 4; i < argc; i += 2) {
			if (!strcmp(argv[i], "scheme") && !scheme)
				scheme = argv[i + 1];
			else if (!strcmp(argv[i], "key") && !key)
				key = argv[i + 1];
			else
				break;
		}
		if (i >= argc)
			return peer_add(o->ifname, argv[1], argv[3], scheme, key);
	}
	if (argc == 4 && !strcmp(argv[0], "key") &&
	    (!strcmp(argv[2], "accept") || !strcmp(argv[2], "sign") || !strcmp(argv[2], "drop")))
		return peer_key(o->ifname, argv[1], argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[0], "del"))
		return peer_del(o->ifname, argv[1]);
	if (argc == 1 && !strcmp(argv[0], "list"))
		return peer_list(o->ifname, o->json);
	eq_err("usage: edgeq peer add PREFIX via ADDR [scheme none|eqds] [key HEX[/ID]|@FILE] dev IFACE | "
	       "peer key ADDR accept HEX[/ID]|@FILE|sign ID|drop ID dev IFACE | "
	       "peer del PREFIX dev IFACE | peer list dev IFACE");
	return 2;
}
