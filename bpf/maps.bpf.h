/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * The maps every edgeq BPF object declares.  Each object gets its own
 * definitions; the loader pins the first object's maps and makes the others
 * reuse them (bpf_map__reuse_fd), so they all share one instance per
 * interface.  Value layouts live in include/edgeq/maps.h.
 */
#ifndef EDGEQ_MAPS_BPF_H
#define EDGEQ_MAPS_BPF_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "edgeq/maps.h"
#include "edgeq/lease.h"
#include "edgeq/rx.h"
#include "edgeq/auth.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct eq_config);
} eq_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, EQ_MAX_PREFIXES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct eq_prefix_key);
	__type(value, struct eq_prefix_val);
} eq_prefixes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, EQ_MAX_PEERS);
	__type(key, __u32);
	__type(value, struct eq_peer);
} eq_peers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, EQ_MAX_PEERS);
	__type(key, __u32);
	__type(value, struct eq_peer_stats);
} eq_peer_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, EQ_MAX_PEERS);
	__type(key, struct eq_addr);
	__type(value, struct eq_underlay_val);
} eq_underlay SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct eq_stats);
} eq_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, EQ_XSK_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} eq_xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct eq_agent);
} eq_agent SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, EQ_MAX_PEERS);
	__type(key, __u32);
	__type(value, struct eq_agent_peer);
} eq_agent_peers SEC(".maps");

/* The credit bucket TC and the agent share (lease.h): mmapable, so that
 * the agent's side of the atomics is a plain CPU instruction too. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, EQ_MAX_PEERS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct eq_credit);
} eq_credit SEC(".maps");

/* Direct delivery (rx.h): the receive order XDP and the agent share.  And
 * the agent's doorbell, which XDP rings when it delivered something the
 * agent has not seen and TC when it held packets back for want of credit
 * (the ring's records are peer slots; the agent reads eq_rx, eq_credit). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, EQ_MAX_PEERS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct eq_rx);
} eq_rx SEC(".maps");

/* Authenticated headers (auth.h): each peer slot's keys, written by the
 * loader, read by TC (signs what it sends), XDP (checks the DATA it
 * delivers itself) and the agent (mapped: checks and signs the rest). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, EQ_MAX_PEERS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct eq_peer_keys);
} eq_keys SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} eq_bell SEC(".maps");

/* The fast sends' copies (lease.h); sized by the loader for an agent
 * that lends (eq_copy_ring_bytes()), a page otherwise. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} eq_copies SEC(".maps");

/* One timer per peer, armed by XDP's first delivery the agent has not
 * read: it rings eq_bell when ack_delay_ns is up (rx.h).  Apart from
 * eq_rx, which is mmapable and so cannot hold a timer. */
struct eq_ack_timer {
	struct bpf_timer	t;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, EQ_MAX_PEERS);
	__type(key, __u32);
	__type(value, struct eq_ack_timer);
} eq_ack_timer SEC(".maps");

/* The agent is alive while its heartbeat is younger than agent_dead_ns.
 * A heartbeat written by another CPU after our clock read looks like the
 * future: the signed difference keeps that alive. */
static __always_inline __u32 eq_agent_live_flags(const struct eq_config *cfg)
{
	__u32 zero = 0;
	struct eq_agent *ag = bpf_map_lookup_elem(&eq_agent, &zero);
	__u64 hb;

	if (!ag || !(ag->flags & EQ_AGENT_READY))
		return 0;
	hb = ag->heartbeat_ns;
	return hb && (__s64)(bpf_ktime_get_ns() - hb) < (__s64)cfg->agent_dead_ns ? ag->flags : 0;
}

static __always_inline bool eq_agent_alive(const struct eq_config *cfg)
{
	return eq_agent_live_flags(cfg) & EQ_AGENT_READY;
}

/* Map an IPv4 address (network order) to ::ffff:a.b.c.d. */
static __always_inline void eq_addr_from_v4(struct eq_addr *a, __be32 v4)
{
	__builtin_memset(a, 0, sizeof(*a));
	a->a[10] = 0xff;
	a->a[11] = 0xff;
	__builtin_memcpy(&a->a[12], &v4, 4);
}

#endif
