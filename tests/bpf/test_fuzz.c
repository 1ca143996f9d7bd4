// SPDX-License-Identifier: GPL-2.0-only
/*
 * A fuzzer of xdp_ingress and tc_egress through BPF_PROG_TEST_RUN (issue
 * 16, item 7): valid frames of every kind (DATA over either underlay and
 * with either inner family, with and without a frame length and options,
 * each control type, trimmed headers, plain traffic, ARP), mutated at
 * random (bits, bytes, lengths, truncation, growth, the length fields
 * made consistent again half of the time so that the deeper checks are
 * reached), each run through the program.  After every run:
 *
 *  - the verdict is one the program may give (XDP: pass, drop, redirect;
 *    TC: ok, shot, redirect);
 *  - the packet was counted: some eq_stats counter moved, and a drop
 *    moved a counter of a drop;
 *  - what XDP decapsulated is an Ethernet header and a well-formed IP
 *    packet (version, lengths within the frame, a verifying IPv4 header
 *    checksum) from inside the sending peer's prefixes (or, IPv6, from a
 *    link-local address, as XDP allows);
 *  - what TC encapsulated is a well-formed outer packet (IPv4 header
 *    checksum, lengths, UDP port, edgeq version and DATA) that carries the
 *    packet it was given; a quarter of TC's runs say the packet is GSO.
 *
 * A fixed seed (FUZZ_N runs per program and configuration, default
 * 20000) and then a random one for FUZZ_SECS seconds (default 2; its
 * seed is printed: FUZZ_SEED=S repeats it).  XDP runs under scheme none
 * and under scheme eqds with a live agent and direct delivery open: once
 * without a socket (what is the agent's is counted and dropped or
 * delivered, as when it just died), and once with an AF_XDP socket bound
 * to the loopback's queue 0, where test runs come from, in eq_xsks:
 * what is the agent's is then redirected to it, and in-order DATA goes
 * through XDP's direct delivery (eq_rx, the doorbell).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "edgeq/rx.h"
#include "edgeq/maps.h"
#include "xsk.h"
#include "tc_egress.skel.h"
#include "xdp_ingress.skel.h"
#include "pkt.h"
#include "edgeq/auth.h"
#include "stats.h"

#define NBASE	64
/* The largest frame grown: a 1500-byte MTU's and a little (test runs of
 * XDP take one page less its head- and tailroom). */
#define FRAME_MAX	1600

struct corpus {
	uint8_t	frame[NBASE][PKT_MAX];
	size_t	len[NBASE];
	struct pkt_layout lay[NBASE];
	int	n;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static unsigned long env_ul(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : dflt;
}

/* ---- The corpus: one valid frame of each kind ---- */

static void add_encap(struct corpus *c, int outer, int inner, uint8_t l4, uint8_t type,
		      uint8_t flags, uint32_t frame_len, bool seg_opt)
{
	static const uint8_t seg[8] = { EQ_OPT_SEG, 8, 0x05, 0x78, 0, 0, 0x10, 0 };
	uint8_t in[PKT_MAX];
	struct pkt_spec s;
	struct pkt_encap e;
	size_t n = 0;

	if (type == EQ_T_DATA || type == EQ_T_TRIMMED) {
		pkt_spec_init(&s, inner, l4, &pkt_host_a, &pkt_host_b);
		s.payload_len = (size_t)(c->n * 37 % 1300);
		n = type == EQ_T_DATA ? pkt_build_ip(in, sizeof(in), &s) : 0;
	}
	pkt_encap_init(&e, outer, &pkt_host_a, &pkt_host_b, in, n);
	e.eq.ver_type = (uint8_t)(EQ_WIRE_VERSION << 4 | type);
	e.eq.flags = flags;
	e.eq.proto = n ? (inner == AF_INET ? EQ_PROTO_IPV4 : EQ_PROTO_IPV6) : 0;
	e.eq.data.frame_len = htonl(frame_len);
	if (seg_opt) {
		e.opts = seg;
		e.opts_len = sizeof(seg);
		e.eq.hdr_len = EQ_HDR_WORDS + 2;
	}
	c->lay[c->n] = pkt_build_encap(c->frame[c->n], PKT_MAX, &e);
	c->len[c->n] = c->lay[c->n].len;
	assert_true(c->len[c->n] > 0);
	c->n++;
}

static void add_plain(struct corpus *c, int family, uint8_t l4, bool to_port)
{
	struct pkt_spec s;

	pkt_spec_init(&s, family, l4, &pkt_host_a, &pkt_host_b);
	if (to_port)
		s.dport = EQ_DEFAULT_PORT;
	c->len[c->n] = pkt_build_frame(c->frame[c->n], PKT_MAX, &s);
	c->lay[c->n] = (struct pkt_layout){ .l3 = PKT_ETH_LEN, .l4 = PKT_ETH_LEN +
					     (family == AF_INET ? 20 : 40), .len = c->len[c->n] };
	c->lay[c->n].eq = c->lay[c->n].inner = c->lay[c->n].l4 + 8;
	assert_true(c->len[c->n] > 0);
	c->n++;
}

static void corpus_wire(struct corpus *c)
{
	static const int fams[2] = { AF_INET, AF_INET6 };
	static const uint8_t l4s[3] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };

	c->n = 0;
	for (int o = 0; o < 2; o++) {
		for (int i = 0; i < 2; i++)
			for (int p = 0; p < 3; p++) {
				add_encap(c, fams[o], fams[i], l4s[p], EQ_T_DATA, 0, 0, false);
				add_encap(c, fams[o], fams[i], l4s[p], EQ_T_DATA, EQ_F_FAST, 1400, false);
			}
		add_encap(c, fams[o], AF_INET, IPPROTO_TCP, EQ_T_DATA, EQ_F_SYN, 1400, true);
		add_encap(c, fams[o], AF_INET6, IPPROTO_TCP, EQ_T_DATA, 0, 1400, true);
		add_encap(c, fams[o], AF_INET, IPPROTO_TCP, EQ_T_TRIMMED, EQ_F_TRIMMED, 1400, false);
		for (uint8_t t = EQ_T_PULL; t <= EQ_T_RST; t++)
			add_encap(c, fams[o], AF_INET, IPPROTO_TCP, t, EQ_F_CUM, 0, false);
	}
	add_plain(c, AF_INET, IPPROTO_UDP, true);
	add_plain(c, AF_INET6, IPPROTO_UDP, true);
	add_plain(c, AF_INET, IPPROTO_TCP, false);
	c->len[c->n] = pkt_build_arp(c->frame[c->n], PKT_MAX);
	c->lay[c->n] = (struct pkt_layout){ .l3 = PKT_ETH_LEN, .l4 = PKT_ETH_LEN,
					     .eq = PKT_ETH_LEN, .inner = PKT_ETH_LEN,
					     .len = c->len[c->n] };
	c->n++;
	assert_true(c->n <= NBASE);
}

/* What TC sees: plain frames from A's overlay address to B's (they hit a
 * peer prefix), and a few that do not. */
static void corpus_host(struct corpus *c)
{
	static const uint8_t l4s[3] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };
	struct pkt_spec s;

	c->n = 0;
	for (int f = 0; f < 2; f++)
		for (int p = 0; p < 3; p++)
			add_plain(c, f ? AF_INET6 : AF_INET, l4s[p], false);
	/* One that fits no more once encapsulated (unless GSO). */
	pkt_spec_init(&s, AF_INET, IPPROTO_TCP, &pkt_host_a, &pkt_host_b);
	s.payload_len = PKT_MTU - EQ_OVERHEAD_V4 - 40 + 1;
	c->len[c->n] = pkt_build_frame(c->frame[c->n], PKT_MAX, &s);
	c->lay[c->n] = (struct pkt_layout){ .l3 = PKT_ETH_LEN, .l4 = PKT_ETH_LEN + 20,
					     .eq = PKT_ETH_LEN + 40, .inner = PKT_ETH_LEN + 40,
					     .len = c->len[c->n] };
	c->n++;
	c->len[c->n] = pkt_build_arp(c->frame[c->n], PKT_MAX);
	c->lay[c->n] = (struct pkt_layout){ .l3 = PKT_ETH_LEN, .l4 = PKT_ETH_LEN,
					     .eq = PKT_ETH_LEN, .inner = PKT_ETH_LEN,
					     .len = c->len[c->n] };
	c->n++;
}

/* ---- Mutation ---- */

static const uint8_t interesting[] = { 0, 1, 2, 4, 5, 0x3f, 0x40, 0x45, 0x60, 0x7f, 0x80, 0xfe, 0xff };

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Lengths of the outer IPv4/IPv6 and UDP headers made to match len again,
 * the IPv4 header checksum fixed and the UDP checksum left out: gets a
 * mutant past the outer checks to the inner ones. */
static void make_consistent(uint8_t *b, size_t len, const struct pkt_layout *lay)
{
	if (lay->l3 + 20 > len || lay->l4 + 8 > len || lay->l4 == lay->l3)
		return;
	if ((b[lay->l3] >> 4) == 4) {
		put16(b + lay->l3 + 2, (uint16_t)(len - lay->l3));
		pkt_ipv4_fix_csum(b + lay->l3);
	} else if (lay->l3 + 40 <= len) {
		put16(b + lay->l3 + 4, (uint16_t)(len - lay->l3 - 40));
	}
	put16(b + lay->l4 + 4, (uint16_t)(len - lay->l4));
	/* No outer UDP checksum (the tunnel's own choice on either underlay):
	 * a mutant inner packet must then fail the inner checks, not this. */
	put16(b + lay->l4 + 6, 0);
}

static size_t mutate(uint8_t *b, size_t len, uint64_t *rs, const struct pkt_layout *lay)
{
	int n = 1 + (int)(pkt_rand(rs) % 4);

	for (int k = 0; k < n; k++) {
		uint64_t r = pkt_rand(rs);
		size_t at = len ? (size_t)(r >> 8) % len : 0;

		switch (r % 8) {
		case 0:		/* a bit */
			if (len)
				b[at] ^= (uint8_t)(1u << ((r >> 40) % 8));
			break;
		case 1:		/* a byte, often an interesting one */
			if (len)
				b[at] = (r >> 40) & 1 ? interesting[(r >> 41) % sizeof(interesting)]
						      : (uint8_t)(r >> 48);
			break;
		case 2: {	/* a byte of a header we know: lengths, types, flags */
			static const size_t hot[] = { 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19 };
			size_t base = (r >> 40) % 3 == 0 ? lay->l3 : (r >> 40) % 3 == 1 ? lay->l4 : lay->eq;
			size_t p = base + hot[(r >> 44) % (sizeof(hot) / sizeof(hot[0]))];

			if (p < len)
				b[p] = interesting[(r >> 50) % sizeof(interesting)];
			break;
		}
		case 3:		/* cut short */
			len = len ? (size_t)(r >> 8) % len : 0;
			break;
		case 4: {	/* grow, random bytes */
			size_t add = (r >> 8) % 64;

			if (len + add > FRAME_MAX)
				add = len < FRAME_MAX ? FRAME_MAX - len : 0;
			for (size_t i = 0; i < add; i++)
				b[len + i] = (uint8_t)pkt_rand(rs);
			len += add;
			break;
		}
		case 5:		/* the inner packet's first bytes */
			if (lay->inner + 4 <= len)
				b[lay->inner + (r >> 8) % 4] = (uint8_t)(r >> 40);
			break;
		case 6: {	/* a 16-bit field anywhere past Ethernet */
			if (len > PKT_ETH_LEN + 2) {
				size_t p = PKT_ETH_LEN + (r >> 8) % (len - PKT_ETH_LEN - 1);

				put16(b + p, (r >> 40) & 1 ? (uint16_t)(r >> 48) : (uint16_t)(len - p));
			}
			break;
		}
		default:	/* nothing: the consistency pass alone */
			break;
		}
	}
	/* No shorter frame reaches a hook (BPF_PROG_TEST_RUN refuses one too). */
	if (len < PKT_ETH_LEN)
		len = PKT_ETH_LEN;
	if (pkt_rand(rs) & 1)
		make_consistent(b, len, lay);
	return len;
}

/* ---- Checks ---- */

struct fuzz {
	struct pkt_maps		m;
	int			prog;
	bool			xdp;
	struct eq_stats		before;
	struct pkt_result	r;
	unsigned long		runs, verdicts[8], decap, encap;
	bool			rx_reopen;	/* before each run, the agent opens
						 * direct delivery at seq 1 again ... */
	int			rx_fd;		/* ... in this eq_rx */
};

static uint64_t stat_sum(const struct eq_stats *s)
{
	uint64_t t = 0;

	for (size_t i = 0; i < eq_stat_count; i++)
		t += eq_stat_get(s, i);
	return t;
}

/* A drop is counted by one of these. */
static bool drop_counted(const struct eq_stats *a, const struct eq_stats *b, bool xdp)
{
	for (size_t i = 0; i < eq_stat_count; i++) {
		const char *n = eq_stat_names[i];
		bool drop = xdp ? !strncmp(n, "rx_drop_", 8) || !strcmp(n, "rx_ctrl") ||
				  !strcmp(n, "rx_trimmed") || !strncmp(n, "rx_agent", 8)
				: !strncmp(n, "tx_err_", 7) || !strcmp(n, "tx_backpressure") ||
				  !strcmp(n, "tx_credit_wait") || !strcmp(n, "tx_agent_down");

		if (drop && eq_stat_get(b, i) > eq_stat_get(a, i))
			return true;
	}
	return false;
}

static bool in_prefix(const uint8_t *addr, const struct eq_addr *net, unsigned bits, bool v4)
{
	const uint8_t *p = v4 ? net->a + 12 : net->a;

	for (unsigned i = 0; i < bits; i++)
		if (((addr[i / 8] ^ p[i / 8]) >> (7 - i % 8)) & 1)
			return false;
	return true;
}

/* An Ethernet header and a well-formed IP packet from A's prefixes. */
static bool good_decap(const uint8_t *f, size_t len, char *why, size_t wlen)
{
	const uint8_t *ip = f + PKT_ETH_LEN;
	size_t n = len - PKT_ETH_LEN;
	uint16_t et = (uint16_t)(f[12] << 8 | f[13]);

	if (len < PKT_ETH_LEN + 20) {
		snprintf(why, wlen, "decapsulated to %zu bytes", len);
		return false;
	}
	if ((ip[0] >> 4) == 4) {
		/* Bytes past tot_len are the outer frame's Ethernet padding,
		 * which ip_rcv() trims as for any frame. */
		size_t tot = (size_t)(ip[2] << 8 | ip[3]);

		if (et != ETH_P_IP || (ip[0] & 15) < 5 || tot > n || tot < (size_t)(ip[0] & 15) * 4 ||
		    !pkt_ipv4_csum_ok(ip)) {
			snprintf(why, wlen, "bad inner IPv4 (ethertype %04x, ihl %u, tot_len %u, %zu bytes, csum %s)",
				 et, ip[0] & 15, ip[2] << 8 | ip[3], n, pkt_ipv4_csum_ok(ip) ? "ok" : "bad");
			return false;
		}
		if (!in_prefix(ip + 12, &pkt_host_a.net4, pkt_host_a.net4_len, true)) {
			snprintf(why, wlen, "inner IPv4 source outside A's prefixes");
			return false;
		}
		return true;
	}
	if ((ip[0] >> 4) == 6) {
		if (et != ETH_P_IPV6 || n < 40 || (size_t)(ip[4] << 8 | ip[5]) + 40 > n) {
			snprintf(why, wlen, "bad inner IPv6 (ethertype %04x, payload_len %u, %zu bytes)",
				 et, ip[4] << 8 | ip[5], n);
			return false;
		}
		/* Link-local sources (fe80::/10) pass as neighbour discovery
		 * between the hosts only, which no prefix lists: ICMPv6 types
		 * 133-137 with hop limit 255 (xdp_ingress.bpf.c,
		 * inner_src_ok()).  The random seed's 63,003rd mutant found
		 * fead:1::5 delivered. */
		bool nd = ip[8] == 0xfe && (ip[9] & 0xc0) == 0x80 && ip[6] == IPPROTO_ICMPV6 &&
			  ip[7] == 255 && n > 40 && ip[40] >= 133 && ip[40] <= 137;

		if (!in_prefix(ip + 8, &pkt_host_a.net6, pkt_host_a.net6_len, false) && !nd) {
			snprintf(why, wlen, "inner IPv6 source outside A's prefixes");
			return false;
		}
		return true;
	}
	snprintf(why, wlen, "decapsulated to IP version %u", ip[0] >> 4);
	return false;
}

/* The outer packet TC built around `in` (a frame of in_len bytes). */
static bool good_encap(const uint8_t *f, size_t len, const uint8_t *in, size_t in_len, char *why,
		       size_t wlen)
{
	const uint8_t *ip = f + PKT_ETH_LEN;
	size_t l3 = (ip[0] >> 4) == 4 ? 20 : 40, inner_len = in_len - PKT_ETH_LEN;
	const uint8_t *udp = ip + l3, *eq = udp + 8;
	size_t hl = (size_t)(eq[2] & 0x3f) * 4;

	if (len < PKT_ETH_LEN + l3 + 8 + EQ_HDR_LEN) {
		snprintf(why, wlen, "encapsulated to %zu bytes", len);
		return false;
	}
	if (l3 == 20 ? ((size_t)(ip[2] << 8 | ip[3]) != len - PKT_ETH_LEN || !pkt_ipv4_csum_ok(ip) ||
			ip[9] != IPPROTO_UDP)
		     : ((size_t)(ip[4] << 8 | ip[5]) + 40 != len - PKT_ETH_LEN || ip[6] != IPPROTO_UDP)) {
		snprintf(why, wlen, "bad outer IP header");
		return false;
	}
	if ((size_t)(udp[4] << 8 | udp[5]) != len - PKT_ETH_LEN - l3 ||
	    (udp[2] << 8 | udp[3]) != EQ_DEFAULT_PORT) {
		snprintf(why, wlen, "bad outer UDP header (len %u, port %u)", udp[4] << 8 | udp[5],
			 udp[2] << 8 | udp[3]);
		return false;
	}
	if ((eq[0] >> 4) != EQ_WIRE_VERSION || (eq[0] & 15) != EQ_T_DATA || hl < EQ_HDR_LEN ||
	    PKT_ETH_LEN + l3 + 8 + hl + inner_len != len) {
		snprintf(why, wlen, "bad edgeq header (ver_type %02x, hdr_len %zu, %zu inner bytes in %zu)",
			 eq[0], hl, inner_len, len);
		return false;
	}
	/* The inner packet unchanged, but for what RFC 6040 lets TC copy
	 * (nothing) and the IPv4 checksum (unchanged too). */
	if (memcmp(eq + hl, in + PKT_ETH_LEN, inner_len)) {
		snprintf(why, wlen, "the inner packet changed");
		return false;
	}
	return true;
}

static void run_one(struct fuzz *z, const uint8_t *in, size_t len, uint64_t seed, unsigned long i,
		    const struct __sk_buff *ctx)
{
	struct eq_stats after;
	char why[200] = "";
	uint32_t v;
	bool ok;

	if (z->rx_reopen) {
		uint32_t slot = PKT_PEER_SLOT;
		struct eq_rx rx;

		assert_int_equal(bpf_map_lookup_elem(z->rx_fd, &slot, &rx), 0);
		rx.order.parts.next = 1;	/* the corpus's DATA seq */
		rx.order.parts.flags = EQ_RX_OPEN;
		rx.read_bytes = rx.bytes;	/* and read what came: the next rings */
		rx.dirty = 0;
		assert_int_equal(bpf_map_update_elem(z->rx_fd, &slot, &rx, 0), 0);
	}
	if (pkt_run_ctx(z->prog, in, len, ctx, ctx ? sizeof(*ctx) : 0, 1, &z->r)) {
		fprintf(stderr, "# %s run %lu of seed %llu: BPF_PROG_TEST_RUN refused %zu bytes: %s\n",
			z->xdp ? "xdp" : "tc", i, (unsigned long long)seed, len, strerror(errno));
		fail();
	}
	assert_int_equal(pkt_read_stats(&z->m, &after), 0);
	v = z->r.retval;
	z->runs++;
	z->verdicts[v < 8 ? v : 7]++;
	ok = z->xdp ? v == XDP_PASS || v == XDP_DROP || v == XDP_REDIRECT
		    : v == TC_ACT_OK || v == TC_ACT_SHOT || v == TC_ACT_REDIRECT;
	if (!ok)
		snprintf(why, sizeof(why), "verdict %u", v);
	else if (stat_sum(&after) <= stat_sum(&z->before))
		snprintf(why, sizeof(why), "verdict %u, counted nowhere", v);
	else if ((z->xdp ? v == XDP_DROP : v == TC_ACT_SHOT) && !drop_counted(&z->before, &after, z->xdp))
		snprintf(why, sizeof(why), "dropped, but no drop counted");
	else if (z->xdp && v == XDP_PASS && (z->r.len != len || memcmp(z->r.out, in, len))) {
		z->decap++;
		ok = good_decap(z->r.out, z->r.len, why, sizeof(why));
	} else if (!z->xdp && v == TC_ACT_OK && z->r.len != len) {
		z->encap++;
		ok = good_encap(z->r.out, z->r.len, in, len, why, sizeof(why));
	}
	if (*why) {
		fprintf(stderr, "# %s run %lu of seed %llu (%zu bytes): %s\n#", z->xdp ? "xdp" : "tc", i,
			(unsigned long long)seed, len, why);
		for (size_t k = 0; k < len && k < 128; k++)
			fprintf(stderr, " %02x", in[k]);
		fprintf(stderr, "\n");
		pkt_stats_diff(&after, &z->before);
		fail();
	}
	z->before = after;
}

/* n mutants (or as many as fit in secs seconds, when secs) from seed. */
static void campaign(struct fuzz *z, const struct corpus *c, uint64_t seed, unsigned long n,
		     unsigned secs)
{
	uint64_t rs = seed | 1, end = secs ? now_ns() + secs * 1000000000ULL : 0;
	static uint8_t buf[PKT_MAX];

	assert_int_equal(pkt_read_stats(&z->m, &z->before), 0);
	for (unsigned long i = 0; secs ? now_ns() < end : i < n; i++) {
		int k = (int)(pkt_rand(&rs) % (uint64_t)c->n);
		size_t len = c->len[k];

		memcpy(buf, c->frame[k], len);
		if (i % 16)	/* every 16th as it is */
			len = mutate(buf, len, &rs, &c->lay[k]);
		/* A test run of TC refuses an IP frame shorter than its IP
		 * header (the stack never sends one): grow it to that. */
		if (!z->xdp) {
			size_t min = buf[12] == 0x08 && buf[13] == 0x00 ? PKT_ETH_LEN + 20 :
				     buf[12] == 0x86 && buf[13] == 0xdd ? PKT_ETH_LEN + 40 : 0;

			for (; len < min; len++)
				buf[len] = (uint8_t)pkt_rand(&rs);
		}
		/* TC: a quarter of them as GSO packets (TCP's, or anyone's). */
		struct __sk_buff ctx = { .gso_segs = 1 + (uint32_t)(pkt_rand(&rs) % 45),
					 .gso_size = 500 + (uint32_t)(pkt_rand(&rs) % 1100) };

		run_one(z, buf, len, seed, i, !z->xdp && pkt_rand(&rs) % 4 == 0 ? &ctx : NULL);
	}
}

static void report(const struct fuzz *z, const char *what)
{
	struct eq_stats s;
	char line[2048] = "";
	size_t n = 0;

	print_message("# %s: %lu runs, verdicts 0:%lu 1:%lu 2:%lu 3:%lu 4:%lu 7:%lu; %lu %s checked\n",
		      what, z->runs, z->verdicts[0], z->verdicts[1], z->verdicts[2], z->verdicts[3],
		      z->verdicts[4], z->verdicts[7], z->xdp ? z->decap : z->encap,
		      z->xdp ? "decapsulations" : "encapsulations");
	/* The counters so far: which checks the mutants reached. */
	assert_int_equal(pkt_read_stats(&z->m, &s), 0);
	for (size_t i = 0; i < eq_stat_count && n < sizeof(line) - 64; i++)
		if (eq_stat_get(&s, i))
			n += (size_t)snprintf(line + n, sizeof(line) - n, " %s %llu", eq_stat_names[i],
					      (unsigned long long)eq_stat_get(&s, i));
	print_message("#  counters:%s\n", line);
}

static uint64_t random_seed(void)
{
	uint64_t s = env_ul("FUZZ_SEED", 0);

	return s ? s : now_ns() ^ (uint64_t)getpid() << 32;
}

/* FUZZ_N mutants from a fixed seed, then FUZZ_SECS from a random one. */
static void campaigns(struct fuzz *z, const struct corpus *c, uint64_t fixed, const char *what)
{
	uint64_t seed = random_seed();
	char label[128];

	campaign(z, c, fixed, env_ul("FUZZ_N", 20000), 0);
	snprintf(label, sizeof(label), "%s, seed %#llx", what, (unsigned long long)fixed);
	report(z, label);
	memset(z->verdicts, 0, sizeof(z->verdicts));
	z->runs = z->decap = z->encap = 0;
	print_message("# %s: random seed %llu (FUZZ_SEED=%llu repeats it)\n", what,
		      (unsigned long long)seed, (unsigned long long)seed);
	campaign(z, c, seed, 0, (unsigned)env_ul("FUZZ_SECS", 2));
	snprintf(label, sizeof(label), "%s, random seed", what);
	report(z, label);
}

/* ---- The programs ---- */

static struct corpus corpus;

static void xdp_eqds_on(struct xdp_ingress *skel, const struct pkt_maps *m)
{
	uint32_t zero = 0, slot = PKT_PEER_SLOT;
	struct timespec ts;
	struct eq_config c;
	struct eq_agent ag = { .pid = 1, .flags = EQ_AGENT_READY };
	struct eq_rx rx = { .order.parts = { .next = 1, .flags = EQ_RX_OPEN }, .wake_bytes = 1500 };

	assert_int_equal(pkt_get_config(m, &c), 0);
	c.scheme = EQ_SCHEME_EQDS;
	c.agent_dead_ns = 3600ULL * 1000000000ULL;	/* alive for the whole run */
	c.tunnel.ack_delay_ns = 0;	/* no timers left behind */
	assert_int_equal(pkt_set_config(m, &c), 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ag.heartbeat_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.eq_agent), &zero, &ag, 0), 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.eq_rx), &slot, &rx, 0), 0);
}

/* Slot PKT_PEER_SLOT keyed (auth.h): TC signs, XDP checks its DATA. */
static void keyed(const struct pkt_maps *m, int keys_fd)
{
	static const uint8_t key[16] = { 7, 7, 7 };

	assert_int_equal(pkt_set_key(m, keys_fd, key, 1), 0);
}

static void fuzz_xdp(bool eqds, bool key, bool bound)
{
	struct xdp_ingress *skel = xdp_ingress__open_and_load();
	struct fuzz z = { 0 };
	struct eq_xsk x = { 0 };
	struct eq_stats st;
	char err[256];

	assert_non_null(skel);
	z.m = PKT_MAPS(skel);
	z.prog = bpf_program__fd(skel->progs.xdp_ingress);
	z.xdp = true;
	/* B receives from A, over either underlay. */
	assert_int_equal(pkt_setup_host(&z.m, &pkt_host_b, &pkt_host_a, AF_INET), 0);
	if (eqds)
		xdp_eqds_on(skel, &z.m);
	if (bound && eq_xsk_open(&x, "lo", 0, bpf_map__fd(skel->maps.eq_xsks), eq_xsk_wire_key(0),
				 2048, false, 64, 64, err, sizeof(err)))
		fail_msg("an AF_XDP socket on lo, queue 0: %s", err);
	if (bound) {
		z.rx_reopen = true;
		z.rx_fd = bpf_map__fd(skel->maps.eq_rx);
	}
	if (key)
		keyed(&z.m, bpf_map__fd(skel->maps.eq_keys));
	corpus_wire(&corpus);
	campaigns(&z, &corpus, key ? 0x5eed0003 : bound ? 0x5eed0005 : 0x5eed0001,
		  key ? "xdp_ingress, a keyed peer" : bound ? "xdp_ingress, scheme eqds, a socket bound"
		  : eqds ? "xdp_ingress, scheme eqds" : "xdp_ingress");
	if (bound) {
		/* The socket's paths were taken: frames went to the agent,
		 * and in-order DATA through direct delivery, which counts
		 * what it delivers in eq_rx and rang for it. */
		struct eq_rx rx;
		uint32_t slot = PKT_PEER_SLOT;

		assert_int_equal(pkt_read_stats(&z.m, &st), 0);
		assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.eq_rx), &slot, &rx), 0);
		print_message("  with the socket: %llu to the agent, %llu delivered directly, "
			      "%llu rings\n", (unsigned long long)st.rx_to_agent,
			      (unsigned long long)rx.pkts, (unsigned long long)st.bell_rx_now);
		assert_true(st.rx_to_agent > 0);
		assert_true(rx.pkts > 0);
		assert_true(st.bell_rx_now > 0);
		assert_int_equal(st.rx_agent_err, 0);	/* the socket was there */
		eq_xsk_close(&x);
	}
	xdp_ingress__destroy(skel);
}

static void fuzz__xdp_ingress_scheme_none(void **state)
{
	fuzz_xdp(false, false, false);
}

static void fuzz__xdp_ingress_scheme_eqds(void **state)
{
	fuzz_xdp(true, false, false);
}

static void fuzz__xdp_ingress_scheme_eqds_socket_bound(void **state)
{
	fuzz_xdp(true, false, true);
}

static void fuzz__xdp_ingress_keyed(void **state)
{
	fuzz_xdp(false, true, false);
}

static void fuzz_tc(bool key)
{
	struct tc_egress *skel = tc_egress__open_and_load();
	struct fuzz z = { 0 };

	assert_non_null(skel);
	z.m = PKT_MAPS(skel);
	z.prog = bpf_program__fd(skel->progs.tc_egress);
	/* A sends to B over IPv4. */
	assert_int_equal(pkt_setup_host(&z.m, &pkt_host_a, &pkt_host_b, AF_INET), 0);
	if (key)
		keyed(&z.m, bpf_map__fd(skel->maps.eq_keys));
	corpus_host(&corpus);
	campaigns(&z, &corpus, key ? 0x5eed0004 : 0x5eed0002,
		  key ? "tc_egress, a keyed peer" : "tc_egress");
	tc_egress__destroy(skel);
}

static void fuzz__tc_egress(void **state)
{
	fuzz_tc(false);
}

static void fuzz__tc_egress_keyed(void **state)
{
	fuzz_tc(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fuzz__xdp_ingress_scheme_none),
		cmocka_unit_test(fuzz__xdp_ingress_scheme_eqds),
		cmocka_unit_test(fuzz__xdp_ingress_scheme_eqds_socket_bound),
		cmocka_unit_test(fuzz__xdp_ingress_keyed),
		cmocka_unit_test(fuzz__tc_egress),
		cmocka_unit_test(fuzz__tc_egress_keyed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
