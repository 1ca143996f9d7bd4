// SPDX-License-Identifier: GPL-2.0-only
/*
 * user/core/arbiter.c: the wire arbiter, with a mocked scheme (which
 * peers' heads may go) and a mocked wire.  DRR shares the link between
 * the classes by bytes whatever the quantum; a class the scheme holds
 * back passes its turn and keeps its deficit, one with nothing queued
 * loses it; peers take turns within a class; the pacer holds the link
 * rate, frames and framing counted, and says when to come back.
 */
#include "testlib.h"
#include <stdlib.h>
#include "arbiter.h"

#define NPEERS		4
#define FRAMING		24
#define FAST		1000000000000ULL	/* a link the pacer never limits */
#define T0		1000000ULL		/* 1 ms: every bucket here full */

struct mock {
	struct eqt_q	q[NPEERS][EQT_NCLS];
	bool		held[NPEERS];		/* the scheme lets nothing go */
	uint64_t	sent_bytes[EQT_NCLS];
	uint32_t	sent_pkts[NPEERS];
	uint32_t	order[64];		/* peers, in the order sent */
	uint32_t	n;
};

static uint32_t mock_pick(void *ctx, uint32_t c, uint32_t from, struct eqt_q **q, bool *queued)
{
	struct mock *m = ctx;

	*queued = false;
	for (uint32_t i = 0; i < NPEERS; i++) {
		uint32_t p = (from + i) % NPEERS;

		if (!m->q[p][c].head)
			continue;
		*queued = true;
		if (m->held[p])
			continue;
		*q = &m->q[p][c];
		return p;
	}
	return NPEERS;
}

static void mock_send(void *ctx, uint32_t peer, struct eqt_q *q, uint64_t now)
{
	struct mock *m = ctx;
	struct eqt_pkt *p = eqt_q_pop(q);

	m->sent_bytes[p->cls] += p->len;
	m->sent_pkts[peer]++;
	if (m->n < 64)
		m->order[m->n] = peer;
	m->n++;
	free(p);
}

static void add(struct mock *m, uint32_t peer, uint32_t cls, uint16_t len, int n)
{
	for (int i = 0; i < n; i++) {
		struct eqt_pkt *p = calloc(1, sizeof(*p));

		assert_non_null(p);
		p->len = len;
		p->cls = (uint8_t)cls;
		eqt_q_push(&m->q[peer][cls], p);
	}
}

static void drain(struct mock *m)
{
	for (uint32_t p = 0; p < NPEERS; p++)
		for (uint32_t c = 0; c < EQT_NCLS; c++)
			while (m->q[p][c].head)
				free(eqt_q_pop(&m->q[p][c]));
}

/* Full-size TCP packets against 100-byte others, a quantum smaller than
 * either's packets: each class gets half the bytes, within a packet. */
static void drr__classes_share_by_bytes(void **state)
{
	struct mock m = { 0 };
	struct eqt_arbiter a;
	const struct eqt_arbiter_io io = { &m, mock_pick, mock_send };
	uint64_t sent = 0;

	/* A bucket of 60,000 bytes stops it before either class runs out. */
	eqt_arbiter_init(&a, FAST, 60000, 64, FRAMING, NPEERS, 0);
	add(&m, 0, EQT_CLS_TCP, 1500, 100);
	add(&m, 1, EQT_CLS_OTHER, 100, 1500);
	assert_int_not_equal(eqt_arbiter_run(&a, &io, T0), EQT_NO_DEADLINE);
	sent = m.sent_bytes[EQT_CLS_TCP] + m.sent_bytes[EQT_CLS_OTHER];
	assert_true(sent > 50000);
	assert_true(m.sent_bytes[EQT_CLS_TCP] >= m.sent_bytes[EQT_CLS_OTHER] - 1500);
	assert_true(m.sent_bytes[EQT_CLS_TCP] <= m.sent_bytes[EQT_CLS_OTHER] + 1500);
	drain(&m);
}

/* The scheme holds TCP's only peer back: OTHER goes, TCP's deficit is
 * kept for its next turn; a class with nothing queued loses it. */
static void drr__a_held_class_passes_its_turn(void **state)
{
	struct mock m = { 0 };
	struct eqt_arbiter a;
	const struct eqt_arbiter_io io = { &m, mock_pick, mock_send };

	eqt_arbiter_init(&a, FAST, 1 << 20, 1000, FRAMING, NPEERS, 0);
	add(&m, 0, EQT_CLS_TCP, 1500, 1);
	add(&m, 1, EQT_CLS_OTHER, 200, 3);
	m.held[0] = true;
	a.deficit[EQT_CLS_TCP] = 700;	/* left from an earlier turn */
	assert_int_equal(eqt_arbiter_run(&a, &io, T0), EQT_NO_DEADLINE);
	assert_int_equal(m.sent_pkts[1], 3);
	assert_int_equal(m.sent_pkts[0], 0);
	assert_int_equal(a.deficit[EQT_CLS_TCP], 700);	/* kept */
	assert_int_equal(a.deficit[EQT_CLS_OTHER], 0);	/* nothing left: gone */
	m.held[0] = false;
	assert_int_equal(eqt_arbiter_run(&a, &io, 2 * T0), EQT_NO_DEADLINE);
	assert_int_equal(m.sent_pkts[0], 1);
	assert_int_equal(a.deficit[EQT_CLS_TCP], 0);	/* 700 + 1000 - 1500, then empty */
	drain(&m);
}

/* Peers of one class take turns, from the cursor past the last sent. */
static void drr__peers_take_turns(void **state)
{
	struct mock m = { 0 };
	struct eqt_arbiter a;
	const struct eqt_arbiter_io io = { &m, mock_pick, mock_send };

	eqt_arbiter_init(&a, FAST, 1 << 20, 3000, FRAMING, NPEERS, 0);
	add(&m, 0, EQT_CLS_TCP, 1000, 3);
	add(&m, 2, EQT_CLS_TCP, 1000, 3);
	add(&m, 3, EQT_CLS_TCP, 1000, 1);
	assert_int_equal(eqt_arbiter_run(&a, &io, T0), EQT_NO_DEADLINE);
	assert_int_equal(m.n, 7);
	const uint32_t want[7] = { 0, 2, 3, 0, 2, 0, 2 };

	for (uint32_t i = 0; i < 7; i++)
		assert_int_equal(m.order[i], want[i]);
	drain(&m);
}

/* 1 Gbit/s with a 3,048-byte bucket: two 1,500-byte frames and their
 * framing go, the third waits for its 1,524 bytes (12,192 ns at the
 * rate), and goes when called then. */
static void pacer__the_link_rate_and_framing(void **state)
{
	struct mock m = { 0 };
	struct eqt_arbiter a;
	const struct eqt_arbiter_io io = { &m, mock_pick, mock_send };
	uint64_t next;

	eqt_arbiter_init(&a, 1000000000ULL, 2 * (1500 + FRAMING), 3000, FRAMING, NPEERS, 0);
	add(&m, 0, EQT_CLS_TCP, 1500, 3);
	next = eqt_arbiter_run(&a, &io, T0);
	assert_int_equal(m.n, 2);
	assert_int_equal(next, T0 + (1500 + FRAMING) * 8);
	assert_int_equal(eqt_arbiter_run(&a, &io, next - 1), next);
	assert_int_equal(m.n, 2);
	assert_int_equal(eqt_arbiter_run(&a, &io, next), EQT_NO_DEADLINE);
	assert_int_equal(m.n, 3);
	drain(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drr__classes_share_by_bytes),
		cmocka_unit_test(drr__a_held_class_passes_its_turn),
		cmocka_unit_test(drr__peers_take_turns),
		cmocka_unit_test(pacer__the_link_rate_and_framing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
