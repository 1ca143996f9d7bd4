// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the next control loops' rules, before they are
 * schemes (user/smartt/, user/sird/): the input picks a path (MTU, base
 * RTT, BDP, trimming or not) and a program of feedback, which drives
 * SMaRTT's window, NSCC's and REPS's rules and SIRD's receiver credit.
 * Whatever the program:
 *  - no memory error or undefined behaviour (ASan, UBSan: the fixed-point
 *    arithmetic's shifts and 128-bit products included);
 *  - each window stays within one MTU and its cap after every event;
 *  - REPS hands out entropies of its set only;
 *  - SIRD's outstanding credit stays within B, is the sum of the shares,
 *    a grant leaves its share within its sender's limit, and everything
 *    comes back to 0 once every grant arrived or was reclaimed.
 * Built and run by tests/fuzz/test_fuzz.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "window.h"
#include "nscc.h"
#include "reps.h"
#include "credit.h"

#define need(c) do { if (!(c)) { fprintf(stderr, "fuzz_rules: %s:%d: %s\n", __FILE__, \
					 __LINE__, #c); abort(); } } while (0)

struct in {
	const uint8_t	*p;
	size_t		n;
};

static uint64_t take(struct in *in, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++) {
		v = v << 8 | (in->n ? *in->p : 0);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

static void windows(struct in *in)
{
	struct smartt_settings s;
	struct smartt_params p;
	struct smartt_nscc_settings ns;
	struct smartt_nscc_params np;
	struct smartt_win w;
	struct smartt_nscc n;
	uint32_t mtu = 576 + (uint32_t)take(in, 2) % (9000 - 576 + 1);
	uint64_t brtt = 1000 + take(in, 3) % 10000000;			/* 1 us - 10 ms */
	uint64_t bdp = mtu + take(in, 3) % (16u << 20);
	uint64_t now = take(in, 2);
	bool trim = take(in, 1) & 1;

	smartt_settings_default(&s);
	s.trimming = trim;
	smartt_nscc_settings_default(&ns);
	ns.trimming = trim;
	need(!smartt_params_set(&p, &s, mtu, brtt, bdp));
	need(!smartt_nscc_params_set(&np, &ns, mtu, brtt, bdp));
	smartt_win_init(&w, &p);
	smartt_nscc_init(&n, &np, now);
	while (in->n) {
		uint8_t op = (uint8_t)take(in, 1);
		uint32_t size = 1 + (uint32_t)take(in, 2) % mtu;
		uint64_t rtt = op & 0x40 ? 0 : take(in, 3) % (100 * brtt);
		struct smartt_fb fb = { .size = size, .rtt_ns = rtt, .ecn = op & 0x20,
					.unacked = take(in, 3) };

		now += take(in, 2) * (op & 0x80 ? 1000 : 1);
		switch (op & 3) {
		case 0:
		case 1:
			smartt_on_ack(&w, &p, &fb, now);
			smartt_nscc_on_ack(&n, &np, size, rtt, fb.ecn, fb.unacked, now);
			break;
		case 2:
			smartt_on_loss(&w, &p, &fb, now);
			smartt_nscc_on_nack(&n, &np, size, fb.unacked, now);
			break;
		case 3:
			smartt_nscc_on_rto(&n, &np, size);
			break;
		}
		need(w.cwnd >= p.min_q && w.cwnd <= p.max_q);
		need(n.cwnd >= np.min_q && n.cwnd <= np.max_q);
	}
}

static void reps(struct in *in)
{
	struct smartt_reps r;
	uint32_t n = 1 + (uint32_t)take(in, 2) % SMARTT_REPS_MAX;

	need(!smartt_reps_init(&r, n, take(in, 3)));
	while (in->n) {
		uint8_t op = (uint8_t)take(in, 1);

		switch (op & 3) {
		case 0:
			need(smartt_reps_on_send(&r, (uint32_t)take(in, 2)) < n);
			break;
		case 1:
			smartt_reps_on_ack(&r, (uint32_t)take(in, 2), op & 4);
			break;
		case 2:
			smartt_reps_on_loss(&r);
			break;
		case 3:
			smartt_reps_restart(&r);
			break;
		}
	}
}

static void credit(struct in *in)
{
	static struct sird_rx r;
	uint64_t out[SIRD_MAX_SENDERS] = { 0 };
	uint32_t n = 1 + (uint32_t)take(in, 1) % SIRD_MAX_SENDERS, mtu = 576 + (uint32_t)take(in, 2) % 8500;
	uint64_t bdp = mtu + take(in, 3) % (16u << 20);
	uint32_t bb = SIRD_ONE + (uint32_t)take(in, 2) * 4;
	uint32_t c;

	need(!sird_rx_init(&r, n, bdp, mtu, bb, take(in, 1) & 1 ? SIRD_SHORTEST_FIRST
								 : SIRD_ROUND_ROBIN));
	while (in->n) {
		uint8_t op = (uint8_t)take(in, 1);
		uint32_t i = (uint32_t)take(in, 1) % n;
		int s;

		switch (op & 3) {
		case 0:
			sird_rx_want(&r, i, take(in, 3));
			break;
		case 1:
			if ((s = sird_rx_tick(&r, &c)) >= 0) {
				out[s] += c;
				need(r.s[s].sb <= sird_limit_bytes(&r.s[s].lim));
			}
			break;
		case 2:
		case 3: {
			uint64_t a = take(in, 2) % (mtu + 1);

			a = a < out[i] ? a : out[i];
			out[i] -= a;
			if ((op & 3) == 3)
				sird_rx_reclaim(&r, i, a);
			else
				sird_rx_on_data(&r, i, (uint32_t)a, true, op & 4, op & 8);
			break;
		}
		}
		uint64_t sum = 0;

		for (uint32_t j = 0; j < n; j++) {
			need(r.s[j].sb == out[j]);
			sum += r.s[j].sb;
		}
		need(r.b == sum && r.b <= r.B);
	}
	for (uint32_t j = 0; j < n; j++)
		sird_rx_reclaim(&r, j, out[j]);
	need(r.b == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, size };

	switch (take(&in, 1) % 3) {
	case 0:
		windows(&in);
		break;
	case 1:
		reps(&in);
		break;
	case 2:
		credit(&in);
		break;
	}
	return 0;
}
