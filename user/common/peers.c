// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include "addr.h"
#include "peers.h"
#include "settings.h"
#include "edgeq/wire.h"
#include "stats.h"
#include "keys.h"

/* A free slot, from the maps' hint on (wrapping): attach fills a fresh
 * table in order, so each of its peers finds one at the first look. */
static int alloc_slot(struct eq_maps *m, const struct eq_addr *via, __u8 scheme, bool plain,
		      const struct eq_peer_keys *keys, __u32 *slot)
{
	static const struct eq_peer_keys none;
	struct eq_underlay_val uv;
	struct eq_peer p;

	for (__u32 k = 0; k < m->peer_slots; k++) {
		__u32 i = (m->free_hint + k) % m->peer_slots;

		if (bpf_map_lookup_elem(m->peers, &i, &p))
			return -errno;
		if (p.flags & EQ_PEER_USED)
			continue;
		/* A reused slot starts from zero. */
		int err = eq_peer_stats_clear(m->peer_stats, i);

		if (err)
			return err;
		/* Its keys before the slot is used: TC and XDP read them
		 * once the flag says so. */
		if (m->keys >= 0 && bpf_map_update_elem(m->keys, &i, keys ? keys : &none, BPF_ANY))
			return -errno;
		memset(&p, 0, sizeof(p));
		p.underlay = *via;
		p.flags = EQ_PEER_USED | (eq_addr_is_v4(via) ? 0 : EQ_PEER_V6) |
			  (plain ? EQ_PEER_PLAIN : 0) | (keys ? EQ_PEER_KEYED : 0);
		p.scheme = scheme;
		/* What its scheme carries in every DATA header: TC leaves
		 * the room, and fills what it can (settings.c). */
		const struct eq_scheme_info *si = eq_scheme_info_of(scheme);

		if (si) {
			p.opt_words = (__u8)(eq_opts_room(si->data_opts) / 4);
			p.tc_opts = (__u8)si->tc_opts;
		}
		if (bpf_map_update_elem(m->peers, &i, &p, BPF_ANY))
			return -errno;
		uv.peer = i;
		if (bpf_map_update_elem(m->underlay, via, &uv, BPF_NOEXIST)) {
			int err = -errno;

			memset(&p, 0, sizeof(p));
			bpf_map_update_elem(m->peers, &i, &p, BPF_ANY);
			return err;
		}
		m->free_hint = (i + 1) % m->peer_slots;
		*slot = i;
		return 0;
	}
	return -ENOSPC;
}

static int find_or_alloc_slot(struct eq_maps *m, const struct eq_addr *via, __u8 scheme,
			      bool plain, const struct eq_peer_keys *keys, __u32 *slot, bool *fresh)
{
	*fresh = false;
	struct eq_underlay_val uv;
	struct eq_peer_keys have;
	struct eq_peer p;

	if (keys && m->keys < 0)
		return -EOPNOTSUPP;
	if (bpf_map_lookup_elem(m->underlay, via, &uv) == 0) {
		/* One underlay peer, one scheme. */
		if (bpf_map_lookup_elem(m->peers, &uv.peer, &p))
			return -errno;
		if (!(p.flags & EQ_PEER_PLAIN) != !plain || p.scheme != scheme)
			return -EBUSY;
		/* ... and one set of keys: a prefix that names none goes
		 * with the peer's. */
		if (keys && (!(p.flags & EQ_PEER_KEYED) ||
			     bpf_map_lookup_elem(m->keys, &uv.peer, &have) || !eq_keys_same(keys, &have)))
			return -EKEYREJECTED;
		*slot = uv.peer;
		return 0;
	}
	*fresh = true;
	return alloc_slot(m, via, scheme, plain, keys, slot);
}

/* A slot no prefix uses any more (or came to use): free for another. */
static int free_slot(const struct eq_maps *m, __u32 slot)
{
	struct eq_peer p;

	if (bpf_map_lookup_elem(m->peers, &slot, &p))
		return -errno;
	bpf_map_delete_elem(m->underlay, &p.underlay);
	memset(&p, 0, sizeof(p));
	if (bpf_map_update_elem(m->peers, &slot, &p, BPF_ANY))
		return -errno;
	/* Its keys go too (after the slot: nothing reads them then). */
	if (m->keys >= 0) {
		static const struct eq_peer_keys none;

		bpf_map_update_elem(m->keys, &slot, &none, BPF_ANY);
	}
	return 0;
}

/* The exact prefix by a walk of the trie: for values written before they
 * carried their prefixlen. */
static int prefix_walk(const struct eq_maps *m, const struct eq_prefix_key *k, struct eq_prefix_val *v)
{
	struct eq_prefix_key cur, next;
	bool first = true;

	/* An LPM lookup returns the longest match, not the exact key: walk. */
	while (bpf_map_get_next_key(m->prefixes, first ? NULL : &cur, &next) == 0) {
		first = false;
		cur = next;
		if (!memcmp(&cur, k, sizeof(cur)))
			return bpf_map_lookup_elem(m->prefixes, &cur, v) ? -errno : 0;
	}
	return -ENOENT;
}

/* An LPM lookup answers with the longest prefix that holds k's address
 * within k's length: it is k itself when its length is k's. */
int eq_prefix_get(const struct eq_maps *m, const struct eq_prefix_key *k, struct eq_prefix_val *v)
{
	v->prefixlen = 0;	/* a value written before it had one is shorter */
	if (bpf_map_lookup_elem(m->prefixes, k, v))
		return -ENOENT;
	if (v->prefixlen == k->prefixlen)
		return 0;
	return v->prefixlen ? -ENOENT : prefix_walk(m, k, v);
}

int eq_prefix_set(const struct eq_maps *m, const struct eq_prefix_key *k, const struct eq_prefix_val *v)
{
	return bpf_map_update_elem(m->prefixes, k, v, BPF_ANY) ? -errno : 0;
}

int eq_peer_add(struct eq_maps *m, const struct eq_prefix_key *prefix,
		const struct eq_addr *via, __u8 scheme, bool plain,
		const struct eq_peer_keys *keys, __u32 *slot)
{
	struct eq_prefix_val v = {};
	struct eq_peer p;
	bool fresh;
	int err;

	if (eq_prefix_get(m, prefix, &v) == 0) {
		if (bpf_map_lookup_elem(m->peers, &v.peer, &p) == 0 &&
		    !memcmp(&p.underlay, via, sizeof(*via))) {
			*slot = v.peer;
			return 0;
		}
		return -EEXIST;
	}
	err = find_or_alloc_slot(m, via, scheme, plain, keys, slot, &fresh);
	if (err)
		return err;
	v.peer = *slot;
	v.flags = 0;
	v.prefixlen = prefix->prefixlen;
	if (bpf_map_update_elem(m->prefixes, prefix, &v, BPF_NOEXIST)) {
		err = -errno;	/* -ENOSPC: the prefixes are full (max_prefixes) */
		if (fresh)
			free_slot(m, *slot);
		return err;
	}
	return 0;
}

struct slot_use {
	__u32 slot;
	bool used;
};

static int check_use(const struct eq_prefix_key *k, const struct eq_prefix_val *v, void *arg)
{
	struct slot_use *u = arg;

	if (v->peer == u->slot)
		u->used = true;
	return u->used;
}

int eq_peer_del(const struct eq_maps *m, const struct eq_prefix_key *prefix)
{
	struct eq_prefix_val v;
	struct slot_use use;
	int err = eq_prefix_get(m, prefix, &v);

	if (err)
		return err;
	if (bpf_map_delete_elem(m->prefixes, prefix))
		return -errno;
	use.slot = v.peer;
	use.used = false;
	err = eq_prefix_foreach(m, check_use, &use);
	if (err < 0 || use.used)
		return err < 0 ? err : 0;
	return free_slot(m, v.peer);
}

int eq_prefix_foreach(const struct eq_maps *m, eq_prefix_fn fn, void *arg)
{
	struct eq_prefix_key cur, next;
	struct eq_prefix_val v;
	bool first = true;
	int rc;

	while (bpf_map_get_next_key(m->prefixes, first ? NULL : &cur, &next) == 0) {
		first = false;
		cur = next;
		if (bpf_map_lookup_elem(m->prefixes, &cur, &v))
			continue;	/* deleted under us */
		rc = fn(&cur, &v, arg);
		if (rc)
			return rc;
	}
	return 0;
}
