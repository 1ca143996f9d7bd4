// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tests/fabric/switch/topo.c: the value parsers
 * (parse_rate, parse_bytes, parse_time: units, limits, "off", junk), the
 * description parser (every key, comments, and every kind of error, with a
 * message naming the problem and the line), and the expansion of star and
 * leaf-spine topologies into hosts, switches and directed ports, checked
 * as invariants over every size from the smallest to the largest allowed:
 * counts, names "from-to", reverse pairs that pair up, addresses and MACs
 * where topo.c's comment says they are, all unique.
 */
#include "fabric_testlib.h"
#include <stdio.h>
#include "switch/topo.h"

static struct topo T;	/* large: not on the stack */

/* ---- value parsers ------------------------------------------------------------------- */

static void parse_rate__units_and_limits(void **state)
{
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "1gbit", 1000000000ULL }, { "1G", 1000000000ULL }, { "1GBIT", 1000000000ULL },
		{ "2.5gbit", 2500000000ULL }, { "500mbit", 500000000ULL }, { "500m", 500000000ULL },
		{ "1000kbit", 1000000 }, { "1000k", 1000000 }, { "1000000", 1000000 },
		{ "1000000bit", 1000000 }, { "1mbit", 1000000 }, { "400gbit", 400000000000ULL },
		{ "100g", 100000000000ULL }, { "1.5e9", 1500000000ULL }, { "3333333333.4", 3333333333ULL },
		{ "3333333333.5", 3333333334ULL },
	};
	static const char *bad[] = {
		"", "fast", "999999", "999kbit", "0", "0.5mbit", "401gbit", "400.000001g", "-1gbit",
		"1gbps", "1 gbit", "1gbit ", "1gb", "1t", "gbit", "1e999", "inf", "infgbit",
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 0;
		if (parse_rate(ok[i].s, &v))
			fail_msg("parse_rate(\"%s\") failed", ok[i].s);
		if (v != ok[i].v)
			fail_msg("parse_rate(\"%s\") = %llu, want %llu", ok[i].s, (unsigned long long)v,
				 (unsigned long long)ok[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		if (!parse_rate(bad[i], &v))
			fail_msg("parse_rate(\"%s\") accepted, = %llu", bad[i], (unsigned long long)v);
		assert_int_equal(v, 12345);	/* untouched on error */
	}
}

static void parse_bytes__units_limits_and_off(void **state)
{
	static const struct { const char *s; uint32_t v; } ok[] = {
		{ "0", 0 }, { "1500", 1500 }, { "1500b", 1500 }, { "1500B", 1500 }, { "10k", 10000 },
		{ "10kb", 10000 }, { "10KB", 10000 }, { "1.5k", 1500 }, { "2m", 2000000 }, { "2mb", 2000000 },
		{ "10p", 15140 }, { "3pkt", 4542 }, { "0.5p", 757 }, { "off", PORT_OFF }, { "OFF", PORT_OFF },
		{ "Off", PORT_OFF }, { "3999999999", 3999999999u }, { "0.4", 0 }, { "0.5", 1 },
	};
	static const char *bad[] = {
		"", "-5", "5x", "10 k", "4e9", "4000000000", "4294967295", "5000m", "offf", "of", "k",
		"1g", "inf",
	};
	uint32_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 12345;
		if (parse_bytes(ok[i].s, &v))
			fail_msg("parse_bytes(\"%s\") failed", ok[i].s);
		if (v != ok[i].v)
			fail_msg("parse_bytes(\"%s\") = %u, want %u", ok[i].s, v, ok[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		if (!parse_bytes(bad[i], &v))
			fail_msg("parse_bytes(\"%s\") accepted, = %u", bad[i], v);
		assert_int_equal(v, 12345);
	}
	/* No number is taken for "off". */
	for (uint64_t n = 3999999990ULL; n < 4000000010ULL; n++) {
		char s[32];

		snprintf(s, sizeof(s), "%llu", (unsigned long long)n);
		if (!parse_bytes(s, &v))
			assert_int_not_equal(v, PORT_OFF);
	}
}

static void parse_time__units_and_limits(void **state)
{
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "10ns", 10 }, { "20us", 20000 }, { "20US", 20000 }, { "1.5ms", 1500000 },
		{ "1s", 1000000000ULL }, { "0ns", 0 }, { "0.5ns", 1 }, { "3600s", 3600000000000ULL },
		{ "100ms", 100000000 }, { "2.25us", 2250 },
	};
	static const char *bad[] = {
		"", "5", "5m", "5 us", "-1us", "3601s", "3600.001s", "1h", "us", "fast", "inf",
		"infs",
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 12345;
		if (parse_time(ok[i].s, &v))
			fail_msg("parse_time(\"%s\") failed", ok[i].s);
		if (v != ok[i].v)
			fail_msg("parse_time(\"%s\") = %llu, want %llu", ok[i].s, (unsigned long long)v,
				 (unsigned long long)ok[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		if (!parse_time(bad[i], &v))
			fail_msg("parse_time(\"%s\") accepted, = %llu", bad[i], (unsigned long long)v);
		assert_int_equal(v, 12345);
	}
}

/*
 * Regression (a bug the first version had): "nan" is a number to strtod(), and NaN passes
 * every range check in topo.c (v < 0, v < 1e6, v > 400e9, v >= 4e9 and
 * v > 3600e9 are all false for NaN), so parse_rate("nan") succeeds with
 * (uint64_t)NaN (2^63 on x86: an infinitely fast link), parse_bytes("nan")
 * with (uint32_t)NaN (0 on x86: `ecn_k nan` marks everything, `trim nan`
 * trims everything) and parse_time("nanms") with 2^63 ns (`reroute nanms`:
 * never reroutes).  The conversions themselves are undefined behaviour.
 * The same values reach the switch at run time through `port NAME KEY
 * VALUE`.  Fix: in parse_units(), reject what is not a finite number,
 * e.g. `if (end == s || errno || !(v >= 0) || !isfinite(v)) return -1;`
 * (needs <math.h>; !(v >= 0) is also false for NaN, unlike v < 0).
 */
static void parse_units__reject_nan(void **state)
{
	static const char *nan_rates[] = { "nan", "NAN", "nangbit", "nan(1)m", "-nan" };
	static const char *nan_bytes[] = { "nan", "nank", "nanp", "-nan" };
	static const char *nan_times[] = { "nanus", "nanms", "NaNs", "-nanns" };
	uint64_t v64;
	uint32_t v32;

	for (size_t i = 0; i < sizeof(nan_rates) / sizeof(nan_rates[0]); i++)
		if (!parse_rate(nan_rates[i], &v64))
			fail_msg("parse_rate(\"%s\") accepted, = %llu", nan_rates[i], (unsigned long long)v64);
	for (size_t i = 0; i < sizeof(nan_bytes) / sizeof(nan_bytes[0]); i++)
		if (!parse_bytes(nan_bytes[i], &v32))
			fail_msg("parse_bytes(\"%s\") accepted, = %u", nan_bytes[i], v32);
	for (size_t i = 0; i < sizeof(nan_times) / sizeof(nan_times[0]); i++)
		if (!parse_time(nan_times[i], &v64))
			fail_msg("parse_time(\"%s\") accepted, = %llu", nan_times[i], (unsigned long long)v64);
}

/* ---- topo_parse ------------------------------------------------------------------------ */

static void topo_defaults__values(void **state)
{
	struct topo_params p;

	memset(&p, 0xa5, sizeof(p));
	topo_defaults(&p);
	assert_int_equal(p.kind, TOPO_STAR);
	assert_int_equal(p.hosts, 2);
	assert_int_equal(p.rate, 1000000000ULL);
	assert_int_equal(p.core_rate, 0);
	assert_int_equal(p.delay_ns, 10000);
	assert_int_equal(p.buffer, 200 * 1514);
	assert_int_equal(p.ecn_k, PORT_OFF);
	assert_int_equal(p.core_ecn_k, TOPO_SAME);
	assert_int_equal(p.trim, PORT_OFF);
	assert_int_equal(p.edgeq_port, EQ_DEFAULT_PORT);
	assert_int_equal(p.multipath, MP_ECMP);
	assert_true(p.prio_buffer >= 1514);
	assert_true(p.pool >= 1024);
}

static void topo_parse__every_key(void **state)
{
	static const char text[] =
		"# a leaf-spine for the trimming experiment\n"
		"\n"
		"topology leafspine\n"
		"   leaves 4   # indented, comment after\n"
		"hosts_per_leaf\t8\n"
		"spines 3\n"
		"hosts 10\n"
		"rate 10gbit\n"
		"core_rate 40gbit\n"
		"delay 2us\n"
		"buffer 500k\n"
		"prio_buffer 64k\n"
		"ecn_k 100p\n"
		"core_ecn_k 80p\n"
		"trim 300k\n"
		"edgeq_port 9000\n"
		"multipath spray\n"
		"reroute 5ms\n"
		"sample 50us\n"
		"pool 4096\r\n"
		"#no newline at the end:\n"
		"hosts 12";
	struct topo_params p;
	char err[200] = "";

	topo_defaults(&p);
	if (topo_parse(&p, text, err, sizeof(err)))
		fail_msg("topo_parse: %s", err);
	assert_int_equal(p.kind, TOPO_LEAFSPINE);
	assert_int_equal(p.leaves, 4);
	assert_int_equal(p.hosts_per_leaf, 8);
	assert_int_equal(p.spines, 3);
	assert_int_equal(p.hosts, 12);	/* the last one counts */
	assert_int_equal(p.rate, 10000000000ULL);
	assert_int_equal(p.core_rate, 40000000000ULL);
	assert_int_equal(p.delay_ns, 2000);
	assert_int_equal(p.buffer, 500000);
	assert_int_equal(p.prio_buffer, 64000);
	assert_int_equal(p.ecn_k, 151400);
	assert_int_equal(p.core_ecn_k, 80 * 1514);
	assert_int_equal(p.trim, 300000);
	assert_int_equal(p.edgeq_port, 9000);
	assert_int_equal(p.multipath, MP_SPRAY);
	assert_int_equal(p.reroute_ns, 5000000);
	assert_int_equal(p.sample_ns, 50000);
	assert_int_equal(p.pool, 4096);

	/* An empty description and one of comments only change nothing. */
	{
		struct topo_params d, q;

		topo_defaults(&d);
		topo_defaults(&q);
		assert_int_equal(topo_parse(&q, "", err, sizeof(err)), 0);
		assert_int_equal(topo_parse(&q, "\n\n# x\n   \n\t\n#", err, sizeof(err)), 0);
		assert_memory_equal(&d, &q, sizeof(d));
		assert_int_equal(topo_parse(&q, "ecn_k off\ntrim off\nmultipath ecmp\ntopology star", err, sizeof(err)), 0);
		assert_memory_equal(&d, &q, sizeof(d));
	}
}

/* Each bad description fails, with a message that has the line number and
 * names the key or the problem. */
static void topo_parse__errors_name_the_problem_and_the_line(void **state)
{
	static const struct { const char *text; const char *want[3]; } cases[] = {
		{ "colour blue", { "line 1:", "unknown setting 'colour'" } },
		{ "hosts 4\n\n# c\nfoo 1", { "line 4:", "unknown setting 'foo'" } },
		{ "Hosts 4", { "line 1:", "unknown setting 'Hosts'" } },
		{ "hosts", { "line 1:", "expected 'key value'", "hosts" } },
		{ "hosts 4 5", { "line 1:", "expected 'key value'", "hosts 4 5" } },
		{ "hosts 4 # ok\nrate 1gbit junk", { "line 2:", "expected 'key value'" } },
		{ "hosts abc", { "line 1:", "hosts 'abc'", "2 to 254" } },
		{ "hosts 1", { "line 1:", "hosts '1'" } },
		{ "hosts 255", { "line 1:", "hosts '255'" } },
		{ "hosts 3x", { "line 1:", "hosts '3x'" } },
		{ "hosts 4.0", { "line 1:", "hosts '4.0'" } },
		{ "hosts 99999999999999999999", { "line 1:", "hosts '99999999999999999999'" } },
		{ "leaves 1", { "line 1:", "leaves '1'", "2 to 16" } },
		{ "leaves 17", { "line 1:", "leaves '17'" } },
		{ "hosts_per_leaf 0", { "line 1:", "hosts_per_leaf '0'" } },
		{ "hosts_per_leaf 65", { "line 1:", "hosts_per_leaf '65'" } },
		{ "spines 0", { "line 1:", "spines '0'" } },
		{ "spines 9", { "line 1:", "spines '9'", "1 to 8" } },
		{ "topology ring", { "line 1:", "topology 'ring'", "star or leafspine" } },
		{ "rate fast", { "line 1:", "rate 'fast'" } },
		{ "rate 500k", { "line 1:", "rate '500k'", "1mbit to 400gbit" } },
		{ "\n\nrate 401gbit", { "line 3:", "rate '401gbit'" } },
		{ "core_rate 1tbit", { "line 1:", "core_rate '1tbit'" } },
		{ "delay 200ms", { "line 1:", "delay '200ms'", "100ms" } },
		{ "delay 5", { "line 1:", "delay '5'" } },
		{ "reroute soon", { "line 1:", "reroute 'soon'" } },
		{ "sample 5us", { "line 1:", "sample '5us'", "10us" } },
		{ "buffer 1000", { "line 1:", "buffer '1000'", "at least one packet" } },
		{ "buffer off", { "line 1:", "buffer 'off'" } },
		{ "prio_buffer 1k", { "line 1:", "prio_buffer '1k'" } },
		{ "buffer lots", { "line 1:", "buffer 'lots'" } },
		{ "ecn_k lots", { "line 1:", "ecn_k 'lots'", "or off" } },
		{ "trim -1", { "line 1:", "trim '-1'" } },
		{ "edgeq_port 0", { "line 1:", "edgeq_port '0'" } },
		{ "edgeq_port 65536", { "line 1:", "edgeq_port '65536'" } },
		{ "multipath random", { "line 1:", "multipath 'random'", "ecmp or spray" } },
		{ "pool 10", { "line 1:", "pool '10'" } },
		{ "pool 2000000", { "line 1:", "pool '2000000'" } },
	};
	char longline[400];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct topo_params p;
		char err[300] = "";

		topo_defaults(&p);
		if (topo_parse(&p, cases[i].text, err, sizeof(err)) != -1)
			fail_msg("\"%s\" accepted", cases[i].text);
		for (int w = 0; w < 3 && cases[i].want[w]; w++)
			if (!strstr(err, cases[i].want[w]))
				fail_msg("\"%s\": message \"%s\" lacks \"%s\"", cases[i].text, err, cases[i].want[w]);
	}
	/* A line too long for the parser is an error, not a truncation. */
	memset(longline, ' ', sizeof(longline) - 1);
	memcpy(longline, "hosts 4", 7);
	longline[sizeof(longline) - 1] = 0;
	{
		struct topo_params p;
		char err[300] = "";

		topo_defaults(&p);
		assert_int_equal(topo_parse(&p, longline, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "line 1: too long"));
	}
	/* A short error buffer is not overrun. */
	{
		struct topo_params p;
		char err[8];

		memset(err, 'x', sizeof(err));
		topo_defaults(&p);
		assert_int_equal(topo_parse(&p, "colour blue", err, 5), -1);
		assert_int_equal(err[4], 0);
		assert_int_equal(err[5], 'x');
	}
}

/* topo_set is the same function for one setting, no line number. */
static void topo_set__one_setting(void **state)
{
	struct topo_params p;
	char err[300];

	topo_defaults(&p);
	assert_int_equal(topo_set(&p, "ecn_k", "20k", err, sizeof(err)), 0);
	assert_int_equal(p.ecn_k, 20000);
	assert_int_equal(topo_set(&p, "ecn_k", "bad", err, sizeof(err)), -1);
	assert_int_equal(p.ecn_k, 20000);	/* unchanged on error */
	assert_non_null(strstr(err, "ecn_k 'bad'"));
	assert_null(strstr(err, "line"));
	assert_int_equal(topo_set(&p, "hosts", "254", err, sizeof(err)), 0);
	assert_int_equal(p.hosts, 254);
	assert_int_equal(topo_set(&p, "hosts", "2", err, sizeof(err)), 0);
	assert_int_equal(p.hosts, 2);
}

/* ---- expansion ------------------------------------------------------------------------------ */

static void expand(const char *text)
{
	char err[300] = "";

	memset(&T, 0, sizeof(T));
	topo_defaults(&T.p);
	if (topo_parse(&T.p, text, err, sizeof(err)))
		fail_msg("topo_parse(\"%s\"): %s", text, err);
	if (topo_expand(&T, err, sizeof(err)))
		fail_msg("topo_expand(\"%s\"): %s", text, err);
}

static const char *node_name(int kind, int i)
{
	return kind == NODE_HOST ? T.hosts[i].name : T.sw[i].name;
}

/* What holds for every expansion. */
static void check_common(void)
{
	int per_sw_ports[TOPO_MAX_SW] = { 0 };

	assert_true(T.nports <= TOPO_MAX_PORTS);
	for (int i = 0; i < T.nports; i++) {
		const struct topo_port *tp = &T.ports[i];
		const struct topo_port *rp;
		char name[80];

		/* reverse pairs pair up, and swap the ends */
		assert_true(tp->reverse >= 0 && tp->reverse < T.nports);
		assert_int_not_equal(tp->reverse, i);
		rp = &T.ports[tp->reverse];
		assert_int_equal(rp->reverse, i);
		assert_int_equal(rp->from_kind, tp->to_kind);
		assert_int_equal(rp->from, tp->to);
		assert_int_equal(rp->to_kind, tp->from_kind);
		assert_int_equal(rp->to, tp->from);
		/* a port joins a switch to a host or to a switch; never host-host */
		assert_true(tp->from_kind == NODE_SWITCH || tp->to_kind == NODE_SWITCH);
		/* "from-to", found by name */
		snprintf(name, sizeof(name), "%s-%s", node_name(tp->from_kind, tp->from), node_name(tp->to_kind, tp->to));
		assert_string_equal(tp->name, name);
		assert_int_equal(topo_find_port(&T, name), i);
		/* switch ports carry the switch settings */
		if (tp->from_kind == NODE_SWITCH) {
			per_sw_ports[tp->from]++;
			assert_int_equal(tp->cfg.buffer, T.p.buffer);
			assert_int_equal(tp->cfg.prio_buffer, T.p.prio_buffer);
			assert_int_equal(tp->cfg.ecn_k, tp->to_kind == NODE_HOST ||
					 T.p.core_ecn_k == TOPO_SAME ? T.p.ecn_k : T.p.core_ecn_k);
			assert_int_equal(tp->cfg.trim, T.p.trim);
			assert_int_equal(tp->cfg.delay_ns, T.p.delay_ns);
			assert_int_equal(tp->cfg.loss_ppm, 0);
			if (tp->to_kind == NODE_HOST)
				assert_int_equal(tp->cfg.rate_bps, T.p.rate);
			else
				assert_int_equal(tp->cfg.rate_bps, T.p.core_rate ? T.p.core_rate : T.p.rate);
		} else {
			/* a host's uplink: a delay line (rate 0), or the host NIC
			 * at the link rate with a deep buffer and no AQM (topo.c) */
			assert_int_equal(tp->cfg.delay_ns, T.p.delay_ns);
			assert_true(tp->cfg.rate_bps == 0 || tp->cfg.rate_bps == T.p.rate);
			if (tp->cfg.rate_bps) {
				assert_int_equal(tp->cfg.ecn_k, PORT_OFF);
				assert_int_equal(tp->cfg.trim, PORT_OFF);
				assert_true(tp->cfg.buffer >= T.p.buffer);
				assert_true(tp->cfg.prio_buffer >= T.p.prio_buffer);
			}
		}
		/* names are unique */
		for (int j = 0; j < i; j++)
			assert_string_not_equal(T.ports[j].name, tp->name);
	}
	for (int h = 0; h < T.nhosts; h++) {
		const struct topo_host *hh = &T.hosts[h];
		const struct topo_port *dp = &T.ports[hh->down_port], *up = &T.ports[hh->up_port];
		char name[16];
		int kind = -1;

		snprintf(name, sizeof(name), "h%d", h);
		assert_string_equal(hh->name, name);
		assert_int_equal(topo_find_node(&T, name, &kind), h);
		assert_int_equal(kind, NODE_HOST);
		assert_int_equal(dp->from_kind, NODE_SWITCH);
		assert_int_equal(dp->from, hh->sw);
		assert_int_equal(dp->to_kind, NODE_HOST);
		assert_int_equal(dp->to, h);
		assert_int_equal(up->from_kind, NODE_HOST);
		assert_int_equal(up->from, h);
		assert_int_equal(dp->reverse, hh->up_port);
		assert_false(T.sw[hh->sw].spine);
		assert_int_equal(T.sw[hh->sw].leaf, hh->leaf);
		/* addresses and MACs where topo.c says */
		{
			uint8_t ip4[4] = { 10, 250, (uint8_t)hh->leaf, (uint8_t)(hh->idx + 1) };
			uint8_t mac[6] = { 0x02, 0xe0, 0, (uint8_t)hh->leaf, (uint8_t)hh->idx, 1 };
			uint8_t pmac[6] = { 0x02, 0xe1, 0, (uint8_t)hh->leaf, (uint8_t)hh->idx, 1 };
			char want6[64], got6[64];

			assert_memory_equal(hh->ip4, ip4, 4);
			assert_memory_equal(hh->mac, mac, 6);
			assert_memory_equal(dp->mac, pmac, 6);
			if (hh->leaf)
				snprintf(want6, sizeof(want6), "fdee:250::%x:%x", hh->leaf, hh->idx + 1);
			else
				snprintf(want6, sizeof(want6), "fdee:250::%x", hh->idx + 1);
			inet_ntop(AF_INET6, hh->ip6, got6, sizeof(got6));
			assert_string_equal(got6, want6);
		}
		/* unique addresses and MACs, host and switch side */
		for (int j = 0; j < h; j++) {
			assert_memory_not_equal(T.hosts[j].ip4, hh->ip4, 4);
			assert_memory_not_equal(T.hosts[j].ip6, hh->ip6, 16);
			assert_memory_not_equal(T.hosts[j].mac, hh->mac, 6);
			assert_memory_not_equal(T.ports[T.hosts[j].down_port].mac, dp->mac, 6);
		}
		for (int j = 0; j < T.nhosts; j++)
			assert_memory_not_equal(T.ports[T.hosts[j].down_port].mac, hh->mac, 6);
		/* locally administered unicast */
		assert_int_equal(hh->mac[0] & 3, 2);
	}
	for (int s = 0; s < T.nsw; s++) {
		int kind = -1;

		assert_int_equal(topo_find_node(&T, T.sw[s].name, &kind), s);
		assert_int_equal(kind, NODE_SWITCH);
		assert_true(per_sw_ports[s] > 0);
	}
	assert_int_equal(topo_find_port(&T, "nosuch-port"), -1);
	{
		int kind;

		assert_int_equal(topo_find_node(&T, "h999", &kind), -1);
	}
}

static void topo_expand__star_every_size(void **state)
{
	for (int n = 2; n <= 254; n += (n < 10 ? 1 : 61)) {
		char text[64];

		snprintf(text, sizeof(text), "hosts %d\necn_k 30k\ntrim 100k", n);
		expand(text);
		assert_int_equal(T.nhosts, n);
		assert_int_equal(T.nsw, 1);
		assert_string_equal(T.sw[0].name, "tor0");
		assert_false(T.sw[0].spine);
		assert_int_equal(T.nports, 2 * n);
		for (int j = 0; j < n; j++) {
			char a[32], b[32];

			assert_int_equal(T.hosts[j].leaf, 0);
			assert_int_equal(T.hosts[j].idx, j);
			assert_int_equal(T.hosts[j].sw, 0);
			snprintf(a, sizeof(a), "tor0-h%d", j);
			snprintf(b, sizeof(b), "h%d-tor0", j);
			assert_string_equal(T.ports[T.hosts[j].down_port].name, a);
			assert_string_equal(T.ports[T.hosts[j].up_port].name, b);
			snprintf(a, sizeof(a), "10.250.0.%d", j + 1);
			inet_ntop(AF_INET, T.hosts[j].ip4, b, sizeof(b));
			assert_string_equal(a, b);
		}
		assert_int_equal(T.ports[T.hosts[0].down_port].cfg.ecn_k, 30000);
		check_common();
	}
	/* 254 hosts: the last is 10.250.0.254, fdee:250::fe */
	{
		char s[64];

		inet_ntop(AF_INET6, T.hosts[253].ip6, s, sizeof(s));
		assert_string_equal(s, "fdee:250::fe");
	}
}

static void topo_expand__leafspine_every_shape(void **state)
{
	int shapes = 0;

	for (int L = 2; L <= 16; L += 7)
		for (int P = 1; P <= 64; P = P * 4 - 1)
			for (int S = 1; S <= 8; S += 3) {
				char text[200];

				if (L * P > TOPO_MAX_HOSTS)
					continue;
				/* marking on every port, only in the core, or
				 * only at the edge (check_common() checks each) */
				snprintf(text, sizeof(text),
					 "topology leafspine\nleaves %d\nhosts_per_leaf %d\nspines %d\n"
					 "rate 10gbit\ncore_rate %s\necn_k %s\n%s", L, P, S,
					 S == 4 ? "40gbit" : "10gbit", S == 1 ? "20p" : "off",
					 S == 4 ? "core_ecn_k 80p\n" : S == 7 ? "ecn_k 20p\ncore_ecn_k off\n" : "");
				expand(text);
				shapes++;
				assert_int_equal(T.nhosts, L * P);
				assert_int_equal(T.nsw, L + S);
				assert_int_equal(T.nports, 2 * L * P + 2 * L * S);
				for (int l = 0; l < L; l++) {
					char nm[16];

					snprintf(nm, sizeof(nm), "leaf%d", l);
					assert_string_equal(T.sw[l].name, nm);
					assert_false(T.sw[l].spine);
					assert_int_equal(T.sw[l].leaf, l);
				}
				for (int k = 0; k < S; k++) {
					char nm[16];

					snprintf(nm, sizeof(nm), "spine%d", k);
					assert_string_equal(T.sw[L + k].name, nm);
					assert_true(T.sw[L + k].spine);
					assert_int_equal(T.sw[L + k].leaf, -1);
				}
				for (int h = 0; h < T.nhosts; h++) {
					assert_int_equal(T.hosts[h].leaf, h / P);
					assert_int_equal(T.hosts[h].idx, h % P);
					assert_int_equal(T.hosts[h].sw, h / P);
				}
				/* every leaf has one port to and from every spine */
				for (int l = 0; l < L; l++)
					for (int k = 0; k < S; k++) {
						char a[40], b[40];
						int up, down;

						snprintf(a, sizeof(a), "leaf%d-spine%d", l, k);
						snprintf(b, sizeof(b), "spine%d-leaf%d", k, l);
						up = topo_find_port(&T, a);
						down = topo_find_port(&T, b);
						assert_true(up >= 0 && down >= 0);
						assert_int_equal(T.ports[up].reverse, down);
						assert_int_equal(T.ports[up].cfg.rate_bps, S == 4 ? 40000000000ULL : 10000000000ULL);
						assert_int_equal(T.ports[down].cfg.ecn_k, S == 1 ? 20 * 1514 :
								 S == 4 ? 80 * 1514 : PORT_OFF);
					}
				/* no leaf-leaf or spine-spine links */
				for (int i = 0; i < T.nports; i++)
					if (T.ports[i].from_kind == NODE_SWITCH && T.ports[i].to_kind == NODE_SWITCH)
						assert_int_not_equal(T.sw[T.ports[i].from].spine, T.sw[T.ports[i].to].spine);
				check_common();
			}
	assert_true(shapes >= 20);
}

static void topo_expand__limits(void **state)
{
	struct topo_params p;
	char err[300] = "";

	/* 16 leaves x 16 hosts = 256 fits; 16 x 17 does not */
	expand("topology leafspine\nleaves 16\nhosts_per_leaf 16\nspines 8");
	assert_int_equal(T.nhosts, 256);
	assert_int_equal(T.nports, 2 * 256 + 2 * 16 * 8);
	check_common();
	topo_defaults(&p);
	assert_int_equal(topo_parse(&p, "topology leafspine\nleaves 16\nhosts_per_leaf 17", err, sizeof(err)), 0);
	T.p = p;
	assert_int_equal(topo_expand(&T, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "272 hosts"));
	assert_non_null(strstr(err, "256"));

	/* The star ignores the leaf-spine keys, and the other way round. */
	expand("hosts 5\nleaves 16\nhosts_per_leaf 64\nspines 8");
	assert_int_equal(T.nhosts, 5);
	assert_int_equal(T.nsw, 1);
	expand("topology leafspine\nhosts 200\nleaves 2\nhosts_per_leaf 1\nspines 1");
	assert_int_equal(T.nhosts, 2);
	assert_int_equal(T.nsw, 3);
}

/* Trimming above the buffer would never trim: refused, naming both. */
static void topo_expand__trim_above_buffer(void **state)
{
	char err[300] = "";

	memset(&T, 0, sizeof(T));
	topo_defaults(&T.p);
	assert_int_equal(topo_parse(&T.p, "buffer 100k\ntrim 100001", err, sizeof(err)), 0);
	assert_int_equal(topo_expand(&T, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "trim (100001) above buffer (100000)"));
	/* equal is fine, and so is off */
	expand("buffer 100k\ntrim 100k");
	assert_int_equal(T.ports[0].cfg.trim, 100000);
	expand("buffer 100k\ntrim off");
	assert_int_equal(T.ports[0].cfg.trim, PORT_OFF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_rate__units_and_limits),
		cmocka_unit_test(parse_bytes__units_limits_and_off),
		cmocka_unit_test(parse_time__units_and_limits),
		cmocka_unit_test(parse_units__reject_nan),
		cmocka_unit_test(topo_defaults__values),
		cmocka_unit_test(topo_parse__every_key),
		cmocka_unit_test(topo_parse__errors_name_the_problem_and_the_line),
		cmocka_unit_test(topo_set__one_setting),
		cmocka_unit_test(topo_expand__star_every_size),
		cmocka_unit_test(topo_expand__leafspine_every_shape),
		cmocka_unit_test(topo_expand__limits),
		cmocka_unit_test(topo_expand__trim_above_buffer),
	};

	return cmocka_run_group_tests_name("fabric_topo", tests, NULL, NULL);
}
