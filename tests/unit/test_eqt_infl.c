// SPDX-License-Identifier: GPL-2.0-only
/*
 * user/core/infl.c: the in-flight ring.  Packets are found by seq, counted
 * with their bytes, visited in seq order (resends below the rest
 * included); the ring grows when two seqs in flight would share a slot,
 * and gives up the older packet only at its largest size; seqs wrap.
 * A random mix of puts and takes is checked against a plain list.
 */
#include "testlib.h"
#include <stdlib.h>
#include "infl.h"

static struct eqt_pkt *pkt(uint32_t seq, uint16_t len)
{
	struct eqt_pkt *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	p->seq = seq;
	p->len = len;
	return p;
}

static void free_cb(void *ctx, struct eqt_pkt *p)
{
	uint32_t *n = ctx;

	n[0]++;
	free(p);
}

/* Seqs taken out by drop_all, in the order given. */
struct order {
	uint32_t	seq[4096];
	unsigned	n;
};

static void order_cb(void *ctx, struct eqt_pkt *p)
{
	struct order *o = ctx;

	assert_true(o->n < 4096);
	o->seq[o->n++] = p->seq;
	free(p);
}

static void put__get__take_count_packets_and_bytes(void **state)
{
	struct eqt_infl f;
	struct eqt_pkt *p;

	assert_int_equal(eqt_infl_init(&f, 10, 100), 0);
	assert_int_equal(f.nslots, EQT_INFL_MIN_SLOTS);
	assert_null(eqt_infl_first(&f, &(uint32_t){ 0 }));
	for (uint32_t s = 100; s < 110; s++)
		assert_null(eqt_infl_put(&f, pkt(s, (uint16_t)s)));
	assert_int_equal(f.n, 10);
	assert_int_equal(f.bytes, 1045);		/* 100 + ... + 109 */
	assert_int_equal(f.lo, 100);
	assert_int_equal(f.hi, 110);
	assert_int_equal(eqt_infl_get(&f, 104)->seq, 104);
	assert_null(eqt_infl_get(&f, 110));
	assert_null(eqt_infl_get(&f, 100 + EQT_INFL_MIN_SLOTS));	/* same slot, other seq */
	/* Taking the lowest moves lo past every gap. */
	free(eqt_infl_take(&f, 101));
	free(eqt_infl_take(&f, 102));
	assert_int_equal(f.lo, 100);
	free(eqt_infl_take(&f, 100));
	assert_int_equal(f.lo, 103);
	assert_null(eqt_infl_take(&f, 100));		/* not held any more */
	assert_int_equal(f.n, 7);
	assert_int_equal(f.bytes, 1045 - 303);
	/* Put twice, counted once. */
	p = eqt_infl_get(&f, 105);
	assert_null(eqt_infl_put(&f, p));
	assert_int_equal(f.n, 7);
	for (uint32_t s = 103; s < 110; s++)
		free(eqt_infl_take(&f, s));
	assert_int_equal(f.n, 0);
	assert_int_equal(f.bytes, 0);
	assert_int_equal(f.lo, f.hi);
	eqt_infl_fini(&f);
}

/* A resend keeps its seq, below everything else held: lo goes back to
 * it, and a visit (the RTO's) finds it first. */
static void a_resend_below_the_rest_is_visited_first(void **state)
{
	struct eqt_infl f;
	struct eqt_pkt *p;
	uint32_t s, seen = 0;

	assert_int_equal(eqt_infl_init(&f, 64, 0), 0);
	for (s = 10; s < 20; s++)
		assert_null(eqt_infl_put(&f, pkt(s, 1500)));
	assert_null(eqt_infl_put(&f, pkt(3, 1500)));
	assert_int_equal(f.lo, 3);
	p = eqt_infl_first(&f, &s);
	assert_int_equal(p->seq, 3);
	for (; p; p = eqt_infl_next(&f, &s)) {
		assert_int_equal(p->seq, s);
		seen++;
		free(eqt_infl_take(&f, s));	/* a visitor may take what it visits */
	}
	assert_int_equal(seen, 11);
	assert_int_equal(f.n, 0);
	eqt_infl_fini(&f);
}

/* Two seqs in flight that share a slot make the ring double until they
 * do not (143 seqs 7 apart: 0 and 896 share a slot of 128, none do of
 * 256), and every packet is still there.  At its cap, the older of two
 * is given up and handed back. */
static void the_ring_grows_and_gives_up_only_at_its_cap(void **state)
{
	struct eqt_infl f;
	struct eqt_pkt *old;

	assert_int_equal(eqt_infl_init(&f, 1, 0), 0);
	for (uint32_t s = 0; s < 1000; s += 7)
		assert_null(eqt_infl_put(&f, pkt(s, 100)));
	assert_int_equal(f.nslots, 256);
	for (uint32_t s = 0; s < 1000; s += 7)
		assert_int_equal(eqt_infl_get(&f, s)->seq, s);
	/* 0 and EQT_INFL_MAX_SLOTS share a slot at every size. */
	old = eqt_infl_put(&f, pkt(EQT_INFL_MAX_SLOTS, 100));
	assert_int_equal(f.nslots, EQT_INFL_MAX_SLOTS);
	assert_non_null(old);
	assert_int_equal(old->seq, 0);
	free(old);
	assert_null(eqt_infl_get(&f, 0));
	assert_int_equal(eqt_infl_get(&f, EQT_INFL_MAX_SLOTS)->seq, EQT_INFL_MAX_SLOTS);
	assert_int_equal(f.n, 1000 / 7 + 1);		/* one given up, one put */
	assert_int_equal(f.lo, 7);
	eqt_infl_drop_all(&f, 5, free_cb, &(uint32_t){ 0 });
	eqt_infl_fini(&f);
}

/* drop_all hands over every packet in seq order, across the wrap of the
 * seq space, and leaves the ring empty at the seq given. */
static void drop_all_in_seq_order_across_the_wrap(void **state)
{
	struct eqt_infl f;
	struct order o = { .n = 0 };
	uint32_t base = 0xffffffffu - 20;

	assert_int_equal(eqt_infl_init(&f, 64, base), 0);
	for (uint32_t i = 40; i-- > 0;)			/* put in reverse */
		assert_null(eqt_infl_put(&f, pkt(base + i, 64)));
	assert_int_equal(f.lo, base);
	assert_int_equal(f.hi, base + 40);
	eqt_infl_drop_all(&f, 12345, order_cb, &o);
	assert_int_equal(o.n, 40);
	for (uint32_t i = 0; i < 40; i++)
		assert_int_equal(o.seq[i], base + i);
	assert_int_equal(f.n, 0);
	assert_int_equal(f.bytes, 0);
	assert_int_equal(f.lo, 12345);
	assert_int_equal(f.hi, 12345);
	eqt_infl_fini(&f);
}

/* Random puts (a window that moves, resends below it) and takes against
 * a plain list of what should be held: the same packets, counts, bytes,
 * and a visit in seq order. */
/* A cumulative ACK takes out everything before it, holes and a resend
 * below the rest included, older ones to the callback in seq order, and
 * leaves the newest to the caller; nothing before it, nothing taken. */
static void take_before__a_cumulative_ack(void **state)
{
	struct eqt_infl f;
	struct order o = { .n = 0 };
	struct eqt_pkt *p;

	assert_int_equal(eqt_infl_init(&f, 10, 0xfffffffcu), 0);
	for (uint32_t s = 0xfffffffcu; s != 6; s++)	/* across the wrap */
		if (s != 1)
			assert_null(eqt_infl_put(&f, pkt(s, 100)));
	free(eqt_infl_take(&f, 0xfffffffdu));		/* ACKed alone before */
	assert_null(eqt_infl_take_before(&f, 0xfffffffcu, order_cb, &o));
	assert_int_equal(o.n, 0);
	p = eqt_infl_take_before(&f, 3, order_cb, &o);
	assert_non_null(p);
	assert_int_equal(p->seq, 2);
	free(p);
	assert_int_equal(o.n, 4);
	assert_int_equal(o.seq[0], 0xfffffffcu);
	assert_int_equal(o.seq[1], 0xfffffffeu);
	assert_int_equal(o.seq[2], 0xffffffffu);
	assert_int_equal(o.seq[3], 0);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.lo, 3);
	assert_int_equal(f.bytes, 300);
	p = eqt_infl_take_before(&f, 100, order_cb, &o);
	assert_int_equal(p->seq, 5);
	free(p);
	assert_int_equal(f.n, 0);
	eqt_infl_fini(&f);
}

/* Karn: only a packet sent once, by the agent, before now, of the seq the
 * ACK names, times a round trip. */
static void timed__karn(void **state)
{
	struct eqt_pkt p = { .seq = 7, .tx_count = 1, .t_ns = 100 };

	assert_true(eqt_infl_timed(&p, 7, 200));
	assert_false(eqt_infl_timed(&p, 8, 200));
	assert_false(eqt_infl_timed(&p, 7, 100));
	p.tx_count = 2;
	assert_false(eqt_infl_timed(&p, 7, 200));
	p.tx_count = 1;
	p.flags = EQT_PF_FAST;
	assert_false(eqt_infl_timed(&p, 7, 200));
}

static void random_puts_and_takes_match_a_list(void **state)
{
	static uint8_t held[1 << 16];
	struct eqt_infl f;
	uint32_t next = 0, n = 0;
	uint64_t bytes = 0;

	rng_state = 17;
	assert_int_equal(eqt_infl_init(&f, 16, 0), 0);
	for (int step = 0; step < 200000; step++) {
		uint32_t r = rnd32() % 10, s;

		if (r < 5 && next < (1 << 16)) {		/* a new send */
			s = next++;
		} else if (r < 6 && next) {			/* a resend, maybe far back */
			s = next - 1 - rnd32() % (next < 3000 ? next : 3000);
			if (held[s])
				continue;
		} else {					/* an ACK */
			if (!next)
				continue;
			s = next - 1 - rnd32() % (next < 300 ? next : 300);
			struct eqt_pkt *p = eqt_infl_take(&f, s);

			assert_true(!p == !held[s]);
			if (p) {
				held[s] = 0;
				n--;
				bytes -= p->len;
				free(p);
			}
			continue;
		}
		assert_null(eqt_infl_put(&f, pkt(s, (uint16_t)(64 + s % 1400))));
		held[s] = 1;
		n++;
		bytes += 64 + s % 1400;
	}
	assert_int_equal(f.n, n);
	assert_int_equal(f.bytes, bytes);
	uint32_t cur, prev = 0, seen = 0;
	bool first = true;

	for (struct eqt_pkt *p = eqt_infl_first(&f, &cur); p; p = eqt_infl_next(&f, &cur)) {
		assert_true(held[p->seq]);
		assert_true(first || p->seq > prev);
		first = false;
		prev = p->seq;
		seen++;
	}
	assert_int_equal(seen, n);
	eqt_infl_drop_all(&f, 0, free_cb, &(uint32_t){ 0 });
	eqt_infl_fini(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(put__get__take_count_packets_and_bytes),
		cmocka_unit_test(a_resend_below_the_rest_is_visited_first),
		cmocka_unit_test(the_ring_grows_and_gives_up_only_at_its_cap),
		cmocka_unit_test(drop_all_in_seq_order_across_the_wrap),
		cmocka_unit_test(take_before__a_cumulative_ack),
		cmocka_unit_test(timed__karn),
		cmocka_unit_test(random_puts_and_takes_match_a_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
