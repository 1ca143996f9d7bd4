// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/common/config.c: eq_inner_mtu(), eq_parse_rate()
 * (units, case, overflow) and the config parser eq_cfg_parse(): every
 * directive (local, port, mtu, link_rate, entropy, node_id, peer), the
 * defaults (port 7446, entropy flow, 10 Gbit/s, node_id from the low 16
 * bits of the first local address), comments, blank lines, tabs and CRLF;
 * every error message, with the exact "name:LINE: message" text, line
 * numbers counted across blank and comment lines, and the whole-file
 * checks (no local address, peer whose family has no local address).
 * Configs are parsed from strings; eq_cfg_load() reads one temporary file
 * and fails on a missing file and on a directory.  Failed parses must not
 * leave anything to free (run under valgrind to check for leaks).
 */
#include "testlib.h"
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "addr.h"
#include "config.h"
#include "settings.h"
#include "edgeq/wire.h"

#define NAME	"t.conf"
#define ERRLEN	512
#define UNKNOWN_TAIL " (local, node_id, peer, scheme, port, mtu, link_rate, link_framing, entropy, max_peers, " \
	"max_prefixes, on_agent_down, agent_dead_ms, agent_priority, bdp, edge_queue, edge_ecn, reorder_queue, reorder_timeout_us, " \
	"loss_window_us, rto_us, drr_quantum, pacer_burst_us, ack_delay_us, rx_poll_us, fast_path, direct_rx, hold_tcp, " \
	"or SCHEME.KEY of eqds, smartt, sird (edgeq help config))"

/* Parse text that must be valid; the caller eq_cfg_free()s. */
static void parse_ok(const char *text, struct eq_cfg *cfg)
{
	char err[ERRLEN] = "";
	int rc = eq_cfg_parse(text, NAME, cfg, err, sizeof(err));

	if (rc)
		fail_msg("eq_cfg_parse failed (%d): %s\n--- config:\n%s", rc, err, text);
}

/* Parse text that must fail with exactly the message want; nothing may be
 * left to free. */
static void parse_err(const char *text, const char *want)
{
	char err[ERRLEN];
	struct eq_cfg cfg;
	int rc;

	memset(err, 'X', sizeof(err));
	err[sizeof(err) - 1] = '\0';
	rc = eq_cfg_parse(text, NAME, &cfg, err, sizeof(err));
	if (rc != -EINVAL || strcmp(err, want))
		fail_msg("config:\n%s\n--- rc %d, message\n  '%s'\nwanted -EINVAL and\n  '%s'",
			 text, rc, err, want);
	assert_null(cfg.peers);
	assert_int_equal(cfg.npeers, 0);
}

static void assert_addr_is(const struct eq_addr *a, const char *s)
{
	struct eq_addr want = addr(s);

	assert_memory_equal(a, &want, sizeof(want));
}

static bool all_zero(const void *p, size_t len)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < len; i++)
		if (c[i])
			return false;
	return true;
}

/* ---- eq_inner_mtu ---------------------------------------------------------- */

static void eq_inner_mtu__subtracts_outer_overhead(void **state)
{
	assert_int_equal(eq_inner_mtu(1500, false), 1452);
	/* IPv6: 68 bytes of headers and 8 of room for the segment option */
	assert_int_equal(eq_inner_mtu(1500, true), 1424);
	assert_int_equal(eq_inner_mtu(9000, false), 8952);
	assert_int_equal(eq_inner_mtu(9000, true), 8924);
	assert_int_equal(eq_inner_mtu(576, false), 528);
	assert_int_equal(eq_inner_mtu(576, true), 500);
}

static void eq_inner_mtu__zero_when_no_room(void **state)
{
	assert_int_equal(eq_inner_mtu(0, false), 0);
	assert_int_equal(eq_inner_mtu(0, true), 0);
	assert_int_equal(eq_inner_mtu(EQ_OVERHEAD_V4, false), 0);
	assert_int_equal(eq_inner_mtu(EQ_OVERHEAD_V4 + 1, false), 1);
	assert_int_equal(eq_inner_mtu(EQ_ROOM_V6, true), 0);
	assert_int_equal(eq_inner_mtu(EQ_ROOM_V6 - 1, true), 0);
	assert_int_equal(eq_inner_mtu(EQ_ROOM_V6 + 1, true), 1);
}

/* For every wire MTU: inner + room == wire when there is room, and the
 * result only grows with the wire MTU. */
static void eq_inner_mtu__inner_plus_overhead_is_wire(void **state)
{
	for (int v6 = 0; v6 < 2; v6++) {
		unsigned int o = v6 ? EQ_ROOM_V6 : EQ_ROOM_V4, prev = 0;

		for (unsigned int m = 0; m <= 65535; m++) {
			unsigned int in = eq_inner_mtu(m, v6);

			if (m > o)
				assert_int_equal(in + o, m);
			else
				assert_int_equal(in, 0);
			assert_true(in >= prev);
			prev = in;
		}
		assert_int_equal(eq_inner_mtu(0xffffffffu, v6), 0xffffffffu - o);
	}
}

/* ---- eq_parse_rate ------------------------------------------------------------ */

static void eq_parse_rate__units(void **state)
{
	static const struct { const char *s; __u64 bps; } ok[] = {
		{ "1", 1 }, { "1000000", 1000000 }, { "1bit", 1 }, { "800bit", 800 },
		{ "1kbit", 1000 }, { "64kbit", 64000 }, { "1mbit", 1000000 },
		{ "100mbit", 100000000 }, { "2500mbit", 2500000000ULL },
		{ "1gbit", 1000000000ULL }, { "10gbit", 10000000000ULL },
		{ "400gbit", 400000000000ULL }, { "007gbit", 7000000000ULL },
	};

	for (unsigned int i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		__u64 bps = 0;

		if (eq_parse_rate(ok[i].s, &bps))
			fail_msg("eq_parse_rate(\"%s\") refused", ok[i].s);
		assert_int_equal(bps, ok[i].bps);
	}
}

static void eq_parse_rate__units_ignore_case(void **state)
{
	__u64 bps = 0;

	assert_int_equal(eq_parse_rate("10GBIT", &bps), 0);
	assert_int_equal(bps, 10000000000ULL);
	assert_int_equal(eq_parse_rate("25Gbit", &bps), 0);
	assert_int_equal(bps, 25000000000ULL);
	assert_int_equal(eq_parse_rate("5MBit", &bps), 0);
	assert_int_equal(bps, 5000000);
	assert_int_equal(eq_parse_rate("3KBIT", &bps), 0);
	assert_int_equal(bps, 3000);
	assert_int_equal(eq_parse_rate("7BIT", &bps), 0);
	assert_int_equal(bps, 7);
}

static void eq_parse_rate__invalid(void **state)
{
	static const char *const bad[] = {
		"", "0", "0bit", "0gbit", "00", "gbit", "bit", "-1", "-1gbit", "+1",
		"+1gbit", " 1", "1 ", "1 gbit", "1.5gbit", "1,5gbit", "1g", "1G",
		"1gb", "1gbps", "1gbits", "1tbit", "1kbitx", "1bit1", "0x10",
		"1e9", "gbit1", "ten", "10\n", "10gbit\r",
	};
	unsigned int accepted = 0;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		__u64 bps = 0;

		if (eq_parse_rate(bad[i], &bps) != -EINVAL) {
			print_error("eq_parse_rate(\"%s\") accepted\n", bad[i]);
			accepted++;
		}
	}
	assert_int_equal(accepted, 0);
}

static void eq_parse_rate__overflow(void **state)
{
	__u64 bps = 0;

	/* 2^64 - 1 bit/s is the largest rate. */
	assert_int_equal(eq_parse_rate("18446744073709551615", &bps), 0);
	assert_int_equal(bps, 18446744073709551615ULL);
	assert_int_equal(eq_parse_rate("18446744073709551615bit", &bps), 0);
	assert_int_equal(eq_parse_rate("18446744073709551616", &bps), -EINVAL);
	assert_int_equal(eq_parse_rate("99999999999999999999999999gbit", &bps), -EINVAL);
	/* Within range before the unit, out of range after it. */
	assert_int_equal(eq_parse_rate("18446744073gbit", &bps), 0);
	assert_int_equal(bps, 18446744073000000000ULL);
	assert_int_equal(eq_parse_rate("18446744074gbit", &bps), -EINVAL);
	assert_int_equal(eq_parse_rate("18446744073709mbit", &bps), 0);
	assert_int_equal(bps, 18446744073709000000ULL);
	assert_int_equal(eq_parse_rate("18446744073710mbit", &bps), -EINVAL);
	assert_int_equal(eq_parse_rate("18446744073709551kbit", &bps), 0);
	assert_int_equal(bps, 18446744073709551000ULL);
	assert_int_equal(eq_parse_rate("18446744073709552kbit", &bps), -EINVAL);
}

/* For random values and every unit: the result is value * unit exactly
 * when that fits in 64 bits, and an error otherwise. */
static void eq_parse_rate__value_times_unit(void **state)
{
	static const struct { const char *sfx; __u64 mul; } units[] = {
		{ "", 1 }, { "bit", 1 }, { "kbit", 1000 }, { "mbit", 1000000 },
		{ "gbit", 1000000000 },
	};
	char text[64];

	rng_state = 21;
	for (int i = 0; i < 20000; i++) {
		unsigned int u = rnd32() % 5;
		/* Spread over all magnitudes: 1 .. 2^64-1. */
		__u64 v = rnd64() >> (rnd32() % 64);
		__u64 bps = 0;
		int rc;

		if (v == 0)
			v = 1;
		snprintf(text, sizeof(text), "%llu%s", (unsigned long long)v, units[u].sfx);
		rc = eq_parse_rate(text, &bps);
		if (v <= UINT64_MAX / units[u].mul) {
			assert_int_equal(rc, 0);
			assert_int_equal(bps, v * units[u].mul);
		} else {
			assert_int_equal(rc, -EINVAL);
		}
	}
}

/* ---- eq_cfg_parse: directives and defaults ------------------------------------ */

static void eq_cfg_parse__defaults(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local 10.0.0.1\n", &cfg);
	assert_int_equal(cfg.bpf.port, EQ_DEFAULT_PORT);
	assert_int_equal(cfg.bpf.port, 7446);
	assert_int_equal(cfg.bpf.entropy, EQ_ENTROPY_FLOW);
	assert_int_equal(cfg.bpf.link_rate_bps, 10000000000ULL);
	assert_int_equal(cfg.bpf.mtu, 0);		/* 0: the interface's MTU */
	assert_int_equal(cfg.bpf.flags, EQ_CFG_HAS_V4);
	assert_addr_is(&cfg.bpf.local4, "10.0.0.1");
	assert_true(all_zero(&cfg.bpf.local6, sizeof(cfg.bpf.local6)));
	assert_int_equal(cfg.bpf.node_id, 1);		/* low 16 bits of 10.0.0.1 */
	assert_false(cfg.node_id_set);
	assert_int_equal(cfg.npeers, 0);
	assert_null(cfg.peers);
	/* Fields attach fills in start out zero. */
	assert_int_equal(cfg.bpf.ifindex, 0);
	assert_int_equal(cfg.bpf.xdp_mode, 0);
	assert_int_equal(cfg.bpf.tc_handle, 0);
	assert_int_equal(cfg.bpf.tc_priority, 0);
	assert_int_equal(cfg.bpf.netns_ino, 0);
	eq_cfg_free(&cfg);
}


/* ---- the EQDS and agent directives ------------------------------------------ */

static void eq_cfg_parse__eqds_defaults(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local 10.0.0.1\n", &cfg);
	assert_int_equal(cfg.bpf.scheme, EQ_SCHEME_NONE);
	assert_int_equal(cfg.bpf.on_agent_down, EQ_DOWN_TUNNEL);
	assert_int_equal(cfg.bpf.agent_dead_ns, 200000000ULL);
	assert_int_equal(cfg.bpf.tunnel.bdp_bytes, 0);	/* 0: derived from the link rate */
	assert_int_equal(cfg.bpf.schemes.eqds.mode, 0);
	assert_int_equal(cfg.bpf.tunnel.edge_limit, 100);
	assert_int_equal(cfg.bpf.tunnel.edge_ecn, 30);
	assert_int_equal(cfg.bpf.tunnel.reorder_limit, 0);	/* 0: by the link rate */
	assert_int_equal(cfg.bpf.tunnel.reorder_ns, 12000000ULL);
	assert_int_equal(cfg.bpf.tunnel.loss_ns, 500000ULL);
	assert_int_equal(cfg.bpf.tunnel.burst_ns, 150000ULL);
	assert_int_equal(cfg.bpf.tunnel.ack_delay_ns, 2000000U);
	assert_int_equal(cfg.bpf.tunnel.rto_ns, 10000000ULL);
	assert_int_equal(cfg.bpf.schemes.eqds.asl, 0);
	assert_int_equal(cfg.bpf.tunnel.drr_quantum, 3000);
	assert_int_equal(cfg.bpf.tunnel.fast_path, 1);
	/* The loader fills these in. */
	assert_int_equal(cfg.bpf.agent_ifindex, 0);
	assert_int_equal(cfg.bpf.agent_peer_ifindex, 0);
	eq_cfg_free(&cfg);
}

static void eq_cfg_parse__eqds_keywords(void **state)
{
	static const struct { const char *line; size_t off; __u32 want; } cases[] = {
		{ "scheme eqds", offsetof(struct eq_config, scheme), EQ_SCHEME_EQDS },
		{ "scheme none", offsetof(struct eq_config, scheme), EQ_SCHEME_NONE },
		{ "on_agent_down pass", offsetof(struct eq_config, on_agent_down), EQ_DOWN_PASS },
		{ "on_agent_down drop", offsetof(struct eq_config, on_agent_down), EQ_DOWN_DROP },
		{ "on_agent_down tunnel", offsetof(struct eq_config, on_agent_down), EQ_DOWN_TUNNEL },
		{ "eqds_mode rts", offsetof(struct eq_config, schemes.eqds.mode), 1 },
		{ "eqds_mode trim", offsetof(struct eq_config, schemes.eqds.mode), 0 },
		{ "asl weighted", offsetof(struct eq_config, schemes.eqds.asl), 1 },
		{ "asl fifo", offsetof(struct eq_config, schemes.eqds.asl), 0 },
		{ "fast_path on", offsetof(struct eq_config, tunnel.fast_path), 1 },
		{ "fast_path off", offsetof(struct eq_config, tunnel.fast_path), 0 },
		{ "direct_rx off", offsetof(struct eq_config, tunnel.direct_rx), 0 },
		{ "direct_rx on", offsetof(struct eq_config, tunnel.direct_rx), 1 },
		{ "hold_tcp on", offsetof(struct eq_config, tunnel.hold_tcp), 1 },
		{ "hold_tcp off", offsetof(struct eq_config, tunnel.hold_tcp), 0 },
		/* auto: on at 1 Gbit/s and above (the default link is 10) */
		{ "hold_tcp auto", offsetof(struct eq_config, tunnel.hold_tcp), 1 },
		{ "link_rate 999mbit\nhold_tcp auto", offsetof(struct eq_config, tunnel.hold_tcp), 0 },
		{ "link_rate 200mbit", offsetof(struct eq_config, tunnel.hold_tcp), 0 },
		{ "link_rate 1gbit", offsetof(struct eq_config, tunnel.hold_tcp), 1 },
		/* Ethernet's preamble, gap and FCS unless told otherwise */
		{ "link_rate 1gbit", offsetof(struct eq_config, link_framing), EQ_ETH_FRAMING },
		{ "link_framing 0", offsetof(struct eq_config, link_framing), 0 },
		{ "link_framing 64", offsetof(struct eq_config, link_framing), 64 },
		/* the maps' sizes: 1024 peers and 4 prefixes per peer unless told */
		{ "link_rate 1gbit", offsetof(struct eq_config, max_peers), EQ_MAX_PEERS },
		{ "link_rate 1gbit", offsetof(struct eq_config, max_prefixes), EQ_MAX_PREFIXES },
		{ "max_peers 16384", offsetof(struct eq_config, max_peers), 16384 },
		{ "max_peers 16384", offsetof(struct eq_config, max_prefixes), 65536 },
		{ "max_peers 65536", offsetof(struct eq_config, max_prefixes), EQ_PREFIXES_LIMIT },
		{ "max_peers 16", offsetof(struct eq_config, max_prefixes), 64 },
		{ "max_peers 16\nmax_prefixes 100000", offsetof(struct eq_config, max_prefixes), 100000 },
		{ "max_prefixes 16", offsetof(struct eq_config, max_peers), EQ_MAX_PEERS },
		{ "bdp 30000", offsetof(struct eq_config, tunnel.bdp_bytes), 30000 },
		{ "edge_queue 500", offsetof(struct eq_config, tunnel.edge_limit), 500 },
		{ "edge_ecn 1", offsetof(struct eq_config, tunnel.edge_ecn), 1 },
		{ "reorder_queue 4096", offsetof(struct eq_config, tunnel.reorder_limit), 4096 },
		{ "drr_quantum 64", offsetof(struct eq_config, tunnel.drr_quantum), 64 },
		/* SIRD's settings: the paper's defaults unless told */
		{ "scheme sird", offsetof(struct eq_config, scheme), EQ_SCHEME_SIRD },
		{ "scheme sird", offsetof(struct eq_config, schemes.sird.b_pct), 150 },
		{ "scheme sird", offsetof(struct eq_config, schemes.sird.sthr_pct), 50 },
		{ "scheme sird", offsetof(struct eq_config, schemes.sird.unsch_pct), 100 },
		{ "scheme sird", offsetof(struct eq_config, schemes.sird.rho_pct), 100 },
		{ "scheme sird", offsetof(struct eq_config, schemes.sird.policy), 0 },
		{ "scheme sird", offsetof(struct eq_config, schemes.sird.base_rtt_ns), 0 },
		{ "sird.b 200", offsetof(struct eq_config, schemes.sird.b_pct), 200 },
		{ "sird.sthr 15", offsetof(struct eq_config, schemes.sird.sthr_pct), 15 },
		{ "sird.unsch 0", offsetof(struct eq_config, schemes.sird.unsch_pct), 0 },
		{ "sird.rho 98", offsetof(struct eq_config, schemes.sird.rho_pct), 98 },
		{ "sird.policy rr", offsetof(struct eq_config, schemes.sird.policy), 1 },
		{ "sird.base_rtt_us 40", offsetof(struct eq_config, schemes.sird.base_rtt_ns), 40000 },
	};
	char text[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eq_cfg cfg;
		__u32 got;

		/* The opposite value first, so that the line has to change it. */
		snprintf(text, sizeof(text), "local 10.0.0.1\nscheme eqds\non_agent_down drop\n"
			 "eqds_mode rts\nasl weighted\n%s%s\n",
			 strcmp(cases[i].line, "fast_path off") ? "fast_path off\n" : "", cases[i].line);
		parse_ok(text, &cfg);
		memcpy(&got, (char *)&cfg.bpf + cases[i].off, sizeof(got));
		if (got != cases[i].want)
			fail_msg("'%s': got %u, wanted %u", cases[i].line, got, cases[i].want);
		eq_cfg_free(&cfg);
	}
}

static void eq_cfg_parse__eqds_times_scaled(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local 10.0.0.1\nagent_dead_ms 10\nreorder_timeout_us 250\nrto_us 10000000\n"
		 "loss_window_us 40\npacer_burst_us 1000\nack_delay_us 2500\n", &cfg);
	assert_int_equal(cfg.bpf.agent_dead_ns, 10000000ULL);
	assert_int_equal(cfg.bpf.tunnel.reorder_ns, 250000ULL);
	assert_int_equal(cfg.bpf.tunnel.loss_ns, 40000ULL);
	assert_int_equal(cfg.bpf.tunnel.burst_ns, 1000000ULL);
	assert_int_equal(cfg.bpf.tunnel.ack_delay_ns, 2500000U);
	assert_int_equal(cfg.bpf.tunnel.rto_ns, 10000000000ULL);
	eq_cfg_free(&cfg);
	parse_ok("local 10.0.0.1\nack_delay_us 0\n", &cfg);	/* at once */
	assert_int_equal(cfg.bpf.tunnel.ack_delay_ns, 0);
	eq_cfg_free(&cfg);
	parse_ok("local 10.0.0.1\nloss_window_us 0\n", &cfg);	/* off */
	assert_int_equal(cfg.bpf.tunnel.loss_ns, 0);
	eq_cfg_free(&cfg);
}

static void eq_cfg_parse__eqds_errors(void **state)
{
	parse_err("local 10.0.0.1\nscheme homa\n", NAME ":2: scheme 'homa': use none, eqds, smartt or sird");
	parse_err("local 10.0.0.1\nscheme\n", NAME ":2: usage: scheme none|eqds|smartt|sird");
	parse_err("local 10.0.0.1\non_agent_down ignore\n",
		  NAME ":2: on_agent_down 'ignore': use tunnel, pass or drop");
	parse_err("local 10.0.0.1\neqds_mode trimming\n", NAME ":2: eqds_mode 'trimming': use trim or rts");
	parse_err("local 10.0.0.1\nasl wfq\n", NAME ":2: asl 'wfq': use fifo or weighted");
	parse_err("local 10.0.0.1\nfast_path yes\n", NAME ":2: fast_path 'yes': use on or off");
	parse_err("local 10.0.0.1\nfast_path\n", NAME ":2: usage: fast_path on|off");
	/* Bounds, just outside each end, and junk. */
	parse_err("local 10.0.0.1\nagent_dead_ms 9\n", NAME ":2: agent_dead_ms '9' is not in 10-60000 milliseconds");
	parse_err("local 10.0.0.1\nagent_dead_ms 60001\n", NAME ":2: agent_dead_ms '60001' is not in 10-60000 milliseconds");
	parse_err("local 10.0.0.1\nbdp 1499\n", NAME ":2: bdp '1499' is not in 1500-16777216 bytes");
	parse_err("local 10.0.0.1\nedge_queue 0\n", NAME ":2: edge_queue '0' is not in 1-8192 packets");
	parse_err("local 10.0.0.1\nedge_ecn 0\n", NAME ":2: edge_ecn '0' is not in 1-8192 packets");
	parse_err("local 10.0.0.1\nreorder_queue 4097\n", NAME ":2: reorder_queue '4097' is not in 1-4096 packets");
	parse_err("local 10.0.0.1\nrto_us 5us\n", NAME ":2: rto_us '5us' is not in 10-10000000 microseconds");
	parse_err("local 10.0.0.1\ndrr_quantum -1\n", NAME ":2: drr_quantum '-1' is not in 64-1048576 bytes");
	parse_err("local 10.0.0.1\npacer_burst_us 5\n",
		  NAME ":2: pacer_burst_us '5' is not in 10-100000 microseconds");
	parse_err("local 10.0.0.1\nloss_window_us 1000001\n",
		  NAME ":2: loss_window_us '1000001' is not in 0-1000000 microseconds");
	parse_err("local 10.0.0.1\nreorder_timeout_us 1 2\n",
		  NAME ":2: usage: reorder_timeout_us N (10-10000000 microseconds)");
	/* Whole-file checks. */
	parse_err("local 10.0.0.1\nedge_queue 20\n",
		  NAME ": edge_ecn 30 is above edge_queue 20: nothing would ever be marked");
	parse_err("local 10.0.0.1\nmtu 9000\nbdp 8000\n",
		  NAME ": bdp 8000 is below the mtu 9000: not one packet could be pulled");
	parse_err("local 10.0.0.1\nrto_us 1000\nack_delay_us 501\n",
		  NAME ": ack_delay_us 501 is above half of rto_us 1000: the peer would resend what is only waiting for a held ACK");
}

/* ---- settings as data (settings.h) ------------------------------------------ */

/* A scheme's settings are `SCHEME.KEY VALUE`; EQDS's old names still read,
 * and the later line wins whichever name it uses. */
static void eq_cfg_parse__scheme_settings(void **state)
{
	static const struct { const char *lines; __u32 mode, asl; } cases[] = {
		{ "", 0, 0 },
		{ "eqds.mode rts\n", 1, 0 },
		{ "eqds.asl weighted\n", 0, 1 },
		{ "eqds_mode rts\nasl weighted\n", 1, 1 },
		{ "eqds.mode rts\neqds_mode trim\n", 0, 0 },
		{ "asl weighted\neqds.asl fifo\n", 0, 0 },
	};
	char text[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eq_cfg cfg;

		snprintf(text, sizeof(text), "local 10.0.0.1\nscheme eqds\n%s", cases[i].lines);
		parse_ok(text, &cfg);
		if (cfg.bpf.schemes.eqds.mode != cases[i].mode || cfg.bpf.schemes.eqds.asl != cases[i].asl)
			fail_msg("%s: mode %u asl %u", text, cfg.bpf.schemes.eqds.mode,
				 cfg.bpf.schemes.eqds.asl);
		eq_cfg_free(&cfg);
	}
}

static void eq_cfg_parse__scheme_setting_errors(void **state)
{
	parse_err("local 10.0.0.1\neqds.mode fast\n", NAME ":2: eqds.mode 'fast': use trim or rts");
	parse_err("local 10.0.0.1\neqds.mode\n", NAME ":2: usage: eqds.mode trim|rts");
	parse_err("local 10.0.0.1\neqds.asl fifo weighted\n", NAME ":2: usage: eqds.asl fifo|weighted");
	parse_err("local 10.0.0.1\neqds.bdp 3000\n",
		  NAME ":2: scheme eqds has no setting 'bdp' (eqds.mode, eqds.asl)");
	parse_err("local 10.0.0.1\neqds. 1\n", NAME ":2: scheme eqds has no setting '' (eqds.mode, eqds.asl)");
	parse_err("local 10.0.0.1\nnone.mode trim\n", NAME ":2: scheme none has no setting 'mode' (it has none)");
	parse_err("local 10.0.0.1\nbolt.b 2\n", NAME ":2: unknown directive 'bolt.b': no scheme 'bolt' (none, eqds, smartt or sird)");
	parse_err("local 10.0.0.1\n.mode rts\n", NAME ":2: unknown directive '.mode': no scheme '' (none, eqds, smartt or sird)");
	/* A scheme's setting is never a tunnel's under another name. */
	parse_err("local 10.0.0.1\neqds.rto_us 100\n",
		  NAME ":2: scheme eqds has no setting 'rto_us' (eqds.mode, eqds.asl)");
}

/* What every row of the tables must be: a name said once (aliases too), a
 * scheme's rows named SCHEME.KEY and stored in its member of
 * eq_scheme_settings, inside struct eq_config at a size the value fits, a
 * default the parser leaves and the row itself accepts, and each bound and
 * word parsed to what the row says. */
static void check_row(const struct eq_setting *r, const struct eq_scheme_info *sc)
{
	struct eq_config c;
	char v[64];

	assert_true(r->size == 1 || r->size == 2 || r->size == 4 || r->size == 8);
	assert_true(r->off + r->size <= sizeof(struct eq_config));
	if (sc) {
		size_t n = strlen(sc->name);

		if (strncmp(r->name, sc->name, n) || r->name[n] != '.' || !r->name[n + 1])
			fail_msg("%s: not %s.KEY", r->name, sc->name);
		assert_true(r->off >= offsetof(struct eq_config, schemes));
		assert_true(r->off + r->size <= offsetof(struct eq_config, schemes) +
			    sizeof(struct eq_scheme_settings));
		assert_true(!r->alias || !strchr(r->alias, '.'));
	} else {
		assert_null(strchr(r->name, '.'));
		assert_true(r->off + r->size <= offsetof(struct eq_config, schemes));
	}
	assert_ptr_equal(eq_setting_find(r->name), r);
	if (r->alias)
		assert_ptr_equal(eq_setting_find(r->alias), r);
	memset(&c, 0xa5, sizeof(c));
	switch (r->type) {
	case EQ_SET_UINT: {
		uint64_t sc_ = r->scale ? r->scale : 1;

		assert_true(r->min <= r->max);
		assert_true(r->size == 8 || r->max * sc_ < (1ULL << (8 * r->size)));
		assert_true(r->def == 0 || (r->def >= r->min * sc_ && r->def <= r->max * sc_));
		/* a default outside the range is a rule applied later, said so */
		assert_true(r->def || !r->min || r->rule);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)r->max);
		assert_int_equal(eq_setting_set(&c, r, v), 0);
		assert_int_equal(eq_setting_get(&c, r), r->max * sc_);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)r->min);
		assert_int_equal(eq_setting_set(&c, r, v), 0);
		assert_int_equal(eq_setting_get(&c, r), r->min * sc_);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)r->max + 1);
		assert_int_equal(eq_setting_set(&c, r, v), -EINVAL);
		if (r->min) {
			snprintf(v, sizeof(v), "%llu", (unsigned long long)r->min - 1);
			assert_int_equal(eq_setting_set(&c, r, v), -EINVAL);
		}
		break;
	}
	case EQ_SET_RATE:
		assert_int_equal(eq_setting_set(&c, r, "25gbit"), 0);
		assert_int_equal(eq_setting_get(&c, r), 25000000000ULL);
		break;
	case EQ_SET_WORDS: {
		bool def_is_a_word = false;

		assert_non_null(r->words);
		assert_non_null(r->words[0].word);
		for (const struct eq_setting_word *w = r->words; w->word; w++) {
			assert_int_equal(eq_setting_set(&c, r, w->word), 0);
			assert_int_equal(eq_setting_get(&c, r), w->value);
			def_is_a_word |= w->value == r->def;
		}
		assert_true(def_is_a_word);
		assert_int_equal(eq_setting_set(&c, r, "maybe"), -EINVAL);
		break;
	}
	}
}

static void eq_settings__every_row_is_whole(void **state)
{
	const char *names[256];
	size_t n = 0;
	struct eq_cfg cfg;

	parse_ok("local 10.0.0.1\nlink_rate 100mbit\n", &cfg);	/* hold_tcp auto: off */
	for (size_t i = 0; i < eq_tunnel_nsettings; i++) {
		const struct eq_setting *r = &eq_tunnel_settings[i];

		check_row(r, NULL);
		names[n++] = r->name;
		if (r->alias)
			names[n++] = r->alias;
		/* The parser leaves the default, but where a whole-file rule
		 * resolves it (hold_tcp auto; max_prefixes by max_peers) and
		 * where the file set it. */
		if (strcmp(r->name, "hold_tcp") && strcmp(r->name, "max_prefixes") &&
		    strcmp(r->name, "link_rate"))
			assert_int_equal(eq_setting_get(&cfg.bpf, r), r->def);
	}
	for (size_t i = 0; i < eq_nschemes; i++) {
		const struct eq_scheme_info *sc = &eq_schemes[i];

		assert_int_equal(eq_scheme_parse(sc->name), (int)sc->id);
		assert_ptr_equal(eq_scheme_info_of(sc->id), sc);
		/* What it asks of TC fits a peer's room, and TC fills only
		 * options it carries; the route MTU leaves that room. */
		assert_true(eq_opts_room(sc->data_opts) <= EQ_PEER_OPT_MAX);
		assert_int_equal(sc->tc_opts & ~sc->data_opts, 0);
		assert_int_equal(sc->tc_opts & ~(1u << EQ_OPT_TSTAMP), 0);	/* all TC can */
		assert_int_equal(eq_peer_inner_mtu(1500, false, (int)sc->id, false),
				 eq_inner_mtu(1500, false) - eq_opts_room(sc->data_opts));
		for (size_t j = i + 1; j < eq_nschemes; j++) {
			assert_string_not_equal(sc->name, eq_schemes[j].name);
			assert_int_not_equal(sc->id, eq_schemes[j].id);
		}
		for (size_t j = 0; j < sc->nset; j++) {
			check_row(&sc->set[j], sc);
			names[n++] = sc->set[j].name;
			if (sc->set[j].alias)
				names[n++] = sc->set[j].alias;
			assert_int_equal(eq_setting_get(&cfg.bpf, &sc->set[j]), sc->set[j].def);
		}
	}
	/* No name said twice, nor one the parser takes for something else. */
	for (size_t i = 0; i < n; i++) {
		static const char *const structural[] = { "local", "node_id", "peer", "scheme" };

		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(names[i], names[j]);
		for (size_t j = 0; j < 4; j++)
			assert_string_not_equal(names[i], structural[j]);
	}
	eq_cfg_free(&cfg);
}

/* Parsing starts from a clean slate, whatever the struct held. */
static void eq_cfg_parse__ignores_previous_contents(void **state)
{
	struct eq_cfg cfg, clean;

	parse_ok("local 10.0.0.1\n", &clean);
	memset(&cfg, 0x5a, sizeof(cfg));
	parse_ok("local 10.0.0.1\n", &cfg);
	assert_memory_equal(&cfg.bpf, &clean.bpf, sizeof(cfg.bpf));
	assert_int_equal(cfg.node_id_set, clean.node_id_set);
	assert_int_equal(cfg.npeers, 0);
	assert_null(cfg.peers);
	eq_cfg_free(&cfg);
	eq_cfg_free(&clean);
}

static void eq_cfg_parse__local_v4(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local 192.0.2.10", &cfg);
	assert_int_equal(cfg.bpf.flags, EQ_CFG_HAS_V4);
	assert_addr_is(&cfg.bpf.local4, "192.0.2.10");
	assert_true(eq_addr_is_v4(&cfg.bpf.local4));
	assert_true(all_zero(&cfg.bpf.local6, sizeof(cfg.bpf.local6)));
	eq_cfg_free(&cfg);
}

static void eq_cfg_parse__local_v6(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local 2001:db8::10", &cfg);
	assert_int_equal(cfg.bpf.flags, EQ_CFG_HAS_V6);
	assert_addr_is(&cfg.bpf.local6, "2001:db8::10");
	assert_true(all_zero(&cfg.bpf.local4, sizeof(cfg.bpf.local4)));
	eq_cfg_free(&cfg);
}

static void eq_cfg_parse__local_both_families(void **state)
{
	static const char *const texts[] = {
		"local 192.0.2.10\nlocal 2001:db8::10\n",
		"local 2001:db8::10\nlocal 192.0.2.10\n",
	};

	for (int i = 0; i < 2; i++) {
		struct eq_cfg cfg;

		parse_ok(texts[i], &cfg);
		assert_int_equal(cfg.bpf.flags, EQ_CFG_HAS_V4 | EQ_CFG_HAS_V6);
		assert_addr_is(&cfg.bpf.local4, "192.0.2.10");
		assert_addr_is(&cfg.bpf.local6, "2001:db8::10");
		eq_cfg_free(&cfg);
	}
}

/* An IPv4-mapped IPv6 spelling is an IPv4 local address. */
static void eq_cfg_parse__local_mapped_v6_is_v4(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local ::ffff:192.0.2.10\n", &cfg);
	assert_int_equal(cfg.bpf.flags, EQ_CFG_HAS_V4);
	assert_addr_is(&cfg.bpf.local4, "192.0.2.10");
	eq_cfg_free(&cfg);
}

static void eq_cfg_parse__port(void **state)
{
	static const struct { const char *text; unsigned int port; } ok[] = {
		{ "local 10.0.0.1\nport 1\n", 1 },
		{ "local 10.0.0.1\nport 65535\n", 65535 },
		{ "local 10.0.0.1\nport 4789\n", 4789 },
		{ "port 0080\nlocal 10.0.0.1\n", 80 },
	};

	for (unsigned int i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct eq_cfg cfg;

		parse_ok(ok[i].text, &cfg);
		assert_int_equal(cfg.bpf.port, ok[i].port);
		eq_cfg_free(&cfg);
	}
}

static void eq_cfg_parse__mtu(void **state)
{
	static const unsigned int ok[] = { 576, 1280, 1500, 9000, 65535 };
	char text[64];

	for (unsigned int i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct eq_cfg cfg;

		snprintf(text, sizeof(text), "local 10.0.0.1\nmtu %u\n", ok[i]);
		parse_ok(text, &cfg);
		assert_int_equal(cfg.bpf.mtu, ok[i]);
		eq_cfg_free(&cfg);
	}
}

static void eq_cfg_parse__link_rate(void **state)
{
	static const struct { const char *rate; __u64 bps; } ok[] = {
		{ "100mbit", 100000000ULL }, { "1gbit", 1000000000ULL },
		{ "25gbit", 25000000000ULL }, { "1234567", 1234567ULL },
		{ "100Gbit", 100000000000ULL }, { "1kbit", 1000ULL },
	};
	char text[96];

	for (unsigned int i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct eq_cfg cfg;

		snprintf(text, sizeof(text), "local 10.0.0.1\nlink_rate %s\n", ok[i].rate);
		parse_ok(text, &cfg);
		assert_int_equal(cfg.bpf.link_rate_bps, ok[i].bps);
		eq_cfg_free(&cfg);
	}
}

static void eq_cfg_parse__entropy(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local 10.0.0.1\nentropy packet\n", &cfg);
	assert_int_equal(cfg.bpf.entropy, EQ_ENTROPY_PACKET);
	eq_cfg_free(&cfg);
	parse_ok("local 10.0.0.1\nentropy packet\nentropy flow\n", &cfg);
	assert_int_equal(cfg.bpf.entropy, EQ_ENTROPY_FLOW);
	eq_cfg_free(&cfg);
}

static void eq_cfg_parse__node_id_explicit(void **state)
{
	static const struct { const char *text; unsigned int id; } ok[] = {
		{ "local 10.0.1.2\nnode_id 7\n", 7 },
		{ "node_id 7\nlocal 10.0.1.2\n", 7 },		/* before local */
		{ "local 10.0.1.2\nnode_id 0\n", 0 },		/* 0 is a valid id */
		{ "local 10.0.1.2\nnode_id 65535\n", 65535 },
		{ "local 2001:db8::1:2\nnode_id 300\n", 300 },
	};

	for (unsigned int i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct eq_cfg cfg;

		parse_ok(ok[i].text, &cfg);
		assert_int_equal(cfg.bpf.node_id, ok[i].id);
		assert_true(cfg.node_id_set);
		eq_cfg_free(&cfg);
	}
}

/* Without node_id: the low 16 bits of the local address, for random
 * addresses of either family. */
static void eq_cfg_parse__node_id_default_low_16_bits(void **state)
{
	char text[128];

	rng_state = 22;
	for (int i = 0; i < 2000; i++) {
		struct eq_cfg cfg;
		uint32_t r = rnd32();

		if (i & 1)
			snprintf(text, sizeof(text), "local %u.%u.%u.%u\n",
				 r >> 24, r >> 16 & 0xff, r >> 8 & 0xff, r & 0xff);
		else
			snprintf(text, sizeof(text), "local fd00:%x::%x:%x\n",
				 rnd32() & 0xffff, r >> 16, r & 0xffff);
		parse_ok(text, &cfg);
		assert_int_equal(cfg.bpf.node_id, r & 0xffff);
		assert_false(cfg.node_id_set);
		eq_cfg_free(&cfg);
	}
}

/* config.h: "node_id ... default: from the first local address". */
static void eq_cfg_parse__node_id_default_from_first_local(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local 10.0.3.4\nlocal fd00::102\n", &cfg);
	assert_int_equal(cfg.bpf.node_id, 0x0304);
	eq_cfg_free(&cfg);
	parse_ok("local fd00::102\nlocal 10.0.3.4\n", &cfg);
	assert_int_equal(cfg.bpf.node_id, 0x0102);
	eq_cfg_free(&cfg);
}

static void eq_cfg_parse__peer_v4(void **state)
{
	struct eq_cfg cfg;
	struct eq_prefix_key want = prefix("10.1.0.0/16");

	parse_ok("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2\n", &cfg);
	assert_int_equal(cfg.npeers, 1);
	assert_non_null(cfg.peers);
	assert_memory_equal(&cfg.peers[0].prefix, &want, sizeof(want));
	assert_int_equal(cfg.peers[0].prefix.prefixlen, 96 + 16);
	assert_addr_is(&cfg.peers[0].via, "10.0.0.2");
	eq_cfg_free(&cfg);
}

/* A peer's scheme: its own, or the config's.  Any eqds peer makes the
 * attachment run an agent (scheme eqds), and its none peers plain; the
 * config's scheme stays the default for `edgeq peer add`. */
static void eq_cfg_parse__peer_scheme(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2\n"
		 "peer 10.2.0.0/16 via 10.0.0.3 scheme eqds\n", &cfg);
	assert_int_equal(cfg.bpf.scheme, EQ_SCHEME_EQDS);
	assert_int_equal(cfg.bpf.peer_scheme, EQ_SCHEME_NONE);
	assert_int_equal(cfg.peers[0].scheme, EQ_SCHEME_NONE);
	assert_true(cfg.peers[0].plain);
	assert_int_equal(cfg.peers[1].scheme, EQ_SCHEME_EQDS);
	assert_false(cfg.peers[1].plain);
	eq_cfg_free(&cfg);
	parse_ok("local 10.0.0.1\nscheme eqds\npeer 10.1.0.0/16 via 10.0.0.2 scheme none\n"
		 "peer 10.2.0.0/16 via 10.0.0.3\n", &cfg);
	assert_int_equal(cfg.bpf.scheme, EQ_SCHEME_EQDS);
	assert_int_equal(cfg.bpf.peer_scheme, EQ_SCHEME_EQDS);
	assert_true(cfg.peers[0].plain);
	assert_false(cfg.peers[1].plain);
	eq_cfg_free(&cfg);
	/* All none: no agent, nobody plain. */
	parse_ok("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2 scheme none\n", &cfg);
	assert_int_equal(cfg.bpf.scheme, EQ_SCHEME_NONE);
	assert_false(cfg.peers[0].plain);
	eq_cfg_free(&cfg);
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2 scheme bolt\n",
		  NAME ":2: scheme 'bolt': use none, eqds, smartt or sird");
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2 mode eqds\n",
		  NAME ":2: usage: peer PREFIX via ADDRESS [scheme none|eqds|smartt|sird] [key HEX[/ID]|@FILE]: 'mode'");
	/* One underlay peer, one scheme, whatever its prefixes. */
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2 scheme eqds\n"
		  "peer 10.3.0.0/16 via 10.0.0.2\n",
		  NAME ":3: peer via 10.0.0.2 is scheme none here and eqds on line 2: one "
		  "underlay peer has one scheme");
}

static void eq_cfg_parse__peer_v6(void **state)
{
	struct eq_cfg cfg;
	struct eq_prefix_key want = prefix("fd00:1::/48");

	parse_ok("local 2001:db8::1\npeer fd00:1::/48 via 2001:db8::2\n", &cfg);
	assert_int_equal(cfg.npeers, 1);
	assert_memory_equal(&cfg.peers[0].prefix, &want, sizeof(want));
	assert_int_equal(cfg.peers[0].prefix.prefixlen, 48);
	assert_addr_is(&cfg.peers[0].via, "2001:db8::2");
	eq_cfg_free(&cfg);
}

/* Host bits of a peer prefix are cleared; a bare address is a host route. */
static void eq_cfg_parse__peer_prefix_normalised(void **state)
{
	struct eq_cfg cfg;
	struct eq_prefix_key p0 = prefix("10.1.0.0/16"), p1 = prefix("10.9.9.9/32");
	struct eq_prefix_key p2 = prefix("fd00::/8");

	parse_ok("local 10.0.0.1\n"
		 "peer 10.1.2.3/16 via 10.0.0.2\n"
		 "peer 10.9.9.9 via 10.0.0.3\n"
		 "peer fd12:3456::1/8 via 10.0.0.4\n", &cfg);
	assert_int_equal(cfg.npeers, 3);
	assert_memory_equal(&cfg.peers[0].prefix, &p0, sizeof(p0));
	assert_memory_equal(&cfg.peers[1].prefix, &p1, sizeof(p1));
	assert_int_equal(cfg.peers[1].prefix.prefixlen, 128);
	assert_memory_equal(&cfg.peers[2].prefix, &p2, sizeof(p2));
	eq_cfg_free(&cfg);
}

/* The overlay family is independent of the underlay: IPv6 prefixes via an
 * IPv4 peer and IPv4 prefixes via an IPv6 peer. */
static void eq_cfg_parse__peer_prefix_family_independent_of_via(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local 10.0.0.1\nlocal 2001:db8::1\n"
		 "peer fd00::/64 via 10.0.0.2\n"
		 "peer 172.16.0.0/12 via 2001:db8::2\n", &cfg);
	assert_int_equal(cfg.npeers, 2);
	assert_addr_is(&cfg.peers[0].via, "10.0.0.2");
	assert_addr_is(&cfg.peers[1].via, "2001:db8::2");
	assert_int_equal(cfg.peers[1].prefix.prefixlen, 96 + 12);
	eq_cfg_free(&cfg);
}

/* Thousands of peers, both families: all kept, in file order, each equal
 * to what eq_prefix_parse/eq_addr_parse make of its words. */
static void eq_cfg_parse__many_peers_in_order(void **state)
{
	enum { N = 3000 };
	size_t cap = 64 + N * 80, len = 0;
	char *text = malloc(cap), pfx[N][48], via[N][48];
	struct eq_cfg cfg;

	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "local 10.0.0.1\nlocal fd00::1\nmax_peers 4096\n");
	for (int i = 0; i < N; i++) {
		if (i % 3 == 0)
			snprintf(pfx[i], sizeof(pfx[i]), "10.%d.%d.0/24", i >> 8, i & 0xff);
		else
			snprintf(pfx[i], sizeof(pfx[i]), "fd01:%x::/%d", i, 32 + i % 97);
		if (i % 2)
			snprintf(via[i], sizeof(via[i]), "10.0.%d.%d", i >> 8, i & 0xff);
		else
			snprintf(via[i], sizeof(via[i]), "fd00::%x", i + 2);
		len += (size_t)snprintf(text + len, cap - len, "peer %s via %s\n", pfx[i], via[i]);
		assert_true(len < cap);
	}
	parse_ok(text, &cfg);
	assert_int_equal(cfg.npeers, N);
	for (int i = 0; i < N; i++) {
		struct eq_prefix_key k = prefix(pfx[i]);

		assert_memory_equal(&cfg.peers[i].prefix, &k, sizeof(k));
		assert_addr_is(&cfg.peers[i].via, via[i]);
	}
	eq_cfg_free(&cfg);
	free(text);
}

/* The maps are sized by max_peers and max_prefixes: a config with more
 * underlay peers (distinct 'via' addresses) or prefixes than they hold is
 * refused before anything is attached, with what to raise. */
static void eq_cfg_parse__peers_within_the_maps_sizes(void **state)
{
	size_t cap = 4096, len;
	char *text = malloc(cap);
	struct eq_cfg cfg;

	assert_non_null(text);
	/* 16 underlay peers, 40 prefixes: within max_peers 16 (64 prefixes) */
	len = (size_t)snprintf(text, cap, "local 10.0.0.1\nmax_peers 16\n");
	for (int i = 0; i < 40; i++)
		len += (size_t)snprintf(text + len, cap - len, "peer 10.1.%d.0/24 via 10.0.1.%d\n", i,
					i % 16);
	parse_ok(text, &cfg);
	assert_int_equal(cfg.npeers, 40);
	eq_cfg_free(&cfg);
	/* a 17th */
	len += (size_t)snprintf(text + len, cap - len, "peer 10.2.0.0/24 via 10.0.1.99\n");
	parse_err(text, NAME ": 17 underlay peers (distinct 'via' addresses), more than max_peers "
		  "16: raise max_peers (up to 65536)");
	/* 17 prefixes over max_prefixes 16, through one peer */
	len = (size_t)snprintf(text, cap, "local 10.0.0.1\nmax_prefixes 16\n");
	for (int i = 0; i < 17; i++)
		len += (size_t)snprintf(text + len, cap - len, "peer 10.1.%d.0/24 via 10.0.1.1\n", i);
	parse_err(text, NAME ": 17 peer prefixes, more than max_prefixes 16: raise max_prefixes "
		  "(up to 262144)");
	free(text);
}

/* Among 20,000 peers a prefix said again, spelled otherwise, is reported
 * at the line that repeats it, before any later error (the set of prefixes
 * seen grows as the file is read: no pair of lines is compared). */
static void eq_cfg_parse__duplicate_among_many(void **state)
{
	enum { N = 20000 };
	size_t cap = 64 + (N + 4) * 48, len = 0;
	char *text = malloc(cap), want[128];
	struct eq_cfg cfg;

	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len, "local 10.0.0.1\nmax_peers %d\n", N);
	for (int i = 0; i < N; i++)
		len += (size_t)snprintf(text + len, cap - len, "peer 10.%d.%d.%d via 10.200.%d.%d\n",
					1 + i / 65536, (i >> 8) & 0xff, i & 0xff, (i >> 8) & 0xff,
					i & 0xff);
	parse_ok(text, &cfg);
	assert_int_equal(cfg.npeers, N);
	eq_cfg_free(&cfg);
	/* 12345 = 10.1.48.57 */
	len += (size_t)snprintf(text + len, cap - len, "peer ::ffff:10.1.48.57/128 via 10.200.0.1\n"
				"bogus\n");
	assert_true(len < cap);
	snprintf(want, sizeof(want), NAME ":%d: prefix '::ffff:10.1.48.57/128' is configured twice",
		 N + 3);
	parse_err(text, want);
	free(text);
}

static void eq_cfg_parse__comments_blank_lines_and_whitespace(void **state)
{
	struct eq_cfg cfg;

	parse_ok("# edgeq config\n"
		 "\n"
		 "   # indented comment\n"
		 "local 10.0.0.1   # the underlay\n"
		 "\tport\t7000\t\n"
		 "mtu 9000#jumbo, no space before '#'\n"
		 "  \t  \n"
		 "   peer   10.1.0.0/16   via   10.0.0.2   # rack 2\n"
		 "# peer 10.2.0.0/16 via 10.0.0.3\n"
		 "#port 1\n"
		 "entropy packet # spray\n"
		 "link_rate 25gbit#\n"
		 "#\n"
		 "\n", &cfg);
	assert_addr_is(&cfg.bpf.local4, "10.0.0.1");
	assert_int_equal(cfg.bpf.port, 7000);
	assert_int_equal(cfg.bpf.mtu, 9000);
	assert_int_equal(cfg.bpf.entropy, EQ_ENTROPY_PACKET);
	assert_int_equal(cfg.bpf.link_rate_bps, 25000000000ULL);
	assert_int_equal(cfg.npeers, 1);
	assert_addr_is(&cfg.peers[0].via, "10.0.0.2");
	eq_cfg_free(&cfg);
}

/* CRLF line endings (and no final newline) give the same config as LF. */
static void eq_cfg_parse__crlf_same_as_lf(void **state)
{
	static const char lf[] =
		"# comment\n\nlocal 10.0.0.1\nlocal 2001:db8::1\nport 7000\nmtu 1400\n"
		"link_rate 40gbit\nentropy packet\nnode_id 42\n"
		"peer 10.1.0.0/16 via 10.0.0.2\npeer fd00::/64 via 2001:db8::2\n";
	char crlf[2 * sizeof(lf)], nonl[sizeof(lf)];
	struct eq_cfg a, b, c;
	size_t j = 0;

	for (size_t i = 0; lf[i]; i++) {
		if (lf[i] == '\n')
			crlf[j++] = '\r';
		crlf[j++] = lf[i];
	}
	crlf[j] = '\0';
	memcpy(nonl, lf, sizeof(lf));
	nonl[strlen(nonl) - 1] = '\0';
	parse_ok(lf, &a);
	parse_ok(crlf, &b);
	parse_ok(nonl, &c);
	assert_int_equal(a.npeers, 2);
	assert_int_equal(a.bpf.node_id, 42);
	assert_memory_equal(&a.bpf, &b.bpf, sizeof(a.bpf));
	assert_memory_equal(&a.bpf, &c.bpf, sizeof(a.bpf));
	assert_int_equal(b.npeers, a.npeers);
	assert_int_equal(c.npeers, a.npeers);
	assert_memory_equal(a.peers, b.peers, a.npeers * sizeof(a.peers[0]));
	assert_memory_equal(a.peers, c.peers, a.npeers * sizeof(a.peers[0]));
	eq_cfg_free(&a);
	eq_cfg_free(&b);
	eq_cfg_free(&c);
}

/* Settings other than 'local' and 'peer' may be repeated; the last one
 * counts. */
static void eq_cfg_parse__repeated_setting_last_wins(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local 10.0.0.1\nport 1000\nmtu 1500\nlink_rate 1gbit\nnode_id 1\n"
		 "port 2000\nmtu 9000\nlink_rate 2gbit\nnode_id 2\n", &cfg);
	assert_int_equal(cfg.bpf.port, 2000);
	assert_int_equal(cfg.bpf.mtu, 9000);
	assert_int_equal(cfg.bpf.link_rate_bps, 2000000000ULL);
	assert_int_equal(cfg.bpf.node_id, 2);
	eq_cfg_free(&cfg);
}

/* ---- eq_cfg_parse: errors -------------------------------------------------------- */

static void eq_cfg_parse__usage_errors(void **state)
{
	static const struct { const char *text, *msg; } e[] = {
		{ "local\n", NAME ":1: usage: local ADDRESS" },
		{ "local 10.0.0.1 10.0.0.2\n", NAME ":1: usage: local ADDRESS" },
		{ "local 10.0.0.1\nport\n", NAME ":2: usage: port N (1-65535)" },
		{ "local 10.0.0.1\nport 1 2\n", NAME ":2: usage: port N (1-65535)" },
		{ "local 10.0.0.1\nmtu\n", NAME ":2: usage: mtu N (576-65535 bytes)" },
		{ "local 10.0.0.1\nmtu 1500 bytes\n", NAME ":2: usage: mtu N (576-65535 bytes)" },
		{ "local 10.0.0.1\nlink_rate\n", NAME ":2: usage: link_rate RATE (e.g. 10gbit)" },
		{ "local 10.0.0.1\nlink_rate 10 gbit\n", NAME ":2: usage: link_rate RATE (e.g. 10gbit)" },
		{ "local 10.0.0.1\nentropy\n", NAME ":2: usage: entropy flow|packet" },
		{ "local 10.0.0.1\nentropy flow packet\n", NAME ":2: usage: entropy flow|packet" },
		{ "local 10.0.0.1\nnode_id\n", NAME ":2: usage: node_id 0-65535" },
		{ "local 10.0.0.1\nnode_id 1 2\n", NAME ":2: usage: node_id 0-65535" },
		{ "local 10.0.0.1\npeer\n", NAME ":2: usage: peer PREFIX via ADDRESS [scheme none|eqds|smartt|sird] [key HEX[/ID]|@FILE]" },
		{ "local 10.0.0.1\npeer 10.1.0.0/16\n", NAME ":2: usage: peer PREFIX via ADDRESS [scheme none|eqds|smartt|sird] [key HEX[/ID]|@FILE]" },
		{ "local 10.0.0.1\npeer 10.1.0.0/16 via\n", NAME ":2: usage: peer PREFIX via ADDRESS [scheme none|eqds|smartt|sird] [key HEX[/ID]|@FILE]" },
		{ "local 10.0.0.1\npeer 10.1.0.0/16 10.0.0.2\n", NAME ":2: usage: peer PREFIX via ADDRESS [scheme none|eqds|smartt|sird] [key HEX[/ID]|@FILE]" },
		{ "local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2 10.0.0.3\n", NAME ":2: usage: peer PREFIX via ADDRESS [scheme none|eqds|smartt|sird] [key HEX[/ID]|@FILE]" },
		/* The third word must be "via", exactly. */
		{ "local 10.0.0.1\npeer 10.1.0.0/16 to 10.0.0.2\n", NAME ":2: usage: peer PREFIX via ADDRESS [scheme none|eqds|smartt|sird] [key HEX[/ID]|@FILE]" },
		{ "local 10.0.0.1\npeer 10.1.0.0/16 VIA 10.0.0.2\n", NAME ":2: usage: peer PREFIX via ADDRESS [scheme none|eqds|smartt|sird] [key HEX[/ID]|@FILE]" },
	};

	for (unsigned int i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		parse_err(e[i].text, e[i].msg);
}

static void eq_cfg_parse__bad_values(void **state)
{
	static const struct { const char *text, *msg; } e[] = {
		{ "local 10.0.0.256\n", NAME ":1: '10.0.0.256' is not an IPv4 or IPv6 address" },
		{ "local 10.0.0.0/8\n", NAME ":1: '10.0.0.0/8' is not an IPv4 or IPv6 address" },
		{ "local host.example\n", NAME ":1: 'host.example' is not an IPv4 or IPv6 address" },
		{ "local 10.0.0.1\nport 0\n", NAME ":2: port '0' is not in 1-65535" },
		{ "local 10.0.0.1\nport 65536\n", NAME ":2: port '65536' is not in 1-65535" },
		{ "local 10.0.0.1\nport -1\n", NAME ":2: port '-1' is not in 1-65535" },
		{ "local 10.0.0.1\nport +80\n", NAME ":2: port '+80' is not in 1-65535" },
		{ "local 10.0.0.1\nport 80x\n", NAME ":2: port '80x' is not in 1-65535" },
		{ "local 10.0.0.1\nport 0x50\n", NAME ":2: port '0x50' is not in 1-65535" },
		{ "local 10.0.0.1\nport http\n", NAME ":2: port 'http' is not in 1-65535" },
		{ "local 10.0.0.1\nport 18446744073709551617\n", NAME ":2: port '18446744073709551617' is not in 1-65535" },
		{ "local 10.0.0.1\nmtu 575\n", NAME ":2: mtu '575' is not in 576-65535 bytes" },
		{ "local 10.0.0.1\nlink_framing 65\n", NAME ":2: link_framing '65' is not in 0-64 bytes" },
		{ "local 10.0.0.1\nlink_framing -1\n", NAME ":2: link_framing '-1' is not in 0-64 bytes" },
		{ "local 10.0.0.1\nmax_peers 15\n", NAME ":2: max_peers '15' is not in 16-65536 peer slots" },
		{ "local 10.0.0.1\nmax_peers 65537\n", NAME ":2: max_peers '65537' is not in 16-65536 peer slots" },
		{ "local 10.0.0.1\nmax_prefixes 262145\n", NAME ":2: max_prefixes '262145' is not in 16-262144 prefixes" },
		{ "local 10.0.0.1\nmtu 0\n", NAME ":2: mtu '0' is not in 576-65535 bytes" },
		{ "local 10.0.0.1\nmtu 65536\n", NAME ":2: mtu '65536' is not in 576-65535 bytes" },
		{ "local 10.0.0.1\nmtu 1500b\n", NAME ":2: mtu '1500b' is not in 576-65535 bytes" },
		{ "local 10.0.0.1\nlink_rate 0\n", NAME ":2: link_rate '0': use e.g. 100mbit, 10gbit" },
		{ "local 10.0.0.1\nlink_rate 10gb\n", NAME ":2: link_rate '10gb': use e.g. 100mbit, 10gbit" },
		{ "local 10.0.0.1\nlink_rate 1.5gbit\n", NAME ":2: link_rate '1.5gbit': use e.g. 100mbit, 10gbit" },
		{ "local 10.0.0.1\nlink_rate fast\n", NAME ":2: link_rate 'fast': use e.g. 100mbit, 10gbit" },
		{ "local 10.0.0.1\nlink_rate 99999999999gbit\n", NAME ":2: link_rate '99999999999gbit': use e.g. 100mbit, 10gbit" },
		{ "local 10.0.0.1\nentropy random\n", NAME ":2: entropy 'random': use flow or packet" },
		{ "local 10.0.0.1\nentropy FLOW\n", NAME ":2: entropy 'FLOW': use flow or packet" },
		{ "local 10.0.0.1\nentropy 1\n", NAME ":2: entropy '1': use flow or packet" },
		{ "local 10.0.0.1\nnode_id 65536\n", NAME ":2: node_id '65536' is not in 0-65535" },
		{ "local 10.0.0.1\nnode_id -1\n", NAME ":2: node_id '-1' is not in 0-65535" },
		{ "local 10.0.0.1\nnode_id one\n", NAME ":2: node_id 'one' is not in 0-65535" },
		{ "local 10.0.0.1\npeer 10.1.0.0/33 via 10.0.0.2\n", NAME ":2: '10.1.0.0/33' is not a prefix (ADDRESS[/LEN])" },
		{ "local 10.0.0.1\npeer fd00::/129 via 10.0.0.2\n", NAME ":2: 'fd00::/129' is not a prefix (ADDRESS[/LEN])" },
		{ "local 10.0.0.1\npeer 10.1.0.0/ via 10.0.0.2\n", NAME ":2: '10.1.0.0/' is not a prefix (ADDRESS[/LEN])" },
		{ "local 10.0.0.1\npeer rack2 via 10.0.0.2\n", NAME ":2: 'rack2' is not a prefix (ADDRESS[/LEN])" },
		{ "local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.0/8\n", NAME ":2: '10.0.0.0/8' is not an IPv4 or IPv6 address" },
		{ "local 10.0.0.1\npeer 10.1.0.0/16 via gw\n", NAME ":2: 'gw' is not an IPv4 or IPv6 address" },
	};

	for (unsigned int i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		parse_err(e[i].text, e[i].msg);
}

static void eq_cfg_parse__second_local_per_family(void **state)
{
	parse_err("local 10.0.0.1\nlocal 10.0.0.2\n", NAME ":2: a second IPv4 'local' address");
	parse_err("local 10.0.0.1\nlocal 10.0.0.1\n", NAME ":2: a second IPv4 'local' address");
	parse_err("local 10.0.0.1\nlocal 2001:db8::1\nlocal ::ffff:10.0.0.2\n",
		  NAME ":3: a second IPv4 'local' address");
	parse_err("local 2001:db8::1\nlocal 10.0.0.1\n\nlocal 2001:db8::2\n",
		  NAME ":4: a second IPv6 'local' address");
}

/* The same prefix twice is an error, however it is spelled; the same
 * network with another length is a different prefix. */
static void eq_cfg_parse__duplicate_peer_prefix(void **state)
{
	struct eq_cfg cfg;

	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2\npeer 10.1.0.0/16 via 10.0.0.3\n",
		  NAME ":3: prefix '10.1.0.0/16' is configured twice");
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2\npeer 10.1.0.0/16 via 10.0.0.2\n",
		  NAME ":3: prefix '10.1.0.0/16' is configured twice");
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2\n# x\npeer 10.1.2.3/16 via 10.0.0.3\n",
		  NAME ":4: prefix '10.1.2.3/16' is configured twice");
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2\npeer ::ffff:10.1.0.0/112 via 10.0.0.3\n",
		  NAME ":3: prefix '::ffff:10.1.0.0/112' is configured twice");
	parse_err("local 10.0.0.1\npeer 10.1.2.3 via 10.0.0.2\npeer 10.1.2.3/32 via 10.0.0.3\n",
		  NAME ":3: prefix '10.1.2.3/32' is configured twice");
	parse_err("local 10.0.0.1\npeer FD00::/64 via 10.0.0.2\npeer fd00:0:0:0:1::/64 via 10.0.0.3\n",
		  NAME ":3: prefix 'fd00:0:0:0:1::/64' is configured twice");

	parse_ok("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2\npeer 10.1.0.0/24 via 10.0.0.3\n"
		 "peer 10.1.0.0/8 via 10.0.0.3\npeer 10.1.0.0 via 10.0.0.2\n", &cfg);
	assert_int_equal(cfg.npeers, 4);
	eq_cfg_free(&cfg);
}

/* A peer's key (auth.h): on any of its lines, for all of them; another
 * on another line is an error; what is not a key says what one is. */
static void eq_cfg_parse__peer_key(void **state)
{
	struct eq_cfg cfg;

	parse_ok("local 10.0.0.1\nscheme eqds\n"
		 "peer 10.1.0.0/16 via 10.0.0.2\n"
		 "peer 10.2.0.0/16 via 10.0.0.2 key 000102030405060708090a0b0c0d0e0f/4 scheme eqds\n"
		 "peer 10.3.0.0/16 via 10.0.0.3 scheme eqds\n", &cfg);
	assert_int_equal(cfg.npeers, 3);
	for (size_t i = 0; i < 2; i++) {
		assert_true(cfg.peers[i].keyed);
		assert_int_equal(cfg.peers[i].keys.valid, 1);
		assert_int_equal(cfg.peers[i].keys.id[0], 4);
		assert_int_equal(cfg.peers[i].keys.key[0][15], 15);
		assert_int_equal(cfg.peers[i].scheme, EQ_SCHEME_EQDS);
	}
	assert_false(cfg.peers[2].keyed);
	/* A keyed peer's routes leave room for the AUTH option. */
	assert_int_equal(eq_peer_inner_mtu(1500, false, EQ_SCHEME_EQDS, true),
			 eq_peer_inner_mtu(1500, false, EQ_SCHEME_EQDS, false) - EQ_OPT_AUTH_LEN);
	eq_cfg_free(&cfg);
	parse_err("local 10.0.0.1\n"
		  "peer 10.1.0.0/16 via 10.0.0.2 key 000102030405060708090a0b0c0d0e0f\n"
		  "peer 10.2.0.0/16 via 10.0.0.2 key 000102030405060708090a0b0c0d0e0f/2\n",
		  NAME ":3: peer via 10.0.0.2 has another key on line 2: one underlay peer has one key");
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2 key 0102\n",
		  NAME ":2: a key is 32 hex digits (16 bytes), optionally /ID with ID 0-255");
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2 key @/nonexistent/k\n",
		  NAME ":2: cannot read the key file /nonexistent/k: No such file or directory");
}

static void eq_cfg_parse__unknown_directive(void **state)
{
	parse_err("bogus\n", NAME ":1: unknown directive 'bogus'" UNKNOWN_TAIL);
	parse_err("local 10.0.0.1\nPort 7000\n", NAME ":2: unknown directive 'Port'" UNKNOWN_TAIL);
	parse_err("local 10.0.0.1\nlocal: 10.0.0.2\n", NAME ":2: unknown directive 'local:'" UNKNOWN_TAIL);
	parse_err("local 10.0.0.1\nport=7000\n", NAME ":2: unknown directive 'port=7000'" UNKNOWN_TAIL);
}

/* Eight words are read (and rejected by the directive); a ninth is "too
 * many words"; words in a comment do not count. */
static void eq_cfg_parse__too_many_words(void **state)
{
	struct eq_cfg cfg;

	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2 a b c d e\n",
		  NAME ":2: too many words");
	parse_err("local 10.0.0.1\n\npeer 1 2 3 4 5 6 7 8 9 10 11 12\n",
		  NAME ":3: too many words");
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2 a b c d\n",
		  NAME ":2: usage: peer PREFIX via ADDRESS [scheme none|eqds|smartt|sird] [key HEX[/ID]|@FILE]: 'a'");
	parse_ok("local 10.0.0.1 # one two three four five six seven eight nine\n", &cfg);
	eq_cfg_free(&cfg);
}

static void eq_cfg_parse__missing_local(void **state)
{
	static const char msg[] = NAME ": no 'local' address: say which underlay address this host sends from";

	parse_err("", msg);
	parse_err("\n\n\n", msg);
	parse_err("# only a comment\n", msg);
	parse_err("\r\n \t\r\n", msg);
	parse_err("port 7000\nmtu 1500\nnode_id 3\n", msg);
	/* Reported before any peer family problem. */
	parse_err("peer 10.1.0.0/16 via 10.0.0.2\n", msg);
}

static void eq_cfg_parse__peer_family_without_local(void **state)
{
	parse_err("local 10.0.0.1\npeer fd00::/64 via 2001:db8::2\n",
		  NAME ": peer via 2001:db8::2 needs a local IPv6 address");
	parse_err("local 2001:db8::1\npeer 10.1.0.0/16 via 10.0.0.2\n",
		  NAME ": peer via 10.0.0.2 needs a local IPv4 address");
	/* The via address is printed canonically. */
	parse_err("local 2001:db8::1\npeer fd00::/64 via 2001:db8::2\npeer 10.1.0.0/16 via ::ffff:10.0.0.2\n",
		  NAME ": peer via 10.0.0.2 needs a local IPv4 address");
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2\npeer 10.2.0.0/16 via 2001:DB8:0::2\n",
		  NAME ": peer via 2001:db8::2 needs a local IPv6 address");
}

/* Line numbers count every line: blank, comment, whitespace-only, CRLF. */
static void eq_cfg_parse__error_line_counts_every_line(void **state)
{
	parse_err("bogus", NAME ":1: unknown directive 'bogus'" UNKNOWN_TAIL);
	parse_err("\nbogus", NAME ":2: unknown directive 'bogus'" UNKNOWN_TAIL);
	parse_err("# header\n"
		  "\n"
		  "local 10.0.0.1\n"
		  "   \n"
		  "# a comment\n"
		  "\t\n"
		  "port 0\n"
		  "port 1\n", NAME ":7: port '0' is not in 1-65535");
	parse_err("# header\r\n\r\nlocal 10.0.0.1\r\n\r\n# x\r\nmtu 100\r\n",
		  NAME ":6: mtu '100' is not in 576-65535 bytes");
	parse_err("local 10.0.0.1\n\n\n\n\n\n\n\n\n\n\n\nentropy maybe",
		  NAME ":13: entropy 'maybe': use flow or packet");
}

/* Only the first error is reported. */
static void eq_cfg_parse__first_error_wins(void **state)
{
	parse_err("local 10.0.0.1\nport 0\nmtu 1\nbogus\n", NAME ":2: port '0' is not in 1-65535");
	parse_err("bogus\nlocal 10.0.0.1\n", NAME ":1: unknown directive 'bogus'" UNKNOWN_TAIL);
}

/* The property: a bad line after any mix of valid, blank and comment lines
 * (LF or CRLF, with or without a final newline) is reported with its own
 * line number, whatever comes after it. */
static void eq_cfg_parse__error_line_number_property(void **state)
{
	static const char *const filler[] = {
		"", "# comment", "   ", "\t", " \t # indented comment", "port 7000",
		"mtu 9000 # jumbo", "entropy packet", "link_rate 25gbit", "node_id 7",
		"#port 0",
	};
	static const struct { const char *line, *msg; } bad[] = {
		{ "port 0", "port '0' is not in 1-65535" },
		{ "mtu 100", "mtu '100' is not in 576-65535 bytes" },
		{ "bogus 1", "unknown directive 'bogus'" UNKNOWN_TAIL },
		{ "entropy x", "entropy 'x': use flow or packet" },
		{ "peer fd00::/64 via 10.0.0.9", "prefix 'fd00::/64' is configured twice" },
		{ "local 10.9.9.9", "a second IPv4 'local' address" },
		{ "node_id", "usage: node_id 0-65535" },
		{ "a b c d e f g h i", "too many words" },
	};
	char text[8192], want[512];

	rng_state = 23;
	for (int round = 0; round < 3000; round++) {
		unsigned int nfill = rnd32() % 40, b = rnd32() % 8;
		bool crlf = rnd32() & 1;
		const char *eol = crlf ? "\r\n" : "\n";
		size_t len = 0;

		/* "local" and a peer first, for the bad lines that clash with
		 * them; then the filler. */
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"local 10.0.0.1%speer fd00::/64 via 10.0.0.9%s", eol, eol);
		for (unsigned int i = 0; i < nfill; i++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%s%s",
						filler[rnd32() % (sizeof(filler) / sizeof(filler[0]))], eol);
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s", bad[b].line);
		/* Anything after the bad line, even more errors. */
		if (rnd32() & 1)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "%sbogus%sport 0%s",
						eol, eol, eol);
		assert_true(len < sizeof(text));
		snprintf(want, sizeof(want), NAME ":%u: %s", nfill + 3, bad[b].msg);
		parse_err(text, want);
	}
}

/* A failure after peers were added frees them: nothing for the caller to
 * free (valgrind shows no leak). */
static void eq_cfg_parse__error_releases_peers(void **state)
{
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2\npeer 10.2.0.0/16 via 10.0.0.3\nbogus\n",
		  NAME ":4: unknown directive 'bogus'" UNKNOWN_TAIL);
	/* Failing in the whole-file checks, too. */
	parse_err("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2\npeer 10.2.0.0/16 via fd00::3\n",
		  NAME ": peer via fd00::3 needs a local IPv6 address");
	parse_err("peer 10.1.0.0/16 via 10.0.0.2\npeer 10.2.0.0/16 via 10.0.0.3\n",
		  NAME ": no 'local' address: say which underlay address this host sends from");
}

/* A short error buffer gets a truncated, terminated message, and nothing
 * is written past errlen. */
static void eq_cfg_parse__error_message_truncated_to_errlen(void **state)
{
	static const char *const texts[] = {
		"local 10.0.0.1\nport 0\n",		/* line message */
		"port 7000\n",				/* whole-file message */
	};

	for (unsigned int t = 0; t < 2; t++) {
		char full[ERRLEN];
		struct eq_cfg cfg;
		size_t flen;

		assert_int_equal(eq_cfg_parse(texts[t], NAME, &cfg, full, sizeof(full)), -EINVAL);
		flen = strlen(full);
		assert_true(flen > 10);
		for (size_t errlen = 0; errlen <= flen + 1; errlen++) {
			char err[ERRLEN + 1];

			memset(err, 'X', sizeof(err));
			assert_int_equal(eq_cfg_parse(texts[t], NAME, &cfg, err, errlen), -EINVAL);
			assert_int_equal(err[errlen], 'X');
			if (errlen == 0)
				continue;
			assert_int_equal(strlen(err), errlen - 1);
			assert_memory_equal(err, full, errlen - 1);
		}
	}
}

/* The name given is the one in the message, whatever it is. */
static void eq_cfg_parse__name_in_messages(void **state)
{
	char err[ERRLEN];
	struct eq_cfg cfg;

	assert_int_equal(eq_cfg_parse("local 10.0.0.1\nport 0", "/etc/edgeq/edgeq.conf", &cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/etc/edgeq/edgeq.conf:2: port '0' is not in 1-65535");
	assert_int_equal(eq_cfg_parse("", "<stdin>", &cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "<stdin>: no 'local' address: say which underlay address this host sends from");
}

/* ---- eq_cfg_load -------------------------------------------------------------- */

struct tmpfile {
	char path[64];
};

static int tmpfile_setup(void **state)
{
	struct tmpfile *t = calloc(1, sizeof(*t));
	int fd;

	if (!t)
		return -1;
	strcpy(t->path, "/tmp/edgeq-unit-XXXXXX");
	fd = mkstemp(t->path);
	if (fd < 0) {
		free(t);
		return -1;
	}
	close(fd);
	*state = t;
	return 0;
}

static int tmpfile_teardown(void **state)
{
	struct tmpfile *t = *state;

	unlink(t->path);
	free(t);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

/* A file (larger than the read buffer) loads to exactly what parsing its
 * text gives; errors name the file and the right line. */
static void eq_cfg_load__temp_file(void **state)
{
	struct tmpfile *t = *state;
	size_t cap = 64 * 1024, len = 0;
	char *text = malloc(cap), err[ERRLEN], want[ERRLEN + 80];
	struct eq_cfg a, b;

	assert_non_null(text);
	len += (size_t)snprintf(text + len, cap - len,
				"# edgeq\r\nlocal 10.0.0.1\nport 7000\nentropy packet\n");
	for (int i = 0; i < 500; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"peer 10.%d.%d.0/24 via 10.0.0.%d  # peer number %d\n",
					i >> 8, i & 0xff, 2 + i % 200, i);
	assert_true(len > 3 * 4096);
	write_file(t->path, text);

	assert_int_equal(eq_cfg_load(t->path, &a, err, sizeof(err)), 0);
	parse_ok(text, &b);
	assert_int_equal(a.npeers, 500);
	assert_int_equal(a.bpf.port, 7000);
	assert_memory_equal(&a.bpf, &b.bpf, sizeof(a.bpf));
	assert_int_equal(a.node_id_set, b.node_id_set);
	assert_int_equal(a.npeers, b.npeers);
	assert_memory_equal(a.peers, b.peers, a.npeers * sizeof(a.peers[0]));
	eq_cfg_free(&a);
	eq_cfg_free(&b);

	/* The same file, now with an error on line 3. */
	write_file(t->path, "local 10.0.0.1\n\nport 0\n");
	memset(&a, 0x5a, sizeof(a));
	assert_int_equal(eq_cfg_load(t->path, &a, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:3: port '0' is not in 1-65535", t->path);
	assert_string_equal(err, want);
	assert_null(a.peers);
	assert_int_equal(a.npeers, 0);
	free(text);
}

static void eq_cfg_load__missing_file(void **state)
{
	static const char path[] = "/nonexistent-edgeq-unit/edgeq.conf";
	char err[ERRLEN];
	struct eq_cfg cfg;

	memset(&cfg, 0x5a, sizeof(cfg));
	assert_int_equal(eq_cfg_load(path, &cfg, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "cannot open config"));
	assert_null(cfg.peers);
	assert_int_equal(cfg.npeers, 0);
	eq_cfg_free(&cfg);			/* safe to call anyway */
}

/* A path that opens but cannot be read (a directory) is a read error. */
static void eq_cfg_load__directory_is_read_error(void **state)
{
	char err[ERRLEN];
	struct eq_cfg cfg;

	assert_int_equal(eq_cfg_load("/", &cfg, err, sizeof(err)), -EIO);
	assert_string_equal(err, "cannot read config '/'");
	assert_null(cfg.peers);
	assert_int_equal(cfg.npeers, 0);
}

/* ---- eq_cfg_free ---------------------------------------------------------------- */

static void eq_cfg_free__resets_and_is_idempotent(void **state)
{
	struct eq_cfg cfg, zero;

	parse_ok("local 10.0.0.1\npeer 10.1.0.0/16 via 10.0.0.2\n", &cfg);
	assert_non_null(cfg.peers);
	eq_cfg_free(&cfg);
	assert_null(cfg.peers);
	assert_int_equal(cfg.npeers, 0);
	/* The rest of the config stays usable. */
	assert_int_equal(cfg.bpf.flags, EQ_CFG_HAS_V4);
	eq_cfg_free(&cfg);			/* twice: no double free */
	assert_null(cfg.peers);
	memset(&zero, 0, sizeof(zero));
	eq_cfg_free(&zero);			/* never parsed */
	assert_null(zero.peers);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eq_inner_mtu__subtracts_outer_overhead),
		cmocka_unit_test(eq_inner_mtu__zero_when_no_room),
		cmocka_unit_test(eq_inner_mtu__inner_plus_overhead_is_wire),
		cmocka_unit_test(eq_parse_rate__units),
		cmocka_unit_test(eq_parse_rate__units_ignore_case),
		cmocka_unit_test(eq_parse_rate__invalid),
		cmocka_unit_test(eq_parse_rate__overflow),
		cmocka_unit_test(eq_parse_rate__value_times_unit),
		cmocka_unit_test(eq_cfg_parse__defaults),
		cmocka_unit_test(eq_cfg_parse__ignores_previous_contents),
		cmocka_unit_test(eq_cfg_parse__local_v4),
		cmocka_unit_test(eq_cfg_parse__local_v6),
		cmocka_unit_test(eq_cfg_parse__local_both_families),
		cmocka_unit_test(eq_cfg_parse__local_mapped_v6_is_v4),
		cmocka_unit_test(eq_cfg_parse__port),
		cmocka_unit_test(eq_cfg_parse__mtu),
		cmocka_unit_test(eq_cfg_parse__link_rate),
		cmocka_unit_test(eq_cfg_parse__entropy),
		cmocka_unit_test(eq_cfg_parse__node_id_explicit),
		cmocka_unit_test(eq_cfg_parse__node_id_default_low_16_bits),
		cmocka_unit_test(eq_cfg_parse__node_id_default_from_first_local),
		cmocka_unit_test(eq_cfg_parse__peer_v4),
		cmocka_unit_test(eq_cfg_parse__peer_scheme),
		cmocka_unit_test(eq_cfg_parse__peer_v6),
		cmocka_unit_test(eq_cfg_parse__peer_prefix_normalised),
		cmocka_unit_test(eq_cfg_parse__peer_prefix_family_independent_of_via),
		cmocka_unit_test(eq_cfg_parse__many_peers_in_order),
		cmocka_unit_test(eq_cfg_parse__peers_within_the_maps_sizes),
		cmocka_unit_test(eq_cfg_parse__duplicate_among_many),
		cmocka_unit_test(eq_cfg_parse__comments_blank_lines_and_whitespace),
		cmocka_unit_test(eq_cfg_parse__crlf_same_as_lf),
		cmocka_unit_test(eq_cfg_parse__repeated_setting_last_wins),
		cmocka_unit_test(eq_cfg_parse__usage_errors),
		cmocka_unit_test(eq_cfg_parse__bad_values),
		cmocka_unit_test(eq_cfg_parse__second_local_per_family),
		cmocka_unit_test(eq_cfg_parse__duplicate_peer_prefix),
		cmocka_unit_test(eq_cfg_parse__peer_key),
		cmocka_unit_test(eq_cfg_parse__unknown_directive),
		cmocka_unit_test(eq_cfg_parse__too_many_words),
		cmocka_unit_test(eq_cfg_parse__missing_local),
		cmocka_unit_test(eq_cfg_parse__peer_family_without_local),
		cmocka_unit_test(eq_cfg_parse__error_line_counts_every_line),
		cmocka_unit_test(eq_cfg_parse__first_error_wins),
		cmocka_unit_test(eq_cfg_parse__error_line_number_property),
		cmocka_unit_test(eq_cfg_parse__error_releases_peers),
		cmocka_unit_test(eq_cfg_parse__error_message_truncated_to_errlen),
		cmocka_unit_test(eq_cfg_parse__name_in_messages),
		cmocka_unit_test_setup_teardown(eq_cfg_load__temp_file, tmpfile_setup, tmpfile_teardown),
		cmocka_unit_test(eq_cfg_load__missing_file),
		cmocka_unit_test(eq_cfg_load__directory_is_read_error),
		cmocka_unit_test(eq_cfg_free__resets_and_is_idempotent),
		cmocka_unit_test(eq_cfg_parse__eqds_defaults),
		cmocka_unit_test(eq_cfg_parse__eqds_keywords),
		cmocka_unit_test(eq_cfg_parse__eqds_times_scaled),
		cmocka_unit_test(eq_cfg_parse__eqds_errors),
		cmocka_unit_test(eq_cfg_parse__scheme_settings),
		cmocka_unit_test(eq_cfg_parse__scheme_setting_errors),
		cmocka_unit_test(eq_settings__every_row_is_whole),
	};

	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
