// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test fixture for the edgeq BPF programs: builds frames by hand and fills
 * the maps of a loaded object as "host A" or "host B".
 *
 *  - pkt_build_frame(): Ethernet + IPv4/IPv6 + TCP/UDP/ICMP + payload, with
 *    a valid IPv4 header checksum and valid L4 checksums.
 *  - pkt_build_encap(): an edgeq packet (Ethernet + outer IP + UDP + edgeq
 *    header [+ options] + inner packet) in which every field can be set,
 *    so tests can craft malformed packets.
 *  - pkt_setup_host(): config, prefixes, one peer slot and the underlay
 *    table of `self`, tunnelling to `peer`.
 *  - pkt_run(): one BPF_PROG_TEST_RUN.
 *
 * Everything is plain data and libbpf map calls: it works with any object
 * that declares the eq_* maps (see PKT_MAPS()).
 */
#ifndef EDGEQ_TEST_PKT_H
#define EDGEQ_TEST_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>		/* AF_INET*, IPPROTO_*; before any linux/in6.h */
#include "edgeq/maps.h"
#include "edgeq/wire.h"

#define PKT_MAX		4096	/* big enough for any frame plus encapsulation */
#define PKT_ETH_LEN	14
#define PKT_PEER_SLOT	1	/* the peer slot pkt_setup_host() fills */
#define PKT_MTU		1500	/* wire MTU pkt_setup_host() configures */

extern const uint8_t pkt_mac_src[6], pkt_mac_dst[6];

/* A test host: underlay (outer) addresses, one overlay address inside its
 * overlay prefixes, and its node id. */
struct pkt_host {
	const char	*name;
	struct eq_addr	under4, under6;	/* underlay; IPv4 mapped */
	struct eq_addr	ovl4, ovl6;	/* an overlay address of the host */
	struct eq_addr	net4, net6;	/* its overlay prefixes ... */
	unsigned	net4_len, net6_len; /* ... in family bits (/16, /64) */
	uint16_t	node_id;
};
extern const struct pkt_host pkt_host_a, pkt_host_b;

/* "192.0.2.1" or "2001:db8::1" -> struct eq_addr (aborts on bad text). */
struct eq_addr pkt_addr(const char *text);
bool pkt_addr_is_v4(const struct eq_addr *a);

/* ---- Plain packets ---- */

struct pkt_spec {
	int		family;		/* AF_INET or AF_INET6 */
	uint8_t		l4;		/* IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP
					 * (ICMPv6 echo when family is AF_INET6) */
	struct eq_addr	src, dst;	/* IPv4 as mapped */
	uint8_t		tos;		/* TOS / traffic class: DSCP << 2 | ECN */
	uint32_t	flow_label;	/* IPv6 only, 20 bits */
	uint8_t		ttl;
	uint16_t	sport, dport;	/* TCP/UDP ports; ICMP echo id = sport */
	size_t		payload_len;
	uint8_t		seed;		/* payload byte i is (seed + i) */
};

/* Defaults: from's overlay address to to's, ports 40000 -> 80, TOS 0,
 * 100 bytes of payload. */
void pkt_spec_init(struct pkt_spec *s, int family, uint8_t l4,
		   const struct pkt_host *from, const struct pkt_host *to);
/* The IP packet alone / with an Ethernet header in front.  Both return the
 * length written, 0 if cap is too small. */
size_t pkt_build_ip(uint8_t *buf, size_t cap, const struct pkt_spec *s);
size_t pkt_build_frame(uint8_t *buf, size_t cap, const struct pkt_spec *s);
/* A 42-byte ARP request. */
size_t pkt_build_arp(uint8_t *buf, size_t cap);

/* ---- edgeq packets ---- */

struct pkt_encap {
	int		family;		/* outer: AF_INET or AF_INET6 */
	struct eq_addr	src, dst;	/* outer addresses (IPv4 mapped) */
	uint8_t		tos;		/* outer TOS / traffic class */
	uint8_t		ttl;
	uint8_t		ip_proto;	/* IPv4 protocol / IPv6 next header */
	uint16_t	ip_id;		/* IPv4 only */
	uint16_t	frag_off;	/* IPv4 flags | offset, host order */
	uint16_t	sport, dport;
	int		ip_len;		/* IPv4 tot_len / IPv6 payload_len; -1: computed */
	int		udp_len;	/* -1: computed */
	struct eq_hdr	eq;		/* written as is (network order fields) */
	const void	*opts;		/* bytes after the fixed edgeq header */
	size_t		opts_len;	/* (eq.hdr_len is not adjusted for them) */
	const void	*inner;		/* bytes after the edgeq header */
	size_t		inner_len;
};

/* Defaults: a valid DATA packet from `from` to `to` over `family`: DF set,
 * dport EQ_DEFAULT_PORT, sport 0xc000 | path_id, seq 1, proto taken from
 * the inner packet's version nibble. */
void pkt_encap_init(struct pkt_encap *e, int family, const struct pkt_host *from,
		    const struct pkt_host *to, const void *inner, size_t inner_len);
/* Length written, 0 if cap is too small.  Offsets of the layers in buf. */
struct pkt_layout {
	size_t l3, l4, eq, inner, len;
};
struct pkt_layout pkt_build_encap(uint8_t *buf, size_t cap, const struct pkt_encap *e);

/* ---- Checks on packets ---- */

/* RFC 1071 sum over an IPv4 header (with options): true when it verifies. */
bool pkt_ipv4_csum_ok(const uint8_t *ip);
/* True when the TCP/UDP/ICMP(v6) checksum of an IP packet verifies. */
bool pkt_l4_csum_ok(const uint8_t *ip, size_t len);
/* Recompute the IPv4 header checksum in place (after a test pokes it). */
void pkt_ipv4_fix_csum(uint8_t *ip);
/* TOS / traffic class of an IPv4 or IPv6 packet. */
uint8_t pkt_ip_tos(const uint8_t *ip);

/* ---- Maps ---- */

struct pkt_maps {
	int config, prefixes, peers, peer_stats, underlay, stats;
};
/* From any skeleton: PKT_MAPS(skel). */
#define PKT_MAPS(skel) ((struct pkt_maps){			\
	.config = bpf_map__fd((skel)->maps.eq_config),		\
	.prefixes = bpf_map__fd((skel)->maps.eq_prefixes),	\
	.peers = bpf_map__fd((skel)->maps.eq_peers),		\
	.peer_stats = bpf_map__fd((skel)->maps.eq_peer_stats),	\
	.underlay = bpf_map__fd((skel)->maps.eq_underlay),	\
	.stats = bpf_map__fd((skel)->maps.eq_stats) })

/* Configure `self` to tunnel to `peer` over `under_family`: eq_config
 * (both local addresses, port EQ_DEFAULT_PORT, MTU PKT_MTU, entropy flow),
 * peer's overlay prefixes -> PKT_PEER_SLOT, the slot itself, and both of
 * peer's underlay addresses -> PKT_PEER_SLOT.  0 or -errno. */
int pkt_setup_host(const struct pkt_maps *m, const struct pkt_host *self,
		   const struct pkt_host *peer, int under_family);

int pkt_get_config(const struct pkt_maps *m, struct eq_config *c);
int pkt_set_config(const struct pkt_maps *m, const struct eq_config *c);
/* len counts bits of the family's own address (e.g. 24 for a /24 IPv4). */
int pkt_add_prefix(const struct pkt_maps *m, const struct eq_addr *a, unsigned len,
		   uint32_t slot);
int pkt_get_peer(const struct pkt_maps *m, uint32_t slot, struct eq_peer *p);
/* A slot's per-peer counters, summed over CPUs. */
int pkt_get_peer_stats(const struct pkt_maps *m, uint32_t slot, struct eq_peer_stats *c);
int pkt_set_peer(const struct pkt_maps *m, uint32_t slot, const struct eq_peer *p);
int pkt_add_underlay(const struct pkt_maps *m, const struct eq_addr *a, uint32_t slot);
/* PKT_PEER_SLOT keyed (edgeq/auth.h): one key, `key` (16 bytes) of id
 * `id`, in the map keys_fd (the skeleton's eq_keys), and EQ_PEER_KEYED in
 * its slot.  0 or -errno. */
int pkt_set_key(const struct pkt_maps *m, int keys_fd, const uint8_t *key, uint8_t id);
/* eq_stats summed over the possible CPUs. */
int pkt_read_stats(const struct pkt_maps *m, struct eq_stats *sum);
/* Number of counters that differ between got and want; each one is
 * printed to stderr by name.  Tests compare the whole struct so that a
 * packet bumping a second counter fails too. */
int pkt_stats_diff(const struct eq_stats *got, const struct eq_stats *want);

/* ---- Running a program ---- */

struct pkt_result {
	uint32_t	retval;
	uint32_t	duration;	/* ns per run, as the kernel measured */
	size_t		len;		/* bytes in out */
	uint8_t		out[PKT_MAX];
};

/* One BPF_PROG_TEST_RUN of `in` (repeat 1, no context).  0 or -errno. */
int pkt_run(int prog_fd, const void *in, size_t len, struct pkt_result *r);
/* Same with a context (struct __sk_buff for TC, struct xdp_md for XDP)
 * and a repeat count. */
int pkt_run_ctx(int prog_fd, const void *in, size_t len, const void *ctx, size_t ctx_len,
		int repeat, struct pkt_result *r);

/* Small deterministic PRNG (xorshift64*) for property-style loops. */
uint64_t pkt_rand(uint64_t *state);

#endif /* EDGEQ_TEST_PKT_H */
