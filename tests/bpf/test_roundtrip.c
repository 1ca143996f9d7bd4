// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host A's tc_egress then host B's xdp_ingress, two skeleton instances
 * with their own maps (A's peer is B, B's peer is A): what B passes up must
 * be the frame A's stack sent.  The decapsulator restores the inner
 * EtherType, so even across families the whole frame comes back.
 *
 * EDGEQ_SEED=<n> replays the property loop with another seed.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tc_egress.skel.h"
#include "xdp_ingress.skel.h"
#include "pkt.h"

struct fx {
	struct tc_egress	*a;
	struct xdp_ingress	*b;
	struct pkt_maps		am, bm;
	int			tc, xdp;
	struct pkt_result	enc, dec;
	uint8_t			in[PKT_MAX];
	size_t			in_len;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	*state = fx;
	fx->a = tc_egress__open_and_load();
	fx->b = xdp_ingress__open_and_load();
	if (!fx->a || !fx->b) {
		fprintf(stderr, "# open_and_load: %s\n", strerror(errno));
		return -1;
	}
	fx->am = PKT_MAPS(fx->a);
	fx->bm = PKT_MAPS(fx->b);
	fx->tc = bpf_program__fd(fx->a->progs.tc_egress);
	fx->xdp = bpf_program__fd(fx->b->progs.xdp_ingress);
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	tc_egress__destroy(fx->a);
	xdp_ingress__destroy(fx->b);
	free(fx);
	return 0;
}

static void use_underlay(struct fx *fx, int family)
{
	assert_int_equal(pkt_setup_host(&fx->am, &pkt_host_a, &pkt_host_b, family), 0);
	assert_int_equal(pkt_setup_host(&fx->bm, &pkt_host_b, &pkt_host_a, family), 0);
}

/* A -> B.  Returns true when it went through (and came out identical),
 * false when A dropped it as too big for the MTU. */
static bool roundtrip(struct fx *fx, const struct pkt_spec *s, int outer)
{
	size_t overhead = outer == AF_INET ? EQ_OVERHEAD_V4 : EQ_OVERHEAD_V6;

	fx->in_len = pkt_build_frame(fx->in, sizeof(fx->in), s);
	assert_true(fx->in_len > 0);
	assert_int_equal(pkt_run(fx->tc, fx->in, fx->in_len, &fx->enc), 0);
	if (fx->in_len - PKT_ETH_LEN + overhead > PKT_MTU) {
		assert_int_equal(fx->enc.retval, TC_ACT_SHOT);
		return false;
	}
	assert_int_equal(fx->enc.retval, TC_ACT_OK);
	assert_int_equal(fx->enc.len, fx->in_len + overhead);
	assert_int_equal(pkt_run(fx->xdp, fx->enc.out, fx->enc.len, &fx->dec), 0);
	assert_int_equal(fx->dec.retval, XDP_PASS);
	assert_int_equal(fx->dec.len, fx->in_len);
	assert_memory_equal(fx->dec.out, fx->in, fx->in_len);
	return true;
}

static void check_stats(struct fx *fx, uint64_t through, uint64_t too_big)
{
	struct eq_stats a, b;

	assert_int_equal(pkt_read_stats(&fx->am, &a), 0);
	assert_int_equal(pkt_read_stats(&fx->bm, &b), 0);
	assert_int_equal(pkt_stats_diff(&a, &(struct eq_stats){ .tx_encap = through,
							       .tx_err_too_big = too_big }), 0);
	assert_int_equal(pkt_stats_diff(&b, &(struct eq_stats){ .rx_decap = through }), 0);
}

static void check_l4s(struct fx *fx, int inner, int outer)
{
	static const uint8_t l4s[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };
	struct pkt_spec s;

	use_underlay(fx, outer);
	for (size_t i = 0; i < sizeof(l4s); i++) {
		pkt_spec_init(&s, inner, l4s[i], &pkt_host_a, &pkt_host_b);
		s.tos = 0x2a;			/* AF11, ECT(0) */
		assert_true(roundtrip(fx, &s, outer));
	}
	check_stats(fx, sizeof(l4s), 0);

	struct eq_peer pa, pb;
	struct eq_peer_stats ca, cb;

	assert_int_equal(pkt_get_peer(&fx->am, PKT_PEER_SLOT, &pa), 0);
	assert_int_equal(pkt_get_peer(&fx->bm, PKT_PEER_SLOT, &pb), 0);
	assert_int_equal(pkt_get_peer_stats(&fx->am, PKT_PEER_SLOT, &ca), 0);
	assert_int_equal(pkt_get_peer_stats(&fx->bm, PKT_PEER_SLOT, &cb), 0);
	assert_int_equal(ca.tx_packets, cb.rx_packets);
	assert_int_equal(ca.tx_bytes, cb.rx_bytes);
	assert_int_equal(pb.rx_seq_next, pa.tx_seq);	/* B saw every seq A stamped */
	assert_int_equal(pb.rx_sender_id, pkt_host_a.node_id);
}

static void roundtrip__v4_over_v4(void **state) { check_l4s(*state, AF_INET, AF_INET); }
static void roundtrip__v6_over_v6(void **state) { check_l4s(*state, AF_INET6, AF_INET6); }
static void roundtrip__v4_over_v6(void **state) { check_l4s(*state, AF_INET, AF_INET6); }
static void roundtrip__v6_over_v4(void **state) { check_l4s(*state, AF_INET6, AF_INET); }

/* Random payload sizes 1..1400, TOS (all ECN codepoints), L4, families.
 * Packets too big for PKT_MTU once encapsulated must be refused by A;
 * everything else must come out of B as it went into A. */
static void roundtrip__random_sizes_and_tos(void **state)
{
	struct fx *fx = *state;
	static const uint8_t l4s[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP };
	const char *env = getenv("EDGEQ_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : 0x6564676571ull;
	uint64_t rng = seed, through = 0, too_big = 0;
	int outer = AF_INET;
	struct pkt_spec s;

	fprintf(stderr, "# roundtrip__random_sizes_and_tos: EDGEQ_SEED=%llu\n",
		(unsigned long long)seed);
	for (int i = 0; i < 2000; i++) {
		uint64_t r = pkt_rand(&rng);
		int inner = r & 1 ? AF_INET6 : AF_INET;

		if (i == 0 || (r & 0x1e) == 0) {	/* re-point the peers, 1 in 16 */
			outer = r & 0x20 ? AF_INET6 : AF_INET;
			use_underlay(fx, outer);
		}
		pkt_spec_init(&s, inner, l4s[(r >> 8) % 3], &pkt_host_a, &pkt_host_b);
		s.payload_len = 1 + (size_t)((r >> 16) % 1400);
		s.tos = (uint8_t)(r >> 32);
		s.flow_label = (uint32_t)(r >> 40) & 0xfffff;
		s.sport = (uint16_t)(r >> 48);
		s.seed = (uint8_t)(r >> 56);
		if (roundtrip(fx, &s, outer))
			through++;
		else
			too_big++;
	}
	/* Both outcomes were exercised. */
	assert_true(through > 1000);
	assert_true(too_big > 0);
	check_stats(fx, through, too_big);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(roundtrip__v4_over_v4),
		T(roundtrip__v6_over_v6),
		T(roundtrip__v4_over_v6),
		T(roundtrip__v6_over_v4),
		T(roundtrip__random_sizes_and_tos),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
