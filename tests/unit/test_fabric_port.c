// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tests/fabric/switch/port.c, the egress port model in
 * virtual time.  The clock is mocked: every call is given its time in ns,
 * and the tests step from event to event with port_next_event() (or call
 * late on purpose, which must change nothing but when packets are handed
 * on).
 *
 * Examples with hand-computed numbers: serialisation (1514 B at 1 Gbit/s
 * = 12112 ns), propagation, back-to-back bursts, no drift over 1e5
 * packets at rates that do not divide a second evenly, strict priority,
 * drop-tail, ECN and trimming thresholds on both sides of the boundary,
 * random loss, link down, time-weighted occupancy statistics.  Then a
 * property test with random traffic on random configurations that checks,
 * after every event: packet and byte conservation, the verdict the port
 * gives against the rules applied to the state the packet found, FIFO
 * order within each class, departures in time order, no idle link with
 * work queued, occupancy within the buffer.
 */
#include "fabric_testlib.h"
#include <stdlib.h>
#include "switch/port.h"

#define NSLOTS	16384
#define EQP	EQ_DEFAULT_PORT
#define G	1000000000ULL
#define BIG	100000000u	/* a buffer that never fills */

static struct pool pl;
static uint32_t ids[NSLOTS];	/* test id of each pool slot */

enum kind { K_OTHER, K_ECT, K_DATA, K_CTRL, K_ECT6, K_NKINDS };

/* A packet of `len` frame bytes: plain UDP (Not-ECT or ECT(0), IPv4 or
 * IPv6), edgeq DATA (ECT(0)) or edgeq ACK (Not-ECT). */
static struct pkt *mk(int kind, uint32_t len, uint32_t id)
{
	struct pkt *k = pool_get(&pl);
	struct tf_spec s;

	if (!k)
		fail_msg("pool empty");
	switch (kind) {
	case K_DATA:
	case K_CTRL:
		s = tf_eq(4, "10.250.0.1", "10.250.1.1", len);
		s.eq_type = kind == K_DATA ? EQ_T_DATA : EQ_T_ACK;
		s.tos = kind == K_DATA ? 2 : 0;
		break;
	case K_ECT6:
		s = tf_udp(6, "fd00::1", "fd00::2", 1000, 2000, len);
		s.tos = 1;
		break;
	default:
		s = tf_udp(4, "10.0.0.1", "10.0.0.2", 1000, 2000, len);
		s.tos = kind == K_ECT ? 2 : 0;
	}
	s.eq_seq = id;
	tf_build(k->data, &s);
	assert_int_equal(frame_parse(k->data, len, EQP, 0, &k->fi), FE_OK);
	k->len = len;
	k->cls = k->fi.cls;
	k->prio = 0;
	k->t_arrive = k->t_ready = 0;
	ids[k - pl.slots] = id;
	return k;
}

static struct port_cfg cfg(uint64_t rate, uint64_t delay)
{
	return (struct port_cfg){
		.rate_bps = rate, .delay_ns = delay, .buffer = BIG, .prio_buffer = BIG,
		.ecn_k = PORT_OFF, .trim = PORT_OFF, .loss_ppm = 0,
	};
}

/* What came out of the far end. */
struct out {
	uint32_t id, len;
	uint64_t t;
	uint8_t ecn;		/* the frame's ECN bits */
	uint8_t eq_type;	/* edgeq type byte (low nibble), edgeq frames */
	bool csum_ok;		/* IP and L4 checksums */
};

#define MAXOUT	200000
static struct out outs[MAXOUT];
static int nout, nlost;

static void reset_out(void) { nout = nlost = 0; }

static void collect(struct port *p, uint64_t now)
{
	struct pkt *k;

	while ((k = port_pop_arrived(p, now))) {
		struct out *o = &outs[nout++];
		const uint8_t *ip = k->data + TF_ETH;
		bool v4 = (ip[0] >> 4) == 4;

		assert_true(nout <= MAXOUT);
		assert_true(k->t_ready <= now);
		o->id = ids[k - pl.slots];
		o->len = k->len;
		o->t = k->t_ready;
		o->ecn = v4 ? ip[1] & 3 : (ip[1] >> 4) & 3;
		o->eq_type = k->data[(v4 ? 42 : 62)] & 0xf;
		o->csum_ok = (!v4 || tf_ip4_csum_ok(k->data)) && tf_l4_csum_ok(k->data, k->len);
		pool_put(&pl, k);
	}
	while ((k = fifo_pop(&p->gone))) {
		nlost++;
		pool_put(&pl, k);
	}
}

/* Steps from event to event up to `until`, collecting on the way. */
static void step_until(struct port *p, uint64_t until)
{
	uint64_t e;

	while ((e = port_next_event(p)) <= until) {
		port_run(p, e);
		collect(p, e);
	}
	port_run(p, until);
	collect(p, until);
}

/* Every slot is back in the pool (nothing lost track of). */
static void assert_pool_full(void)
{
	assert_int_equal(pl.nfree, pl.nslots);
}

static enum port_verdict enq(struct port *p, int kind, uint32_t len, uint32_t id, uint64_t t)
{
	struct pkt *k = mk(kind, len, id);
	enum port_verdict v = port_enqueue(p, k, t);

	if (pv_dropped(v))
		pool_put(&pl, k);	/* refused: the caller's to free */
	return v;
}

/* ---- serialisation and propagation ------------------------------------------------ */

static void port_tx_ns__exact_values(void **state)
{
	assert_int_equal(port_tx_ns(1514, 1 * G), 12112);
	assert_int_equal(port_tx_ns(1514, 10 * G), 1211);	/* 1211.2, rounded down */
	assert_int_equal(port_tx_ns(1514, 3 * G), 4037);	/* 4037.33 */
	assert_int_equal(port_tx_ns(64, 10 * G), 51);
	assert_int_equal(port_tx_ns(1, 1000000), 8000);
	assert_int_equal(port_tx_ns(2048, 400 * G), 40);
	assert_int_equal(port_tx_ns(1514, 0), 0);
	assert_int_equal(port_tx_ns(FRAME_MAX, 1000000), FRAME_MAX * 8000ULL);	/* the longest at the slowest */
}

static void port__one_packet_serialised_then_propagated(void **state)
{
	struct port_cfg c = cfg(1 * G, 5000);
	struct port p;
	struct pkt *k;

	port_init(&p, "p", &c, 0, 1);
	assert_int_equal(port_next_event(&p), UINT64_MAX);
	k = mk(K_OTHER, 1514, 1);
	assert_int_equal(port_enqueue(&p, k, 1000), PV_QUEUED);
	assert_int_equal(p.data_bytes, 1514);
	assert_int_equal(port_next_event(&p), 1000 + 12112);
	port_run(&p, 1000 + 12111);
	assert_null(port_pop_arrived(&p, UINT64_MAX));	/* still being serialised */
	assert_int_equal(p.st.tx_pkts, 0);
	port_run(&p, 1000 + 12112);
	assert_int_equal(p.st.tx_pkts, 1);
	assert_int_equal(p.st.tx_bytes, 1514);
	assert_int_equal(p.data_bytes, 0);
	assert_int_equal(port_next_event(&p), 1000 + 12112 + 5000);
	assert_null(port_pop_arrived(&p, 1000 + 12112 + 4999));
	assert_ptr_equal(port_pop_arrived(&p, 1000 + 12112 + 5000), k);
	assert_int_equal(k->t_ready, 18112);
	assert_int_equal(k->t_arrive, 1000);
	assert_int_equal(port_next_event(&p), UINT64_MAX);
	pool_put(&pl, k);
	assert_pool_full();
}

/* N packets at once leave at exactly k * tx; the same whether the caller
 * steps through every event or calls once, late. */
static void port__back_to_back_burst(void **state)
{
	struct port_cfg c = cfg(1 * G, 7000);
	struct port p;

	for (int late = 0; late <= 1; late++) {
		port_init(&p, "p", &c, 0, 1);
		reset_out();
		for (uint32_t i = 0; i < 100; i++)
			assert_int_equal(enq(&p, K_OTHER, 1514, i, 0), PV_QUEUED);
		assert_int_equal(p.data_bytes, 100 * 1514);
		assert_int_equal(p.data_pkts, 100);
		if (late) {
			port_run(&p, 10 * G);
			collect(&p, 10 * G);
		} else {
			step_until(&p, 10 * G);
		}
		assert_int_equal(nout, 100);
		for (int i = 0; i < 100; i++) {
			assert_int_equal(outs[i].id, i);
			assert_int_equal(outs[i].t, (uint64_t)(i + 1) * 12112 + 7000);
		}
		assert_int_equal(p.data_bytes, 0);
		assert_pool_full();
	}
}

/* At rates that do not divide a second into whole ns per packet the
 * remainder is carried: packet k of a busy period ends at exactly
 * floor(bits of packets 1..k * 1e9 / rate), over 1e5 packets; and after
 * the link idles the fraction is forgotten. */
static void port__no_drift_over_1e5_packets(void **state)
{
	static const uint64_t rates[] = { 3 * G, 7300000000ULL, 999999937ULL };

	rng_state = 10;
	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		struct port_cfg c = cfg(rates[r], 0);
		uint64_t bits = 0, t = 0;
		uint32_t next = 0, want = 0;
		struct port p;

		port_init(&p, "p", &c, 0, 1);
		reset_out();
		for (int i = 0; i < 4; i++)	/* keep 4 in the port: it never idles */
			enq(&p, K_OTHER, r == 0 ? 1514 : 64 + rnd32() % 1451, next++, 0);
		while (want < 100000) {
			t = port_next_event(&p);
			port_run(&p, t);
			collect(&p, t);
			for (; (int)want < nout; want++) {
				struct out *o = &outs[want];

				assert_int_equal(o->id, want);
				bits += 8ULL * o->len;
				if (o->t != bits * G / rates[r])
					fail_msg("rate %llu: packet %u ends at %llu, want %llu", (unsigned long long)rates[r],
						 want, (unsigned long long)o->t, (unsigned long long)(bits * G / rates[r]));
				enq(&p, K_OTHER, r == 0 ? 1514 : 64 + rnd32() % 1451, next++, t);
			}
		}
		/* Idle, then one packet: a fresh start, no carried fraction. */
		step_until(&p, t + 1000000);
		reset_out();
		enq(&p, K_OTHER, 1514, 0, t + 2000000);
		step_until(&p, t + 3000000);
		assert_int_equal(nout, 1);
		assert_int_equal(outs[0].t, t + 2000000 + 1514ULL * 8 * G / rates[r]);
		assert_pool_full();
	}
}

/* With the link rate a whole number of ns per byte (1 Gbit/s: 8 ns), the
 * time a packet waits is the data occupancy it found on arrival / rate
 * when it arrives as a packet ends, and between that less the part of the
 * packet in service already sent, and that, when it arrives mid-packet. */
static void port__queueing_delay_is_occupancy_over_rate(void **state)
{
	struct port_cfg c = cfg(1 * G, 0);
	struct port p;
	uint64_t t = 0, found[64], arr[32];
	uint32_t lens[64];

	rng_state = 11;
	/* A burst at t = 0 of random sizes. */
	port_init(&p, "p", &c, 0, 1);
	reset_out();
	for (int i = 0; i < 64; i++) {
		lens[i] = 64 + rnd32() % 1451;
		found[i] = p.data_bytes;
		enq(&p, K_OTHER, lens[i], (uint32_t)i, 0);
	}
	step_until(&p, G);
	assert_int_equal(nout, 64);
	for (int i = 0; i < 64; i++)
		assert_int_equal(outs[i].t - 8ULL * lens[i] - 0, found[i] * 8);

	/* Arrivals exactly when a packet ends: wait = occupancy * 8 ns. */
	port_init(&p, "p", &c, 0, 1);
	reset_out();
	for (int i = 0; i < 8; i++)
		enq(&p, K_OTHER, 1000, 1000 + (uint32_t)i, 0);
	for (int i = 0; i < 32; i++) {
		uint64_t e = port_next_event(&p), occ;

		port_run(&p, e);
		collect(&p, e);
		occ = p.data_bytes;
		lens[i] = 64 + rnd32() % 1451;
		found[i] = occ;
		enq(&p, K_OTHER, lens[i], (uint32_t)i, e);
		arr[i] = e;
	}
	step_until(&p, G);
	for (int n = 0; n < nout; n++) {
		uint32_t i = outs[n].id;

		if (i >= 1000)
			continue;
		assert_int_equal(outs[n].t - 8ULL * lens[i] - arr[i], found[i] * 8);
	}
	assert_int_equal(nout, 40);

	/* Random arrival times: (occupancy - packet in service) / rate <= wait <= occupancy / rate. */
	port_init(&p, "p", &c, 0, 1);
	reset_out();
	{
		static uint64_t arr[20000], lo[20000], hi[20000];
		static uint32_t len2[20000];

		for (uint32_t i = 0; i < 20000; i++) {
			t += rnd32() % 16000;	/* load about 0.8 */
			step_until(&p, t);
			len2[i] = 64 + rnd32() % 1451;
			hi[i] = p.data_bytes * 8;
			lo[i] = (p.data_bytes - (p.svc ? p.svc->len : 0)) * 8;
			arr[i] = t;
			enq(&p, K_OTHER, len2[i], i, t);
		}
		step_until(&p, t + G);
		assert_int_equal(nout, 20000);
		for (int n = 0; n < nout; n++) {
			uint32_t i = outs[n].id;
			uint64_t wait = outs[n].t - 8ULL * len2[i] - arr[i];

			assert_true(wait >= lo[i]);
			assert_true(wait <= hi[i]);
		}
	}
	assert_pool_full();
}

/* A link of rate 0 is a delay line: no serialisation, no queue. */
static void port__rate_zero_is_a_delay_line(void **state)
{
	struct port_cfg c = cfg(0, 5000);
	struct port p;

	port_init(&p, "p", &c, 0, 1);
	reset_out();
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(enq(&p, K_OTHER, 1514, i, 100 * i), PV_QUEUED);
	assert_int_equal(p.data_bytes, 0);
	assert_int_equal(port_next_event(&p), 5000);
	step_until(&p, G);
	assert_int_equal(nout, 10);
	for (int i = 0; i < 10; i++)
		assert_int_equal(outs[i].t, 100 * i + 5000);
	assert_int_equal(p.st.enq_pkts, 10);
	assert_int_equal(p.st.tx_pkts, 10);
	assert_pool_full();
}

/* ---- strict priority ------------------------------------------------------------------- */

/* Control packets that arrive while data is queued leave before the
 * queued data, in their own order, but never cut into the packet being
 * serialised. */
static void port__strict_priority_without_preemption(void **state)
{
	struct port_cfg c = cfg(1 * G, 0);
	static const struct { uint32_t id; uint64_t t; } want[] = {
		{ 1, 8000 },		/* A: in service when the control packets came */
		{ 10, 8800 },		/* P: 100 B */
		{ 11, 9600 },		/* Q: 100 B */
		{ 2, 17600 },		/* B */
		{ 12, 18400 },		/* R: came while B was in service */
		{ 3, 26400 },		/* C */
	};
	struct port p;

	port_init(&p, "p", &c, 0, 1);
	reset_out();
	assert_int_equal(enq(&p, K_OTHER, 1000, 1, 0), PV_QUEUED);
	assert_int_equal(enq(&p, K_ECT, 1000, 2, 0), PV_QUEUED);
	assert_int_equal(enq(&p, K_DATA, 1000, 3, 0), PV_QUEUED);
	assert_int_equal(enq(&p, K_CTRL, 100, 10, 100), PV_PRIO);
	assert_int_equal(enq(&p, K_CTRL, 100, 11, 7999), PV_PRIO);
	assert_int_equal(p.prio.pkts, 2);
	assert_int_equal(p.data_bytes, 3000);	/* control does not count as data */
	{
		struct port_occ_summary s;

		port_occ_summary(&p, 7999, &s);
		assert_int_equal(s.prio_max_bytes, 200);
		assert_int_equal(s.max_bytes, 3000);
	}
	step_until(&p, 10000);
	assert_int_equal(enq(&p, K_CTRL, 100, 12, 10000), PV_PRIO);
	step_until(&p, G);
	assert_int_equal(nout, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(outs[i].id, want[i].id);
		assert_int_equal(outs[i].t, want[i].t);
	}
	assert_pool_full();
}

/* An idle link takes whatever comes first, data included: a control
 * packet that arrives 1 ns after a data packet waits for all of it. */
static void port__priority_does_not_reach_back_in_time(void **state)
{
	struct port_cfg c = cfg(1 * G, 0);
	struct port p;

	port_init(&p, "p", &c, 0, 1);
	reset_out();
	enq(&p, K_OTHER, 1514, 1, 1000);
	enq(&p, K_CTRL, 64, 2, 1001);
	step_until(&p, G);
	assert_int_equal(nout, 2);
	assert_int_equal(outs[0].id, 1);
	assert_int_equal(outs[0].t, 1000 + 12112);
	assert_int_equal(outs[1].t, 1000 + 12112 + 512);
	assert_pool_full();
}

/* ---- drop-tail, ECN, trimming ----------------------------------------------------------- */

/* The data queue (the packet in service included) takes a packet that
 * fills it to exactly `buffer` and refuses one byte more. */
static void port__drop_tail_exactly_at_buffer(void **state)
{
	struct port_cfg c = cfg(1000000, 0);	/* 1 Mbit/s: nothing leaves during the test */
	struct port p;

	c.buffer = 10000;
	port_init(&p, "p", &c, 0, 1);
	reset_out();
	for (uint32_t i = 0; i < 9; i++)
		assert_int_equal(enq(&p, K_OTHER, 1000, i, 0), PV_QUEUED);
	assert_int_equal(enq(&p, K_OTHER, 1001, 9, 0), PV_DROP_FULL);
	assert_int_equal(p.st.drop_full, 1);
	assert_int_equal(enq(&p, K_OTHER, 1000, 10, 0), PV_QUEUED);	/* exactly 10000 */
	assert_int_equal(p.data_bytes, 10000);
	assert_int_equal(enq(&p, K_OTHER, 64, 11, 1), PV_DROP_FULL);
	assert_int_equal(enq(&p, K_ECT, 64, 12, 2), PV_DROP_FULL);
	assert_int_equal(enq(&p, K_DATA, 64, 13, 3), PV_DROP_FULL);	/* trim off: edgeq DATA too */
	assert_int_equal(p.st.drop_full, 4);
	assert_int_equal(p.st.enq_pkts, 10);
	assert_int_equal(p.st.enq_bytes, 10000);
	assert_int_equal(p.data_bytes, 10000);
	assert_true(p.data_bytes <= c.buffer);
	/* Control traffic has its own queue. */
	assert_int_equal(enq(&p, K_CTRL, 64, 14, 4), PV_PRIO);
	/* When the first packet has left there is room for 1000 bytes again. */
	step_until(&p, 8000000);
	assert_int_equal(nout, 1);
	assert_int_equal(enq(&p, K_OTHER, 1001, 15, 8000000), PV_DROP_FULL);
	assert_int_equal(enq(&p, K_OTHER, 1000, 16, 8000000), PV_QUEUED);
	step_until(&p, 100 * G);
	assert_int_equal(nout, 12);
	assert_pool_full();
}

/* ECT packets are marked exactly when the data occupancy they find is
 * above K: with 1000-byte packets the fourth finds 3000 bytes, marked for
 * K = 2999, not for K = 3000 or 3001. */
static void port__ecn_marks_above_k_exactly(void **state)
{
	for (uint32_t K = 2998; K <= 3001; K++) {
		struct port_cfg c = cfg(1000000, 0);
		enum port_verdict v;
		struct port p;

		c.ecn_k = K;
		port_init(&p, "p", &c, 0, 1);
		reset_out();
		for (uint32_t i = 0; i < 3; i++)
			assert_int_equal(enq(&p, K_ECT, 1000, i, 0), PV_QUEUED);
		v = enq(&p, K_ECT, 1000, 3, 0);
		assert_int_equal(v, 3000 > K ? PV_MARKED : PV_QUEUED);
		assert_int_equal(enq(&p, K_ECT, 1000, 4, 0), PV_MARKED);	/* finds 4000 */
		assert_int_equal(p.st.marks, 3000 > K ? 2 : 1);
		step_until(&p, 100 * G);
		assert_int_equal(nout, 5);
		for (int i = 0; i < 5; i++) {
			assert_int_equal(outs[i].ecn, i == 4 || (i == 3 && 3000 > K) ? 3 : 2);
			assert_true(outs[i].csum_ok);
		}
		assert_pool_full();
	}
}

/* Only ECN-capable packets are marked: Not-ECT passes unmarked and
 * unchanged, ECT(1) and IPv6 are marked, control packets in the priority
 * queue are not (they do not wait behind the data), K = off never marks,
 * K = 0 marks anything that finds a byte. */
static void port__ecn_marks_only_ect_data(void **state)
{
	struct port_cfg c = cfg(1000000, 0);
	struct port p;

	c.ecn_k = 0;
	port_init(&p, "p", &c, 0, 1);
	reset_out();
	assert_int_equal(enq(&p, K_ECT, 500, 0, 0), PV_QUEUED);	/* finds 0 */
	assert_int_equal(enq(&p, K_OTHER, 500, 1, 0), PV_QUEUED);	/* Not-ECT */
	assert_int_equal(enq(&p, K_ECT6, 500, 2, 0), PV_MARKED);
	assert_int_equal(enq(&p, K_DATA, 500, 3, 0), PV_MARKED);	/* trim off */
	assert_int_equal(enq(&p, K_CTRL, 100, 4, 0), PV_PRIO);
	assert_int_equal(p.st.marks, 2);
	step_until(&p, 100 * G);
	assert_int_equal(nout, 5);
	for (int i = 0; i < 5; i++) {
		static const uint8_t want_ecn[] = { [0] = 2, [1] = 0, [2] = 3, [3] = 3, [4] = 0 };
		uint32_t id = outs[i].id;

		assert_int_equal(outs[i].ecn, want_ecn[id]);
		assert_true(outs[i].csum_ok);
	}

	c.ecn_k = PORT_OFF;
	port_init(&p, "p", &c, 0, 1);
	reset_out();
	for (uint32_t i = 0; i < 50; i++)
		assert_int_equal(enq(&p, K_ECT, 1514, i, 0), PV_QUEUED);
	assert_int_equal(p.st.marks, 0);
	step_until(&p, 1000 * G);
	for (int i = 0; i < nout; i++)
		assert_int_equal(outs[i].ecn, 2);
	assert_pool_full();
}

/* edgeq DATA is trimmed exactly when the data occupancy plus its length
 * would exceed the threshold; the header goes to the priority queue and
 * leaves before the queued data; other traffic is not trimmed. */
static void port__trim_exactly_above_threshold(void **state)
{
	struct port_cfg c = cfg(1 * G, 0);
	struct port p;

	c.trim = 5000;
	c.buffer = 20000;
	port_init(&p, "p", &c, 0, 1);
	reset_out();
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(enq(&p, K_DATA, 1000, i, 0), PV_QUEUED);
	assert_int_equal(enq(&p, K_DATA, 1001, 4, 0), PV_TRIMMED);	/* 4000 + 1001 > 5000 */
	assert_int_equal(p.data_bytes, 4000);
	assert_int_equal(p.prio.pkts, 1);
	assert_int_equal(p.prio.bytes, 62);
	assert_int_equal(enq(&p, K_DATA, 1000, 5, 0), PV_QUEUED);	/* 4000 + 1000 = 5000 */
	assert_int_equal(enq(&p, K_DATA, 64, 6, 0), PV_TRIMMED);
	assert_int_equal(enq(&p, K_OTHER, 1000, 7, 0), PV_QUEUED);	/* not edgeq DATA */
	assert_int_equal(enq(&p, K_ECT, 1000, 8, 0), PV_QUEUED);
	assert_int_equal(p.st.trims, 2);
	assert_int_equal(p.data_bytes, 7000);
	assert_int_equal(p.st.enq_bytes, 7000 + 62 + 62);	/* counted as trimmed */
	step_until(&p, G);
	assert_int_equal(nout, 9);
	/* Packet 0 was in service; then the two headers, then the data in order. */
	{
		static const uint32_t order[] = { 0, 4, 6, 1, 2, 3, 5, 7, 8 };

		for (int i = 0; i < 9; i++) {
			assert_int_equal(outs[i].id, order[i]);
			assert_true(outs[i].csum_ok);
			if (order[i] == 4 || order[i] == 6) {
				assert_int_equal(outs[i].len, 62);
				assert_int_equal(outs[i].eq_type, EQ_T_TRIMMED);
			}
		}
		assert_int_equal(outs[1].t, 8000 + 62 * 8);
	}
	assert_pool_full();
}

/* The priority queue drops what would take it above prio_buffer; that
 * includes trimmed headers (counted as trimmed and dropped). */
static void port__prio_buffer_overflow_drops(void **state)
{
	struct port_cfg c = cfg(1000000, 0);
	struct port p;

	c.prio_buffer = 500;
	c.trim = 1000;
	port_init(&p, "p", &c, 0, 1);
	reset_out();
	assert_int_equal(enq(&p, K_OTHER, 1000, 0, 0), PV_QUEUED);	/* busy: the rest waits */
	for (uint32_t i = 1; i <= 5; i++)
		assert_int_equal(enq(&p, K_CTRL, 100, i, 0), PV_PRIO);
	assert_int_equal(p.prio.bytes, 500);
	assert_int_equal(enq(&p, K_CTRL, 100, 6, 0), PV_DROP_PRIO);
	assert_int_equal(enq(&p, K_CTRL, 64, 7, 0), PV_DROP_PRIO);
	assert_int_equal(enq(&p, K_DATA, 1000, 8, 0), PV_DROP_PRIO);	/* trimmed, no room */
	assert_int_equal(p.st.drop_prio, 3);
	assert_int_equal(p.st.trims, 1);
	assert_int_equal(p.prio.bytes, 500);
	assert_int_equal(p.st.enq_pkts, 6);
	step_until(&p, 100 * G);
	assert_int_equal(nout, 6);
	assert_pool_full();
}

/* ---- loss and link state -------------------------------------------------------------- */

/* What a black-holed link took, by kind: edgeq control frames, edgeq DATA
 * of a small inner packet (under PORT_SMALL_DATA bytes: a bare TCP ACK
 * through the tunnel), the rest (full DATA, plain traffic) in neither. */
static void port__loss_by_kind(void **state)
{
	static const struct { int kind; uint32_t len, n; } mix[] = {
		{ K_DATA, 1514, 7 }, { K_DATA, PORT_SMALL_DATA - 1, 5 }, { K_DATA, PORT_SMALL_DATA, 2 },
		{ K_CTRL, 90, 3 }, { K_OTHER, 100, 4 },
	};
	struct port_cfg c = cfg(10 * G, 1000);
	struct port p;
	uint32_t id = 0, total = 0;

	(void)state;
	c.loss_ppm = 1000000;
	port_init(&p, "p", &c, 0, 1);
	reset_out();
	for (unsigned m = 0; m < sizeof(mix) / sizeof(mix[0]); m++)
		for (uint32_t i = 0; i < mix[m].n; i++, total++)
			enq(&p, mix[m].kind, mix[m].len, id++, 0);
	step_until(&p, G);
	assert_int_equal(p.st.drop_loss, total);
	assert_int_equal(p.st.drop_loss_ctl, 3);
	assert_int_equal(p.st.drop_loss_small, 5);
	assert_pool_full();
}

/* Random loss on the link: none at 0, everything at 1e6 ppm, about 10% at
 * 1e5 (binomial, 20000 packets: sd 42, bound 5 sd).  Lost packets were
 * serialised (the link was busy), so the survivors' times do not move. */
static void port__random_loss(void **state)
{
	static const uint32_t ppm[] = { 0, 1000000, 100000 };

	for (int r = 0; r < 3; r++) {
		struct port_cfg c = cfg(10 * G, 1000);
		struct port p;
		uint32_t n = 20000;
		uint64_t now = 0;

		c.loss_ppm = ppm[r];
		port_init(&p, "p", &c, 0, 12345);
		reset_out();
		for (uint32_t i = 0; i < n; i++) {
			enq(&p, K_OTHER, 1250, i, now);	/* 1000 ns each, never idle */
			if (i % 1000 == 999)
				step_until(&p, now = (i - 500) * 1000ULL);	/* keep the pool small */
		}
		step_until(&p, G);
		assert_int_equal(nout + nlost, n);
		assert_int_equal(p.st.drop_loss, nlost);
		assert_int_equal(p.st.drop_loss_bytes, (uint64_t)nlost * 1250);
		assert_int_equal(p.st.tx_pkts, n);
		if (ppm[r] == 0)
			assert_int_equal(nlost, 0);
		else if (ppm[r] == 1000000)
			assert_int_equal(nout, 0);
		else if (nlost < 2000 - 210 || nlost > 2000 + 210)
			fail_msg("%d of %u lost at 10%%", nlost, n);
		for (int i = 0; i < nout; i++)
			assert_int_equal(outs[i].t, (outs[i].id + 1) * 1000ULL + 1000);
		assert_pool_full();
	}
}

/* Going down loses the packet in service, the queues and what is on the
 * wire, counted; arrivals while down are refused (the caller keeps them);
 * back up, the port starts afresh. */
static void port__link_down_flushes_and_refuses(void **state)
{
	struct port_cfg c = cfg(1 * G, 100000);
	struct port p;
	struct pkt *k;

	port_init(&p, "p", &c, 0, 1);
	reset_out();
	for (uint32_t i = 0; i < 5; i++)
		enq(&p, K_OTHER, 1000, i, 0);
	enq(&p, K_CTRL, 100, 10, 10000);
	/* at 20000: 0 and 1 on the wire, 10 (prio, 16000..16800) on the wire,
	 * 2 in service (16800..24800), 3 and 4 queued */
	step_until(&p, 20000);
	assert_int_equal(p.wire.pkts, 3);
	assert_non_null(p.svc);
	assert_int_equal(p.data.pkts, 2);
	port_set_up(&p, false, 20000);
	assert_false(p.up);
	assert_int_equal(p.st.drop_down, 6);
	assert_int_equal(p.gone.pkts, 6);
	assert_int_equal(p.data_bytes, 0);
	assert_int_equal(p.data_pkts, 0);
	assert_null(p.svc);
	assert_int_equal(p.wire.pkts + p.data.pkts + p.prio.pkts, 0);
	assert_int_equal(port_next_event(&p), UINT64_MAX);
	collect(&p, 20000);
	assert_int_equal(nlost, 6);

	k = mk(K_OTHER, 1000, 20);
	assert_int_equal(port_enqueue(&p, k, 25000), PV_DROP_DOWN);
	assert_int_equal(p.st.drop_down, 7);
	assert_int_equal(p.gone.pkts, 0);	/* refused, not taken */
	pool_put(&pl, k);
	assert_int_equal(enq(&p, K_CTRL, 100, 21, 25000), PV_DROP_DOWN);
	port_set_up(&p, false, 26000);		/* already down: nothing */
	assert_int_equal(p.st.drop_down, 8);

	port_set_up(&p, true, 30000);
	assert_true(p.up);
	assert_int_equal(enq(&p, K_OTHER, 1000, 30, 40000), PV_QUEUED);
	step_until(&p, G);
	assert_int_equal(nout, 1);
	assert_int_equal(outs[0].id, 30);
	assert_int_equal(outs[0].t, 40000 + 8000 + 100000);
	assert_int_equal(p.st.enq_pkts, 7);
	assert_int_equal(p.st.tx_pkts, 4);	/* 0, 1 and 10 before the failure, 30 after */
	assert_pool_full();
}

/* ---- occupancy statistics ----------------------------------------------------------------- */

/* 1000-byte packets at 1 Mbit/s take 8 ms each.  Three at t = 0: the data
 * queue holds 3000, 2000, 1000 bytes for 8 ms each, then nothing until
 * 1 s.  Mean 48 bytes, max 3000 / 3 packets; 99% of the time is spent at
 * or below 2000 bytes (bucket 3, upper edge 2048) and 2 packets. */
static void port__occupancy_statistics_by_hand(void **state)
{
	struct port_cfg c = cfg(1000000, 0);
	struct port_occ_summary s;
	struct port p;

	port_init(&p, "p", &c, 0, 1);
	reset_out();
	for (uint32_t i = 0; i < 3; i++)
		enq(&p, K_OTHER, 1000, i, 0);
	step_until(&p, G);
	port_occ_summary(&p, G, &s);
	assert_int_equal(s.window_ns, G);
	assert_float_equal(s.mean_bytes, 48.0, 1e-9);
	assert_float_equal(s.mean_pkts, 0.048, 1e-12);
	assert_int_equal(s.max_bytes, 3000);
	assert_int_equal(s.max_pkts, 3);
	assert_int_equal(s.p99_bytes, 2048);
	assert_int_equal(s.p99_pkts, 2);
	assert_int_equal(s.prio_max_bytes, 0);
	assert_int_equal(nout, 3);

	/* Two packets at 1 Gbit/s, 1000 bytes each, window 100 us: 2000 bytes
	 * for 8 us, 1000 for 8 us.  p99 lands in the 2000-byte bucket, whose
	 * upper edge (2048) is capped at the maximum seen. */
	c = cfg(1 * G, 0);
	port_init(&p, "p", &c, 0, 1);
	enq(&p, K_OTHER, 1000, 0, 0);
	enq(&p, K_OTHER, 1000, 1, 0);
	port_occ_summary(&p, 100000, &s);
	assert_int_equal(s.window_ns, 100000);
	assert_float_equal(s.mean_bytes, 240.0, 1e-9);
	assert_float_equal(s.mean_pkts, 0.24, 1e-12);
	assert_int_equal(s.max_bytes, 2000);
	assert_int_equal(s.p99_bytes, 2000);
	assert_int_equal(s.p99_pkts, 2);
	step_until(&p, G);
	assert_pool_full();
}

/* A queue held at exactly X bytes reports mean X whatever the window;
 * asking twice changes nothing; the window starts at init. */
static void port__occupancy_of_a_held_queue(void **state)
{
	struct port_cfg c = cfg(1000000, 0);	/* 1514 B: 12.112 ms */
	struct port_occ_summary s, s2;
	struct port p;

	port_init(&p, "p", &c, 5000, 1);
	reset_out();
	enq(&p, K_OTHER, 1514, 0, 5000);
	enq(&p, K_OTHER, 1514, 1, 5000);
	enq(&p, K_OTHER, 600, 2, 5000);
	for (uint64_t t = 6000; t < 12112000; t = t * 3) {
		port_occ_summary(&p, t, &s);
		assert_int_equal(s.window_ns, t - 5000);
		assert_float_equal(s.mean_bytes, 3628.0, 1e-9);
		assert_float_equal(s.mean_pkts, 3.0, 1e-12);
		assert_int_equal(s.max_bytes, 3628);
		assert_int_equal(s.p99_bytes, 3628);	/* bucket 7: 3584..4095, capped */
		port_occ_summary(&p, t, &s2);
		assert_memory_equal(&s, &s2, sizeof(s));
	}
	step_until(&p, 100 * G);
	assert_pool_full();
}

/* A reset zeroes the counters and restarts the window at the reset; the
 * maximum starts from what is queued then. */
static void port__stats_reset(void **state)
{
	struct port_cfg c = cfg(1000000, 0);	/* 1000 B: 8 ms */
	struct port_occ_summary s;
	struct port p;

	port_init(&p, "p", &c, 0, 1);
	reset_out();
	for (uint32_t i = 0; i < 4; i++)
		enq(&p, K_OTHER, 1000, i, 0);
	step_until(&p, 17000000);	/* two gone, 2000 bytes left */
	port_stats_reset(&p, 17000000);
	assert_int_equal(p.st.enq_pkts, 0);
	assert_int_equal(p.st.tx_pkts, 0);
	assert_int_equal(p.st.tx_bytes, 0);
	port_occ_summary(&p, 20000000, &s);
	assert_int_equal(s.window_ns, 3000000);
	assert_float_equal(s.mean_bytes, 2000.0, 1e-9);
	assert_int_equal(s.max_bytes, 2000);
	assert_int_equal(s.max_pkts, 2);
	step_until(&p, 36000000);
	port_occ_summary(&p, 36000000, &s);
	/* 2000 B from 17 to 24 ms, 1000 B to 32 ms, 0 to 36 ms */
	assert_int_equal(s.window_ns, 19000000);
	assert_float_equal(s.mean_bytes, (2000.0 * 7 + 1000.0 * 8) / 19, 1e-9);
	assert_int_equal(p.st.tx_pkts, 2);
	assert_int_equal(p.st.enq_pkts, 0);
	/* a reset of an idle port */
	port_stats_reset(&p, 40000000);
	port_occ_summary(&p, 40000000 + 1000, &s);
	assert_int_equal(s.window_ns, 1000);
	assert_float_equal(s.mean_bytes, 0.0, 0);
	assert_int_equal(s.max_bytes, 0);
	assert_int_equal(s.p99_bytes, 0);
	assert_pool_full();
}

/* ---- next event ---------------------------------------------------------------------------- */

static void port_next_event__the_earliest_of_service_and_wire(void **state)
{
	struct port_cfg c = cfg(1 * G, 3000);
	struct port p;

	port_init(&p, "p", &c, 0, 1);
	reset_out();
	assert_int_equal(port_next_event(&p), UINT64_MAX);
	enq(&p, K_OTHER, 1000, 0, 0);
	enq(&p, K_OTHER, 1000, 1, 0);
	assert_int_equal(port_next_event(&p), 8000);	/* service end */
	port_run(&p, 8000);
	assert_int_equal(port_next_event(&p), 11000);	/* 0 reaches the far end */
	collect(&p, 11000);
	assert_int_equal(nout, 1);
	assert_int_equal(port_next_event(&p), 16000);	/* 1's service end */
	port_run(&p, 16000);
	assert_int_equal(port_next_event(&p), 19000);
	collect(&p, 18999);
	assert_int_equal(nout, 1);
	collect(&p, 19000);
	assert_int_equal(nout, 2);
	assert_int_equal(port_next_event(&p), UINT64_MAX);
	assert_pool_full();
}

/* A feature added to a port (feature.h) sees each packet on its way in
 * (after the built-in ones, which have decided its class), each one the
 * port took, and each one serialised; a packet the port drops is seen
 * arriving only. */
static int n_arrive, n_queued, n_departed;
static uint64_t last_feat_t;
static bool saw_prio;
static void f_arrive(struct port *p, struct pkt *k, uint64_t t, struct port_enq *e)
{
	n_arrive++;
	last_feat_t = t;
	saw_prio = e->prio;
}
static void f_queued(struct port *p, struct pkt *k, uint64_t t, struct port_enq *e)
{
	n_queued++;
	last_feat_t = t;
}
static void f_departed(struct port *p, struct pkt *k, uint64_t t)
{
	n_departed++;
	last_feat_t = t;
}

static void port__features(void **state)
{
	static const struct port_feature f = { .name = "test", .arrive = f_arrive,
					       .queued = f_queued, .departed = f_departed };
	struct port_cfg c = cfg(1 * G, 0);
	struct port p;

	c.buffer = 1500;
	port_init(&p, "p", &c, 0, 1);
	/* The built-in three (trim and ECN off here), then this one. */
	assert_int_equal(p.nfeat, 3);
	assert_int_equal(port_add_feature(&p, &f), 0);
	reset_out();
	n_arrive = n_queued = n_departed = 0;
	enq(&p, K_OTHER, 1000, 0, 500);
	assert_int_equal(n_arrive, 1);
	assert_int_equal(n_queued, 1);
	assert_false(saw_prio);
	assert_int_equal(last_feat_t, 500);
	enq(&p, K_CTRL, 100, 1, 600);
	assert_true(saw_prio);		/* the priority feature came first */
	assert_int_equal(enq(&p, K_OTHER, 1000, 2, 700), PV_DROP_FULL);	/* 2000 > 1500 bytes */
	assert_int_equal(n_arrive, 3);
	assert_int_equal(n_queued, 2);
	step_until(&p, G);
	assert_int_equal(n_departed, 2);
	assert_int_equal(last_feat_t, 500 + 8000 + 800);
	while (p.nfeat < PORT_FEATURES_MAX)
		assert_int_equal(port_add_feature(&p, &f), 0);
	assert_int_equal(port_add_feature(&p, &f), -1);	/* full */
	assert_pool_full();
}

/* Every port has the built-in features, in the order that makes a
 * trimmed header control: trim, the priority queue, ECN; trimming and
 * marking follow their thresholds as a command changes them. */
static void port__builtin_features_follow_their_thresholds(void **state)
{
	struct port_cfg c = cfg(1 * G, 0);
	struct port p;

	port_init(&p, "p", &c, 0, 1);
	assert_int_equal(p.nfeat, 3);
	assert_ptr_equal(p.feat[0], &port_feature_trim);
	assert_ptr_equal(p.feat[1], &port_feature_prio);
	assert_ptr_equal(p.feat[2], &port_feature_ecn);
	reset_out();
	assert_int_equal(enq(&p, K_DATA, 1500, 0, 0), PV_QUEUED);
	assert_int_equal(enq(&p, K_DATA, 1500, 1, 0), PV_QUEUED);	/* both off */
	p.cfg.trim = 2000;	/* as `port p trim 2000` does */
	assert_int_equal(enq(&p, K_DATA, 1500, 2, 0), PV_TRIMMED);
	p.cfg.trim = PORT_OFF;
	p.cfg.ecn_k = 1000;
	assert_int_equal(enq(&p, K_DATA, 1500, 3, 0), PV_MARKED);
	step_until(&p, G);
	assert_pool_full();
}

/* ---- property test -------------------------------------------------------------------------- */

struct prop_rec {
	uint64_t t_arrive;
	uint32_t len;		/* after trimming */
	enum port_verdict v;
	bool ect;
};

static struct prop_rec recs[60000];

static void check_state(const struct port *p, uint64_t offered, const struct port_cfg *c)
{
	const struct port_stats *st = &p->st;
	uint64_t svc_b = p->svc ? p->svc->len : 0;
	uint64_t svc_data_b = p->svc && !p->svc->prio ? p->svc->len : 0;

	assert_int_equal(offered, st->enq_pkts + st->drop_full + st->drop_prio);
	assert_int_equal(st->enq_pkts, st->tx_pkts + p->data.pkts + p->prio.pkts + (p->svc ? 1 : 0));
	assert_int_equal(st->enq_bytes, st->tx_bytes + p->data.bytes + p->prio.bytes + svc_b);
	assert_int_equal(st->tx_pkts, (uint64_t)nout + st->drop_loss + p->wire.pkts);
	assert_int_equal(st->drop_loss, nlost);
	assert_int_equal(p->data_bytes, p->data.bytes + svc_data_b);
	assert_int_equal(p->data_pkts, p->data.pkts + (svc_data_b ? 1 : 0));
	assert_true(p->data_bytes <= c->buffer);
	assert_true(p->prio.bytes <= c->prio_buffer);
	/* work conserving: nothing waits while the link is free */
	if (!p->svc)
		assert_true(!p->data.head && !p->prio.head);
}

/* Random traffic (plain, ECT, edgeq DATA and control; 64..1514 bytes;
 * load from 0.3 to 2) on random configurations, checked after every event. */
static void port__random_traffic_invariants(void **state)
{
	static const uint64_t rates[] = { 1 * G, 3 * G, 10 * G, 25 * G, 2500000000ULL };

	rng_state = 12;
	for (int cfgno = 0; cfgno < 24; cfgno++) {
		struct port_cfg c = cfg(rates[rnd32() % 5], rnd32() % 50000);
		uint64_t t = 1000, offered = 0, last_t = 0;
		uint32_t n = 20000 + rnd32() % 20000, last_id[2] = { 0, 0 };
		double load = 0.3 + (rnd32() % 1700) / 1000.0;
		bool seen[2] = { false, false };
		struct port_occ_summary s;
		struct port p;
		int checked = 0;

		c.buffer = 4000 + rnd32() % 200000;
		c.prio_buffer = 1000 + rnd32() % 20000;
		c.ecn_k = rnd32() % 3 ? rnd32() % c.buffer : PORT_OFF;
		c.trim = rnd32() % 2 ? rnd32() % c.buffer : PORT_OFF;
		c.loss_ppm = rnd32() % 3 ? 0 : rnd32() % 50000;
		port_init(&p, "p", &c, t, rnd64());
		reset_out();
		for (uint32_t i = 0; i < n; i++) {
			uint32_t kind = rnd32() % 4, len = 64 + rnd32() % 1451;
			uint64_t found, mean_gap = port_tx_ns(777, c.rate_bps) / load;
			enum port_verdict v, want;
			struct pkt *k;
			bool ect;

			if (kind == K_CTRL)
				len = 62 + rnd32() % 100;
			t += rnd64() % (2 * mean_gap + 1);
			step_until(&p, t);
			check_state(&p, offered, &c);
			/* verify the departures so far, in order */
			for (; checked < nout; checked++) {
				struct out *o = &outs[checked];
				struct prop_rec *r = &recs[o->id];
				int q = r->v == PV_PRIO || r->v == PV_TRIMMED;

				assert_true(o->t >= last_t);
				last_t = o->t;
				assert_true(o->t >= r->t_arrive + port_tx_ns(r->len, c.rate_bps) + c.delay_ns);
				if (seen[q])
					assert_true(o->id > last_id[q]);	/* FIFO within the class */
				seen[q] = true;
				last_id[q] = o->id;
				assert_int_equal(o->len, r->len);
				assert_true(o->csum_ok);
				if (r->v == PV_MARKED)
					assert_int_equal(o->ecn, 3);
				else
					assert_int_equal(o->ecn, r->ect ? 2 : 0);
				if (r->v == PV_TRIMMED)
					assert_int_equal(o->eq_type, EQ_T_TRIMMED);
			}
			/* The verdict the rules give for the state found. */
			found = p.data_bytes;
			ect = kind == K_ECT || kind == K_DATA;
			if (kind == K_CTRL) {
				want = p.prio.bytes + len > c.prio_buffer ? PV_DROP_PRIO : PV_PRIO;
			} else if (kind == K_DATA && c.trim != PORT_OFF && found + len > c.trim) {
				want = p.prio.bytes + 62 > c.prio_buffer ? PV_DROP_PRIO : PV_TRIMMED;
			} else if (found + len > c.buffer) {
				want = PV_DROP_FULL;
			} else {
				want = ect && c.ecn_k != PORT_OFF && found > c.ecn_k ? PV_MARKED : PV_QUEUED;
			}
			k = mk((int)kind, len, i);
			v = port_enqueue(&p, k, t);
			offered++;
			if (v != want)
				fail_msg("config %d packet %u: verdict %d, want %d (found %llu, len %u, kind %u)",
					 cfgno, i, v, want, (unsigned long long)found, len, kind);
			recs[i] = (struct prop_rec){ .t_arrive = t, .len = k->len, .v = v, .ect = ect };
			if (pv_dropped(v))
				pool_put(&pl, k);
			check_state(&p, offered, &c);
		}
		step_until(&p, t + 10 * G);
		check_state(&p, offered, &c);
		assert_int_equal(p.data_bytes, 0);
		assert_int_equal(nout + nlost + p.st.drop_full + p.st.drop_prio, n);
		port_occ_summary(&p, t + 10 * G, &s);
		assert_true(s.max_bytes <= c.buffer);
		assert_true(s.mean_bytes <= (double)s.max_bytes);
		assert_true(s.p99_bytes <= s.max_bytes);
		assert_true(s.prio_max_bytes <= c.prio_buffer);
		assert_pool_full();
	}
}

/* A caller that runs the port only when packets arrive (and once at the
 * end, late) sees the same departures as one that steps every event. */
static void port__late_caller_changes_nothing(void **state)
{
	static uint64_t t1[20000];
	struct port_cfg c = cfg(3 * G, 2000);
	int nout1 = 0;

	c.ecn_k = 20000;
	c.trim = 40000;
	c.buffer = 60000;
	c.prio_buffer = 5000;
	for (int late = 0; late <= 1; late++) {
		uint64_t t = 0;
		struct port p;

		rng_state = 13;
		port_init(&p, "p", &c, 0, 1);
		reset_out();
		for (uint32_t i = 0; i < 20000; i++) {
			t += rnd32() % 6000;
			if (!late)
				step_until(&p, t);
			enq(&p, (int)(rnd32() % 4), 64 + rnd32() % 1451, i, t);
			if (late)
				collect(&p, t);	/* hand on what arrived, without stepping */
		}
		if (late) {
			port_run(&p, t + G);
			collect(&p, t + G);
		} else {
			step_until(&p, t + G);
		}
		for (int i = 0; i < nout; i++) {
			if (!late)
				t1[outs[i].id] = outs[i].t;
			else
				assert_int_equal(outs[i].t, t1[outs[i].id]);
		}
		assert_true(nout > 15000);
		if (!late)
			nout1 = nout;
		assert_int_equal(nout, nout1);
		assert_pool_full();
	}
}

/* A fresh pool for every test, so that one that fails half-way (and
 * leaves packets out) does not fail the ones after it. */
static int pool_setup(void **state)
{
	return pool_init(&pl, NSLOTS);
}

static int pool_teardown(void **state)
{
	pool_fini(&pl);
	return 0;
}

#define T(fn)	cmocka_unit_test_setup_teardown(fn, pool_setup, pool_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(port_tx_ns__exact_values),
		T(port__one_packet_serialised_then_propagated),
		T(port__back_to_back_burst),
		T(port__no_drift_over_1e5_packets),
		T(port__queueing_delay_is_occupancy_over_rate),
		T(port__rate_zero_is_a_delay_line),
		T(port__strict_priority_without_preemption),
		T(port__priority_does_not_reach_back_in_time),
		T(port__drop_tail_exactly_at_buffer),
		T(port__ecn_marks_above_k_exactly),
		T(port__ecn_marks_only_ect_data),
		T(port__trim_exactly_above_threshold),
		T(port__prio_buffer_overflow_drops),
		T(port__random_loss),
		T(port__loss_by_kind),
		T(port__link_down_flushes_and_refuses),
		T(port__occupancy_statistics_by_hand),
		T(port__occupancy_of_a_held_queue),
		T(port__stats_reset),
		T(port_next_event__the_earliest_of_service_and_wire),
		T(port__features),
		T(port__builtin_features_follow_their_thresholds),
		T(port__random_traffic_invariants),
		T(port__late_caller_changes_nothing),
	};

	return cmocka_run_group_tests_name("fabric_port", tests, NULL, NULL);
}
