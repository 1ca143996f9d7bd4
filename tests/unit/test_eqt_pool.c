// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/core/pool.c: the packet pool and the packet queue,
 * a FIFO or, with flow counters, sparse flows first (core/eqt.h).  Each
 * packet is tagged with its flow and its number within the flow (in t_ns
 * here), so that every test can check what it pops, and that no flow's
 * packets ever leave out of order.
 */
#include "testlib.h"
#include <stdlib.h>
#include <string.h>
#include "eqt.h"

struct fx {
	struct eqt_pool	pool;
	struct eqt_q	q;
	uint16_t	flows[EQT_FLOWS];
	uint64_t	next[EQT_FLOWS];	/* the next number each flow sends */
	uint64_t	want[EQT_FLOWS];	/* ... and the next each must pop */
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f || eqt_pool_init(&f->pool, 512))
		return -1;
	f->q.flows = f->flows;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	eqt_q_drain(&f->q, &f->pool);
	assert_int_equal(f->pool.in_use, 0);
	eqt_pool_fini(&f->pool);
	free(f);
	return 0;
}

static void push(struct fx *f, uint8_t flow)
{
	struct eqt_pkt *p = eqt_pkt_get(&f->pool);

	assert_non_null(p);
	p->flow = flow;
	p->len = 100 + flow;
	p->t_ns = f->next[flow]++;
	eqt_q_push(&f->q, p);
}

/* Pops one packet, checks it is its flow's next, returns its flow. */
static int pop(struct fx *f)
{
	struct eqt_pkt *p = eqt_q_pop(&f->q);
	int flow;

	if (!p)
		return -1;
	flow = p->flow;
	assert_int_equal(p->t_ns, f->want[flow]);	/* in order within its flow */
	f->want[flow]++;
	eqt_pkt_put(&f->pool, p);
	return flow;
}

static void expect(struct fx *f, const char *flows)
{
	for (const char *c = flows; *c; c++)
		assert_int_equal(pop(f), *c - 'A');
}

static void counters_match(struct fx *f)
{
	uint32_t sum = 0, n = 0;
	uint64_t bytes = 0;

	for (int i = 0; i < EQT_FLOWS; i++)
		sum += f->flows[i];
	for (struct eqt_pkt *p = f->q.head; p; p = p->next) {
		n++;
		bytes += p->len;
		if (!p->next)
			assert_ptr_equal(p, f->q.tail);
	}
	assert_int_equal(sum, f->q.pkts);
	assert_int_equal(n, f->q.pkts);
	assert_int_equal(bytes, f->q.bytes);
}

/* Without counters the queue is the FIFO it always was. */
static void fifo__without_flows_in_the_order_pushed(void **state)
{
	struct fx *f = *state;

	f->q.flows = NULL;
	push(f, 0); push(f, 0); push(f, 1); push(f, 0);
	expect(f, "AABA");
	assert_null(eqt_q_pop(&f->q));
}

/* A flow with nothing queued goes ahead of a flow's backlog.  (A's first
 * packet was sparse too, when it came: it leaves first.) */
static void sparse__a_new_flow_goes_ahead_of_a_backlog(void **state)
{
	struct fx *f = *state;

	for (int i = 0; i < 5; i++)
		push(f, 0);
	expect(f, "A");
	push(f, 1);
	counters_match(f);
	expect(f, "BAAAA");
	assert_int_equal(pop(f), -1);
	assert_null(f->q.sparse_tail);
}

/* Sparse packets keep their own order, behind each other. */
static void sparse__the_sparse_keep_their_order(void **state)
{
	struct fx *f = *state;

	push(f, 0); push(f, 0); push(f, 0);
	push(f, 1); push(f, 2); push(f, 3);
	counters_match(f);
	expect(f, "ABCDAA");
}

/* A flow's second packet, while its first is queued, goes to the tail:
 * behind its first, and behind the backlog it found. */
static void sparse__a_second_packet_waits_at_the_tail(void **state)
{
	struct fx *f = *state;

	push(f, 0); push(f, 0); push(f, 0);
	push(f, 1); push(f, 1);
	counters_match(f);
	expect(f, "ABAAB");
}

/* Once its packets are gone, a flow is sparse again. */
static void sparse__a_flow_emptied_is_sparse_again(void **state)
{
	struct fx *f = *state;

	push(f, 0); push(f, 0); push(f, 0);
	push(f, 1);
	expect(f, "AB");
	push(f, 1);
	expect(f, "BA");
	push(f, 2);
	push(f, 0);		/* A has one queued: to the tail */
	counters_match(f);
	expect(f, "CAA");
}

/* Into an empty queue a sparse packet is the head, and the next sparse
 * one goes behind it, not ahead. */
static void sparse__into_an_empty_queue(void **state)
{
	struct fx *f = *state;

	push(f, 4);
	push(f, 5);
	push(f, 4);
	counters_match(f);
	expect(f, "EFE");
	assert_null(f->q.head);
	assert_null(f->q.tail);
	assert_null(f->q.sparse_tail);
}

/* A packet taken and put back at the head (a sender that could not send
 * it after all) counts again, and goes first. */
static void sparse__put_back_at_the_head(void **state)
{
	struct fx *f = *state;
	struct eqt_pkt *p;

	push(f, 0); push(f, 0); push(f, 1);	/* A B A */
	p = eqt_q_pop(&f->q);
	assert_int_equal(p->flow, 0);
	assert_int_equal(f->flows[0], 1);
	eqt_q_push_head(&f->q, p);
	assert_int_equal(f->flows[0], 2);
	counters_match(f);
	expect(f, "ABA");
}

/* Random pushes and pops over 6 flows: every flow's packets leave in the
 * order they came, the counters always match what is queued, and after
 * the drain every counter is 0. */
static void sparse__random_order_within_every_flow(void **state)
{
	struct fx *f = *state;
	uint32_t seed = 12345;

	for (int k = 0; k < 20000; k++) {
		seed = seed * 1103515245u + 12345u;
		if ((seed >> 16) % 3 && f->q.pkts < 400)
			push(f, (uint8_t)((seed >> 8) % 6));
		else
			pop(f);
		if (!(k % 97))
			counters_match(f);
	}
	while (pop(f) >= 0)
		;
	for (int i = 0; i < EQT_FLOWS; i++)
		assert_int_equal(f->flows[i], 0);
	assert_int_equal(f->q.pkts, 0);
	assert_int_equal(f->q.bytes, 0);
}

/* A drained queue holds nothing and counts nothing. */
static void drain__returns_everything(void **state)
{
	struct fx *f = *state;

	push(f, 0); push(f, 1); push(f, 1); push(f, 2);
	eqt_q_drain(&f->q, &f->pool);
	assert_int_equal(f->pool.in_use, 0);
	for (int i = 0; i < EQT_FLOWS; i++)
		assert_int_equal(f->flows[i], 0);
	assert_null(f->q.head);
	assert_null(f->q.sparse_tail);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(fifo__without_flows_in_the_order_pushed),
		T(sparse__a_new_flow_goes_ahead_of_a_backlog),
		T(sparse__the_sparse_keep_their_order),
		T(sparse__a_second_packet_waits_at_the_tail),
		T(sparse__a_flow_emptied_is_sparse_again),
		T(sparse__into_an_empty_queue),
		T(sparse__put_back_at_the_head),
		T(sparse__random_order_within_every_flow),
		T(drain__returns_everything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
