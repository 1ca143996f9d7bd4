// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's event loop.  Everything the control loop needs arrives as
 * one of four events (docs/agent.md): a frame from the host socket (TC
 * sent it to a peer), a frame from the wire socket (the peer sent it),
 * time passing, a flush command.  The loop sleeps in ppoll() until the
 * next of: a frame, the module's next deadline, the heartbeat.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <linux/if_ether.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "edgeq/ecn.h"
#include "edgeq/wire.h"
#include "pins.h"
#include "frame.h"
#include "l4csum.h"
#include "agent.h"
#include "scheme_map.h"
#include "priority.h"

#define BEAT_NS		(10 * 1000000ULL)	/* heartbeat and commands */
#define PUBLISH_NS	(100 * 1000000ULL)	/* per-peer state to eq_agent_peers */
#define RELOAD_NS	(1000 * 1000000ULL)	/* peer table */
#define POOL_PKTS	16384
#define WAKE_EARLY_NS	(50 * 1000ULL)
#define BATCH		64
#define WIRE_DRAIN_BATCHES	32	/* 2048 frames: the wire ring's size */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int pinned(const char *dir, const char *name, char *err, size_t len)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		snprintf(err, len, "cannot open %s: %s (is edgeq attached with scheme eqds?)",
			 path, strerror(errno));
	return fd;
}

static int if_mac(const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr = {};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	rc = s < 0 ? -1 : ioctl(s, SIOCGIFHWADDR, &ifr);
	if (!rc)
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	if (s >= 0)
		close(s);
	return rc;
}

/* --- what the module asks of us ------------------------------------- */

static uint16_t ctl_path(struct agent *a, uint32_t peer)
{
	/* Control packets follow the data's entropy policy: sprayed per
	 * packet, or one path per peer. */
	if (a->cfg.entropy == EQ_ENTROPY_PACKET)
		return (uint16_t)(a->path_rr++ * 2654435761u >> 16);
	return (uint16_t)(peer * 2654435761u >> 16);
}

/* The slot's keys (auth.h), copied out of the map the loader writes:
 * whether it has any. */
static bool slot_keys(const struct agent *a, uint32_t slot, struct eq_peer_keys *k)
{
	if (!a->keys || slot >= a->npeers)
		return false;
	memcpy(k, &a->keys[slot], sizeof(*k));
	return k->valid != 0;
}

/* Sign a frame to a keyed peer whose edgeq header (eq_len bytes at eq,
 * the AUTH option's room at its end) goes from src to dst. */
static void sign(struct agent *a, const struct eq_peer_keys *k, uint8_t *eq, uint32_t eq_len,
		 const struct eq_addr *src, const struct eq_addr *dst)
{
	uint32_t tx = k->tx & 1;

	if (eqf_auth_sign(eq, eq_len, src, dst, k->key[tx], k->id[tx]))
		a->cnt.auth_unsigned++;
}

static void io_send_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	struct agent *a = ctx;
	struct eq_peer_keys k;
	struct eqf_info fi;
	struct eqt_hdr again;
	bool keyed = slot_keys(a, peer, &k);

	/* Sprayed (`entropy packet`), a resend takes a path of its own, as
	 * a new packet would: the frame keeps the source port TC gave the
	 * first send, and a packet lost to a dead path (a black hole, a link
	 * down before the fabric reroutes) went there again with every
	 * resend, for ever.  A scheme that picks paths itself (REPS) has. */
	if ((h->flags & EQ_F_RTX) && !h->path_set && a->cfg.entropy == EQ_ENTROPY_PACKET) {
		again = *h;
		again.path_id = ctl_path(a, peer);
		again.path_set = true;
		h = &again;
	}

	if (eqf_parse(p->data, p->len, a->cfg.port, &fi)) {
		a->cnt.frames_bad++;	/* cannot happen: parsed on the way in */
		return;
	}
	/* TC left the AUTH option's room at the header's end (and signed
	 * what it sent; the fields are ours now: signed again). */
	eqf_stamp_data(p->data, &fi, h, keyed ? EQ_OPT_AUTH_LEN : 0);
	if (keyed)
		sign(a, &k, p->data + fi.eq_off, fi.eq_len, &fi.src, &fi.dst);
	eq_xsk_tx(&a->wire, p->data, p->len);
}

static void io_send_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	struct agent *a = ctx;
	struct eq_peer_keys k;
	uint8_t buf[160];
	uint32_t n;
	bool keyed;

	if (peer >= a->npeers || !a->peers.routed[peer]) {
		a->cnt.ctl_noroute++;
		return;
	}
	keyed = slot_keys(a, peer, &k);
	/* The scheme's path when it picks one (REPS ties an ACK's to the
	 * DATA's), else the entropy policy's. */
	n = eqf_build_ctl(buf, sizeof(buf), &a->peers.route[peer], h,
			  h->path_set ? h->path_id : ctl_path(a, peer), keyed ? EQ_OPT_AUTH_LEN : 0);
	if (!n)
		return;
	if (keyed) {
		/* A control frame is its headers: the edgeq header ends it. */
		uint32_t off = eqf_ctl_eq_off(&a->peers.route[peer]);

		sign(a, &k, buf + off, n - off, &a->peers.route[peer].src,
		     &a->peers.route[peer].dst);
	}
	eq_xsk_tx(&a->wire, buf, n);
}

static void io_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	struct agent *a = ctx;
	struct eqf_info fi;
	uint8_t *f;
	uint32_t n;

	if (eqf_parse(p->data, p->len, a->cfg.port, &fi)) {
		a->cnt.frames_bad++;
		return;
	}
	/* A fast send left TC before the kernel completed its checksum,
	 * if the sender's interface offloads it (l4csum.h). */
	if ((fi.hdr.flags & EQ_F_FAST) &&
	    eq_l4csum_complete(p->data + fi.inner_off, fi.inner_len))
		a->cnt.csum_completed++;
	if (p->flags & EQT_PF_CE_TAKEN)
		fi.outer_ecn = EQ_ECN_NOT_ECT;	/* decapsulation leaves the inner ECN */
	/* To this host's MAC on the attached interface, from the peer's (or
	 * its router's): tc_deliver moves it into that interface's stack. */
	f = eqf_decap(p->data, &fi, a->wire_mac, p->data + ETH_ALEN, &n);
	if (!f) {
		a->cnt.ecn_drops++;
		return;
	}
	eq_xsk_tx(&a->host, f, n);
}

/* What the agent delivered went out of eqb, through eqa and tc_deliver,
 * up to the attached interface's IP layer, which frees (orphans) each
 * skb: its frame is then given back, and XDP may deliver after it. */
static bool io_delivered(void *ctx)
{
	struct agent *a = ctx;

	return eq_xsk_tx_done(&a->host);
}

/* --- frames in ------------------------------------------------------- */

static void learn_route(struct agent *a, int slot, const uint8_t *f, const struct eqf_info *fi,
			bool outgoing)
{
	struct eqf_route *r = &a->peers.route[slot];

	if (outgoing) {
		/* A frame TC built towards the peer: its addresses as they are. */
		memcpy(r->eth_dst, f, 6);
		memcpy(r->eth_src, f + 6, 6);
		r->src = fi->src;
		r->dst = fi->dst;
		r->v6 = fi->v6;
		r->port = a->cfg.port;
		r->node_id = a->cfg.node_id;
	} else {
		eqf_route_reply(f, fi, a->cfg.port, a->cfg.node_id, r);
	}
	a->peers.routed[slot] = true;
}

/* A scheme's instance is running: its own map, where it publishes what
 * is not the tunnel's (scheme_map.h).  Without it the agent runs on; the
 * state is only not shown. */
static void mod_started(struct agent *a, const struct eq_mod *md)
{
	char err[700];
	uint32_t id = md->ops->id;
	int fd;

	if (id >= EQ_MODS_MAX || a->fd_own[id] >= 0)
		return;
	fd = eq_scheme_map_open(a->pin_dir, md->ops, a->npeers, err, sizeof(err));
	if (fd < -1)
		fprintf(stderr, "edgeqd: %s: %s's own state not published: %s\n", a->ifname,
			md->ops->name, err);
	a->fd_own[id] = fd < 0 ? -1 : fd;
}

/* The slot of a peer TC or XDP found in eq_peers: ours may be older than
 * theirs (it is reread every second), so a miss rereads it first, at most
 * once per MISS_RELOAD_NS.  Without it, the first frames after `edgeq peer
 * add` were dropped here, and a TCP SYN TC had handed over and we never
 * took kept TC's backpressure shut for that peer (lease.h: handed - taken
 * stayed 1) with no tunnel here to reconcile it. */
#define MISS_RELOAD_NS	(10 * 1000000ULL)

static void slot_gone(void *ctx, uint32_t slot);

static int find_slot(struct agent *a, const struct eq_addr *addr)
{
	int slot = peertab_find(&a->peers, addr);
	uint64_t now;

	if (slot >= 0)
		return slot;
	now = now_ns();
	if (now - a->last_miss_reload < MISS_RELOAD_NS)
		return -1;
	a->last_miss_reload = now;
	a->cnt_reloads++;
	if (peertab_load(&a->peers, a->fd_peers, (uint8_t)a->cfg.scheme, slot_gone, a))
		return -1;
	return peertab_find(&a->peers, addr);
}

/* The instance of the slot's scheme, created with the first of its peers
 * (modules.h); NULL if it cannot run here (said once). */
static struct eq_mod *mod_of(struct agent *a, int slot)
{
	uint8_t sc = a->peers.scheme[slot];
	struct eq_mod *md = eq_mods_of(&a->mods, sc);
	char err[300];

	if (md || (sc < EQ_MODS_MAX && a->mod_failed[sc]))
		return md;
	md = eq_mods_get(&a->mods, sc, now_ns(), err, sizeof(err));
	if (md) {
		mod_started(a, md);
		md->ops->describe(md->s, err, sizeof(err));
		fprintf(stderr, "edgeqd: %s: %s\n", a->ifname, err);
	} else {
		fprintf(stderr, "edgeqd: %s: peers of scheme %u go unserved: %s\n", a->ifname, sc, err);
		if (sc < EQ_MODS_MAX)
			a->mod_failed[sc] = true;
	}
	return md;
}

/* A frame from the host side: a packet TC handed over (host socket), or
 * the copy of one TC sent (EQ_F_FAST).  `complete`: an inner checksum TC
 * left to offload is completed here (a copy through eq_copies; one
 * through the eqc veth had the kernel complete it). */
static void take_from_host(struct agent *a, const uint8_t *f, uint32_t len, bool complete)
{
	struct eqf_info fi;
	struct eq_mod *md;
	struct eqt_pkt *p;
	int slot;

	if (eqf_parse(f, len, a->cfg.port, &fi) || fi.hdr.type != EQ_T_DATA) {
		a->cnt.frames_bad++;
		return;
	}
	slot = find_slot(a, &fi.dst);
	md = slot < 0 ? NULL : mod_of(a, slot);
	if (!md) {
		a->cnt.no_peer++;
		return;
	}
	if (!a->peers.routed[slot])
		learn_route(a, slot, f, &fi, true);
	p = eqt_pkt_get(&a->pool);
	if (!p) {
		a->cnt.pool_empty++;
		return;
	}
	memcpy(p->data, f, len);
	p->len = len;
	p->l3_off = fi.inner_off;
	if (complete && eq_l4csum_complete(p->data + fi.inner_off, fi.inner_len))
		a->cnt.csum_completed++;
	/* Bare TCP ACKs go with the other class: in the TCP queue they
	 * would wait behind this host's own bulk data to the same peer (a
	 * full edge queue is tens of ms at a few hundred Mbit/s), and the
	 * peer's flow towards us would crawl. */
	p->cls = fi.inner_l4 == 6 && !eqf_tcp_pure_ack(f, &fi) ? EQT_CLS_TCP : EQT_CLS_OTHER;
	p->flow = eqf_flow(f, &fi);
	a->active[slot] = true;
	/* TC's fast path sent this one already: ours is the copy to keep
	 * until the ACK. */
	if (fi.hdr.flags & EQ_F_FAST)
		md->ops->fast_sent(md->s, slot, p, fi.hdr.seq_ack, now_ns());
	else if (md->ops->from_host(md->s, slot, p, now_ns()))
		a->cnt.edge_drops++;
}

static void from_host(void *ctx, uint8_t *f, uint32_t len)
{
	take_from_host(ctx, f, len, false);
}

/* A record of eq_copies (lease.h).  What an agent before left there is
 * dropped unread: the leases its copies belonged to died with it. */
static int copy_read(void *ctx, void *data, size_t size)
{
	struct agent *a = ctx;
	const struct eq_copy *c = data;

	if (a->copy_drain) {
		a->cnt.copies_stale++;
		return 0;
	}
	if (size < sizeof(*c) || c->len > sizeof(c->frame)) {
		a->cnt.frames_bad++;
		return 0;
	}
	take_from_host(a, c->frame, c->len, true);
	return 0;
}

static void from_wire(void *ctx, uint8_t *f, uint32_t len)
{
	struct agent *a = ctx;
	struct eqf_info fi;
	struct eqt_pkt *p = NULL;
	struct eq_mod *md;
	int slot;

	int rc = eqf_parse(f, len, a->cfg.port, &fi);

	if (rc) {
		if (rc == -ENOMSG)
			a->cnt.seg_unnumbered++;	/* loss detection repairs it */
		else
			a->cnt.frames_bad++;
		return;
	}
	slot = find_slot(a, &fi.src);
	md = slot < 0 ? NULL : mod_of(a, slot);
	if (!md) {
		a->cnt.no_peer++;
		return;
	}
	/* A keyed peer's frame, checked before anything: the route, the
	 * scheme's state, nothing learns from one that fails.  Not DATA:
	 * the only way into these sockets is XDP's redirect, which checked
	 * a keyed peer's DATA before anything else (xdp_ingress.bpf.c), and
	 * a second SipHash per packet here bought nothing. */
	struct eq_peer_keys k;

	if (fi.hdr.type != EQ_T_DATA && slot_keys(a, (uint32_t)slot, &k)) {
		rc = eqf_auth_check(f, &fi, &k);
		if (rc) {
			if (rc == -EBADMSG)
				a->cnt.auth_bad++;
			else
				a->cnt.auth_missing++;
			return;
		}
	}
	/* The reply route follows what the peer uses (its MAC may change),
	 * learnt from a frame the scheme took as the peer's: a frame anyone
	 * on the link could forge with the peer's address (an on-link host
	 * diverted the control packets to itself so) teaches nothing.  The
	 * first frame from a peer gives the route its answer needs. */
	bool first = !a->peers.routed[slot];

	if (first)
		learn_route(a, slot, f, &fi, false);
	a->active[slot] = true;
	if (fi.hdr.type == EQ_T_DATA) {
		p = eqt_pkt_get(&a->pool);
		if (!p) {
			a->cnt.pool_empty++;
			return;
		}
		memcpy(p->data, f, len);
		p->len = len;
		p->l3_off = fi.inner_off;
	}
	if (md->ops->from_wire(md->s, slot, &fi.hdr, p, now_ns()) && !first)
		learn_route(a, slot, f, &fi, false);
}

/* Everything the wire's rings hold (up to what they can hold), what the
 * module sends in answer flushed batch by batch so the TX ring never
 * fills in between. */
static unsigned int wire_rx_all(struct agent *a)
{
	unsigned int n = 0, got;

	for (int round = 0; round < WIRE_DRAIN_BATCHES; round++) {
		got = eq_xsk_rx(&a->wire, BATCH, from_wire, a);
		for (uint32_t q = 0; q < a->nrxq; q++)
			got += eq_xsk_rx(&a->rxq[q], BATCH, from_wire, a);
		n += got;
		if (got < BATCH)
			break;
		eq_xsk_flush(&a->wire);
	}
	return n;
}

/* --- the pinned maps ----------------------------------------------------- */

/* A slot's peer went away, or another (or the same with another scheme)
 * took it: what the schemes kept for it is not the new peer's, whose
 * tunnel starts afresh (a new epoch: the peer's receiver takes it as a
 * restart). */
static void slot_gone(void *ctx, uint32_t slot)
{
	struct agent *a = ctx;
	_Alignas(8) uint8_t none[sizeof(struct eq_agent_peer) > EQ_SCHEME_STATS_MAX ?
				 sizeof(struct eq_agent_peer) : EQ_SCHEME_STATS_MAX] = {};

	eq_mods_flush(&a->mods, slot, now_ns());
	a->active[slot] = false;
	/* nothing to show, in any map */
	bpf_map_update_elem(a->fd_agent_peers, &slot, none, 0);
	for (int i = 0; i < EQ_MODS_MAX; i++)
		if (a->fd_own[i] >= 0)
			bpf_map_update_elem(a->fd_own[i], &slot, none, 0);
}

static void publish(struct agent *a)
{
	for (uint32_t s = 0; s < a->npeers; s++) {
		_Alignas(8) uint8_t own[EQ_SCHEME_STATS_MAX];
		struct eq_agent_peer v;
		struct eq_mod *md;
		int fd;

		if (!a->active[s] || !(md = eq_mods_of(&a->mods, a->peers.scheme[s])))
			continue;
		fd = a->fd_own[md->ops->id];
		memset(own, 0, sizeof(own));
		md->ops->publish(md->s, s, &v, fd >= 0 ? own : NULL);
		bpf_map_update_elem(a->fd_agent_peers, &s, &v, 0);
		if (fd >= 0)
			bpf_map_update_elem(fd, &s, own, 0);
	}
}

static void beat(struct agent *a, uint64_t now, bool alive)
{
	uint32_t zero = 0;
	struct eq_agent ag = {};

	bpf_map_lookup_elem(a->fd_agent, &zero, &ag);
	if (alive && ag.flush_seq != ag.flush_done) {
		uint32_t peer = ag.flush_peer;

		eq_mods_flush(&a->mods, peer, now);
		fprintf(stderr, "edgeqd: %s: flushed %s\n", a->ifname,
			peer >= a->npeers ? "every tunnel" : "one tunnel");
		ag.flush_done = ag.flush_seq;
	}
	ag.heartbeat_ns = alive ? now : 0;
	ag.pid = alive ? (uint32_t)getpid() : 0;
	ag.flags = alive ? EQ_AGENT_READY | (a->credit ? EQ_AGENT_SHOWS_QUEUE : 0) |
			   (a->copy_ring ? EQ_AGENT_READS_COPIES : 0) : 0;
	if (!ag.started_ns && alive)
		ag.started_ns = now;
	ag.xsk_mode = a->wire.zero_copy ? 2 : 1;
	ag.cnt = a->cnt;
	eq_xsk_counters(&a->wire, &ag.xsk[EQ_XSK_WIRE]);
	for (uint32_t q = 0; q < a->nrxq; q++) {	/* the wire's, every queue */
		struct eq_xsk_stats s;
		__u64 *to = (__u64 *)&ag.xsk[EQ_XSK_WIRE], *from = (__u64 *)&s;

		eq_xsk_counters(&a->rxq[q], &s);
		for (size_t i = 0; i < sizeof(s) / sizeof(__u64); i++)
			to[i] += from[i];
	}
	ag.wire_queues = 1 + a->nrxq;
	eq_xsk_counters(&a->host, &ag.xsk[EQ_XSK_AGENT]);
	eq_xsk_counters(&a->copies, &ag.xsk[EQ_XSK_COPY]);
	bpf_map_update_elem(a->fd_agent, &zero, &ag, 0);
}

/* --- setup ------------------------------------------------------------- */

#define CREDIT_MAP_LEN	(a->npeers * sizeof(struct eq_credit))

/* UMEM frames per socket, to receive and to send: the wire's and the
 * host's sockets; those of the wire's other receive queues only receive. */
#define SOCKET_FRAMES	2048
#define RXQ_FRAMES	1024
/* The copies of fast sends wait in their socket until the agent wakes
 * for something else (it does not wake for them): 20 ms of them at the
 * link rate (eq_copy_hold_frames()), from 2048 to 8192 frames (16 MiB of
 * 2 KiB frames).  With
 * 2048, an agent that lost its CPU for 8 ms at 2.9 Gbit/s on a veth pair
 * lost 1,242 copies in 4 s; each such fast send, dropped by the veth
 * too, left a hole no resend could fill, and the receiver held
 * everything behind it for reorder_timeout. */
static uint32_t copy_frames(const struct agent *a)
{
	uint64_t want = eq_copy_hold_frames(a->cfg.link_rate_bps, a->cfg.mtu), n = 2048;

	while (n < want && n < 8192)
		n *= 2;
	return (uint32_t)n;
}

/* eq_copies (lease.h), emptied of what an agent before left: TC puts its
 * copies there once the heartbeat says we read it (EQ_AGENT_READS_COPIES),
 * through the copy socket until then, or without it. */
static void copy_ring_open(struct agent *a)
{
	char err[700];

	a->fd_copies = pinned(a->pin_dir, EQ_MAP_COPIES, err, sizeof(err));
	if (a->fd_copies >= 0)
		a->copy_ring = ring_buffer__new(a->fd_copies, copy_read, a, NULL);
	if (!a->copy_ring) {
		fprintf(stderr, "edgeqd: %s: fast sends' copies through the copy socket only: %s\n",
			a->ifname, a->fd_copies < 0 ? err : strerror(errno));
		return;
	}
	a->copy_drain = true;
	ring_buffer__consume(a->copy_ring);
	a->copy_drain = false;
}

/* eq_credit, mapped and handed to the module with every lease closed and
 * every count and path zero (a lease an agent killed before left open dies
 * with it): where the module shows TC its edge queue (backpressure) and
 * the path it picks (REPS), and, with the fast path, lends it credit.  The fast path also needs the copy
 * socket on eqd.  Without the map the agent still works: everything
 * through the edge queue, which then drops what overflows. */
static void credit_open(struct agent *a)
{
	char err[700], name[IF_NAMESIZE];
	bool lend = a->cfg.tunnel.fast_path;
	void *m;

	a->fd_credit = pinned(a->pin_dir, EQ_MAP_CREDIT, err, sizeof(err));
	m = a->fd_credit < 0 ? MAP_FAILED : mmap(NULL, CREDIT_MAP_LEN, PROT_READ | PROT_WRITE,
						  MAP_SHARED, a->fd_credit, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "edgeqd: %s: fast path and backpressure off: %s\n", a->ifname,
			a->fd_credit < 0 ? err : strerror(errno));
		return;
	}
	if (lend && (!a->cfg.copy_peer_ifindex || !if_indextoname(a->cfg.copy_peer_ifindex, name))) {
		fprintf(stderr, "edgeqd: %s: fast path off: no copy interface (attached by an older "
			"edgeq: detach and attach again)\n", a->ifname);
		lend = false;
	}
	if (lend && eq_xsk_open(&a->copies, name, 0, a->fd_xsks, EQ_XSK_COPY, a->frame_size, false,
				copy_frames(a), 0, err, sizeof(err))) {
		fprintf(stderr, "edgeqd: %s: fast path off: %s\n", a->ifname, err);
		lend = false;
	}
	if (lend)
		copy_ring_open(a);
	a->credit = m;
	for (uint32_t i = 0; i < a->npeers; i++) {
		__atomic_store_n(&a->credit[i].lease.word, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&a->credit[i].handed, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&a->credit[i].taken, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&a->credit[i].queued, 0, __ATOMIC_RELEASE);
		/* TC's own entropy until a scheme picks a path again: a path
		 * an agent killed before had set stays out of date. */
		__atomic_store_n(&a->credit[i].path, 0, __ATOMIC_RELEASE);
	}
	a->lends = lend;
}

#define KEYS_MAP_LEN	(a->npeers * sizeof(struct eq_peer_keys))

/* Authenticated headers (auth.h): eq_keys mapped, read at every frame
 * to or from a keyed peer, so that `edgeq peer key` takes effect at once.
 * An attachment made before there were keys has none: no peer of it can
 * have one (eq_peer_add() refuses). */
static void keys_open(struct agent *a)
{
	char err[700];
	void *m;

	a->fd_keys = pinned(a->pin_dir, EQ_MAP_KEYS, err, sizeof(err));
	m = a->fd_keys < 0 ? MAP_FAILED : mmap(NULL, KEYS_MAP_LEN, PROT_READ, MAP_SHARED,
					       a->fd_keys, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "edgeqd: %s: no keys (%s): attached by an edgeq without them\n",
			a->ifname, a->fd_keys < 0 ? err : strerror(errno));
		return;
	}
	a->keys = m;
}

#define RX_MAP_LEN	(a->npeers * sizeof(struct eq_rx))

static int bell_rung(void *ctx, void *data, size_t len)
{
	return 0;	/* the ring only wakes us: the scheme's run reads eq_rx */
}

/* Direct delivery (rx.h): eq_rx mapped, every tunnel's word closed (an
 * agent killed before left them open), and the doorbell.  Without it
 * every DATA packet comes through the agent, as before. */
static void direct_rx_open(struct agent *a)
{
	char err[700];
	void *m;

	if (!a->cfg.tunnel.direct_rx)
		return;
	a->fd_rx = pinned(a->pin_dir, EQ_MAP_RX, err, sizeof(err));
	a->fd_bell = a->fd_rx < 0 ? -1 : pinned(a->pin_dir, EQ_MAP_BELL, err, sizeof(err));
	m = a->fd_bell < 0 ? MAP_FAILED : mmap(NULL, RX_MAP_LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
					       a->fd_rx, 0);
	if (m == MAP_FAILED) {
		fprintf(stderr, "edgeqd: %s: direct delivery off: %s\n", a->ifname,
			a->fd_bell < 0 ? err : strerror(errno));
		return;
	}
	a->bell = ring_buffer__new(a->fd_bell, bell_rung, a, NULL);
	if (!a->bell) {
		fprintf(stderr, "edgeqd: %s: direct delivery off: doorbell: %s\n", a->ifname,
			strerror(errno));
		munmap(m, RX_MAP_LEN);
		return;
	}
	a->rx = m;
	for (uint32_t i = 0; i < a->npeers; i++)
		__atomic_store_n(&a->rx[i].order.word, 0, __ATOMIC_RELEASE);
	eq_mods_set_maps(&a->mods, NULL, a->rx);
}

/* How many receive queues the interface has (ETHTOOL_GCHANNELS, which
 * answers for the interface's own namespace: /sys would show the host's),
 * at most EQ_MAX_RXQ; 1 when it cannot tell. */
static uint32_t rx_queues(const char *ifname)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr = {};
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint32_t n = 1;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ch;
	if (s >= 0 && !ioctl(s, SIOCETHTOOL, &ifr)) {
		n = ch.rx_count + ch.combined_count;
		if (!n)
			n = 1;
	}
	if (s >= 0)
		close(s);
	return n > EQ_MAX_RXQ ? EQ_MAX_RXQ : n;
}

/* A socket on every receive queue: XDP can hand a socket only the packets
 * of its own queue.  Queue 0's also sends. */
static int wire_open(struct agent *a, char *err, size_t len)
{
	uint32_t n = rx_queues(a->ifname);

	if (eq_xsk_open(&a->wire, a->ifname, 0, a->fd_xsks, EQ_XSK_WIRE, a->frame_size, true,
			SOCKET_FRAMES, SOCKET_FRAMES, err, len))
		return -1;
	if (n <= 1)
		return 0;
	a->rxq = calloc(n - 1, sizeof(*a->rxq));
	if (!a->rxq) {
		snprintf(err, len, "no memory for %u sockets", n - 1);
		return -1;
	}
	for (uint32_t q = 1; q < n; q++) {
		if (eq_xsk_open(&a->rxq[q - 1], a->ifname, q, a->fd_xsks, eq_xsk_wire_key(q),
				a->frame_size, a->wire.zero_copy, RXQ_FRAMES, 0, err, len))
			return -1;
		a->nrxq++;
	}
	return 0;
}

int agent_open(struct agent *a, const char *ifname, const char *pin_dir, char *err, size_t len)
{
	char what[600];
	char host_if[IF_NAMESIZE], peer_if[IF_NAMESIZE];
	uint32_t zero = 0;

	memset(a, 0, sizeof(*a));
	a->fd_config = a->fd_peers = a->fd_xsks = a->fd_agent = a->fd_agent_peers = -1;
	a->fd_credit = a->fd_rx = a->fd_bell = a->fd_keys = a->fd_copies = -1;
	for (int i = 0; i < EQ_MODS_MAX; i++)
		a->fd_own[i] = -1;
	snprintf(a->ifname, sizeof(a->ifname), "%s", ifname);
	snprintf(a->pin_dir, sizeof(a->pin_dir), "%s", pin_dir);
	if ((a->fd_config = pinned(pin_dir, EQ_MAP_CONFIG, err, len)) < 0 ||
	    (a->fd_peers = pinned(pin_dir, EQ_MAP_PEERS, err, len)) < 0 ||
	    (a->fd_xsks = pinned(pin_dir, EQ_MAP_XSKS, err, len)) < 0 ||
	    (a->fd_agent = pinned(pin_dir, EQ_MAP_AGENT, err, len)) < 0 ||
	    (a->fd_agent_peers = pinned(pin_dir, EQ_MAP_AGENT_PEERS, err, len)) < 0)
		return -1;
	if (bpf_map_lookup_elem(a->fd_config, &zero, &a->cfg)) {
		snprintf(err, len, "cannot read eq_config: %s", strerror(errno));
		return -1;
	}
	{
		struct eq_agent ag = {};

		/* One agent per attachment: a second one would take the first's
		 * sockets away (and its heartbeat would hide the first's death). */
		if (!bpf_map_lookup_elem(a->fd_agent, &zero, &ag) && ag.pid && ag.heartbeat_ns &&
		    ag.pid != (uint32_t)getpid() && !kill((pid_t)ag.pid, 0)) {
			snprintf(err, len, "an agent (pid %u) already runs for %s: 'edgeq agent stop %s' first",
				 ag.pid, ifname, ifname);
			return -1;
		}
	}
	/* Before it owns anything: refused, it leaves the state as it was. */
	if (eq_agent_set_priority(a->cfg.agent_priority, err, len))
		return -1;
	a->owns_state = true;
	if (!eq_scheme_find(a->cfg.scheme)) {
		snprintf(err, len, "%s is attached without 'scheme eqds': nothing for the agent to do",
			 ifname);
		return -1;
	}
	if (!if_indextoname(a->cfg.agent_ifindex, host_if) ||
	    !if_indextoname(a->cfg.agent_peer_ifindex, peer_if) ||
	    if_mac(ifname, a->wire_mac)) {
		snprintf(err, len, "the internal veth (ifindex %u/%u) of %s is missing: detach and attach again",
			 a->cfg.agent_ifindex, a->cfg.agent_peer_ifindex, ifname);
		return -1;
	}
	/* Every per-peer map has as many slots as eq_peers (attach sizes
	 * them by max_peers): the tables here, and the lengths mapped. */
	a->npeers = eq_map_max_entries(a->fd_peers);
	if (!a->npeers) {
		snprintf(err, len, "cannot read eq_peers' size: %s", strerror(errno));
		return -1;
	}
	a->active = calloc(a->npeers, sizeof(*a->active));
	if (!a->active || peertab_init(&a->peers, a->npeers)) {
		snprintf(err, len, "no memory for %u peer slots", a->npeers);
		return -1;
	}
	if (peertab_load(&a->peers, a->fd_peers, (uint8_t)a->cfg.scheme, NULL, NULL)) {
		snprintf(err, len, "cannot read eq_peers: %s", strerror(errno));
		return -1;
	}
	/* Frames of the wire MTU: the tunnel carries nothing larger, and
	 * attach keeps it within what the sockets take (EQ_AGENT_FRAME_MAX). */
	if (!a->cfg.mtu || a->cfg.mtu + ETH_HLEN > EQ_AGENT_FRAME_MAX) {
		snprintf(err, len, "the tunnel mtu %u is above the agent's frames of %u bytes (mtu %u): "
			 "set 'mtu %u' or lower in the config and attach again", a->cfg.mtu,
			 EQ_AGENT_FRAME_MAX, EQ_AGENT_MTU_MAX, EQ_AGENT_MTU_MAX);
		return -1;
	}
	a->frame_size = eq_xsk_frame_size(a->cfg.mtu + ETH_HLEN);
	if (eqt_pool_init_sized(&a->pool, POOL_PKTS, a->cfg.mtu + ETH_HLEN)) {
		snprintf(err, len, "no memory for %u packets", POOL_PKTS);
		return -1;
	}
	credit_open(a);
	keys_open(a);
	/* The attachment's scheme runs from the start, every other one its
	 * peers use once its first peer shows up (mod_of). */
	a->io = (struct eqt_io){ a, io_send_data, io_send_ctl, io_deliver, io_delivered };
	a->mods.find = eq_scheme_find;
	a->mods.env = (struct eqt_env){ .cfg = &a->cfg, .io = &a->io, .pool = &a->pool,
					.lend = a->lends };
	a->mods.env.rand = now_ns() ^ ((uint64_t)getpid() << 32);
	eq_mods_set_maps(&a->mods, a->credit, NULL);
	struct eq_mod *first = eq_mods_get(&a->mods, a->cfg.scheme, now_ns(), err, len);

	if (!first)
		return -1;
	mod_started(a, first);
	direct_rx_open(a);
	if (wire_open(a, err, len) ||
	    eq_xsk_open(&a->host, peer_if, 0, a->fd_xsks, EQ_XSK_AGENT, a->frame_size, false,
			SOCKET_FRAMES, SOCKET_FRAMES,
			err, len))
		return -1;
	eq_mods_describe(&a->mods, what, sizeof(what));
	fprintf(stderr, "edgeqd: %s: %s; wire socket in %s mode; fast path %s\n", ifname, what,
		a->wire.zero_copy ? "zero-copy" : "copy (zero copy not supported here)",
		a->lends ? "on" : "off");
	return 0;
}

int agent_run(struct agent *a)
{
	struct pollfd pfd[3 + EQ_MAX_RXQ] = {
		{ .fd = eq_xsk_fd(&a->wire), .events = POLLIN },
		{ .fd = eq_xsk_fd(&a->host), .events = POLLIN },
		{ .fd = a->bell ? ring_buffer__epoll_fd(a->bell) : -1, .events = POLLIN },
	};
	nfds_t nfd = 3;

	for (uint32_t q = 0; q < a->nrxq; q++)
		pfd[nfd++] = (struct pollfd){ .fd = eq_xsk_fd(&a->rxq[q]), .events = POLLIN };

	/* Timer wakeups here are late by tens of microseconds already: ask
	 * for no added slack. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	beat(a, now_ns(), true);
	while (!a->stop) {
		uint64_t now = now_ns(), next;
		unsigned int n;

		/* Copies of fast sends first, then the host, then the wire: a
		 * copy is normally in flight before the peer's ACK of it is read
		 * (one that comes later obeys that ACK: fastpath.c).  Copies
		 * need nothing done at once, so the loop does not wake for
		 * them; whatever wakes it reads them all first. */
		if (a->copy_ring)
			ring_buffer__consume(a->copy_ring);
		while (a->copies.xsk && eq_xsk_rx(&a->copies, BATCH, from_host, a) == BATCH)
			;
		n = eq_xsk_rx(&a->host, BATCH, from_host, a);
		/* The wire's rings are read to the end before the timers run:
		 * after the agent lost its CPU for longer than an RTO, the ACKs
		 * for everything in flight can be waiting there, and an RTO run
		 * on the first BATCH of them would resend the rest. */
		n += wire_rx_all(a);
		/* XDP delivered in-order DATA itself: the module reads what in
		 * eq_rx (the scheme's run), the ring only woke us. */
		if (a->bell)
			ring_buffer__consume(a->bell);
		now = now_ns();
		next = eq_mods_run(&a->mods, now);
		eq_xsk_flush(&a->wire);
		eq_xsk_flush(&a->host);
		/* Only once what the module sent is on the wire: a fast send
		 * must not overtake it. */
		eq_mods_lease_sync(&a->mods, now);
		eq_xsk_flush(&a->wire);		/* an RTS it may have sent */
		if (now >= a->next_beat) {
			beat(a, now, true);
			a->next_beat = now + BEAT_NS;
		}
		if (now >= a->next_publish) {
			publish(a);
			a->next_publish = now + PUBLISH_NS;
		}
		if (now >= a->next_reload) {
			peertab_load(&a->peers, a->fd_peers, (uint8_t)a->cfg.scheme, slot_gone, a);
			a->next_reload = now + RELOAD_NS;
		}
		if (n)
			continue;
		if (next > a->next_beat)
			next = a->next_beat;
		if (next > now) {
			/* Timer wake-ups arrive ~100 us late here: ask a little
			 * early, and the pacers see a wake-up near their deadline. */
			uint64_t d = next - now > 2 * WAKE_EARLY_NS ? next - now - WAKE_EARLY_NS
								    : next - now;
			struct timespec ts = { (time_t)(d / 1000000000ULL), (long)(d % 1000000000ULL) };

			/* XDP delivered something since the scheme looked: look
			 * again rather than leave it to the ACK timer. */
			if (eq_mods_sleep(&a->mods, now + d))
				continue;
			if (ppoll(pfd, nfd, &ts, NULL) < 0 && errno != EINTR)
				return -errno;
			eq_mods_awake(&a->mods);
		}
	}
	return 0;
}

void agent_close(struct agent *a)
{
	if (a->fd_agent >= 0 && a->owns_state) {
		publish(a);
		beat(a, now_ns(), false);	/* TC applies on_agent_down at once */
	}
	eq_xsk_close(&a->copies);
	eq_xsk_close(&a->host);
	eq_xsk_close(&a->wire);
	for (uint32_t q = 0; q < a->nrxq; q++)
		eq_xsk_close(&a->rxq[q]);
	free(a->rxq);
	eq_mods_destroy(&a->mods);	/* takes every lease back */
	if (a->credit)
		munmap(a->credit, CREDIT_MAP_LEN);
	if (a->bell)
		ring_buffer__free(a->bell);
	if (a->copy_ring)
		ring_buffer__free(a->copy_ring);
	a->copy_ring = NULL;
	if (a->rx)
		munmap(a->rx, RX_MAP_LEN);
	eqt_pool_fini(&a->pool);
	peertab_free(&a->peers);
	free(a->active);
	a->active = NULL;
	if (a->owns_state)
		fprintf(stderr, "edgeqd: %s: stopped; frames bad %llu, to/from no peer %llu, pool empty %llu, "
		"control with no route %llu, ECN drops %llu, edge queue drops %llu, checksums "
		"completed %llu, trimmed segments unnumbered %llu; peer table reread on a miss %llu "
		"times\n", a->ifname,
		(unsigned long long)a->cnt.frames_bad, (unsigned long long)a->cnt.no_peer,
		(unsigned long long)a->cnt.pool_empty, (unsigned long long)a->cnt.ctl_noroute,
		(unsigned long long)a->cnt.ecn_drops, (unsigned long long)a->cnt.edge_drops,
		(unsigned long long)a->cnt.csum_completed, (unsigned long long)a->cnt.seg_unnumbered,
		(unsigned long long)a->cnt_reloads);
	if (a->keys)
		munmap((void *)a->keys, KEYS_MAP_LEN);
	for (int *fd = &a->fd_config; fd <= &a->fd_keys; fd++)
		if (*fd >= 0)
			close(*fd);
	for (int i = 0; i < EQ_MODS_MAX; i++)
		if (a->fd_own[i] >= 0)
			close(a->fd_own[i]);
}
