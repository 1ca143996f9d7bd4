// SPDX-License-Identifier: GPL-2.0-only
/*
 * xdp_ingress through BPF_PROG_TEST_RUN: each test loads a fresh skeleton
 * configured as host B with peer A, feeds it frames built by hand (valid
 * and malformed) and checks the verdict, the bytes that come out and that
 * exactly the expected counter moved.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_ingress.skel.h"
#include "pkt.h"

struct fx {
	struct xdp_ingress	*skel;
	struct pkt_maps		m;
	int			prog;
	struct pkt_result	r;
	uint8_t			inner[PKT_MAX];	/* the inner IP packet */
	size_t			inner_len;
	uint8_t			in[PKT_MAX];	/* the frame fed in */
	struct pkt_layout	lay;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->skel = xdp_ingress__open_and_load();
	if (!fx->skel) {
		fprintf(stderr, "# xdp_ingress__open_and_load: %s\n", strerror(errno));
		free(fx);
		return -1;
	}
	fx->m = PKT_MAPS(fx->skel);
	fx->prog = bpf_program__fd(fx->skel->progs.xdp_ingress);
	*state = fx;
	/* B's peer slot holds A; eq_underlay maps both of A's addresses. */
	return pkt_setup_host(&fx->m, &pkt_host_b, &pkt_host_a, AF_INET) ? -1 : 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	xdp_ingress__destroy(fx->skel);
	free(fx);
	return 0;
}

static void expect_stats(struct fx *fx, const struct eq_stats *want)
{
	struct eq_stats got;

	assert_int_equal(pkt_read_stats(&fx->m, &got), 0);
	assert_int_equal(pkt_stats_diff(&got, want), 0);
}

static struct eq_peer_stats counters_a(struct fx *fx)
{
	struct eq_peer_stats c;

	assert_int_equal(pkt_get_peer_stats(&fx->m, PKT_PEER_SLOT, &c), 0);
	return c;
}

static struct eq_peer peer_a(struct fx *fx)
{
	struct eq_peer p;

	assert_int_equal(pkt_get_peer(&fx->m, PKT_PEER_SLOT, &p), 0);
	return p;
}

/* fx->inner: a packet from A's overlay address to B's. */
static void make_inner(struct fx *fx, int family, uint8_t l4, uint8_t tos)
{
	struct pkt_spec s;

	pkt_spec_init(&s, family, l4, &pkt_host_a, &pkt_host_b);
	s.tos = tos;
	s.flow_label = 0x12345;
	fx->inner_len = pkt_build_ip(fx->inner, sizeof(fx->inner), &s);
	assert_true(fx->inner_len > 0);
}

/* A valid DATA packet from A carrying fx->inner, over outer_family. */
static void encap_init(struct fx *fx, struct pkt_encap *e, int outer_family)
{
	pkt_encap_init(e, outer_family, &pkt_host_a, &pkt_host_b, fx->inner, fx->inner_len);
}

/* Build e into fx->in and run the first len bytes of it (0: all). */
static void run_encap_len(struct fx *fx, const struct pkt_encap *e, size_t len)
{
	fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), e);
	assert_true(fx->lay.len > 0);
	if (!len)
		len = fx->lay.len;
	assert_int_equal(pkt_run(fx->prog, fx->in, len, &fx->r), 0);
}

static void run_encap(struct fx *fx, const struct pkt_encap *e)
{
	run_encap_len(fx, e, 0);
}

/* Decapsulated: same MACs, the inner EtherType, the inner packet. */
static void check_decap(struct fx *fx)
{
	uint16_t etype = (fx->inner[0] >> 4) == 6 ? ETH_P_IPV6 : ETH_P_IP;

	assert_int_equal(fx->r.retval, XDP_PASS);
	assert_int_equal(fx->r.len, PKT_ETH_LEN + fx->inner_len);
	assert_memory_equal(fx->r.out, fx->in, 12);
	assert_int_equal(fx->r.out[12] << 8 | fx->r.out[13], etype);
	assert_memory_equal(fx->r.out + PKT_ETH_LEN, fx->inner, fx->inner_len);
}

/* Dropped, and the one counter given moved (by one). */
#define expect_drop(fx, ...) do {					\
	assert_int_equal((fx)->r.retval, XDP_DROP);			\
	expect_stats((fx), &(struct eq_stats){ __VA_ARGS__ });		\
} while (0)

/* ---- Not edgeq: passed untouched ---- */

static void check_pass_untouched(struct fx *fx, const uint8_t *frame, size_t len)
{
	assert_int_equal(pkt_run(fx->prog, frame, len, &fx->r), 0);
	assert_int_equal(fx->r.retval, XDP_PASS);
	assert_int_equal(fx->r.len, len);
	assert_memory_equal(fx->r.out, frame, len);
}

static void xdp_ingress__non_edgeq_passes_untouched(void **state)
{
	struct fx *fx = *state;
	static const struct { int family; uint8_t l4; uint16_t dport; } cases[] = {
		{ AF_INET, IPPROTO_TCP, EQ_DEFAULT_PORT },	/* TCP to "our" port */
		{ AF_INET, IPPROTO_UDP, 53 },
		{ AF_INET, IPPROTO_ICMP, 0 },
		{ AF_INET6, IPPROTO_TCP, 443 },
		{ AF_INET6, IPPROTO_UDP, EQ_DEFAULT_PORT + 1 },
		{ AF_INET6, IPPROTO_ICMP, 0 },
	};
	size_t n = sizeof(cases) / sizeof(cases[0]);
	struct pkt_spec s;

	for (size_t i = 0; i < n; i++) {
		pkt_spec_init(&s, cases[i].family, cases[i].l4, &pkt_host_a, &pkt_host_b);
		s.dport = cases[i].dport;
		size_t len = pkt_build_frame(fx->in, sizeof(fx->in), &s);

		assert_true(len > 0);
		check_pass_untouched(fx, fx->in, len);
	}
	size_t len = pkt_build_arp(fx->in, sizeof(fx->in));

	check_pass_untouched(fx, fx->in, len);
	expect_stats(fx, &(struct eq_stats){ .rx_pass = n + 1 });
}

/* A non-first IPv4 fragment has no UDP header: the bytes where the ports
 * would be are payload, and may read as our port.  It is not ours. */
static void xdp_ingress__later_fragment_of_other_traffic_passes(void **state)
{
	struct fx *fx = *state;
	struct pkt_spec s;
	uint8_t *ip = fx->in + PKT_ETH_LEN;

	pkt_spec_init(&s, AF_INET, IPPROTO_UDP, &pkt_host_a, &pkt_host_b);
	size_t len = pkt_build_frame(fx->in, sizeof(fx->in), &s);

	((struct iphdr *)ip)->frag_off = htons(185);	/* offset 1480, last fragment */
	ip[20 + 2] = EQ_DEFAULT_PORT >> 8;		/* payload that looks like a dport */
	ip[20 + 3] = EQ_DEFAULT_PORT & 0xff;
	pkt_ipv4_fix_csum(ip);
	check_pass_untouched(fx, fx->in, len);
	expect_stats(fx, &(struct eq_stats){ .rx_pass = 1 });
}

/* ---- DATA: decapsulated ---- */

static void check_data_decap(struct fx *fx, int outer_family, int inner_family, uint8_t l4)
{
	struct pkt_encap e;

	make_inner(fx, inner_family, l4, 0);
	encap_init(fx, &e, outer_family);
	e.eq.data.seq = htonl(41);
	run_encap(fx, &e);
	check_decap(fx);
	expect_stats(fx, &(struct eq_stats){ .rx_decap = 1 });

	struct eq_peer p = peer_a(fx);
	struct eq_peer_stats c = counters_a(fx);

	assert_int_equal(c.rx_packets, 1);
	assert_int_equal(c.rx_bytes, fx->inner_len);
	assert_int_equal(p.rx_sender_id, pkt_host_a.node_id);
	assert_int_equal(p.rx_seq_next, 42);
	assert_int_equal(c.rx_ce, 0);
}

static void xdp_ingress__v4_in_v4_decapsulated(void **state)
{
	check_data_decap(*state, AF_INET, AF_INET, IPPROTO_TCP);
}

static void xdp_ingress__v6_in_v6_decapsulated(void **state)
{
	check_data_decap(*state, AF_INET6, AF_INET6, IPPROTO_UDP);
}

static void xdp_ingress__v4_in_v6_decapsulated(void **state)
{
	check_data_decap(*state, AF_INET6, AF_INET, IPPROTO_ICMP);
}

static void xdp_ingress__v6_in_v4_decapsulated(void **state)
{
	check_data_decap(*state, AF_INET, AF_INET6, IPPROTO_TCP);
}

/* Options: hdr_len counts them, and the payload starts after them. */
static void xdp_ingress__header_options_skipped(void **state)
{
	struct fx *fx = *state;
	static const uint8_t opts[8] = {
		EQ_OPT_CREDIT, 6, 0x00, 0x01, 0x00, 0x00,	/* 64 KiB of credit */
		EQ_OPT_PAD, EQ_OPT_PAD,
	};
	struct pkt_encap e;

	for (int outer = 0; outer < 2; outer++) {
		make_inner(fx, outer ? AF_INET6 : AF_INET, IPPROTO_UDP, 0);
		encap_init(fx, &e, outer ? AF_INET6 : AF_INET);
		e.eq.hdr_len = EQ_HDR_WORDS + 2;
		e.opts = opts;
		e.opts_len = sizeof(opts);
		run_encap(fx, &e);
		check_decap(fx);
	}
	expect_stats(fx, &(struct eq_stats){ .rx_decap = 2 });
}

/* IPv4 GSO segments share a seq; the outer IP ID tells them apart. */
static void xdp_ingress__seq_adds_outer_ip_id(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	make_inner(fx, AF_INET, IPPROTO_TCP, 0);
	encap_init(fx, &e, AF_INET);
	e.eq.data.seq = htonl(100);
	e.ip_id = 3;
	run_encap(fx, &e);
	check_decap(fx);
	assert_int_equal(peer_a(fx).rx_seq_next, 104);
}

/* IPv6 has no ID: a TCP GSO packet's segments carry the segment option,
 * and the inner TCP seq says which one each is (wire.h).  One that is no
 * segment of it is dropped, counted. */
static void xdp_ingress__seq_adds_segment_option_index(void **state)
{
	struct fx *fx = *state;
	struct eq_opt_seg so = { .kind = EQ_OPT_SEG, .len = EQ_OPT_SEG_LEN, .mss = htons(1000) };
	struct pkt_encap e;
	uint32_t tcp_seq;

	for (int inner = 0; inner < 2; inner++) {
		make_inner(fx, inner ? AF_INET6 : AF_INET, IPPROTO_TCP, 0);
		memcpy(&tcp_seq, fx->inner + (inner ? 40 : 20) + 4, 4);
		so.tcp_seq0 = htonl(ntohl(tcp_seq) - 5 * 1000);		/* the sixth segment */
		encap_init(fx, &e, AF_INET6);
		e.eq.data.seq = htonl(100);
		e.eq.hdr_len = EQ_HDR_WORDS + EQ_OPT_SEG_LEN / 4;
		e.opts = &so;
		e.opts_len = sizeof(so);
		run_encap(fx, &e);
		check_decap(fx);
		assert_int_equal(peer_a(fx).rx_seq_next, 106);
	}
	expect_stats(fx, &(struct eq_stats){ .rx_decap = 2 });
	so.tcp_seq0 = htonl(ntohl(tcp_seq) - 5 * 1000 + 1);
	run_encap(fx, &e);
	expect_drop(fx, .rx_decap = 2, .rx_drop_seg = 1);
}

/* An inner source outside the sending peer's prefixes is an injection
 * with the peer's outer address: dropped, whatever the scheme (here
 * none: XDP would deliver it itself).  The peer's own address and any
 * other in its prefixes pass. */
static void xdp_ingress__inner_source_outside_the_peers_prefixes_dropped(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;
	struct pkt_spec s;

	for (int fam = 0; fam < 2; fam++) {
		pkt_spec_init(&s, fam ? AF_INET6 : AF_INET, IPPROTO_UDP, &pkt_host_a, &pkt_host_b);
		s.src = fam ? pkt_addr("fd00:3::9") : pkt_addr("10.3.0.9");	/* nobody's */
		fx->inner_len = pkt_build_ip(fx->inner, sizeof(fx->inner), &s);
		encap_init(fx, &e, AF_INET);
		run_encap(fx, &e);
		assert_int_equal(fx->r.retval, XDP_DROP);
		s.src = fam ? pkt_addr("fd00:1::77") : pkt_addr("10.1.200.3");	/* A's prefixes */
		fx->inner_len = pkt_build_ip(fx->inner, sizeof(fx->inner), &s);
		encap_init(fx, &e, AF_INET);
		run_encap(fx, &e);
		check_decap(fx);
	}
	expect_stats(fx, &(struct eq_stats){ .rx_drop_src = 2, .rx_decap = 2 });
}

/* A link-local inner source (fe80::/10), which no prefix lists, passes
 * only as neighbour discovery (ICMPv6 133-137) with hop limit 255 (RFC
 * 4861): a neighbour solicitation passes; the same with hop limit 64, an
 * echo request, and UDP from that source are injections, dropped. */
static void xdp_ingress__link_local_inner_only_neighbour_discovery(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;
	struct pkt_spec s;
	static const struct { uint8_t l4, type, hop; bool pass; } c[] = {
		{ IPPROTO_ICMP, 135, 255, true },	/* a neighbour solicitation */
		{ IPPROTO_ICMP, 136, 255, true },	/* ... advertisement */
		{ IPPROTO_ICMP, 135, 64, false },	/* not from the link */
		{ IPPROTO_ICMP, 128, 255, false },	/* an echo request */
		{ IPPROTO_ICMP, 138, 255, false },	/* a redirect's neighbour */
		{ IPPROTO_UDP, 0, 255, false },
	};

	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		pkt_spec_init(&s, AF_INET6, c[i].l4, &pkt_host_a, &pkt_host_b);
		s.src = pkt_addr("fe80::1");
		s.ttl = c[i].hop;
		fx->inner_len = pkt_build_ip(fx->inner, sizeof(fx->inner), &s);
		if (c[i].l4 == IPPROTO_ICMP)
			fx->inner[40] = c[i].type;	/* ICMPv6 type, after the header */
		encap_init(fx, &e, AF_INET);
		run_encap(fx, &e);
		if (c[i].pass)
			check_decap(fx);
		else
			assert_int_equal(fx->r.retval, XDP_DROP);
	}
	expect_stats(fx, &(struct eq_stats){ .rx_drop_src = 4, .rx_decap = 2 });
}

/* ---- Malformed: dropped, each by its own counter ---- */

static void xdp_ingress__truncated_header_dropped_short(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	for (int outer = 0; outer < 2; outer++) {
		/* The frame ends 10 bytes into the edgeq header and the IP
		 * and UDP lengths say so. */
		encap_init(fx, &e, outer ? AF_INET6 : AF_INET);
		e.inner_len = 0;
		e.udp_len = 8 + 10;
		e.ip_len = e.udp_len + (outer ? 0 : 20);
		fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
		run_encap_len(fx, &e, fx->lay.eq + 10);
	}
	/* Lengths saying 10 bytes, with more bytes behind them in the frame. */
	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	encap_init(fx, &e, AF_INET);
	e.udp_len = 8 + 10;
	e.ip_len = 20 + 8 + 10;
	run_encap(fx, &e);
	expect_drop(fx, .rx_drop_short = 3);
}

static void xdp_ingress__wrong_version_dropped(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	encap_init(fx, &e, AF_INET);
	e.eq.ver_type = eq_mk_ver_type(0, EQ_T_DATA);
	run_encap(fx, &e);
	e.eq.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION + 1, EQ_T_DATA);
	run_encap(fx, &e);
	expect_drop(fx, .rx_drop_version = 2);
}

static void xdp_ingress__unknown_type_dropped(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	encap_init(fx, &e, AF_INET6);
	e.eq.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_MAX + 1);
	run_encap(fx, &e);
	e.eq.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, 15);
	run_encap(fx, &e);
	expect_drop(fx, .rx_drop_type = 2);
}

static void xdp_ingress__unknown_peer_dropped(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	encap_init(fx, &e, AF_INET);
	e.src = pkt_addr("192.0.2.99");
	run_encap(fx, &e);
	encap_init(fx, &e, AF_INET6);
	e.src = pkt_addr("2001:db8::99");
	run_encap(fx, &e);
	expect_drop(fx, .rx_drop_peer = 2);
}

/* A slot the underlay table points at but that is not in use. */
static void xdp_ingress__unused_peer_slot_dropped(void **state)
{
	struct fx *fx = *state;
	struct eq_peer p = { 0 };
	struct pkt_encap e;

	assert_int_equal(pkt_set_peer(&fx->m, PKT_PEER_SLOT, &p), 0);
	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	encap_init(fx, &e, AF_INET);
	run_encap(fx, &e);
	expect_drop(fx, .rx_drop_peer = 1);
}

static void xdp_ingress__ip_len_beyond_frame_dropped(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	for (int outer = 0; outer < 2; outer++) {
		encap_init(fx, &e, outer ? AF_INET6 : AF_INET);
		e.ip_len = (int)(8 + EQ_HDR_LEN + fx->inner_len + (outer ? 0 : 20) + 1);
		e.udp_len = e.ip_len - (outer ? 0 : 20);	/* consistent with IP */
		run_encap(fx, &e);
	}
	expect_drop(fx, .rx_drop_len = 2);
}

static void xdp_ingress__udp_len_disagreeing_dropped(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;
	int delta[] = { -1, 1 };

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	for (int outer = 0; outer < 2; outer++) {
		for (int d = 0; d < 2; d++) {
			encap_init(fx, &e, outer ? AF_INET6 : AF_INET);
			e.udp_len = (int)(8 + EQ_HDR_LEN + fx->inner_len) + delta[d];
			run_encap(fx, &e);
		}
	}
	expect_drop(fx, .rx_drop_len = 4);
}

static void xdp_ingress__inner_len_disagreeing_dropped(void **state)
{
	struct fx *fx = *state;
	static const uint8_t tail[4] = { 1, 2, 3, 4 };
	struct pkt_encap e;

	for (int inner = 0; inner < 2; inner++) {
		/* The outer carries 4 bytes more than the inner packet says. */
		make_inner(fx, inner ? AF_INET6 : AF_INET, IPPROTO_UDP, 0);
		memcpy(fx->inner + fx->inner_len, tail, sizeof(tail));
		encap_init(fx, &e, AF_INET);
		e.inner_len += sizeof(tail);
		run_encap(fx, &e);
		/* The inner packet claims 4 bytes more than the outer carries. */
		make_inner(fx, inner ? AF_INET6 : AF_INET, IPPROTO_UDP, 0);
		if (inner) {
			struct ipv6hdr *ip6 = (struct ipv6hdr *)fx->inner;

			ip6->payload_len = htons(ntohs(ip6->payload_len) + 4);
		} else {
			struct iphdr *ip = (struct iphdr *)fx->inner;

			ip->tot_len = htons(ntohs(ip->tot_len) + 4);
			pkt_ipv4_fix_csum(fx->inner);
		}
		encap_init(fx, &e, AF_INET6);
		run_encap(fx, &e);
	}
	expect_drop(fx, .rx_drop_len = 4);
}

static void xdp_ingress__hdr_len_out_of_range_dropped(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;
	const uint8_t bad[] = { 0, EQ_HDR_WORDS - 1, 255 };

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	for (size_t i = 0; i < sizeof(bad); i++) {
		encap_init(fx, &e, AF_INET);
		e.eq.hdr_len = bad[i];
		run_encap(fx, &e);
	}
	/* One word more than the UDP payload holds. */
	encap_init(fx, &e, AF_INET6);
	e.eq.hdr_len = (uint8_t)((EQ_HDR_LEN + fx->inner_len) / 4 + 1);
	run_encap(fx, &e);
	expect_drop(fx, .rx_drop_len = 4);
}

static void xdp_ingress__inner_not_matching_proto_dropped(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	make_inner(fx, AF_INET6, IPPROTO_UDP, 0);
	encap_init(fx, &e, AF_INET);
	e.eq.proto = EQ_PROTO_IPV4;		/* but an IPv6 packet inside */
	run_encap(fx, &e);
	make_inner(fx, AF_INET, IPPROTO_UDP, 0);	/* 128 bytes: room for an IPv6 header */
	encap_init(fx, &e, AF_INET);
	e.eq.proto = EQ_PROTO_IPV6;		/* but an IPv4 packet inside */
	run_encap(fx, &e);
	encap_init(fx, &e, AF_INET6);
	e.eq.proto = IPPROTO_UDP;		/* neither 4 nor 41 */
	run_encap(fx, &e);
	expect_drop(fx, .rx_drop_inner = 3);
}

static void xdp_ingress__outer_fragment_dropped(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	encap_init(fx, &e, AF_INET);
	e.frag_off = 0x2000;			/* MF: a first fragment */
	run_encap(fx, &e);
	expect_drop(fx, .rx_drop_frag = 1);
}

static void xdp_ingress__control_types_counted(void **state)
{
	struct fx *fx = *state;
	static const uint8_t types[] = { EQ_T_PULL, EQ_T_ACK, EQ_T_NACK, EQ_T_RTS, EQ_T_RST };
	struct pkt_encap e;

	for (size_t i = 0; i < sizeof(types); i++) {
		encap_init(fx, &e, i % 2 ? AF_INET6 : AF_INET);
		e.eq.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, types[i]);
		e.eq.proto = 0;
		e.eq.ctl.ack = htonl(7);
		e.inner_len = 0;
		run_encap(fx, &e);
		assert_int_equal(fx->r.retval, XDP_DROP);
	}
	expect_drop(fx, .rx_ctrl = sizeof(types));
}

static void xdp_ingress__trimmed_counted(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	encap_init(fx, &e, AF_INET);
	e.eq.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_TRIMMED);
	e.eq.flags = EQ_F_TRIMMED;
	e.inner_len = 20;			/* the switch cut the payload */
	run_encap(fx, &e);
	expect_drop(fx, .rx_trimmed = 1);
}

/* ---- ECN (RFC 6040 section 4.2, Figure 4) ---- */

#define NOT 0	/* Not-ECT */
#define E1 1	/* ECT(1) */
#define E0 2	/* ECT(0) */
#define CE 3
#define DROP (-1)

/* The RFC's table, written out here independently of include/edgeq/ecn.h:
 * rfc6040[inner][outer] = inner ECN after decapsulation. */
static const int rfc6040[4][4] = {
	/* outer:  NOT   E1    E0    CE */
	[NOT] = { NOT,  NOT,  NOT,  DROP },
	[E1]  = { E1,   E1,   E1,   CE },
	[E0]  = { E0,   E1,   E0,   CE },
	[CE]  = { CE,   CE,   CE,   CE },
};

/* One packet with the given codepoints; check it left as the table says
 * with the inner DSCP kept and, on IPv4, a valid header checksum.
 * Returns true when it was delivered. */
static bool check_ecn(struct fx *fx, int outer_family, int inner_family, int in_ecn,
		      int out_ecn)
{
	const uint8_t dscp = 0x28;	/* AF11: DSCP 10 */
	struct pkt_encap e;
	int want = rfc6040[in_ecn][out_ecn];

	make_inner(fx, inner_family, IPPROTO_TCP, (uint8_t)(dscp | in_ecn));
	encap_init(fx, &e, outer_family);
	e.tos = (uint8_t)(0xb8 | out_ecn);	/* the fabric's DSCP is not copied in */
	run_encap(fx, &e);
	if (want == DROP) {
		assert_int_equal(fx->r.retval, XDP_DROP);
		return false;
	}
	assert_int_equal(fx->r.retval, XDP_PASS);
	assert_int_equal(fx->r.len, PKT_ETH_LEN + fx->inner_len);

	const uint8_t *ip = fx->r.out + PKT_ETH_LEN;

	assert_int_equal(pkt_ip_tos(ip), dscp | want);
	if (inner_family == AF_INET) {
		assert_true(pkt_ipv4_csum_ok(ip));
		/* Only TOS and the checksum may change. */
		assert_int_equal(ip[0], fx->inner[0]);
		assert_memory_equal(ip + 2, fx->inner + 2, 8);
		assert_memory_equal(ip + 12, fx->inner + 12, fx->inner_len - 12);
	} else {
		/* Only the traffic class may change: version and flow label stay. */
		assert_int_equal(ip[0] >> 4, 6);
		assert_int_equal(ip[1] & 0x0f, fx->inner[1] & 0x0f);
		assert_memory_equal(ip + 2, fx->inner + 2, fx->inner_len - 2);
	}
	assert_true(pkt_l4_csum_ok(ip, fx->inner_len));
	return true;
}

static void xdp_ingress__ecn_ce_over_ect0_marks_inner_ce(void **state)
{
	struct fx *fx = *state;

	check_ecn(fx, AF_INET, AF_INET, E0, CE);
	check_ecn(fx, AF_INET6, AF_INET, E0, CE);
	assert_int_equal(fx->r.out[PKT_ETH_LEN + 1] & 3, CE);
	expect_stats(fx, &(struct eq_stats){ .rx_decap = 2 });
	assert_int_equal(counters_a(fx).rx_ce, 2);
}

/* rx_ce counts marks the fabric made: an inner packet already CE when it
 * was encapsulated (normal mode copies CE outward) is not one of them. */
static void xdp_ingress__rx_ce_counts_fabric_marks_only(void **state)
{
	struct fx *fx = *state;

	check_ecn(fx, AF_INET, AF_INET, CE, CE);
	check_ecn(fx, AF_INET6, AF_INET6, CE, CE);
	expect_stats(fx, &(struct eq_stats){ .rx_decap = 2 });
	assert_int_equal(counters_a(fx).rx_ce, 0);
	assert_int_equal(counters_a(fx).rx_packets, 2);
}

static void xdp_ingress__ecn_ce_over_not_ect_dropped(void **state)
{
	struct fx *fx = *state;

	check_ecn(fx, AF_INET, AF_INET, NOT, CE);
	check_ecn(fx, AF_INET6, AF_INET6, NOT, CE);
	expect_drop(fx, .rx_drop_ecn = 2);
	assert_int_equal(counters_a(fx).rx_packets, 0);
}

static void xdp_ingress__ecn_ect1_over_ect0_gives_ect1(void **state)
{
	struct fx *fx = *state;

	check_ecn(fx, AF_INET, AF_INET, E0, E1);
	check_ecn(fx, AF_INET6, AF_INET, E0, E1);
	assert_int_equal(fx->r.out[PKT_ETH_LEN + 1] & 3, E1);
	expect_stats(fx, &(struct eq_stats){ .rx_decap = 2 });
}

static void xdp_ingress__ecn_v6_inner_traffic_class_updated(void **state)
{
	struct fx *fx = *state;

	check_ecn(fx, AF_INET6, AF_INET6, E0, CE);
	check_ecn(fx, AF_INET, AF_INET6, E1, CE);
	check_ecn(fx, AF_INET6, AF_INET6, E0, E1);
	expect_stats(fx, &(struct eq_stats){ .rx_decap = 3 });
}

/* All 16 combinations, both inner and both outer families. */
static void xdp_ingress__ecn_whole_rfc6040_table(void **state)
{
	struct fx *fx = *state;
	uint64_t delivered = 0, dropped = 0;

	for (int outer = 0; outer < 2; outer++)
		for (int inner = 0; inner < 2; inner++)
			for (int i = 0; i < 4; i++)
				for (int o = 0; o < 4; o++) {
					if (check_ecn(fx, outer ? AF_INET6 : AF_INET,
						      inner ? AF_INET6 : AF_INET, i, o))
						delivered++;
					else
						dropped++;
				}
	assert_int_equal(dropped, 4);
	expect_stats(fx, &(struct eq_stats){ .rx_decap = delivered, .rx_drop_ecn = dropped });
}

/* With repeat > 1 the kernel re-runs the program on the same buffer: the
 * second run sees the decapsulated packet.  The benchmark relies on it. */
static void xdp_ingress__test_run_repeat_reuses_buffer(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	make_inner(fx, AF_INET, IPPROTO_TCP, 0);
	encap_init(fx, &e, AF_INET);
	fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
	assert_int_equal(pkt_run_ctx(fx->prog, fx->in, fx->lay.len, NULL, 0, 3, &fx->r), 0);
	check_decap(fx);
	expect_stats(fx, &(struct eq_stats){ .rx_decap = 1, .rx_pass = 2 });
}

/* ---- Outer destination, IPv4 header checksum, IPv4 options ---- */

/* Run the frame already built (and maybe poked) in fx->in, len bytes. */
static void run_in(struct fx *fx, size_t len)
{
	assert_int_equal(pkt_run(fx->prog, fx->in, len, &fx->r), 0);
}

/* A valid DATA packet from a known peer to our port, but addressed to
 * another host: not ours to decapsulate.  Passed up untouched. */
static void xdp_ingress__outer_dst_not_local_passes_untouched(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	make_inner(fx, AF_INET, IPPROTO_TCP, 0);
	for (int outer = 0; outer < 2; outer++) {
		const struct eq_addr others[] = {
			outer ? pkt_addr("2001:db8::99") : pkt_addr("192.0.2.99"),
			outer ? pkt_host_a.under6 : pkt_host_a.under4,	/* the sender's own */
			outer ? pkt_host_b.ovl6 : pkt_host_b.ovl4,	/* B, but not its underlay */
		};

		for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
			encap_init(fx, &e, outer ? AF_INET6 : AF_INET);
			e.dst = others[i];
			fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
			assert_true(fx->lay.len > 0);
			check_pass_untouched(fx, fx->in, fx->lay.len);
		}
	}
	expect_stats(fx, &(struct eq_stats){ .rx_pass = 6 });
	assert_int_equal(counters_a(fx).rx_packets, 0);
}

/* The config has no local address of the outer family (EQ_CFG_HAS_V4/V6
 * clear; the address field itself still holds B's): nothing of that
 * family is ours. */
static void xdp_ingress__outer_family_without_local_passes_untouched(void **state)
{
	struct fx *fx = *state;
	struct eq_config c, saved;
	struct pkt_encap e;

	assert_int_equal(pkt_get_config(&fx->m, &saved), 0);
	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	for (int outer = 0; outer < 2; outer++) {
		c = saved;
		c.flags &= ~(outer ? EQ_CFG_HAS_V6 : EQ_CFG_HAS_V4);
		assert_int_equal(pkt_set_config(&fx->m, &c), 0);
		encap_init(fx, &e, outer ? AF_INET6 : AF_INET);
		fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
		check_pass_untouched(fx, fx->in, fx->lay.len);
	}
	/* The other family is still decapsulated meanwhile. */
	c = saved;
	c.flags &= ~EQ_CFG_HAS_V6;
	assert_int_equal(pkt_set_config(&fx->m, &c), 0);
	encap_init(fx, &e, AF_INET);
	run_encap(fx, &e);
	check_decap(fx);
	expect_stats(fx, &(struct eq_stats){ .rx_pass = 2, .rx_decap = 1 });
}

static void xdp_ingress__outer_ipv4_bad_checksum_dropped(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;
	struct iphdr *ip;

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	encap_init(fx, &e, AF_INET);
	/* A flipped bit in the checksum field itself. */
	fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
	ip = (struct iphdr *)(fx->in + fx->lay.l3);
	ip->check ^= htons(0x0100);
	assert_false(pkt_ipv4_csum_ok(fx->in + fx->lay.l3));
	run_in(fx, fx->lay.len);
	assert_int_equal(fx->r.retval, XDP_DROP);
	/* A field changed on the way without the checksum following: TTL,
	 * and the source address (a checksum the program must not trust). */
	fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
	ip->ttl--;
	run_in(fx, fx->lay.len);
	assert_int_equal(fx->r.retval, XDP_DROP);
	fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
	ip->saddr ^= htonl(0x100);
	run_in(fx, fx->lay.len);
	expect_drop(fx, .rx_drop_csum = 3);
	assert_int_equal(counters_a(fx).rx_packets, 0);
}

/* The checksum is ours to check only for our packets: other traffic with a
 * bad one is the stack's to drop. */
static void xdp_ingress__bad_checksum_of_other_traffic_passes(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;
	struct iphdr *ip;

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	for (int i = 0; i < 2; i++) {
		encap_init(fx, &e, AF_INET);
		if (i)
			e.dst = pkt_addr("192.0.2.99");	/* another host */
		else
			e.dport = EQ_DEFAULT_PORT + 1;	/* another port */
		fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
		ip = (struct iphdr *)(fx->in + fx->lay.l3);
		ip->check ^= htons(0x0001);
		check_pass_untouched(fx, fx->in, fx->lay.len);
	}
	expect_stats(fx, &(struct eq_stats){ .rx_pass = 2 });
}

/* Insert nbytes of IPv4 options (NOPs ending with EOL) after the outer IPv4
 * header of the frame in fx->in, with the IP length and the checksum made
 * right.  Returns the new frame length. */
static size_t add_ipv4_options(struct fx *fx, size_t nbytes)
{
	uint8_t *ip = fx->in + fx->lay.l3;
	struct iphdr *h = (struct iphdr *)ip;
	size_t after = fx->lay.len - fx->lay.l3 - sizeof(*h);

	assert_true(nbytes % 4 == 0 && nbytes > 0 && nbytes <= 40);
	assert_true(fx->lay.len + nbytes <= sizeof(fx->in));
	memmove(ip + sizeof(*h) + nbytes, ip + sizeof(*h), after);
	memset(ip + sizeof(*h), 1, nbytes);		/* IPOPT_NOOP */
	ip[sizeof(*h) + nbytes - 1] = 0;		/* IPOPT_END */
	h->ihl = (uint8_t)(5 + nbytes / 4);
	h->tot_len = htons((uint16_t)(ntohs(h->tot_len) + nbytes));
	pkt_ipv4_fix_csum(ip);
	assert_true(pkt_ipv4_csum_ok(ip));
	return fx->lay.len + nbytes;
}

/* Our senders never use IPv4 options: a packet to our port that has them
 * (valid checksum, consistent lengths) is dropped as rx_drop_len. */
static void xdp_ingress__outer_ipv4_options_dropped(void **state)
{
	struct fx *fx = *state;
	const size_t opt_len[] = { 4, 8, 40 };		/* ihl 6, 7, 15 */
	struct pkt_encap e;

	make_inner(fx, AF_INET, IPPROTO_TCP, 0);
	for (size_t i = 0; i < sizeof(opt_len) / sizeof(opt_len[0]); i++) {
		encap_init(fx, &e, AF_INET);
		fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
		run_in(fx, add_ipv4_options(fx, opt_len[i]));
		assert_int_equal(fx->r.retval, XDP_DROP);
	}
	expect_drop(fx, .rx_drop_len = 3);
	assert_int_equal(counters_a(fx).rx_packets, 0);
}

/* Options on other traffic are none of our business. */
static void xdp_ingress__ipv4_options_of_other_traffic_pass(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;
	size_t len;

	make_inner(fx, AF_INET, IPPROTO_TCP, 0);
	encap_init(fx, &e, AF_INET);
	e.dport = 53;
	fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
	len = add_ipv4_options(fx, 8);
	check_pass_untouched(fx, fx->in, len);
	expect_stats(fx, &(struct eq_stats){ .rx_pass = 1 });
}

/* The IPv6 counterpart of IPv4 options: our senders put UDP right after
 * the fixed header, so a packet with an extension header before UDP is
 * not parsed as edgeq and goes to the stack untouched. */
static void xdp_ingress__outer_ipv6_extension_header_passes(void **state)
{
	struct fx *fx = *state;
	/* Hop-by-hop options: next header UDP, length 0 (8 bytes), PadN. */
	static const uint8_t hbh[8] = { IPPROTO_UDP, 0, 1, 4, 0, 0, 0, 0 };
	struct pkt_encap e;
	struct ipv6hdr *ip6;
	size_t after;

	make_inner(fx, AF_INET6, IPPROTO_UDP, 0);
	encap_init(fx, &e, AF_INET6);
	fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
	ip6 = (struct ipv6hdr *)(fx->in + fx->lay.l3);
	after = fx->lay.len - fx->lay.l4;
	memmove(fx->in + fx->lay.l4 + sizeof(hbh), fx->in + fx->lay.l4, after);
	memcpy(fx->in + fx->lay.l4, hbh, sizeof(hbh));
	ip6->nexthdr = 0;				/* NEXTHDR_HOP */
	ip6->payload_len = htons((uint16_t)(ntohs(ip6->payload_len) + sizeof(hbh)));
	check_pass_untouched(fx, fx->in, fx->lay.len + sizeof(hbh));
	expect_stats(fx, &(struct eq_stats){ .rx_pass = 1 });
}

/* The outer IP version nibble: an EtherType says IPv4 (IPv6) but the
 * header says otherwise, checksum right: rx_drop_len, not trusted. */
static void xdp_ingress__outer_version_nibble_checked(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;
	struct iphdr *ip;
	struct ipv6hdr *ip6;

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	encap_init(fx, &e, AF_INET);
	fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
	ip = (struct iphdr *)(fx->in + fx->lay.l3);
	ip->version = 5;
	pkt_ipv4_fix_csum(fx->in + fx->lay.l3);
	run_in(fx, fx->lay.len);
	encap_init(fx, &e, AF_INET6);
	fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
	ip6 = (struct ipv6hdr *)(fx->in + fx->lay.l3);
	ip6->version = 4;
	run_in(fx, fx->lay.len);
	expect_drop(fx, .rx_drop_len = 2);
	assert_int_equal(counters_a(fx).rx_packets, 0);
}

/* An inner IPv4 packet shorter than its own header, whose UDP length
 * says so while Ethernet padding fills the frame out (a header's worth
 * of bytes lie in the frame): rx_drop_len, checked against the UDP
 * length, not the frame's end. */
static void xdp_ingress__inner_shorter_than_a_header_dropped(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;
	struct iphdr *ip;

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	ip = (struct iphdr *)fx->inner;
	ip->tot_len = htons(12);		/* what the UDP length will say */
	pkt_ipv4_fix_csum(fx->inner);
	encap_init(fx, &e, AF_INET);
	e.inner_len = 12;
	fx->lay = pkt_build_encap(fx->in, sizeof(fx->in), &e);
	/* The rest of the inner packet stays in the frame: padding. */
	memcpy(fx->in + fx->lay.inner, fx->inner, fx->inner_len);
	run_in(fx, fx->lay.len + fx->inner_len - 12);
	expect_drop(fx, .rx_drop_len = 1);
}

/* The inner IPv4 header checksum, with and without options: a wrong one
 * is rx_drop_csum (the stack would drop it; XDP must not patch it for
 * ECN first); a right one with options is delivered. */
static void xdp_ingress__inner_ipv4_checksum_checked(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;
	struct iphdr *ip;

	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	ip = (struct iphdr *)fx->inner;
	ip->check ^= htons(0x0100);
	encap_init(fx, &e, AF_INET);
	run_encap(fx, &e);
	assert_int_equal(fx->r.retval, XDP_DROP);
	/* Options (8 bytes of NOPs and EOL), checksum right: delivered. */
	make_inner(fx, AF_INET, IPPROTO_UDP, 0);
	memmove(fx->inner + 28, fx->inner + 20, fx->inner_len - 20);
	memset(fx->inner + 20, 1, 8);
	fx->inner[27] = 0;
	ip->ihl = 7;
	fx->inner_len += 8;
	ip->tot_len = htons((uint16_t)fx->inner_len);
	pkt_ipv4_fix_csum(fx->inner);
	assert_true(pkt_ipv4_csum_ok(fx->inner));
	encap_init(fx, &e, AF_INET6);
	run_encap(fx, &e);
	check_decap(fx);
	/* ... and a bit flipped in them: dropped. */
	fx->inner[22] ^= 0x10;
	encap_init(fx, &e, AF_INET6);
	run_encap(fx, &e);
	assert_int_equal(fx->r.retval, XDP_DROP);
	expect_stats(fx, &(struct eq_stats){ .rx_drop_csum = 2, .rx_decap = 1 });
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(xdp_ingress__non_edgeq_passes_untouched),
		T(xdp_ingress__later_fragment_of_other_traffic_passes),
		T(xdp_ingress__v4_in_v4_decapsulated),
		T(xdp_ingress__v6_in_v6_decapsulated),
		T(xdp_ingress__v4_in_v6_decapsulated),
		T(xdp_ingress__v6_in_v4_decapsulated),
		T(xdp_ingress__header_options_skipped),
		T(xdp_ingress__seq_adds_outer_ip_id),
		T(xdp_ingress__seq_adds_segment_option_index),
		T(xdp_ingress__inner_source_outside_the_peers_prefixes_dropped),
		T(xdp_ingress__link_local_inner_only_neighbour_discovery),
		T(xdp_ingress__truncated_header_dropped_short),
		T(xdp_ingress__wrong_version_dropped),
		T(xdp_ingress__unknown_type_dropped),
		T(xdp_ingress__unknown_peer_dropped),
		T(xdp_ingress__unused_peer_slot_dropped),
		T(xdp_ingress__ip_len_beyond_frame_dropped),
		T(xdp_ingress__udp_len_disagreeing_dropped),
		T(xdp_ingress__inner_len_disagreeing_dropped),
		T(xdp_ingress__hdr_len_out_of_range_dropped),
		T(xdp_ingress__inner_not_matching_proto_dropped),
		T(xdp_ingress__outer_fragment_dropped),
		T(xdp_ingress__control_types_counted),
		T(xdp_ingress__trimmed_counted),
		T(xdp_ingress__ecn_ce_over_ect0_marks_inner_ce),
		T(xdp_ingress__rx_ce_counts_fabric_marks_only),
		T(xdp_ingress__ecn_ce_over_not_ect_dropped),
		T(xdp_ingress__ecn_ect1_over_ect0_gives_ect1),
		T(xdp_ingress__ecn_v6_inner_traffic_class_updated),
		T(xdp_ingress__ecn_whole_rfc6040_table),
		T(xdp_ingress__test_run_repeat_reuses_buffer),
		T(xdp_ingress__outer_dst_not_local_passes_untouched),
		T(xdp_ingress__outer_family_without_local_passes_untouched),
		T(xdp_ingress__outer_ipv4_bad_checksum_dropped),
		T(xdp_ingress__bad_checksum_of_other_traffic_passes),
		T(xdp_ingress__outer_ipv4_options_dropped),
		T(xdp_ingress__ipv4_options_of_other_traffic_pass),
		T(xdp_ingress__outer_ipv6_extension_header_passes),
		T(xdp_ingress__outer_version_nibble_checked),
		T(xdp_ingress__inner_shorter_than_a_header_dropped),
		T(xdp_ingress__inner_ipv4_checksum_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
