// SPDX-License-Identifier: GPL-2.0-only
/*
 * The gate between the BPF datapath and the agent (scheme eqds), through
 * BPF_PROG_TEST_RUN:
 *  - tc_egress: agent alive -> encapsulate and redirect to eqa; agent down
 *    (stale or zero heartbeat, READY clear) -> on_agent_down (tunnel, pass,
 *    drop), each counted; scheme none ignores the agent.
 *  - xdp_ingress: agent alive with its socket in eq_xsks[0] -> control and
 *    agent-sent DATA are redirected; DATA a TC sent without an agent
 *    (frame_len 0) is decapsulated here; agent down or no socket -> DATA
 *    still delivered, control counted and dropped; bad packets are dropped
 *    before the gate.
 *    DATA for the agent counts in the peer's receive counters; a frame
 *    larger than the agent's sockets take is dropped and counted.
 *  - xdp_agent: into eq_xsks[1] when the socket is there, counted drop when
 *    not, non-IP passed.
 *  - tc_deliver (eqa ingress): the agent's deliveries are redirected into
 *    the attached interface's ingress, counted; anything else dropped.
 *  - backpressure (tc_egress): with the agent showing its edge queue in
 *    eq_credit, a packet for the agent when the queue is full is refused
 *    (counted), and one handed over is counted in `handed`.
 *  - direct delivery (xdp_ingress, rx.h): in-order DATA while the agent
 *    keeps the word open goes up from XDP, the word advanced, the counts
 *    and the doorbell for the agent; anything else goes to the agent.
 *  - the fast path (tc_egress, lease.h): a packet the open lease in
 *    eq_credit covers goes to the wire with EQ_F_FAST, the lease's seq,
 *    its frame length and the bucket's pull_target, and a copy to the
 *    agent; any other packet past an open lease shuts it and goes to the
 *    agent; agent down, scheme none and prefix misses leave it alone.
 * A real AF_XDP socket (copy mode, bound to lo of a network namespace of
 * the test's own, no program) fills the XSKMAP: the programs look the
 * entry up before redirecting.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>

#include "tc_egress.skel.h"
#include "xdp_ingress.skel.h"
#include "xdp_agent.skel.h"
#include "tc_deliver.skel.h"
#include "pkt.h"
#include "edgeq/lease.h"
#include "edgeq/rx.h"
#include "edgeq/ecn.h"

#define DEAD_NS		(200 * 1000000ULL)
#define UMEM_FRAMES	64
#define FRAME		2048

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- an AF_XDP socket to put into eq_xsks ---- */

struct lo_xsk {
	void			*area;
	struct xsk_umem		*umem;
	struct xsk_socket	*xsk;
	struct xsk_ring_prod	fill, tx;
	struct xsk_ring_cons	comp, rx;
};

static int lo_xsk_open(struct lo_xsk *x)
{
	struct xsk_socket_config cfg = {
		.rx_size = 64, .tx_size = 64,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_COPY,
	};
	struct xsk_umem_config ucfg = {
		.fill_size = 64, .comp_size = 64, .frame_size = FRAME,
	};
	int e;

	memset(x, 0, sizeof(*x));
	x->area = mmap(NULL, UMEM_FRAMES * FRAME, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x->area == MAP_FAILED)
		return -errno;
	e = xsk_umem__create(&x->umem, x->area, UMEM_FRAMES * FRAME, &x->fill, &x->comp, &ucfg);
	if (!e)
		e = xsk_socket__create(&x->xsk, "lo", 0, x->umem, &x->rx, &x->tx, &cfg);
	return e;
}

static void lo_xsk_close(struct lo_xsk *x)
{
	if (x->xsk)
		xsk_socket__delete(x->xsk);
	if (x->umem)
		xsk_umem__delete(x->umem);
	if (x->area && x->area != MAP_FAILED)
		munmap(x->area, UMEM_FRAMES * FRAME);
}

/* ---- fixture: the three programs, each with its own maps ---- */

struct fx {
	struct tc_egress	*tc;
	struct xdp_ingress	*xdp;
	struct xdp_agent	*agent;
	struct pkt_maps		mtc, mxdp, magent;
	struct pkt_result	r;
	uint8_t			in[PKT_MAX], inner[PKT_MAX];
	size_t			in_len, inner_len;
};

static void set_eqds(const struct pkt_maps *m, uint32_t on_down, uint32_t scheme)
{
	struct eq_config c;

	assert_int_equal(pkt_get_config(m, &c), 0);
	c.scheme = scheme;
	c.on_agent_down = on_down;
	c.agent_dead_ns = DEAD_NS;
	c.agent_ifindex = 4242;
	c.agent_peer_ifindex = 4243;
	c.copy_ifindex = 4244;
	c.copy_peer_ifindex = 4245;
	assert_int_equal(pkt_set_config(m, &c), 0);
}

/* The agent's heartbeat `age` ns ago (0: never), with or without READY. */
static void set_agent(int agent_map_fd, uint64_t age, bool ready)
{
	uint32_t zero = 0;
	struct eq_agent ag = {
		.heartbeat_ns = age == UINT64_MAX ? 0 : mono_ns() - age,
		.pid = 1, .flags = ready ? EQ_AGENT_READY : 0,
	};

	assert_int_equal(bpf_map_update_elem(agent_map_fd, &zero, &ag, 0), 0);
}

#define ALIVE		0
#define NEVER		UINT64_MAX

/* One socket for the whole run: a closed socket releases its queue
 * asynchronously, so a new bind right after would find it busy. */
static struct lo_xsk sock;
static bool have_sock;

static void put_sock(struct fx *fx, int xsks_fd, uint32_t key)
{
	int fd = have_sock ? xsk_socket__fd(sock.xsk) : -1;

	assert_true(have_sock);
	assert_int_equal(bpf_map_update_elem(xsks_fd, &key, &fd, 0), 0);
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->tc = tc_egress__open_and_load();
	fx->xdp = xdp_ingress__open_and_load();
	fx->agent = xdp_agent__open_and_load();
	if (!fx->tc || !fx->xdp || !fx->agent) {
		fprintf(stderr, "# loading the programs: %s\n", strerror(errno));
		return -1;
	}
	fx->mtc = PKT_MAPS(fx->tc);
	fx->mxdp = PKT_MAPS(fx->xdp);
	fx->magent = PKT_MAPS(fx->agent);
	*state = fx;
	/* A sends to B (TC on A); B receives from A (XDP on B). */
	if (pkt_setup_host(&fx->mtc, &pkt_host_a, &pkt_host_b, AF_INET) ||
	    pkt_setup_host(&fx->mxdp, &pkt_host_b, &pkt_host_a, AF_INET) ||
	    pkt_setup_host(&fx->magent, &pkt_host_a, &pkt_host_b, AF_INET))
		return -1;
	set_eqds(&fx->mtc, EQ_DOWN_TUNNEL, EQ_SCHEME_EQDS);
	set_eqds(&fx->mxdp, EQ_DOWN_TUNNEL, EQ_SCHEME_EQDS);
	set_eqds(&fx->magent, EQ_DOWN_TUNNEL, EQ_SCHEME_EQDS);
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (!fx)
		return 0;
	tc_egress__destroy(fx->tc);
	xdp_ingress__destroy(fx->xdp);
	xdp_agent__destroy(fx->agent);
	free(fx);
	return 0;
}

static void expect_stats(const struct pkt_maps *m, const struct eq_stats *want)
{
	struct eq_stats got;

	assert_int_equal(pkt_read_stats(m, &got), 0);
	assert_int_equal(pkt_stats_diff(&got, want), 0);
}

/* ---- TC egress ---- */

/* A packet of protocol l4 from A's overlay address to B's: a peer
 * prefix hit. */
static uint32_t tc_send_l4(struct fx *fx, uint8_t l4)
{
	struct pkt_spec s;

	pkt_spec_init(&s, AF_INET, l4, &pkt_host_a, &pkt_host_b);
	fx->in_len = pkt_build_frame(fx->in, sizeof(fx->in), &s);
	assert_true(fx->in_len > 0);
	assert_int_equal(pkt_run(bpf_program__fd(fx->tc->progs.tc_egress), fx->in, fx->in_len,
				 &fx->r), 0);
	return fx->r.retval;
}

static uint32_t tc_send(struct fx *fx)	/* TCP */
{
	return tc_send_l4(fx, IPPROTO_TCP);
}

static bool out_is_encapsulated(const struct fx *fx)
{
	return fx->r.len == fx->in_len + EQ_OVERHEAD_V4 &&
	       !memcmp(fx->r.out + PKT_ETH_LEN + EQ_OVERHEAD_V4, fx->in + PKT_ETH_LEN,
		       fx->in_len - PKT_ETH_LEN);
}

static void tc__alive_agent_gets_encapsulated_packet(void **state)
{
	struct fx *fx = *state;

	set_agent(bpf_map__fd(fx->tc->maps.eq_agent), ALIVE, true);
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
	assert_true(out_is_encapsulated(fx));
	/* Stamped by TC: the agent adds frame_len. */
	const struct eq_hdr *eq = (const void *)(fx->r.out + PKT_ETH_LEN + EQ_OVERHEAD_V4 - EQ_HDR_LEN);

	assert_int_equal(eq_type(eq), EQ_T_DATA);
	assert_int_equal(eq->data.frame_len, 0);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 1, .tx_to_agent = 1 });
}

static void tc__heartbeat_age_decides(void **state)
{
	struct fx *fx = *state;
	int fd = bpf_map__fd(fx->tc->maps.eq_agent);

	/* Just inside agent_dead_ns: alive.  Just past it: down. */
	set_agent(fd, DEAD_NS - 20 * 1000000ULL, true);
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
	set_agent(fd, DEAD_NS + 1000000ULL, true);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	assert_true(out_is_encapsulated(fx));
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 2, .tx_to_agent = 1,
						    .tx_agent_down = 1 });
}

static void tc__future_heartbeat_is_alive(void **state)
{
	struct fx *fx = *state;
	uint32_t zero = 0;
	/* Written by the agent on another CPU after TC read the clock. */
	struct eq_agent ag = { .heartbeat_ns = mono_ns() + 5000000ULL, .pid = 1,
			       .flags = EQ_AGENT_READY };

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(fx->tc->maps.eq_agent), &zero, &ag, 0), 0);
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
}

/* A TCP packet of `payload` bytes whose flags byte is `flags`, A -> B
 * over inner IPv4 or IPv6 (`family`). */
static uint32_t tc_send_tcp_af(struct fx *fx, int family, size_t payload, uint8_t flags)
{
	struct pkt_spec s;

	pkt_spec_init(&s, family, IPPROTO_TCP, &pkt_host_a, &pkt_host_b);
	s.payload_len = payload;
	fx->in_len = pkt_build_frame(fx->in, sizeof(fx->in), &s);
	assert_true(fx->in_len > 0);
	fx->in[PKT_ETH_LEN + (family == AF_INET ? 20 : 40) + 13] = flags;
	assert_int_equal(pkt_run(bpf_program__fd(fx->tc->progs.tc_egress), fx->in, fx->in_len,
				 &fx->r), 0);
	return fx->r.retval;
}

static uint32_t tc_send_tcp(struct fx *fx, size_t payload, uint8_t flags)
{
	return tc_send_tcp_af(fx, AF_INET, payload, flags);
}

/* A bare TCP ACK goes as TC sends without an agent, outside credit
 * (frame_len 0: the peer's XDP delivers it); one with a payload, or a
 * SYN, FIN or RST, goes to the agent as any other packet. */
static void tc__bare_tcp_ack_goes_without_the_agent(void **state)
{
	struct fx *fx = *state;
	const struct eq_hdr *eq = (const void *)(fx->r.out + PKT_ETH_LEN + EQ_OVERHEAD_V4 - EQ_HDR_LEN);

	set_agent(bpf_map__fd(fx->tc->maps.eq_agent), ALIVE, true);
	assert_int_equal(tc_send_tcp(fx, 0, 0x10), TC_ACT_OK);		/* ACK */
	assert_true(out_is_encapsulated(fx));
	assert_int_equal(eq_type(eq), EQ_T_DATA);
	assert_int_equal(eq->data.frame_len, 0);
	assert_int_equal(tc_send_tcp(fx, 0, 0x18), TC_ACT_OK);		/* ACK PSH */
	assert_int_equal(tc_send_tcp(fx, 0, 0x50), TC_ACT_OK);		/* ACK ECE */
	assert_int_equal(tc_send_tcp(fx, 1, 0x10), TC_ACT_REDIRECT);	/* a byte of data */
	assert_int_equal(tc_send_tcp(fx, 0, 0x11), TC_ACT_REDIRECT);	/* ACK FIN */
	assert_int_equal(tc_send_tcp(fx, 0, 0x12), TC_ACT_REDIRECT);	/* SYN ACK */
	assert_int_equal(tc_send_tcp(fx, 0, 0x14), TC_ACT_REDIRECT);	/* RST ACK */
	assert_int_equal(tc_send_tcp(fx, 0, 0x02), TC_ACT_REDIRECT);	/* SYN */
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 8, .tx_to_agent = 5,
						    .tx_bare_ack = 3 });
}

/* ... over an inner IPv6 packet too (the TCP header 40 bytes in). */
static void tc__bare_tcp_ack_over_ipv6_goes_without_the_agent(void **state)
{
	struct fx *fx = *state;

	set_agent(bpf_map__fd(fx->tc->maps.eq_agent), ALIVE, true);
	assert_int_equal(tc_send_tcp_af(fx, AF_INET6, 0, 0x10), TC_ACT_OK);	/* ACK */
	assert_int_equal(fx->r.len, fx->in_len + EQ_OVERHEAD_V4);
	assert_int_equal(tc_send_tcp_af(fx, AF_INET6, 0, 0x11), TC_ACT_REDIRECT);	/* ACK FIN */
	assert_int_equal(tc_send_tcp_af(fx, AF_INET6, 100, 0x10), TC_ACT_REDIRECT);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 3, .tx_to_agent = 2,
						    .tx_bare_ack = 1 });
}

/* A bare ACK takes the path the agent's scheme set for the peer
 * (eq_credit.path, REPS): source port and header path_id; without
 * EQ_PATH_SET, TC's own entropy (the flow's hash here, not that path). */
static int credit_fd(const struct fx *fx);

static void tc__bare_tcp_ack_takes_the_schemes_path(void **state)
{
	struct fx *fx = *state;
	const uint8_t *udp = fx->r.out + PKT_ETH_LEN + 20;
	const struct eq_hdr *eq = (const void *)(udp + EQ_UDP_LEN);
	uint32_t slot = PKT_PEER_SLOT;
	struct eq_credit c = { .path = EQ_PATH_SET | 0x123 };

	set_agent(bpf_map__fd(fx->tc->maps.eq_agent), ALIVE, true);
	assert_int_equal(bpf_map_update_elem(credit_fd(fx), &slot, &c, 0), 0);
	assert_int_equal(tc_send_tcp(fx, 0, 0x10), TC_ACT_OK);
	assert_true(out_is_encapsulated(fx));
	assert_int_equal(udp[0] << 8 | udp[1], EQ_SPORT_BASE | 0x123);
	assert_int_equal(ntohs(eq->path_id), 0x123);
	c.path = 0x123;				/* not set: TC's entropy */
	assert_int_equal(bpf_map_update_elem(credit_fd(fx), &slot, &c, 0), 0);
	assert_int_equal(tc_send_tcp(fx, 0, 0x10), TC_ACT_OK);
	assert_int_equal(eq_type(eq), EQ_T_DATA);
	assert_int_not_equal(ntohs(eq->path_id), 0x123);
}

/* With the agent down a bare ACK goes as on_agent_down says, as all the
 * rest: not tunnelled under pass or drop (it was, whatever the setting). */
static void tc__bare_tcp_ack_follows_on_agent_down(void **state)
{
	struct fx *fx = *state;

	set_agent(bpf_map__fd(fx->tc->maps.eq_agent), NEVER, true);
	set_eqds(&fx->mtc, EQ_DOWN_DROP, EQ_SCHEME_EQDS);
	assert_int_equal(tc_send_tcp(fx, 0, 0x10), TC_ACT_SHOT);
	set_eqds(&fx->mtc, EQ_DOWN_PASS, EQ_SCHEME_EQDS);
	assert_int_equal(tc_send_tcp(fx, 0, 0x10), TC_ACT_OK);
	assert_int_equal(fx->r.len, fx->in_len);		/* as it came */
	set_eqds(&fx->mtc, EQ_DOWN_TUNNEL, EQ_SCHEME_EQDS);
	assert_int_equal(tc_send_tcp(fx, 0, 0x10), TC_ACT_OK);
	assert_true(out_is_encapsulated(fx));
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 1, .tx_agent_down = 3 });
}

static void tc__not_ready_or_never_beaten_is_down(void **state)
{
	struct fx *fx = *state;
	int fd = bpf_map__fd(fx->tc->maps.eq_agent);

	set_agent(fd, ALIVE, false);	/* stopped cleanly: READY cleared */
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	set_agent(fd, NEVER, true);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	/* No agent ever: the map entry is all zero. */
	struct eq_agent zero_ag = {};
	uint32_t zero = 0;

	assert_int_equal(bpf_map_update_elem(fd, &zero, &zero_ag, 0), 0);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 3, .tx_agent_down = 3 });
}

static void tc__down_pass_sends_unencapsulated(void **state)
{
	struct fx *fx = *state;

	set_eqds(&fx->mtc, EQ_DOWN_PASS, EQ_SCHEME_EQDS);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	assert_int_equal(fx->r.len, fx->in_len);
	assert_memory_equal(fx->r.out, fx->in, fx->in_len);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_agent_down = 1 });
}

static void tc__down_drop_drops(void **state)
{
	struct fx *fx = *state;

	set_eqds(&fx->mtc, EQ_DOWN_DROP, EQ_SCHEME_EQDS);
	assert_int_equal(tc_send(fx), TC_ACT_SHOT);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_agent_down = 1 });
}

static void tc__scheme_none_ignores_agent(void **state)
{
	struct fx *fx = *state;

	set_eqds(&fx->mtc, EQ_DOWN_DROP, EQ_SCHEME_NONE);
	set_agent(bpf_map__fd(fx->tc->maps.eq_agent), ALIVE, true);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	assert_true(out_is_encapsulated(fx));
	set_agent(bpf_map__fd(fx->tc->maps.eq_agent), NEVER, false);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 2 });
}

static void tc__miss_untouched_whatever_the_agent(void **state)
{
	struct fx *fx = *state;
	struct pkt_spec s;

	set_eqds(&fx->mtc, EQ_DOWN_DROP, EQ_SCHEME_EQDS);
	pkt_spec_init(&s, AF_INET, IPPROTO_UDP, &pkt_host_a, &pkt_host_b);
	s.dst = pkt_addr("198.51.100.7");	/* no peer prefix */
	fx->in_len = pkt_build_frame(fx->in, sizeof(fx->in), &s);
	assert_int_equal(pkt_run(bpf_program__fd(fx->tc->progs.tc_egress), fx->in, fx->in_len,
				 &fx->r), 0);
	assert_int_equal(fx->r.retval, TC_ACT_OK);
	assert_memory_equal(fx->r.out, fx->in, fx->in_len);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_miss = 1 });
}

/* ---- TC egress: the fast path on leased credit ---- */

#define PULL_TARGET	0x0a0b0c0dU	/* distinct bytes: a byte-order slip shows */

static int credit_fd(const struct fx *fx)
{
	return bpf_map__fd(fx->tc->maps.eq_credit);
}

/* The agent lends `bytes` (with its EQ_LEASE_* flags) and `seq` to TC. */
static void set_lease(struct fx *fx, uint32_t bytes, uint32_t seq, uint32_t pull_target)
{
	uint32_t slot = PKT_PEER_SLOT;
	struct eq_credit c = {
		.lease.parts = { .bytes = bytes, .seq = seq },
		.pull_target = pull_target,
	};

	assert_int_equal(bpf_map_update_elem(credit_fd(fx), &slot, &c, 0), 0);
}

static struct eq_credit get_credit(const struct fx *fx, uint32_t slot)
{
	struct eq_credit c;

	assert_int_equal(bpf_map_lookup_elem(credit_fd(fx), &slot, &c), 0);
	return c;
}

static void expect_lease(const struct fx *fx, uint32_t bytes, uint32_t seq)
{
	struct eq_credit c = get_credit(fx, PKT_PEER_SLOT);

	assert_int_equal(c.lease.parts.bytes, bytes);
	assert_int_equal(c.lease.parts.seq, seq);
	assert_int_equal(c.pull_target, PULL_TARGET);	/* TC only reads it */
}

/* The frame tc_send() puts on the wire: what a fast send costs. */
static uint32_t tc_frame_len(void)
{
	struct pkt_spec s;
	uint8_t buf[PKT_MAX];

	pkt_spec_init(&s, AF_INET, IPPROTO_TCP, &pkt_host_a, &pkt_host_b);
	return (uint32_t)pkt_build_frame(buf, sizeof(buf), &s) + EQ_OVERHEAD_V4;
}

static const struct eq_hdr *out_eq(const struct fx *fx)
{
	return (const void *)(fx->r.out + PKT_ETH_LEN + EQ_OVERHEAD_V4 - EQ_HDR_LEN);
}

/* The output is a fast send with `seq`, stamped as the agent would. */
static void expect_fast(const struct fx *fx, uint32_t seq)
{
	const struct eq_hdr *eq = out_eq(fx);

	assert_true(out_is_encapsulated(fx));
	assert_true(pkt_ipv4_csum_ok(fx->r.out + PKT_ETH_LEN));
	assert_int_equal(eq_type(eq), EQ_T_DATA);
	assert_int_equal(eq->flags, EQ_F_FAST);
	assert_int_equal(ntohl(eq->data.seq), seq);
	assert_int_equal(ntohl(eq->data.frame_len), fx->r.len);
	assert_int_equal(ntohl(eq->data.pull_target), PULL_TARGET);
}

/* The output is TC's own encapsulation: no fast flag, no frame length,
 * nothing taken from the bucket. */
static void expect_slow(const struct fx *fx)
{
	const struct eq_hdr *eq = out_eq(fx);

	assert_true(out_is_encapsulated(fx));
	assert_int_equal(eq->flags, 0);
	assert_int_equal(eq->data.frame_len, 0);
	assert_int_equal(eq->data.pull_target, 0);
}

static uint32_t peer_tx_seq(const struct fx *fx)
{
	struct eq_peer p;

	assert_int_equal(pkt_get_peer(&fx->mtc, PKT_PEER_SLOT, &p), 0);
	return p.tx_seq;
}

static void tc_alive(struct fx *fx)
{
	set_agent(bpf_map__fd(fx->tc->maps.eq_agent), ALIVE, true);
}

/* copy_ifindex 4244 does not exist: the copy fails, the packet goes. */
static void fast__covered_packet_goes_to_wire(void **state)
{
	struct fx *fx = *state;
	uint32_t frame = tc_frame_len();

	tc_alive(fx);
	set_lease(fx, EQ_LEASE_OPEN | 1000, 77, PULL_TARGET);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	assert_int_equal(fx->r.len, frame);
	expect_fast(fx, 77);
	expect_lease(fx, EQ_LEASE_OPEN | (1000 - frame), 78);
	/* The lease's seq, not TC's own: peer->tx_seq is the agent's to restamp. */
	assert_int_equal(peer_tx_seq(fx), 0);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 1, .tx_fast = 1,
						    .tx_fast_noclone = 1 });
}

/* Exactly enough is enough; then nothing is left and the next one shuts. */
static void fast__lease_of_exactly_one_frame(void **state)
{
	struct fx *fx = *state;
	uint32_t frame = tc_frame_len();

	tc_alive(fx);
	set_lease(fx, EQ_LEASE_OPEN | frame, 9, PULL_TARGET);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	expect_fast(fx, 9);
	expect_lease(fx, EQ_LEASE_OPEN, 10);
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
	expect_slow(fx);
	expect_lease(fx, EQ_LEASE_OPEN | EQ_LEASE_SHUT, 10);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 2, .tx_fast = 1,
						    .tx_fast_noclone = 1, .tx_to_agent = 1,
						    .tx_lease_shut = 1 });
}

/* lo of the test's own namespace, up or down (it starts down). */
static void lo_set_up(bool up)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	strcpy(ifr.ifr_name, "lo");
	assert_int_equal(ioctl(fd, SIOCGIFFLAGS, &ifr), 0);
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	assert_int_equal(ioctl(fd, SIOCSIFFLAGS, &ifr), 0);
	close(fd);
}

/* Packets lo has sent (its rtnl_link_stats, through netlink). */
static uint32_t lo_tx_packets(void)
{
	struct ifaddrs *ifa, *i;
	uint32_t n = UINT32_MAX;

	assert_int_equal(getifaddrs(&ifa), 0);
	for (i = ifa; i; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_PACKET &&
		    !strcmp(i->ifa_name, "lo") && i->ifa_data)
			n = ((const struct rtnl_link_stats *)i->ifa_data)->tx_packets;
	freeifaddrs(ifa);
	assert_true(n != UINT32_MAX);
	return n;
}

static int setup_lo_up(void **state)
{
	int rc = setup(state);

	if (!rc)
		lo_set_up(true);
	return rc;
}

static int teardown_lo_down(void **state)
{
	lo_set_up(false);
	return teardown(state);
}

/* With a copy interface that exists (lo, up, in the test's namespace)
 * the copy is made there, not on the agent's host interface: lo sends one
 * packet, and nothing is counted missing. */
static void fast__copy_made_to_existing_interface(void **state)
{
	struct fx *fx = *state;
	struct eq_config c;
	uint32_t frame = tc_frame_len(), before;

	assert_int_equal(pkt_get_config(&fx->mtc, &c), 0);
	c.copy_ifindex = if_nametoindex("lo");
	assert_int_equal(c.copy_ifindex, 1);
	assert_int_equal(pkt_set_config(&fx->mtc, &c), 0);
	tc_alive(fx);
	set_lease(fx, EQ_LEASE_OPEN | 5000, 1000, PULL_TARGET);
	before = lo_tx_packets();
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	/* The original is unchanged by the clone. */
	expect_fast(fx, 1000);
	assert_int_equal(lo_tx_packets() - before, 1);
	expect_lease(fx, EQ_LEASE_OPEN | (5000 - frame), 1001);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 1, .tx_fast = 1 });
}

/* The copies read from eq_copies, each checked against the frame sent. */
struct copies_seen {
	uint8_t		sent[4][PKT_MAX];	/* the frames sent, in order */
	uint32_t	len[4];
	unsigned	nsent, n;
};

static void sent(struct copies_seen *cs, const struct fx *fx)
{
	assert_true(cs->nsent < 4);
	memcpy(cs->sent[cs->nsent], fx->r.out, fx->r.len);
	cs->len[cs->nsent++] = fx->r.len;
}

static int copy_seen(void *ctx, void *data, size_t len)
{
	struct copies_seen *cs = ctx;
	const struct eq_copy *c = data;

	assert_int_equal(len, sizeof(*c));
	assert_true(cs->n < cs->nsent);
	assert_int_equal(c->len, cs->len[cs->n]);
	assert_memory_equal(c->frame, cs->sent[cs->n], c->len);
	cs->n++;
	return 0;
}

/* An agent that reads eq_copies (its heartbeat says so) gets the copy of a
 * fast send there, the frame exactly as it went, instead of a clone to the
 * copy interface; a full ring sends the clone instead (counted missing
 * here: 4244 does not exist), and an agent that does not say so gets
 * clones only. */
static void fast__the_copy_goes_to_the_ring_the_agent_reads(void **state)
{
	struct fx *fx = *state;
	struct ring_buffer *rb;
	static struct copies_seen cs;
	uint32_t zero = 0;
	struct eq_agent ag = { .heartbeat_ns = mono_ns(), .pid = 1,
			       .flags = EQ_AGENT_READY | EQ_AGENT_READS_COPIES };

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(fx->tc->maps.eq_agent), &zero, &ag, 0), 0);
	rb = ring_buffer__new(bpf_map__fd(fx->tc->maps.eq_copies), copy_seen, &cs, NULL);
	assert_non_null(rb);
	set_lease(fx, EQ_LEASE_OPEN | 50000, 300, PULL_TARGET);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	expect_fast(fx, 300);
	sent(&cs, fx);
	assert_int_equal(ring_buffer__consume(rb), 1);
	assert_int_equal(cs.n, 1);
	/* The ring holds one record unread (its 4096 bytes, unsized here,
	 * are less than two with their headers): the next copy is a clone. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(tc_send(fx), TC_ACT_OK);
		expect_fast(fx, 301 + i);
		if (!i)
			sent(&cs, fx);
	}
	assert_int_equal(ring_buffer__consume(rb), 1);
	/* Not read: clones. */
	ag.flags = EQ_AGENT_READY;
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(fx->tc->maps.eq_agent), &zero, &ag, 0), 0);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	assert_int_equal(ring_buffer__consume(rb), 0);
	assert_int_equal(cs.n, 2);
	ring_buffer__free(rb);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 4, .tx_fast = 4, .tx_fast_ring = 2,
						    .tx_fast_noclone = 2 });
}

/* Short by one byte: to the agent, the lease shut with bytes and seq kept.
 * Shut holds even when the bytes would cover the next packet. */
static void fast__short_lease_shuts_and_shut_holds(void **state)
{
	struct fx *fx = *state;
	uint32_t frame = tc_frame_len();

	tc_alive(fx);
	set_lease(fx, EQ_LEASE_OPEN | (frame - 1), 5, PULL_TARGET);
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
	expect_slow(fx);
	expect_lease(fx, EQ_LEASE_OPEN | EQ_LEASE_SHUT | (frame - 1), 5);
	/* The agent tops the lease up without taking it back: still shut. */
	set_lease(fx, EQ_LEASE_OPEN | EQ_LEASE_SHUT | 100000, 5, PULL_TARGET);
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
	expect_slow(fx);
	expect_lease(fx, EQ_LEASE_OPEN | EQ_LEASE_SHUT | 100000, 5);
	/* tx_lease_shut counts shuts: the packet that found the lease shut
	 * already did not shut it again. */
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 2, .tx_to_agent = 2,
						    .tx_lease_shut = 1 });
}

/* No lease (word 0), or bytes left behind without OPEN: the agent sends,
 * and there is nothing to shut. */
static void fast__closed_lease_goes_to_agent(void **state)
{
	struct fx *fx = *state;

	tc_alive(fx);
	set_lease(fx, 0, 0, PULL_TARGET);
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
	expect_slow(fx);
	expect_lease(fx, 0, 0);
	set_lease(fx, 100000, 33, PULL_TARGET);
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
	expect_slow(fx);
	expect_lease(fx, 100000, 33);
	/* TC's own seqs, one each. */
	assert_int_equal(peer_tx_seq(fx), 2);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 2, .tx_to_agent = 2 });
}

/* A plain TCP packet (gso_segs 1, gso_size 0: __tcp_transmit_skb) is not
 * GSO and goes fast. */
static void fast__plain_tcp_skb_is_not_gso(void **state)
{
	struct fx *fx = *state;
	struct __sk_buff plain = { .gso_segs = 1, .gso_size = 0 };
	uint32_t frame = tc_frame_len();

	tc_alive(fx);
	set_lease(fx, EQ_LEASE_OPEN | 100000, 20, PULL_TARGET);
	tc_send(fx);
	expect_fast(fx, 20);
	assert_int_equal(pkt_run_ctx(bpf_program__fd(fx->tc->progs.tc_egress), fx->in, fx->in_len,
				     &plain, sizeof(plain), 1, &fx->r), 0);
	assert_int_equal(fx->r.retval, TC_ACT_OK);
	expect_fast(fx, 21);
	expect_lease(fx, EQ_LEASE_OPEN | (100000 - 2 * frame), 22);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 2, .tx_fast = 2,
						    .tx_fast_noclone = 2 });
}

/* A packet encap() drops is never sent: it neither spends nor shuts the
 * lease.  Too big for the MTU; and a GSO skb, which BPF_PROG_TEST_RUN can
 * make only without a gso_type, so that bpf_skb_adjust_room refuses it
 * (the GSO -> shut path itself cannot be reached from here). */
static void fast__dropped_packet_leaves_lease(void **state)
{
	struct fx *fx = *state;
	struct __sk_buff gso = { .gso_segs = 2, .gso_size = 50 };
	int prog = bpf_program__fd(fx->tc->progs.tc_egress);
	struct pkt_spec s;

	tc_alive(fx);
	set_lease(fx, EQ_LEASE_OPEN | 100000, 20, PULL_TARGET);
	pkt_spec_init(&s, AF_INET, IPPROTO_TCP, &pkt_host_a, &pkt_host_b);
	s.payload_len = PKT_MTU - EQ_OVERHEAD_V4 - 40 + 1;
	fx->in_len = pkt_build_frame(fx->in, sizeof(fx->in), &s);
	assert_int_equal(pkt_run(prog, fx->in, fx->in_len, &fx->r), 0);
	assert_int_equal(fx->r.retval, TC_ACT_SHOT);
	s.payload_len = 100;
	fx->in_len = pkt_build_frame(fx->in, sizeof(fx->in), &s);
	assert_int_equal(pkt_run_ctx(prog, fx->in, fx->in_len, &gso, sizeof(gso), 1, &fx->r), 0);
	assert_int_equal(fx->r.retval, TC_ACT_SHOT);
	expect_lease(fx, EQ_LEASE_OPEN | 100000, 20);
	assert_int_equal(peer_tx_seq(fx), 0);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_err_too_big = 1, .tx_err_adjust = 1 });
}

/* Agent down: on_agent_down decides, the lease is neither spent nor shut. */
static void fast__agent_down_ignores_lease(void **state)
{
	struct fx *fx = *state;
	int fd = bpf_map__fd(fx->tc->maps.eq_agent);

	set_lease(fx, EQ_LEASE_OPEN | 100000, 40, PULL_TARGET);
	set_agent(fd, DEAD_NS * 2, true);
	assert_int_equal(tc_send(fx), TC_ACT_OK);	/* EQ_DOWN_TUNNEL */
	expect_slow(fx);
	assert_int_equal(ntohl(out_eq(fx)->data.seq), 0);	/* TC's own */
	set_agent(fd, ALIVE, false);
	set_eqds(&fx->mtc, EQ_DOWN_DROP, EQ_SCHEME_EQDS);
	assert_int_equal(tc_send(fx), TC_ACT_SHOT);
	set_eqds(&fx->mtc, EQ_DOWN_PASS, EQ_SCHEME_EQDS);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	assert_memory_equal(fx->r.out, fx->in, fx->in_len);
	expect_lease(fx, EQ_LEASE_OPEN | 100000, 40);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 1, .tx_agent_down = 3 });
}

/* Scheme none: a plain tunnel whatever the agent and the lease. */
static void fast__scheme_none_ignores_lease(void **state)
{
	struct fx *fx = *state;

	set_eqds(&fx->mtc, EQ_DOWN_TUNNEL, EQ_SCHEME_NONE);
	tc_alive(fx);
	set_lease(fx, EQ_LEASE_OPEN | 100000, 40, PULL_TARGET);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	expect_slow(fx);
	assert_int_equal(ntohl(out_eq(fx)->data.seq), 0);
	assert_int_equal(peer_tx_seq(fx), 1);
	expect_lease(fx, EQ_LEASE_OPEN | 100000, 40);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 1 });
}

/* Fast sends take consecutive seqs, across the 32-bit wrap, and the
 * wrap does not spill into the bytes. */
static void fast__consecutive_seqs(void **state)
{
	struct fx *fx = *state;
	uint32_t frame = tc_frame_len();

	tc_alive(fx);
	set_lease(fx, EQ_LEASE_OPEN | 100000, 0xfffffffeU, PULL_TARGET);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	expect_fast(fx, 0xfffffffeU);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	expect_fast(fx, 0xffffffffU);
	assert_int_equal(tc_send(fx), TC_ACT_OK);
	expect_fast(fx, 0);
	expect_lease(fx, EQ_LEASE_OPEN | (100000 - 3 * frame), 1);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 3, .tx_fast = 3,
						    .tx_fast_noclone = 3 });
}

/* A packet to no peer prefix never touches any lease. */
static void fast__miss_leaves_lease(void **state)
{
	struct fx *fx = *state;
	struct pkt_spec s;

	tc_alive(fx);
	set_lease(fx, EQ_LEASE_OPEN | 100000, 40, PULL_TARGET);
	pkt_spec_init(&s, AF_INET, IPPROTO_TCP, &pkt_host_a, &pkt_host_b);
	s.dst = pkt_addr("198.51.100.7");
	fx->in_len = pkt_build_frame(fx->in, sizeof(fx->in), &s);
	assert_int_equal(pkt_run(bpf_program__fd(fx->tc->progs.tc_egress), fx->in, fx->in_len,
				 &fx->r), 0);
	assert_int_equal(fx->r.retval, TC_ACT_OK);
	assert_int_equal(fx->r.len, fx->in_len);
	assert_memory_equal(fx->r.out, fx->in, fx->in_len);
	expect_lease(fx, EQ_LEASE_OPEN | 100000, 40);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_miss = 1 });
}

/* Only the bucket of the packet's peer: another slot's lease stays. */
static void fast__other_peers_lease_untouched(void **state)
{
	struct fx *fx = *state;
	uint32_t other = PKT_PEER_SLOT + 1;
	struct eq_credit c = { .lease.parts = { .bytes = EQ_LEASE_OPEN | 100000, .seq = 3 },
			       .pull_target = 1 };

	tc_alive(fx);
	assert_int_equal(bpf_map_update_elem(credit_fd(fx), &other, &c, 0), 0);
	set_lease(fx, 0, 0, PULL_TARGET);
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
	expect_slow(fx);
	struct eq_credit got = get_credit(fx, other);

	assert_memory_equal(&got, &c, sizeof(c));
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 1, .tx_to_agent = 1 });
}

/* ---- XDP ingress ---- */

/* An edgeq packet from A to B of `type`; frame_len for DATA/TRIMMED. */
static uint32_t xdp_recv(struct fx *fx, uint8_t type, uint32_t frame_len)
{
	struct pkt_spec s;
	struct pkt_encap e;

	pkt_spec_init(&s, AF_INET, IPPROTO_TCP, &pkt_host_a, &pkt_host_b);
	fx->inner_len = pkt_build_ip(fx->inner, sizeof(fx->inner), &s);
	pkt_encap_init(&e, AF_INET, &pkt_host_a, &pkt_host_b, fx->inner,
		       type == EQ_T_DATA ? fx->inner_len : 0);
	e.eq.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, type);
	if (type == EQ_T_DATA || type == EQ_T_TRIMMED)
		e.eq.data.frame_len = htonl(frame_len);
	else
		e.eq.ctl.pull_no = htonl(7);
	fx->in_len = pkt_build_encap(fx->in, sizeof(fx->in), &e).len;
	assert_true(fx->in_len > 0);
	assert_int_equal(pkt_run(bpf_program__fd(fx->xdp->progs.xdp_ingress), fx->in, fx->in_len,
				 &fx->r), 0);
	return fx->r.retval;
}

static void xdp_alive(struct fx *fx, bool with_sock)
{
	set_agent(bpf_map__fd(fx->xdp->maps.eq_agent), ALIVE, true);
	if (with_sock)
		put_sock(fx, bpf_map__fd(fx->xdp->maps.eq_xsks), EQ_XSK_WIRE);
}

static void xdp__alive_agent_gets_control_and_agent_data(void **state)
{
	struct fx *fx = *state;

	xdp_alive(fx, true);
	assert_int_equal(xdp_recv(fx, EQ_T_PULL, 0), XDP_REDIRECT);
	assert_int_equal(xdp_recv(fx, EQ_T_ACK, 0), XDP_REDIRECT);
	assert_int_equal(xdp_recv(fx, EQ_T_RST, 0), XDP_REDIRECT);
	assert_int_equal(xdp_recv(fx, EQ_T_DATA, 1234), XDP_REDIRECT);
	assert_int_equal(xdp_recv(fx, EQ_T_TRIMMED, 1500), XDP_REDIRECT);
	/* Handed over as received: the agent parses it itself. */
	assert_int_equal(fx->r.len, fx->in_len);
	assert_memory_equal(fx->r.out, fx->in, fx->in_len);
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_to_agent = 5 });
}

static void xdp__agentless_data_decapsulated_here(void **state)
{
	struct fx *fx = *state;

	xdp_alive(fx, true);
	assert_int_equal(xdp_recv(fx, EQ_T_DATA, 0), XDP_PASS);
	assert_int_equal(fx->r.len, PKT_ETH_LEN + fx->inner_len);
	assert_memory_equal(fx->r.out + PKT_ETH_LEN, fx->inner, fx->inner_len);
	/* A trimmed header nobody can NACK: dropped, counted. */
	assert_int_equal(xdp_recv(fx, EQ_T_TRIMMED, 0), XDP_DROP);
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_decap = 1, .rx_trimmed = 1 });
}

static void xdp__no_socket_data_delivered_control_dropped(void **state)
{
	struct fx *fx = *state;

	xdp_alive(fx, false);	/* heartbeat fresh, socket gone: just died */
	assert_int_equal(xdp_recv(fx, EQ_T_DATA, 1234), XDP_PASS);
	assert_memory_equal(fx->r.out + PKT_ETH_LEN, fx->inner, fx->inner_len);
	assert_int_equal(xdp_recv(fx, EQ_T_PULL, 0), XDP_DROP);
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_decap = 1, .rx_ctrl = 1, .rx_agent_err = 2 });
}

static void xdp__agent_down_socket_left_not_used(void **state)
{
	struct fx *fx = *state;

	xdp_alive(fx, true);
	set_agent(bpf_map__fd(fx->xdp->maps.eq_agent), DEAD_NS * 2, true);
	assert_int_equal(xdp_recv(fx, EQ_T_DATA, 1234), XDP_PASS);
	assert_int_equal(xdp_recv(fx, EQ_T_NACK, 0), XDP_DROP);
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_decap = 1, .rx_ctrl = 1, .rx_agent_down = 2 });
}

static void xdp__scheme_none_never_redirects(void **state)
{
	struct fx *fx = *state;

	set_eqds(&fx->mxdp, EQ_DOWN_TUNNEL, EQ_SCHEME_NONE);
	xdp_alive(fx, true);
	assert_int_equal(xdp_recv(fx, EQ_T_DATA, 1234), XDP_PASS);
	assert_int_equal(xdp_recv(fx, EQ_T_PULL, 0), XDP_DROP);
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_decap = 1, .rx_ctrl = 1 });
}

static void xdp__bad_packets_dropped_before_the_agent(void **state)
{
	struct fx *fx = *state;
	struct pkt_encap e;

	xdp_alive(fx, true);
	/* From an address that is no peer. */
	pkt_encap_init(&e, AF_INET, &pkt_host_a, &pkt_host_b, NULL, 0);
	e.eq.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_PULL);
	e.src = pkt_addr("203.0.113.9");
	fx->in_len = pkt_build_encap(fx->in, sizeof(fx->in), &e).len;
	assert_int_equal(pkt_run(bpf_program__fd(fx->xdp->progs.xdp_ingress), fx->in, fx->in_len,
				 &fx->r), 0);
	assert_int_equal(fx->r.retval, XDP_DROP);
	/* An unknown version. */
	pkt_encap_init(&e, AF_INET, &pkt_host_a, &pkt_host_b, NULL, 0);
	e.eq.ver_type = eq_mk_ver_type(EQ_WIRE_VERSION + 1, EQ_T_PULL);
	fx->in_len = pkt_build_encap(fx->in, sizeof(fx->in), &e).len;
	assert_int_equal(pkt_run(bpf_program__fd(fx->xdp->progs.xdp_ingress), fx->in, fx->in_len,
				 &fx->r), 0);
	assert_int_equal(fx->r.retval, XDP_DROP);
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_drop_peer = 1, .rx_drop_version = 1 });
}

/* ---- xdp_agent on eqb ---- */

static uint32_t agent_run(struct fx *fx, bool arp)
{
	struct pkt_spec s;

	if (arp) {
		fx->in_len = pkt_build_arp(fx->in, sizeof(fx->in));
	} else {
		pkt_spec_init(&s, AF_INET, IPPROTO_UDP, &pkt_host_a, &pkt_host_b);
		fx->in_len = pkt_build_frame(fx->in, sizeof(fx->in), &s);
	}
	assert_int_equal(pkt_run(bpf_program__fd(fx->agent->progs.xdp_agent), fx->in, fx->in_len,
				 &fx->r), 0);
	return fx->r.retval;
}

static void agent__to_socket_or_counted_drop(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(agent_run(fx, false), XDP_DROP);
	put_sock(fx, bpf_map__fd(fx->agent->maps.eq_xsks), EQ_XSK_AGENT);
	assert_int_equal(agent_run(fx, false), XDP_REDIRECT);
	assert_int_equal(agent_run(fx, false), XDP_REDIRECT);
	expect_stats(&fx->magent, &(struct eq_stats){ .agent_rx = 2, .agent_rx_err = 1 });
}

static void agent__wire_slot_is_not_the_agent_slot(void **state)
{
	struct fx *fx = *state;

	/* A socket in the wire slot must not take eqb's frames. */
	put_sock(fx, bpf_map__fd(fx->agent->maps.eq_xsks), EQ_XSK_WIRE);
	assert_int_equal(agent_run(fx, false), XDP_DROP);
	expect_stats(&fx->magent, &(struct eq_stats){ .agent_rx_err = 1 });
}

static void agent__non_ip_passes(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(agent_run(fx, true), XDP_PASS);
	expect_stats(&fx->magent, &(struct eq_stats){ 0 });
}

/* DATA the agent takes is received from the peer as much as what XDP
 * delivers: the per-peer counters count both (control packets are not
 * DATA). */
static void xdp__agent_data_counts_for_the_peer(void **state)
{
	struct fx *fx = *state;
	struct eq_peer_stats c;

	xdp_alive(fx, true);
	assert_int_equal(xdp_recv(fx, EQ_T_PULL, 0), XDP_REDIRECT);
	assert_int_equal(xdp_recv(fx, EQ_T_DATA, 1234), XDP_REDIRECT);
	assert_int_equal(xdp_recv(fx, EQ_T_DATA, 0), XDP_PASS);
	assert_int_equal(pkt_get_peer_stats(&fx->mxdp, PKT_PEER_SLOT, &c), 0);
	assert_int_equal(c.rx_packets, 2);
	assert_int_equal(c.rx_bytes, 2 * fx->inner_len);
	assert_int_equal(c.rx_ce, 0);
}

/* A frame for the agent larger than its sockets' frames would vanish in
 * the socket: dropped here, counted by name. */
static void xdp__too_big_for_the_agent_counted(void **state)
{
	struct fx *fx = *state;
	struct eq_config c;

	xdp_alive(fx, true);
	assert_int_equal(pkt_get_config(&fx->mxdp, &c), 0);
	assert_int_equal(xdp_recv(fx, EQ_T_DATA, 1234), XDP_REDIRECT);
	c.agent_frame_max = (uint32_t)fx->in_len;
	assert_int_equal(pkt_set_config(&fx->mxdp, &c), 0);
	assert_int_equal(xdp_recv(fx, EQ_T_DATA, 1234), XDP_REDIRECT);	/* exactly fits */
	c.agent_frame_max = (uint32_t)fx->in_len - 1;
	assert_int_equal(pkt_set_config(&fx->mxdp, &c), 0);
	assert_int_equal(xdp_recv(fx, EQ_T_DATA, 1234), XDP_DROP);
	assert_int_equal(xdp_recv(fx, EQ_T_DATA, 0), XDP_PASS);		/* not the agent's */
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_to_agent = 2, .rx_agent_too_big = 1,
						     .rx_decap = 1 });
}

/* ---- tc_deliver on eqa ---- */

static void deliver__into_the_attached_interface(void **state)
{
	struct tc_deliver *d = tc_deliver__open_and_load();
	struct pkt_maps m;
	struct pkt_result r;
	struct pkt_spec s;
	struct eq_config c;
	uint8_t f[PKT_MAX];
	size_t n;

	assert_non_null(d);
	m = (struct pkt_maps){ .config = bpf_map__fd(d->maps.eq_config),
			       .stats = bpf_map__fd(d->maps.eq_stats) };
	/* Not set up: nowhere to deliver, dropped. */
	pkt_spec_init(&s, AF_INET, IPPROTO_TCP, &pkt_host_a, &pkt_host_b);
	n = pkt_build_frame(f, sizeof(f), &s);
	assert_int_equal(pkt_run(bpf_program__fd(d->progs.tc_deliver), f, n, &r), 0);
	assert_int_equal(r.retval, TC_ACT_SHOT);
	memset(&c, 0, sizeof(c));
	c.ifindex = 1;	/* lo: the redirect is only decided in a test run */
	assert_int_equal(pkt_set_config(&m, &c), 0);
	assert_int_equal(pkt_run(bpf_program__fd(d->progs.tc_deliver), f, n, &r), 0);
	assert_int_equal(r.retval, TC_ACT_REDIRECT);
	pkt_spec_init(&s, AF_INET6, IPPROTO_UDP, &pkt_host_a, &pkt_host_b);
	n = pkt_build_frame(f, sizeof(f), &s);
	assert_int_equal(pkt_run(bpf_program__fd(d->progs.tc_deliver), f, n, &r), 0);
	assert_int_equal(r.retval, TC_ACT_REDIRECT);
	/* ARP: nothing the agent sends; dropped. */
	f[12] = 0x08;
	f[13] = 0x06;
	assert_int_equal(pkt_run(bpf_program__fd(d->progs.tc_deliver), f, n, &r), 0);
	assert_int_equal(r.retval, TC_ACT_SHOT);
	expect_stats(&m, &(struct eq_stats){ .agent_deliver = 2 });
	tc_deliver__destroy(d);
}

/* ---- backpressure (tc_egress, lease.h) ---- */

static void set_edge_limit(struct fx *fx, uint32_t limit)
{
	struct eq_config c;

	assert_int_equal(pkt_get_config(&fx->mtc, &c), 0);
	c.tunnel.edge_limit = limit;
	assert_int_equal(pkt_set_config(&fx->mtc, &c), 0);
}

static void set_queue(struct fx *fx, uint32_t handed, uint32_t taken, uint32_t queued)
{
	uint32_t slot = PKT_PEER_SLOT;
	struct eq_credit c = { .pull_target = PULL_TARGET, .handed = handed, .taken = taken,
			       .queued = queued };

	assert_int_equal(bpf_map_update_elem(credit_fd(fx), &slot, &c, 0), 0);
}

static void set_agent_flags(struct fx *fx, uint32_t flags)
{
	uint32_t zero = 0;
	struct eq_agent ag = { .heartbeat_ns = mono_ns(), .pid = 1, .flags = flags };

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(fx->tc->maps.eq_agent), &zero, &ag, 0), 0);
}

/* What waits for the agent: in transit (handed - taken) and queued.  At
 * the limit, a packet is refused to the stack and counted; below, it goes
 * and is counted as handed.  A `taken` read ahead of `handed` counts as
 * nothing in transit.  (UDP: what TCP would not send again soon has more
 * room, below.) */
static void backpressure__refused_at_the_edge_limit(void **state)
{
	struct fx *fx = *state;

	set_agent_flags(fx, EQ_AGENT_READY | EQ_AGENT_SHOWS_QUEUE);
	set_edge_limit(fx, 10);
	set_queue(fx, 7, 4, 7);			/* 3 + 7: full */
	assert_int_equal(tc_send_l4(fx, IPPROTO_UDP), TC_ACT_SHOT);
	assert_int_equal(get_credit(fx, PKT_PEER_SLOT).handed, 7);
	set_queue(fx, 7, 5, 7);			/* 2 + 7: room for one */
	assert_int_equal(tc_send_l4(fx, IPPROTO_UDP), TC_ACT_REDIRECT);
	assert_int_equal(get_credit(fx, PKT_PEER_SLOT).handed, 8);
	set_queue(fx, 7, 9, 9);			/* taken ahead: 0 + 9 */
	assert_int_equal(tc_send_l4(fx, IPPROTO_UDP), TC_ACT_REDIRECT);
	set_queue(fx, 7, 9, 10);
	assert_int_equal(tc_send_l4(fx, IPPROTO_UDP), TC_ACT_SHOT);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 4, .tx_to_agent = 2,
						    .tx_backpressure = 2 });
}

/* A TCP packet no ACK would bring back soon if refused (here one with no
 * socket at all, as a SYN-ACK's request socket is no full socket) has
 * room up to EQ_EDGE_UNCLOCKED times the limit: refused, it waited for
 * TCP's timers, 200 ms to 1 s.  (A socket with data in flight, or one in
 * SYN_SENT, needs a socket, which BPF_PROG_TEST_RUN cannot give: the
 * netns and fabric layers run them.) */
static void backpressure__unclocked_tcp_has_room_to_twice_the_limit(void **state)
{
	struct fx *fx = *state;

	set_agent_flags(fx, EQ_AGENT_READY | EQ_AGENT_SHOWS_QUEUE);
	set_edge_limit(fx, 10);
	set_queue(fx, 7, 4, 7);			/* 3 + 7: full for UDP */
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
	assert_int_equal(tc_send_tcp(fx, 0, 0x02), TC_ACT_REDIRECT);	/* a SYN */
	set_queue(fx, 9, 0, 10);		/* 9 + 10: room for one more */
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
	assert_int_equal(get_credit(fx, PKT_PEER_SLOT).handed, 10);
	set_queue(fx, 10, 0, 10);		/* 20 = 2 x 10 */
	assert_int_equal(tc_send(fx), TC_ACT_SHOT);
	assert_int_equal(tc_send_tcp(fx, 0, 0x02), TC_ACT_SHOT);
	assert_int_equal(get_credit(fx, PKT_PEER_SLOT).handed, 10);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 5, .tx_to_agent = 3,
						    .tx_backpressure = 2 });
}

/* An agent that does not show its queue (eq_credit not mapped): never
 * refused, whatever the counts say. */
static void backpressure__only_when_the_agent_shows_its_queue(void **state)
{
	struct fx *fx = *state;

	set_agent_flags(fx, EQ_AGENT_READY);
	set_edge_limit(fx, 10);
	set_queue(fx, 100, 0, 100);
	assert_int_equal(tc_send(fx), TC_ACT_REDIRECT);
	assert_int_equal(get_credit(fx, PKT_PEER_SLOT).handed, 101);
	expect_stats(&fx->mtc, &(struct eq_stats){ .tx_encap = 1, .tx_to_agent = 1 });
}

/* ---- direct delivery (xdp_ingress, rx.h) ---- */

static int rx_fd(const struct fx *fx)
{
	return bpf_map__fd(fx->xdp->maps.eq_rx);
}

static void set_rx(struct fx *fx, uint32_t next, uint32_t flags)
{
	uint32_t slot = PKT_PEER_SLOT;
	struct eq_rx r = { .order.parts = { .next = next, .flags = flags } };

	assert_int_equal(bpf_map_update_elem(rx_fd(fx), &slot, &r, 0), 0);
}

static struct eq_rx get_rx(const struct fx *fx)
{
	uint32_t slot = PKT_PEER_SLOT;
	struct eq_rx r;

	assert_int_equal(bpf_map_lookup_elem(rx_fd(fx), &slot, &r), 0);
	return r;
}

/* DATA from the peer's agent (frame_len set) with seq, flags, outer TOS
 * and IPv4 ID. */
static uint32_t xdp_data(struct fx *fx, uint32_t seq, uint8_t flags, uint8_t tos, uint16_t id)
{
	struct pkt_spec s;
	struct pkt_encap e;

	pkt_spec_init(&s, AF_INET, IPPROTO_TCP, &pkt_host_a, &pkt_host_b);
	s.tos = EQ_ECN_ECT0;
	fx->inner_len = pkt_build_ip(fx->inner, sizeof(fx->inner), &s);
	pkt_encap_init(&e, AF_INET, &pkt_host_a, &pkt_host_b, fx->inner, fx->inner_len);
	e.eq.flags = flags;
	e.eq.data.seq = htonl(seq);
	e.eq.data.pull_target = htonl(PULL_TARGET);
	e.eq.data.frame_len = htonl(1234);
	e.tos = tos;
	e.ip_id = id;
	fx->in_len = pkt_build_encap(fx->in, sizeof(fx->in), &e).len;
	assert_true(fx->in_len > 0);
	assert_int_equal(pkt_run(bpf_program__fd(fx->xdp->progs.xdp_ingress), fx->in, fx->in_len,
				 &fx->r), 0);
	return fx->r.retval;
}

static int rung;

static int count_ring(void *ctx, void *data, size_t len)
{
	assert_int_equal(len, sizeof(uint32_t));
	assert_int_equal(*(uint32_t *)data, PKT_PEER_SLOT);
	rung++;
	return 0;
}

/* In order, open: delivered here (decapsulated), the word moved on, the
 * bytes (the frame as received, less than its frame_len of 1234 here),
 * the pull target and CE counted, and the doorbell rung once until the
 * agent clears `dirty`. */
static void direct__in_order_goes_up_from_xdp(void **state)
{
	struct fx *fx = *state;
	struct ring_buffer *rb = ring_buffer__new(bpf_map__fd(fx->xdp->maps.eq_bell),
						  count_ring, NULL, NULL);
	struct eq_rx r;

	assert_non_null(rb);
	rung = 0;
	xdp_alive(fx, true);
	set_rx(fx, 1000, EQ_RX_OPEN);
	assert_int_equal(xdp_data(fx, 1000, 0, 0, 0), XDP_PASS);
	assert_int_equal(fx->r.len, PKT_ETH_LEN + fx->inner_len);
	assert_memory_equal(fx->r.out + PKT_ETH_LEN + 2, fx->inner + 2, fx->inner_len - 2);
	/* The outer IPv4 ID numbers GSO segments: seq 998 + ID 3 = 1001. */
	assert_int_equal(xdp_data(fx, 998, 0, EQ_ECN_CE, 3), XDP_PASS);
	r = get_rx(fx);
	assert_int_equal(r.order.parts.next, 1002);
	assert_int_equal(r.order.parts.flags, EQ_RX_OPEN);
	assert_int_equal(r.pkts, 2);
	assert_int_equal(r.bytes, 2 * fx->in_len);
	assert_int_equal(r.ce, 1);
	assert_int_equal(r.pull_target, PULL_TARGET);
	assert_int_equal(r.dirty, EQ_RX_RUNG);	/* no ack delay: at once */
	assert_int_equal(ring_buffer__consume(rb), 1);
	assert_int_equal(rung, 1);
	ring_buffer__free(rb);
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_decap = 2, .rx_direct = 2,
						     .bell_rx_now = 1 });
}

static void set_ack_delay(struct fx *fx, uint32_t ns, uint32_t wake_bytes)
{
	uint32_t slot = PKT_PEER_SLOT;
	struct eq_config c;
	struct eq_rx r;

	assert_int_equal(pkt_get_config(&fx->mxdp, &c), 0);
	c.tunnel.ack_delay_ns = ns;
	assert_int_equal(pkt_set_config(&fx->mxdp, &c), 0);
	r = get_rx(fx);
	r.wake_bytes = wake_bytes;
	assert_int_equal(bpf_map_update_elem(rx_fd(fx), &slot, &r, 0), 0);
}

static struct ring_buffer *bell(struct fx *fx)
{
	struct ring_buffer *rb = ring_buffer__new(bpf_map__fd(fx->xdp->maps.eq_bell), count_ring,
						  NULL, NULL);

	assert_non_null(rb);
	rung = 0;
	return rb;
}

/* Long enough that two steps of a test never straddle it: in the VM's
 * emulated CPU (TCG), with the host busy, 2 ms was passed between two
 * packets of one test, and the timer rang before it should have. */
#define ACK_DELAY_NS	(20 * 1000 * 1000)

/* The agent alive, the word open at 1000, an ACK delay, wake_bytes. */
static void delayed_open(struct fx *fx, uint32_t wake_bytes)
{
	xdp_alive(fx, true);
	set_rx(fx, 1000, EQ_RX_OPEN);
	set_ack_delay(fx, ACK_DELAY_NS, wake_bytes);
}

static void put_rx(struct fx *fx, const struct eq_rx *r)
{
	uint32_t slot = PKT_PEER_SLOT;

	assert_int_equal(bpf_map_update_elem(rx_fd(fx), &slot, r, 0), 0);
}

/* Wait for the timer's ring (its callback runs in softirq context), up
 * to 100 times the delay. */
static void wait_rung(struct ring_buffer *rb)
{
	for (int i = 0; i < 100 && !rung; i++) {
		usleep(ACK_DELAY_NS / 1000);
		ring_buffer__consume(rb);
	}
}

/* A small delivery with an ack delay: not rung at once but armed, and
 * rung once when the timer fires (a small RPC reaches its application
 * before the agent wakes). */
static void direct__a_small_delivery_rings_after_the_ack_delay(void **state)
{
	struct fx *fx = *state;
	struct ring_buffer *rb = bell(fx);

	delayed_open(fx, 100000);
	assert_int_equal(xdp_data(fx, 1000, 0, 0, 0), XDP_PASS);
	assert_int_equal(xdp_data(fx, 1001, 0, 0, 0), XDP_PASS);
	assert_int_equal(get_rx(fx).dirty, EQ_RX_ARMED);
	assert_int_equal(ring_buffer__consume(rb), 0);
	wait_rung(rb);
	assert_int_equal(rung, 1);
	assert_int_equal(get_rx(fx).dirty, EQ_RX_RUNG);
	assert_int_equal(get_rx(fx).pkts, 2);
	ring_buffer__free(rb);
	/* One timer armed, by the first; the ring counted as the timer's. */
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_decap = 2, .rx_direct = 2,
						     .rx_ack_timers = 1, .bell_rx_timer = 1 });
}

/* wake_bytes unread past read_bytes (a bulk flow's full-size packets):
 * rung at once, whatever the delay, and only once; the armed timer then
 * finds it rung and stays quiet. */
static void direct__enough_unread_rings_at_once(void **state)
{
	struct fx *fx = *state;
	struct ring_buffer *rb = bell(fx);
	uint32_t one;

	delayed_open(fx, 100000);
	assert_int_equal(xdp_data(fx, 1000, 0, 0, 0), XDP_PASS);
	assert_int_equal(get_rx(fx).dirty, EQ_RX_ARMED);
	one = (uint32_t)get_rx(fx).bytes;
	set_ack_delay(fx, ACK_DELAY_NS, 2 * one);	/* read_bytes 0: one short */
	assert_int_equal(ring_buffer__consume(rb), 0);
	assert_int_equal(xdp_data(fx, 1001, 0, 0, 0), XDP_PASS);
	assert_int_equal(get_rx(fx).dirty, EQ_RX_RUNG);
	assert_int_equal(xdp_data(fx, 1002, 0, 0, 0), XDP_PASS);
	assert_int_equal(ring_buffer__consume(rb), 1);
	assert_int_equal(rung, 1);
	usleep(3 * ACK_DELAY_NS / 1000);
	assert_int_equal(ring_buffer__consume(rb), 0);
	ring_buffer__free(rb);
	/* The timer fired into a rung doorbell: counted as armed, not rung. */
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_decap = 3, .rx_direct = 3,
						     .rx_ack_timers = 1, .bell_rx_now = 1 });
}

/* The agent said it looks within the delay (awake: 1, or a deadline that
 * near): no timer, no ring, the delivery left ARMED for it to read.  A
 * look later than the delay: the timer rings. */
static void direct__no_timer_when_the_agent_looks_soon(void **state)
{
	struct fx *fx = *state;
	struct ring_buffer *rb = bell(fx);
	struct eq_rx r;

	delayed_open(fx, 100000);
	r = get_rx(fx);
	r.look_ns = 1;
	put_rx(fx, &r);
	assert_int_equal(xdp_data(fx, 1000, 0, 0, 0), XDP_PASS);
	assert_int_equal(get_rx(fx).dirty, EQ_RX_ARMED);
	usleep(3 * ACK_DELAY_NS / 1000);
	assert_int_equal(ring_buffer__consume(rb), 0);
	assert_int_equal(get_rx(fx).dirty, EQ_RX_ARMED);
	/* The agent read it, then sleeps for fifty delays. */
	r = get_rx(fx);
	r.dirty = EQ_RX_CLEAN;
	r.look_ns = mono_ns() + 50 * ACK_DELAY_NS;
	put_rx(fx, &r);
	assert_int_equal(xdp_data(fx, 1001, 0, 0, 0), XDP_PASS);
	wait_rung(rb);
	assert_int_equal(rung, 1);
	assert_true(mono_ns() < r.look_ns);	/* before the agent's own look */
	ring_buffer__free(rb);
}

/* The agent read everything (CLEAN, read_bytes caught up), and says it
 * looks next at look_ns, polling every poll_ns. */
static void agent_read(struct fx *fx, uint64_t look_ns, uint32_t poll_ns)
{
	struct eq_rx r = get_rx(fx);

	r.dirty = EQ_RX_CLEAN;
	r.read_bytes = r.bytes;
	r.look_ns = look_ns;
	r.poll_ns = poll_ns;
	put_rx(fx, &r);
}

/* A bulk flow (wake_bytes unread at each delivery) while the agent polls
 * it: awake, or looking within its poll_ns, it is not rung (counted in
 * bell_rx_polled) and finds the delivery `dirty`; asleep beyond poll_ns,
 * or with no poll_ns (it does not poll), it is rung at once as before. */
static void direct__a_bulk_flow_the_agent_polls_does_not_ring(void **state)
{
	struct fx *fx = *state;
	struct ring_buffer *rb = bell(fx);
	const uint32_t poll = 50 * 1000;

	delayed_open(fx, 1);	/* every delivery is a bulk flow's */
	agent_read(fx, 1, poll);	/* awake */
	assert_int_equal(xdp_data(fx, 1000, 0, 0, 0), XDP_PASS);
	assert_int_equal(get_rx(fx).dirty, EQ_RX_RUNG);
	assert_int_equal(ring_buffer__consume(rb), 0);
	/* It read it, and sleeps until its next poll, due within poll_ns. */
	agent_read(fx, mono_ns() + poll / 2, poll);
	assert_int_equal(xdp_data(fx, 1001, 0, 0, 0), XDP_PASS);
	assert_int_equal(get_rx(fx).dirty, EQ_RX_RUNG);
	assert_int_equal(ring_buffer__consume(rb), 0);
	/* Then it sleeps for fifty ACK delays: rung. */
	agent_read(fx, mono_ns() + 50 * (uint64_t)ACK_DELAY_NS, poll);
	assert_int_equal(xdp_data(fx, 1002, 0, 0, 0), XDP_PASS);
	assert_int_equal(ring_buffer__consume(rb), 1);
	/* Awake, but not polling (poll_ns 0): rung, as before polling. */
	agent_read(fx, 1, 0);
	assert_int_equal(xdp_data(fx, 1003, 0, 0, 0), XDP_PASS);
	assert_int_equal(ring_buffer__consume(rb), 1);
	assert_int_equal(rung, 2);
	ring_buffer__free(rb);
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_decap = 4, .rx_direct = 4,
						     .bell_rx_now = 2, .bell_rx_polled = 2 });
}

/* The agent looked (CLEAN) before the timer fired: the timer stays quiet. */
static void direct__the_timer_is_quiet_after_the_agent_looked(void **state)
{
	struct fx *fx = *state;
	struct ring_buffer *rb = bell(fx);
	struct eq_rx r;

	delayed_open(fx, 100000);
	assert_int_equal(xdp_data(fx, 1000, 0, 0, 0), XDP_PASS);
	r = get_rx(fx);
	assert_int_equal(r.dirty, EQ_RX_ARMED);
	r.dirty = EQ_RX_CLEAN;
	put_rx(fx, &r);
	usleep(3 * ACK_DELAY_NS / 1000);
	assert_int_equal(ring_buffer__consume(rb), 0);
	assert_int_equal(get_rx(fx).dirty, EQ_RX_CLEAN);
	ring_buffer__free(rb);
}

/* Out of order, a duplicate, SYN, or the word closed: to the agent,
 * untouched, the word as it was. */
static void direct__anything_else_goes_to_the_agent(void **state)
{
	struct fx *fx = *state;
	struct eq_rx r;

	xdp_alive(fx, true);
	set_rx(fx, 1000, EQ_RX_OPEN);
	assert_int_equal(xdp_data(fx, 1001, 0, 0, 0), XDP_REDIRECT);	/* a gap */
	assert_int_equal(fx->r.len, fx->in_len);
	assert_int_equal(xdp_data(fx, 999, 0, 0, 0), XDP_REDIRECT);	/* a duplicate */
	assert_int_equal(xdp_data(fx, 1000, EQ_F_SYN, 0, 0), XDP_REDIRECT);
	set_rx(fx, 1000, 0);
	assert_int_equal(xdp_data(fx, 1000, 0, 0, 0), XDP_REDIRECT);	/* closed */
	r = get_rx(fx);
	assert_int_equal(r.order.parts.next, 1000);
	assert_int_equal(r.pkts, 0);
	assert_int_equal(r.dirty, 0);
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_to_agent = 4 });
}

/* The agent down (or its socket gone): DATA is delivered as before the
 * agent, whatever the word. */
static void direct__agent_down_delivers_without_the_word(void **state)
{
	struct fx *fx = *state;

	set_agent(bpf_map__fd(fx->xdp->maps.eq_agent), DEAD_NS * 2, true);
	set_rx(fx, 1000, EQ_RX_OPEN);
	assert_int_equal(xdp_data(fx, 5, 0, 0, 0), XDP_PASS);
	assert_int_equal(get_rx(fx).order.parts.next, 1000);
	expect_stats(&fx->mxdp, &(struct eq_stats){ .rx_decap = 1, .rx_agent_down = 1 });
}

int main(void)
{
	/* A network namespace of our own: its lo has no other AF_XDP user. */
	if (unshare(CLONE_NEWNET))
		fprintf(stderr, "# unshare(CLONE_NEWNET): %s\n", strerror(errno));
	int e = lo_xsk_open(&sock), rc;

	have_sock = !e;
	if (e)
		fprintf(stderr, "# AF_XDP socket on lo: %s\n", strerror(-e));
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(tc__bare_tcp_ack_goes_without_the_agent),
		T(tc__bare_tcp_ack_over_ipv6_goes_without_the_agent),
		T(tc__bare_tcp_ack_takes_the_schemes_path),
		T(tc__bare_tcp_ack_follows_on_agent_down),
		T(tc__alive_agent_gets_encapsulated_packet),
		T(tc__heartbeat_age_decides),
		T(tc__future_heartbeat_is_alive),
		T(tc__not_ready_or_never_beaten_is_down),
		T(tc__down_pass_sends_unencapsulated),
		T(tc__down_drop_drops),
		T(tc__scheme_none_ignores_agent),
		T(tc__miss_untouched_whatever_the_agent),
		T(fast__covered_packet_goes_to_wire),
		T(fast__lease_of_exactly_one_frame),
		cmocka_unit_test_setup_teardown(fast__copy_made_to_existing_interface,
						setup_lo_up, teardown_lo_down),
		T(fast__the_copy_goes_to_the_ring_the_agent_reads),
		T(fast__short_lease_shuts_and_shut_holds),
		T(fast__closed_lease_goes_to_agent),
		T(fast__plain_tcp_skb_is_not_gso),
		T(fast__dropped_packet_leaves_lease),
		T(fast__agent_down_ignores_lease),
		T(fast__scheme_none_ignores_lease),
		T(fast__consecutive_seqs),
		T(fast__miss_leaves_lease),
		T(fast__other_peers_lease_untouched),
		T(xdp__alive_agent_gets_control_and_agent_data),
		T(xdp__agentless_data_decapsulated_here),
		T(xdp__no_socket_data_delivered_control_dropped),
		T(xdp__agent_down_socket_left_not_used),
		T(xdp__scheme_none_never_redirects),
		T(xdp__bad_packets_dropped_before_the_agent),
		T(agent__to_socket_or_counted_drop),
		T(agent__wire_slot_is_not_the_agent_slot),
		T(agent__non_ip_passes),
		T(xdp__agent_data_counts_for_the_peer),
		T(xdp__too_big_for_the_agent_counted),
		T(deliver__into_the_attached_interface),
		T(backpressure__refused_at_the_edge_limit),
		T(backpressure__unclocked_tcp_has_room_to_twice_the_limit),
		T(backpressure__only_when_the_agent_shows_its_queue),
		T(direct__in_order_goes_up_from_xdp),
		T(direct__a_small_delivery_rings_after_the_ack_delay),
		T(direct__enough_unread_rings_at_once),
		T(direct__a_bulk_flow_the_agent_polls_does_not_ring),
		T(direct__the_timer_is_quiet_after_the_agent_looked),
		T(direct__no_timer_when_the_agent_looks_soon),
		T(direct__anything_else_goes_to_the_agent),
		T(direct__agent_down_delivers_without_the_word),
	};

	rc = cmocka_run_group_tests_name("agent_gate", tests, NULL, NULL);
	lo_xsk_close(&sock);
	return rc;
}
