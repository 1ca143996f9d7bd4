// SPDX-License-Identifier: GPL-2.0-only
/*
 * A snapshot of the attachments (snapshot.h): what status reads, into
 * memory, for the commands that print it another way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "cmd.h"
#include "peers.h"
#include "snapshot.h"
#include "stats.h"

struct reading {
	struct eq_snap_att	*t;
	const struct eq_maps *m;
	int		agent_peers;
	struct eq_scheme_maps own;
	__u32		*row_of;	/* per peer slot: its row in t->peers + 1, 0 none yet */
};

static int read_prefix(const struct eq_prefix_key *k, const struct eq_prefix_val *v, void *arg)
{
	struct reading *r = arg;
	struct eq_snap_att *t = r->t;
	struct eq_snap_prefix *pr;
	struct eq_snap_peer *row;

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
	if (v->peer >= r->m->peer_slots)
		return 0;
	if (!r->row_of[v->peer]) {
		r->row_of[v->peer] = t->npeers + 1;
		row = &t->peers[t->npeers++];
		memset(row, 0, sizeof(*row));
		row->slot = v->peer;
		bpf_map_lookup_elem(r->m->peers, &v->peer, &row->p);
		eq_peer_stats_sum(r->m->peer_stats, v->peer, &row->st);
		eq_addr_format(&row->p.underlay, row->via, sizeof(row->via));
		row->plain = (row->p.flags & EQ_PEER_PLAIN) || r->agent_peers < 0;
		row->has_agent = !row->plain &&
				 !bpf_map_lookup_elem(r->agent_peers, &v->peer, &row->a);
		row->scheme = eq_peer_scheme(&row->p, &t->c);
		if (row->has_agent) {
			_Alignas(8) unsigned char val[EQ_SCHEME_VALUE_MAX];
			const struct eq_btf_value *f = eq_scheme_own(&r->own, row->scheme, v->peer, val);

			if (f && (row->own = malloc(f->size)))
				memcpy(row->own, val, f->size);
		}
	}
	memcpy(pr->via, t->peers[r->row_of[v->peer] - 1].via, sizeof(pr->via));
	return 0;
}

/* One attachment into memory: what status's show_one() reads. */
static int read_attachment(const char *dir, const char *entry, bool first, void *arg)
{
	struct eq_snap *all = arg;
	const char *at = strrchr(entry, '@');
	struct reading *r;
	struct eq_maps m;
	struct eq_snap_att *t;
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
	t->eqds = eq_scheme_has_agent(t->c.scheme);
	t->alive = t->eqds && eq_agent_state(dir, &t->c, &t->ag, &t->age_ns);
	t->peers = calloc(m.peer_slots, sizeof(*t->peers));
	r = calloc(1, sizeof(*r));
	if (r)
		r->row_of = calloc(m.peer_slots, sizeof(*r->row_of));
	if (!t->peers || !r || !r->row_of) {
		if (r)
			free(r->row_of);
		free(r);
		eq_maps_close(&m);
		return 1;
	}
	r->t = t;
	r->m = &m;
	r->agent_peers = -1;
	if (t->eqds && !eq_path(path, sizeof(path), dir, EQ_MAP_AGENT_PEERS))
		r->agent_peers = bpf_obj_get(path);
	eq_scheme_maps_init(&r->own, dir);
	rc = eq_prefix_foreach(&m, read_prefix, r);
	if (r->agent_peers >= 0)
		close(r->agent_peers);
	for (int i = 0; i < EQ_SCHEME_IDS; i++) {	/* the fields stay with the rows */
		t->own[i] = r->own.v[i];
		r->own.v[i] = NULL;
	}
	eq_scheme_maps_close(&r->own);
	free(r->row_of);
	free(r);
	eq_maps_close(&m);
	all->n++;
	(void)first;
	return rc ? 1 : 0;
}


int eq_snap_read(const char *ifname, struct eq_snap *s)
{
	struct timespec ts;
	int n, rc;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->taken_ns = (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec;
	rc = eq_attachments_foreach(ifname, read_attachment, s, &n);
	return rc < 0 ? -1 : rc ? 1 : 0;
}

void eq_snap_free(struct eq_snap *s)
{
	for (int i = 0; i < s->n; i++) {
		for (__u32 j = 0; j < s->a[i].npeers; j++)
			free(s->a[i].peers[j].own);
		for (int k = 0; k < EQ_SCHEME_IDS; k++)
			free(s->a[i].own[k]);
		free(s->a[i].peers);
		free(s->a[i].prefixes);
	}
	free(s->a);
	memset(s, 0, sizeof(*s));
}
