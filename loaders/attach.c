// SPDX-License-Identifier: GPL-2.0-only
/*
 * edgeq attach / detach.
 *
 * Attach loads the TC and XDP objects, pins the TC object's maps under the
 * interface's pin directory and has the XDP object reuse them, pins both
 * programs, fills the config and peer maps, attaches TC then XDP, and
 * lowers the route MTU of each peer prefix.  Everything it changes is
 * recorded in the pinned maps as it goes, so that one teardown routine
 * serves detach, the cleanup of stale pins after a crash, and the rollback
 * of an attach that failed half-way.
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "addr.h"
#include "cmd.h"
#include "config.h"
#include "edgeq/lease.h"
#include "peers.h"
#include "settings.h"
#include "tc_egress.skel.h"
#include "xdp_ingress.skel.h"

static int mkdir_p(const char *path)
{
	char buf[512];

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0700) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0700) && errno != EEXIST ? -errno : 0;
}

/* The lock is a file in /run, not the bpffs directory: detach removes
 * /sys/fs/bpf/edgeq when the last attachment goes, and a lock on a
 * directory that can vanish would not exclude anyone. */
#define EQ_LOCK_FILE	"/run/edgeq.lock"

int eq_lock(void)
{
	const char *path = getenv("EDGEQ_LOCK_FILE") ? getenv("EDGEQ_LOCK_FILE") : EQ_LOCK_FILE;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		eq_err("cannot lock %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

void eq_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* drops the flock */
}

static int pinned_prog(const char *dir, const char *name)
{
	char path[512];

	if (eq_path(path, sizeof(path), dir, name))
		return -1;
	return bpf_obj_get(path);
}

/* The route MTUs of the config's prefixes that are in the map, all at
 * once (eq_routes_apply_all: thousands of prefixes take seconds, not
 * minutes).  Each prefix's map entry records what was done to its route,
 * also when a later one failed: teardown undoes exactly that. */
static int apply_routes(const char *ifname, const struct eq_cfg *cfg, const struct eq_maps *m,
			unsigned int mtu, char *err, size_t errlen)
{
	struct eq_prefix_key *keys = calloc(cfg->npeers + 1, sizeof(*keys));
	struct eq_prefix_val *vals = calloc(cfg->npeers + 1, sizeof(*vals));
	unsigned int *mtus = calloc(cfg->npeers + 1, sizeof(*mtus));
	__u32 *flags = calloc(cfg->npeers + 1, sizeof(*flags));
	size_t n = 0;
	int rc = -ENOMEM;

	if (!keys || !vals || !mtus || !flags) {
		snprintf(err, errlen, "cannot set the route MTUs: %s", strerror(ENOMEM));
		goto out;
	}
	for (size_t i = 0; i < cfg->npeers; i++) {
		if (eq_prefix_get(m, &cfg->peers[i].prefix, &vals[n]))
			continue;
		keys[n] = cfg->peers[i].prefix;
		mtus[n++] = eq_peer_inner_mtu(mtu, !eq_addr_is_v4(&cfg->peers[i].via),
					      cfg->peers[i].scheme, cfg->peers[i].keyed);
	}
	rc = eq_routes_apply_all(ifname, keys, mtus, n, flags, err, errlen);
	for (size_t i = 0; i < n; i++) {
		if (!flags[i])
			continue;
		vals[i].flags = flags[i];
		eq_prefix_set(m, &keys[i], &vals[i]);
	}
out:
	free(keys);
	free(vals);
	free(mtus);
	free(flags);
	return rc;
}

/* The prefixes whose route attach changed, for one eq_routes_undo_all(). */
struct route_set {
	const char *ifname;
	struct eq_prefix_key *keys;
	__u32 *flags;
	size_t n, cap;
};

static int route_set_grow(struct route_set *s)
{
	size_t cap = s->cap ? 2 * s->cap : 256;
	struct eq_prefix_key *k = realloc(s->keys, cap * sizeof(*k));
	__u32 *f;

	if (!k)
		return -ENOMEM;
	s->keys = k;
	f = realloc(s->flags, cap * sizeof(*f));
	if (!f)
		return -ENOMEM;
	s->flags = f;
	s->cap = cap;
	return 0;
}

static int collect_route(const struct eq_prefix_key *k, const struct eq_prefix_val *v, void *arg)
{
	struct route_set *s = arg;

	if (!v->flags)
		return 0;
	if (s->n == s->cap && route_set_grow(s)) {
		eq_route_undo(s->ifname, k, v->flags);	/* no memory for the set: alone */
		return 0;
	}
	s->keys[s->n] = *k;
	s->flags[s->n++] = v->flags;
	return 0;
}

static void undo_routes(const struct eq_maps *m, const char *ifname)
{
	struct route_set s = { .ifname = ifname };

	eq_prefix_foreach(m, collect_route, &s);
	eq_routes_undo_all(ifname, s.keys, s.flags, s.n);
	free(s.keys);
	free(s.flags);
}

/* Undo whatever an attach recorded under dir, on ifindex (0: gone). */
static int teardown(const char *dir, const char *ifname, int ifindex)
{
	int tc_fd = pinned_prog(dir, EQ_PIN_PROG_TC);
	int xdp_fd = pinned_prog(dir, EQ_PIN_PROG_XDP);
	struct eq_config cfg = {};
	struct eq_maps m;
	int rc = 0, err;

	if (eq_maps_open(dir, &m) == 0) {
		eq_config_read(&m, &cfg);
		if (ifindex)
			undo_routes(&m, ifname);
		eq_maps_close(&m);
	}
	/* The agent first: it holds sockets on both interfaces. */
	if ((err = eq_agent_stop(dir))) {
		eq_err("%s: the agent would not stop", ifname);
		rc = err;
	}
	if (ifindex)
		eq_agent_veth_delete(ifindex);	/* also when a crash left it unrecorded */
	if (ifindex) {
		if (xdp_fd >= 0 && (err = eq_xdp_detach(ifindex, xdp_fd, &cfg))) {
			eq_err("%s: cannot detach XDP: %s", ifname, strerror(-err));
			rc = err;
		}
		/* Attached but never pinned: an attach killed in between. */
		if (xdp_fd < 0 && cfg.ifindex == (__u32)ifindex && (err = eq_xdp_detach_orphan(ifindex))) {
			eq_err("%s: cannot detach an unpinned xdp_ingress: %s", ifname, strerror(-err));
			rc = err;
		}
		if (tc_fd >= 0 && (err = eq_tc_detach(ifindex, tc_fd, &cfg))) {
			eq_err("%s: cannot detach TC: %s", ifname, strerror(-err));
			rc = err;
		}
		/* A crash between adding a route and recording it leaves it unrecorded. */
		eq_route_flush_ours(ifname);
	}
	if (tc_fd >= 0)
		close(tc_fd);
	if (xdp_fd >= 0)
		close(xdp_fd);
	if (!rc && (err = eq_pins_remove(dir))) {
		eq_err("cannot remove pins under %s: %s", dir, strerror(-err));
		rc = err;
	}
	if (!rc) {
		char log[600];

		eq_agent_log_path(dir, log, sizeof(log));
		unlink(log);
	}
	return rc;
}

/* 1: a live attachment is there; 0: nothing, or stale pins or a half
 * attachment (an attach killed before it finished: we hold the lock it
 * held, so it is dead) were cleaned up. */
static int check_existing(const char *dir, const char *ifname, int ifindex)
{
	struct stat st;
	struct eq_config cfg = {};
	struct eq_maps m;
	int tc_fd, xdp_fd;
	bool live;

	if (stat(dir, &st))
		return 0;
	tc_fd = pinned_prog(dir, EQ_PIN_PROG_TC);
	xdp_fd = pinned_prog(dir, EQ_PIN_PROG_XDP);
	if (eq_maps_open(dir, &m) == 0) {
		eq_config_read(&m, &cfg);
		eq_maps_close(&m);
	}
	live = cfg.ifindex == (__u32)ifindex &&
	       ((xdp_fd >= 0 && eq_xdp_is_ours(ifindex, xdp_fd)) ||
		(tc_fd >= 0 && eq_tc_is_ours(ifindex, tc_fd, &cfg)));
	if (tc_fd >= 0)
		close(tc_fd);
	if (xdp_fd >= 0)
		close(xdp_fd);
	if (live && (cfg.flags & EQ_CFG_COMPLETE))
		return 1;
	if (live)
		eq_info("%s: rolling back a half attachment at %s (an attach was killed before it "
			"finished)", ifname, dir);
	else
		eq_info("%s: removing stale pins at %s (an earlier attach crashed or was undone by "
			"hand)", ifname, dir);
	/* Only our own programs and routes are touched: is_ours() checks ids. */
	teardown(dir, ifname, cfg.ifindex == (__u32)ifindex ? ifindex : 0);
	eq_pins_remove(dir);
	return 0;
}

static int iface_mtu(const char *ifname)
{
	struct ifreq ifr = {};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	rc = ioctl(fd, SIOCGIFMTU, &ifr) ? -errno : ifr.ifr_mtu;
	close(fd);
	return rc;
}

static int pin_maps(struct bpf_object *obj, const char *dir)
{
	struct bpf_map *map;
	char path[512];
	int err;

	bpf_object__for_each_map(map, obj) {
		if (!strcmp(bpf_map__name(map), ".rodata") || !strcmp(bpf_map__name(map), ".bss"))
			continue;
		if (eq_path(path, sizeof(path), dir, bpf_map__name(map)))
			return -ENAMETOOLONG;
		err = bpf_map__pin(map, path);
		if (err)
			return err;
	}
	return 0;
}

/* Size the maps for the config's max_peers and max_prefixes before the
 * object is loaded.  Every array or hash declared with EQ_MAX_PEERS
 * entries is one slot per peer (maps.bpf.h), and the LPM trie holds the
 * prefixes: a map added later sizes itself by the same declaration (the
 * doorbell's ring, 4096 bytes, is neither).  The ring of the fast sends'
 * copies holds 20 ms of them where an agent lends, a page otherwise.  The
 * other objects reuse these maps and take their sizes with them. */
static int size_maps(struct bpf_object *obj, const struct eq_config *b)
{
	struct bpf_map *map;
	int err = 0;

	bpf_object__for_each_map(map, obj) {
		enum bpf_map_type t = bpf_map__type(map);
		bool per_peer = t == BPF_MAP_TYPE_ARRAY || t == BPF_MAP_TYPE_PERCPU_ARRAY ||
				t == BPF_MAP_TYPE_HASH;

		if (per_peer && bpf_map__max_entries(map) == EQ_MAX_PEERS)
			err = bpf_map__set_max_entries(map, eq_max_peers(b));
		else if (t == BPF_MAP_TYPE_LPM_TRIE)
			err = bpf_map__set_max_entries(map, eq_max_prefixes(b));
		else if (!strcmp(bpf_map__name(map), EQ_MAP_COPIES) &&
			 eq_scheme_has_agent(b->scheme) && b->tunnel.fast_path)
			err = bpf_map__set_max_entries(map, eq_copy_ring_bytes(b->link_rate_bps,
										b->mtu));
		if (err)
			return err;
	}
	return 0;
}

/* Make every map of obj reuse the same-named map of src. */
static int reuse_maps(struct bpf_object *obj, struct bpf_object *src)
{
	struct bpf_map *map, *s;
	int err;

	bpf_object__for_each_map(map, obj) {
		s = bpf_object__find_map_by_name(src, bpf_map__name(map));
		if (!s) {
			/* A build fault: every map of the XDP object must be one
			 * of TC's (a .rodata or .data section of its own, from a
			 * constant template or bpf_printk, is not). */
			eq_err("the XDP program's map %s is not one of the TC program's",
			       bpf_map__name(map));
			return -ENOENT;
		}
		err = bpf_map__reuse_fd(map, bpf_map__fd(s));
		if (err)
			return err;
	}
	return 0;
}

static int pin_prog(struct bpf_program *p, const char *dir, const char *name)
{
	char path[512];

	if (eq_path(path, sizeof(path), dir, name))
		return -ENAMETOOLONG;
	return bpf_program__pin(p, path);
}

/* Check the config against this interface before touching anything. */
static int check_mtus(const struct eq_cfg *cfg, unsigned int mtu, const char *ifname)
{
	for (size_t i = 0; i < cfg->npeers; i++) {
		const struct eq_cfg_peer *p = &cfg->peers[i];
		bool pfx_v6 = !eq_addr_is_v4(&p->prefix.addr);
		unsigned int inner = eq_peer_inner_mtu(mtu, !eq_addr_is_v4(&p->via), p->scheme, p->keyed);
		char s[EQ_PREFIXSTRLEN];

		if (inner < (pfx_v6 ? 1280u : 576u)) {
			eq_prefix_format(&p->prefix, s, sizeof(s));
			eq_err("%s: MTU %u leaves %u bytes for traffic to %s, below the %u it needs",
			       ifname, mtu, inner, s, pfx_v6 ? 1280 : 576);
			return -EINVAL;
		}
	}
	return 0;
}

/* Is a an address of one of this host's interfaces (in this network
 * namespace)?  1 yes, 0 no, -errno when they cannot be listed. */
static int address_is_ours(const struct eq_addr *a)
{
	struct ifaddrs *list, *i;
	bool v4 = eq_addr_is_v4(a);
	int found = 0;

	if (getifaddrs(&list))
		return -errno;
	for (i = list; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		if (v4 && i->ifa_addr->sa_family == AF_INET)
			found = !memcmp(&((struct sockaddr_in *)i->ifa_addr)->sin_addr, &a->a[12], 4);
		else if (!v4 && i->ifa_addr->sa_family == AF_INET6)
			found = !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, a->a, 16);
	}
	freeifaddrs(list);
	return found;
}

/* Every 'local' address must be this host's: the tunnel's packets leave
 * from it, and what peers send back goes to it.  One that is not (a typo,
 * the config of another host) was accepted and black-holed the traffic. */
static int check_locals(const struct eq_cfg *cfg, const char *ifname, const char *netns)
{
	const struct eq_addr *locals[2] = {
		(cfg->bpf.flags & EQ_CFG_HAS_V4) ? &cfg->bpf.local4 : NULL,
		(cfg->bpf.flags & EQ_CFG_HAS_V6) ? &cfg->bpf.local6 : NULL,
	};

	for (int k = 0; k < 2; k++) {
		char s[EQ_ADDRSTRLEN];
		int rc;

		if (!locals[k])
			continue;
		rc = address_is_ours(locals[k]);
		if (rc == 1)
			continue;
		eq_addr_format(locals[k], s, sizeof(s));
		if (rc < 0)
			eq_err("%s: cannot list this host's addresses to check 'local %s': %s", ifname,
			       s, strerror(-rc));
		else
			eq_err("%s: 'local %s' is not an address of this host%s%s%s: the tunnel's packets "
			       "would leave from it and the peers' replies go to it; add it (ip addr add "
			       "%s/... dev %s) or set 'local' to one of this host's addresses", ifname, s,
			       netns ? " (netns " : "", netns ? netns : "", netns ? ")" : "", s, ifname);
		return -EINVAL;
	}
	return 0;
}

static const char *xdp_mode_name(const struct eq_config *c)
{
	return c->xdp_mode == EQ_XDP_NATIVE ? "native" : c->xdp_mode == EQ_XDP_GENERIC ? "generic" : "none";
}

static int do_attach(const struct eq_opts *o, struct eq_cfg *cfg, int ifindex, const char *dir)
{
	struct tc_egress *tc = NULL;
	struct xdp_ingress *xdp = NULL;
	struct eq_config *b = &cfg->bpf;
	struct eq_maps m = { .config = -1, .prefixes = -1, .peers = -1, .peer_stats = -1,
			      .underlay = -1, .stats = -1, .keys = -1 };
	char err[512] = "";
	int rc;

	rc = mkdir_p(dir);
	if (rc) {
		eq_err("cannot create %s: %s (is bpffs mounted at /sys/fs/bpf?)", dir, strerror(-rc));
		return rc;
	}
	tc = tc_egress__open();
	if (tc && (rc = size_maps(tc->obj, b))) {
		eq_err("cannot size the maps for %u peers and %u prefixes: %s", eq_max_peers(b),
		       eq_max_prefixes(b), strerror(-rc));
		goto fail;
	}
	if (!tc || tc_egress__load(tc)) {
		rc = -errno;
		if (tc && (rc == -ENOMEM || rc == -E2BIG))
			eq_err("cannot create the maps for max_peers %u and max_prefixes %u: %s (lower "
			       "them in the config; docs/config.md gives the memory per peer)",
			       eq_max_peers(b), eq_max_prefixes(b), strerror(-rc));
		else
			eq_err("cannot load the TC egress program: %s (run as root; kernel needs BPF "
			       "and clsact)", strerror(-rc));
		goto fail;
	}
	rc = pin_maps(tc->obj, dir);
	if (rc) {
		eq_err("cannot pin maps under %s: %s", dir, strerror(-rc));
		goto fail;
	}
	/* The XDP object is only opened here: libxdp loads it when attaching
	 * (hooks.c says why).  Its maps are the pinned ones. */
	xdp = xdp_ingress__open();
	rc = xdp ? reuse_maps(xdp->obj, tc->obj) : -errno;
	if (rc) {
		eq_err("cannot open the XDP ingress program: %s", strerror(-rc));
		goto fail;
	}
	if ((rc = pin_prog(tc->progs.tc_egress, dir, EQ_PIN_PROG_TC))) {
		eq_err("cannot pin programs under %s: %s", dir, strerror(-rc));
		goto fail;
	}
	rc = eq_maps_open(dir, &m);
	if (rc) {
		eq_err("cannot reopen the pinned maps: %s", strerror(-rc));
		goto fail;
	}
	b->ifindex = ifindex;
	b->netns_ino = eq_netns_ino();
	if ((rc = eq_config_write(&m, b)))
		goto map_fail;
	for (size_t i = 0; i < cfg->npeers; i++) {
		__u32 slot;

		rc = eq_peer_add(&m, &cfg->peers[i].prefix, &cfg->peers[i].via,
				 (__u8)cfg->peers[i].scheme, cfg->peers[i].plain,
				 cfg->peers[i].keyed ? &cfg->peers[i].keys : NULL, &slot);
		if (rc) {
			char s[EQ_PREFIXSTRLEN];

			eq_prefix_format(&cfg->peers[i].prefix, s, sizeof(s));
			eq_err("cannot add peer %s: %s", s, strerror(-rc));
			goto fail;
		}
	}
	rc = eq_tc_attach(ifindex, bpf_program__fd(tc->progs.tc_egress), b, &m, err, sizeof(err));
	if (rc) {
		eq_err("%s: %s", o->ifname, err);
		goto fail;
	}
	rc = eq_xdp_attach(ifindex, xdp->obj, o->xdp_mode, b, err, sizeof(err));
	if (rc) {
		eq_err("%s: %s", o->ifname, err);
		goto fail;
	}
	/* Pinned at once: teardown finds the program by this pin.  A crash in
	 * the instant between leaves an unpinned program attached, which
	 * teardown finds by name (eq_xdp_detach_orphan). */
	if ((rc = pin_prog(xdp->progs.xdp_ingress, dir, EQ_PIN_PROG_XDP))) {
		eq_err("cannot pin the XDP program under %s: %s", dir, strerror(-rc));
		eq_xdp_detach(ifindex, bpf_program__fd(xdp->progs.xdp_ingress), b);
		goto fail;
	}
	if ((rc = eq_config_write(&m, b)))
		goto map_fail;
	if (eq_scheme_has_agent(b->scheme)) {
		rc = eq_agent_veth_create(ifindex, b->mtu, b, &m, tc->obj, dir, err, sizeof(err));
		if (rc) {
			eq_err("%s: %s", o->ifname, err);
			goto fail;
		}
	}
	rc = apply_routes(o->ifname, cfg, &m, b->mtu, err, sizeof(err));
	if (rc) {
		eq_err("%s: %s", o->ifname, err);
		goto fail;
	}
	if (eq_scheme_has_agent(b->scheme) && !o->no_agent) {
		rc = eq_agent_start(o->ifname, dir, err, sizeof(err));
		if (rc) {
			eq_err("%s: %s", o->ifname, err);
			goto fail;
		}
	}
	/* Last: an attachment without it is a killed attach's, which the
	 * next attach rolls back (check_existing()). */
	b->flags |= EQ_CFG_COMPLETE;
	if ((rc = eq_config_write(&m, b)))
		goto map_fail;
	eq_info("attached to %s: TC egress, XDP %s%s; %zu peer prefix%s; state pinned at %s",
		o->ifname, xdp_mode_name(b),
		(b->flags & EQ_CFG_XDP_MULTIPROG) ? " (libxdp dispatcher)" :
		" (alone: libxdp's dispatcher is not available here)",
		cfg->npeers, cfg->npeers == 1 ? "" : "es", dir);
	if (eq_scheme_has_agent(b->scheme)) {
		char a[IF_NAMESIZE], bn[IF_NAMESIZE], log[600];

		eq_agent_veth_names(ifindex, a, bn);
		eq_agent_log_where(dir, log, sizeof(log));
		if (o->no_agent)
			eq_info("scheme %s through %s/%s; no agent started (--no-agent): run "
				"'edgeqd --iface %s' or 'edgeq agent start %s'", eq_scheme_name(b->scheme),
				a, bn, o->ifname, o->ifname);
		else
			eq_info("scheme %s through %s/%s; agent edgeqd running, log %s",
				eq_scheme_name(b->scheme), a, bn, log);
	}
	eq_maps_close(&m);
	xdp_ingress__destroy(xdp);
	tc_egress__destroy(tc);
	return 0;

map_fail:
	eq_err("cannot write the pinned maps: %s", strerror(-rc));
fail:
	eq_maps_close(&m);
	teardown(dir, o->ifname, ifindex);
	eq_pins_remove(dir);
	xdp_ingress__destroy(xdp);
	tc_egress__destroy(tc);
	return rc ? rc : -EINVAL;
}

int cmd_attach(const struct eq_opts *o)
{
	char err[512], dir[512];
	struct eq_cfg cfg;
	int ifindex, mtu, lock, rc;

	if (!o->config) {
		eq_err("attach needs --config FILE (see docs/config.md)");
		return 2;
	}
	if (strcmp(o->xdp_mode, "auto") && strcmp(o->xdp_mode, "native") && strcmp(o->xdp_mode, "generic")) {
		eq_err("--xdp-mode must be auto, native or generic");
		return 2;
	}
	if (eq_cfg_load(o->config, &cfg, err, sizeof(err))) {
		eq_err("%s", err);
		return 1;
	}
	ifindex = (int)if_nametoindex(o->ifname);
	if (!ifindex) {
		eq_err("interface '%s' not found%s%s", o->ifname, o->netns ? " in netns " : "",
		       o->netns ? o->netns : "");
		eq_cfg_free(&cfg);
		return 1;
	}
	mtu = iface_mtu(o->ifname);
	if (eq_scheme_has_agent(cfg.bpf.scheme) && cfg.bpf.mtu > EQ_AGENT_MTU_MAX) {
		/* The agent carries every packet of the tunnel in one AF_XDP
		 * frame (no multi-buffer sockets on the kernels we support). */
		eq_err("%s: mtu %u is above what 'scheme %s' carries: its agent takes frames of "
		       "at most %u bytes (mtu %u); set 'mtu %u' or lower, or use 'scheme none'",
		       o->ifname, cfg.bpf.mtu, eq_scheme_name(cfg.bpf.scheme), EQ_AGENT_FRAME_MAX, EQ_AGENT_MTU_MAX, EQ_AGENT_MTU_MAX);
		eq_cfg_free(&cfg);
		return 1;
	}
	if (!cfg.bpf.mtu) {
		cfg.bpf.mtu = mtu > 0 ? (unsigned int)mtu : 1500;
		if (eq_scheme_has_agent(cfg.bpf.scheme) && cfg.bpf.mtu > EQ_AGENT_MTU_MAX) {
			eq_info("%s: tunnel mtu %u, below the interface's %u: the largest 'scheme %s' "
				"carries (its agent's frames are %u bytes)", o->ifname,
				EQ_AGENT_MTU_MAX, cfg.bpf.mtu, eq_scheme_name(cfg.bpf.scheme),
				EQ_AGENT_FRAME_MAX);
			cfg.bpf.mtu = EQ_AGENT_MTU_MAX;
		}
	} else if (mtu > 0 && cfg.bpf.mtu > (unsigned int)mtu) {
		/* Tunnel packets that large cannot leave the interface: the
		 * stack sends inner packets up to the route MTU attach sets
		 * from it, and the largest were dropped (IPv6 pings of the
		 * largest size failed after a warning). */
		eq_err("%s: config mtu %u is above the interface's %d: tunnel packets that large "
		       "cannot leave it; set 'mtu %d' or lower, or raise the interface's first (ip "
		       "link set %s mtu %u)", o->ifname, cfg.bpf.mtu, mtu, mtu, o->ifname, cfg.bpf.mtu);
		eq_cfg_free(&cfg);
		return 1;
	}
	cfg.bpf.agent_frame_max = EQ_AGENT_FRAME_MAX;
	if (check_mtus(&cfg, cfg.bpf.mtu, o->ifname) || check_locals(&cfg, o->ifname, o->netns) ||
	    eq_pin_dir(o->ifname, dir, sizeof(dir))) {
		eq_cfg_free(&cfg);
		return 1;
	}
	if (eq_check_pins_visible()) {
		eq_cfg_free(&cfg);
		return 1;
	}
	eq_mount_bpffs();	/* a failure shows in the check below */
	if (eq_check_features(false)) {
		eq_err("%s: not attached ('edgeq features' lists what this kernel has)", o->ifname);
		eq_cfg_free(&cfg);
		return 1;
	}
	lock = eq_lock();
	if (lock < 0) {
		eq_cfg_free(&cfg);
		return 1;
	}
	if (check_existing(dir, o->ifname, ifindex)) {
		eq_err("edgeq is already attached to %s (state at %s); run 'edgeq detach %s' first",
		       o->ifname, dir, o->ifname);
		rc = 1;
	} else {
		rc = do_attach(o, &cfg, ifindex, dir) ? 1 : 0;
	}
	eq_unlock(lock);
	eq_cfg_free(&cfg);
	return rc;
}

int cmd_detach(const struct eq_opts *o)
{
	char dir[512];
	struct stat st;
	int ifindex, lock, rc;

	if (eq_pin_dir(o->ifname, dir, sizeof(dir)))
		return 1;
	lock = eq_lock();
	if (lock < 0)
		return 1;
	if (stat(dir, &st)) {
		eq_err("edgeq is not attached to %s (nothing at %s)", o->ifname, dir);
		eq_unlock(lock);
		return 1;
	}
	ifindex = (int)if_nametoindex(o->ifname);
	if (!ifindex)
		eq_info("%s is gone: removing its pins only", o->ifname);
	rc = teardown(dir, o->ifname, ifindex);
	rmdir(eq_pin_root());	/* only succeeds when no other attachment is left */
	eq_unlock(lock);
	if (!rc)
		eq_info("detached from %s", o->ifname);
	return rc ? 1 : 0;
}
