// SPDX-License-Identifier: GPL-2.0-only
/*
 * Authenticated headers across the three implementations (edgeq/auth.h):
 * tc_egress of host A signs for its keyed peer B, the agent's frame code
 * (user/agent/frame.c) checks what TC made, and xdp_ingress of host B
 * delivers it, and drops what TC made with another key, without a key, or
 * what was changed on the way (rx_drop_auth).  Both programs through
 * BPF_PROG_TEST_RUN, each with its own maps.
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
#include <cmocka.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tc_egress.skel.h"
#include "xdp_ingress.skel.h"
#include "pkt.h"
#include "frame.h"

struct fx {
	struct tc_egress	*tc;
	struct xdp_ingress	*xdp;
	struct pkt_maps		a, b;
	int			keys_a, keys_b;
	uint8_t			in[PKT_MAX], out[PKT_MAX];
	size_t			in_len, out_len;
};

static const uint8_t KEY[16] = { 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe,
				 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
static const uint8_t OTHER[16] = { 0xee };

static void set_key(const struct pkt_maps *m, int keys_fd, const uint8_t *key, uint8_t id)
{
	assert_int_equal(pkt_set_key(m, keys_fd, key, id), 0);
}

static int setup_family(void **state, int family)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	fx->tc = tc_egress__open_and_load();
	fx->xdp = xdp_ingress__open_and_load();
	if (!fx->tc || !fx->xdp) {
		fprintf(stderr, "# open_and_load: %s\n", strerror(errno));
		return -1;
	}
	fx->a = PKT_MAPS(fx->tc);
	fx->b = PKT_MAPS(fx->xdp);
	fx->keys_a = bpf_map__fd(fx->tc->maps.eq_keys);
	fx->keys_b = bpf_map__fd(fx->xdp->maps.eq_keys);
	*state = fx;
	if (pkt_setup_host(&fx->a, &pkt_host_a, &pkt_host_b, family) ||
	    pkt_setup_host(&fx->b, &pkt_host_b, &pkt_host_a, family))
		return -1;
	return 0;
}

static int setup_v4(void **state) { return setup_family(state, AF_INET); }
static int setup_v6(void **state) { return setup_family(state, AF_INET6); }

static int teardown(void **state)
{
	struct fx *fx = *state;

	tc_egress__destroy(fx->tc);
	xdp_ingress__destroy(fx->xdp);
	free(fx);
	return 0;
}

/* A's TC encapsulates a UDP packet to B: fx->out. */
static void send_a(struct fx *fx)
{
	struct pkt_result r;
	struct pkt_spec s;

	pkt_spec_init(&s, AF_INET, IPPROTO_UDP, &pkt_host_a, &pkt_host_b);
	s.payload_len = 200;
	fx->in_len = pkt_build_frame(fx->in, sizeof(fx->in), &s);
	assert_true(fx->in_len > 0);
	assert_int_equal(pkt_run(bpf_program__fd(fx->tc->progs.tc_egress), fx->in, fx->in_len, &r), 0);
	assert_int_equal(r.retval, TC_ACT_OK);
	memcpy(fx->out, r.out, r.len);
	fx->out_len = r.len;
}

/* B's XDP on frame f: its verdict. */
static uint32_t recv_b(struct fx *fx, const uint8_t *f, size_t len)
{
	struct pkt_result r;

	assert_int_equal(pkt_run(bpf_program__fd(fx->xdp->progs.xdp_ingress), f, len, &r), 0);
	return r.retval;
}

static void check_auth(void **state)
{
	struct fx *fx = *state;
	struct eq_peer_keys k = { .id = { 5 }, .valid = 1 };
	struct eq_stats st;
	struct eqf_info fi;
	uint8_t f[PKT_MAX];

	memcpy(k.key[0], KEY, 16);
	set_key(&fx->a, fx->keys_a, KEY, 5);
	set_key(&fx->b, fx->keys_b, KEY, 5);
	send_a(fx);
	/* TC's tag is the one the agent's code makes. */
	assert_int_equal(eqf_parse(fx->out, fx->out_len, EQ_DEFAULT_PORT, &fi), 0);
	assert_int_equal(fi.eq_len, EQ_HDR_LEN + EQ_OPT_AUTH_LEN);
	assert_int_equal(fi.inner_len, fx->in_len - PKT_ETH_LEN);
	assert_int_equal(eqf_auth_check(fx->out, &fi, &k), 0);
	/* B's XDP delivers it. */
	assert_int_equal(recv_b(fx, fx->out, fx->out_len), XDP_PASS);
	/* Any byte of the header changed: dropped (a type changed to a
	 * control packet's is the agent's to check: rx_ctrl here, no agent). */
	for (uint32_t i = fi.eq_off; i < fi.eq_off + fi.eq_len; i++) {
		memcpy(f, fx->out, fx->out_len);
		f[i] ^= 0x04;
		if (recv_b(fx, f, fx->out_len) == XDP_PASS)
			fail_msg("header byte %u changed, and XDP delivered it", i - fi.eq_off);
	}
	/* Another key: dropped, and so is what A sends unsigned. */
	set_key(&fx->a, fx->keys_a, OTHER, 5);
	send_a(fx);
	assert_int_equal(recv_b(fx, fx->out, fx->out_len), XDP_DROP);
	struct eq_peer p;
	uint32_t slot = PKT_PEER_SLOT;

	assert_int_equal(pkt_get_peer(&fx->a, slot, &p), 0);
	p.flags &= ~EQ_PEER_KEYED;
	assert_int_equal(pkt_set_peer(&fx->a, slot, &p), 0);
	send_a(fx);
	assert_int_equal(eqf_parse(fx->out, fx->out_len, EQ_DEFAULT_PORT, &fi), 0);
	assert_int_equal(fi.eq_len, EQ_HDR_LEN);
	assert_int_equal(recv_b(fx, fx->out, fx->out_len), XDP_DROP);
	assert_int_equal(pkt_read_stats(&fx->b, &st), 0);
	assert_int_equal(st.rx_decap, 1);
	assert_true(st.rx_drop_auth >= 2 + EQ_HDR_LEN);	/* the header's bytes, the key, none */
	assert_int_equal(st.rx_drop_auth + st.rx_drop_version + st.rx_drop_type + st.rx_drop_len +
			 st.rx_drop_short + st.rx_drop_peer + st.rx_drop_inner + st.rx_drop_seg +
			 st.rx_drop_src + st.rx_pass + st.rx_to_agent + st.rx_ctrl + st.rx_trimmed,
			 (uint64_t)(EQ_HDR_LEN + EQ_OPT_AUTH_LEN + 2));
	/* B without a key delivers the unsigned one. */
	assert_int_equal(pkt_get_peer(&fx->b, slot, &p), 0);
	p.flags &= ~EQ_PEER_KEYED;
	assert_int_equal(pkt_set_peer(&fx->b, slot, &p), 0);
	assert_int_equal(recv_b(fx, fx->out, fx->out_len), XDP_PASS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(check_auth, setup_v4, teardown),
		cmocka_unit_test_setup_teardown(check_auth, setup_v6, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
