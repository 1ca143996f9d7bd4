// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for include/edgeq/lease.h, the credit lease TC and the agent
 * share (docs/eqds.md, "The fast path").  The BPF programs and the agent
 * both trust one property of it: credit and seqs are never created nor
 * lost between them.  A take spends exactly its bytes and gets the next
 * seq, or changes nothing; a closed or shut lease is never spent; shutting
 * keeps what the agent must find when it takes the lease back, and says
 * whether this call was the one that shut it (TC counts shuts so).  The
 * last test checks the property itself with real concurrency: two threads
 * play TC on two CPUs while the main thread plays the agent (top-ups,
 * closes, reopens), then every byte lent must be taken or returned, the
 * seqs taken must be one contiguous range without duplicates, and every
 * shut the agent found must be one that a TC call reported.
 */
#include "testlib.h"
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "edgeq/lease.h"

static __u64 lease(uint32_t bytes, uint32_t seq)
{
	union eq_lease_word w = { .parts = { .bytes = bytes, .seq = seq } };

	return w.word;
}

static uint32_t bytes_of(__u64 word)
{
	union eq_lease_word w = { .word = word };

	return w.parts.bytes;
}

static uint32_t seq_of(__u64 word)
{
	union eq_lease_word w = { .word = word };

	return w.parts.seq;
}

/* The seq wraps inside this test: TC must count on modulo 2^32 like the
 * agent's serial arithmetic does, and bytes must not borrow from seq. */
static void take__spends_exactly_and_numbers_on(void **state)
{
	__u64 w = lease(EQ_LEASE_OPEN | 10000, UINT32_MAX - 1);
	uint32_t seq = 0;

	assert_true(eq_lease_take(&w, 1500, &seq));
	assert_int_equal(seq, UINT32_MAX - 1);
	assert_int_equal(bytes_of(w), EQ_LEASE_OPEN | 8500);
	assert_true(eq_lease_take(&w, 1500, &seq));
	assert_int_equal(seq, UINT32_MAX);
	assert_true(eq_lease_take(&w, 1000, &seq));
	assert_int_equal(seq, 0);
	assert_int_equal(bytes_of(w), EQ_LEASE_OPEN | 6000);
	assert_int_equal(seq_of(w), 1);
	/* The last byte can be spent: the lease stays open at zero, so
	 * the agent can top it up without a close. */
	assert_true(eq_lease_take(&w, 6000, &seq));
	assert_int_equal(seq, 1);
	assert_int_equal(w, lease(EQ_LEASE_OPEN, 2));
	assert_false(eq_lease_take(&w, 1, &seq));
	assert_int_equal(w, lease(EQ_LEASE_OPEN, 2));
}

/* A failed take must leave the word as it was (the agent reads the seq
 * TC got to from it) and must not report a seq. */
static void expect_no_take(__u64 word, uint32_t bytes)
{
	__u64 w = word;
	uint32_t seq = 0xdeadbeef;

	assert_false(eq_lease_take(&w, bytes, &seq));
	assert_int_equal(w, word);
	assert_int_equal(seq, 0xdeadbeef);
}

static void take__fails_on_closed_shut_or_short(void **state)
{
	expect_no_take(0, 0);
	expect_no_take(0, 1500);
	/* Bytes without OPEN are not a lease (the agent's close leaves 0,
	 * but a word must never be trusted for its bytes alone). */
	expect_no_take(lease(5000, 7), 1500);
	expect_no_take(lease(EQ_LEASE_OPEN | EQ_LEASE_SHUT | 5000, 7), 1500);
	expect_no_take(lease(EQ_LEASE_OPEN | EQ_LEASE_SHUT | 5000, 7), 0);
	expect_no_take(lease(EQ_LEASE_SHUT | 5000, 7), 1500);
	expect_no_take(lease(EQ_LEASE_OPEN | 1499, 7), 1500);
	expect_no_take(lease(EQ_LEASE_OPEN, 7), 1);
	/* More than the field can hold never borrows from the flags. */
	expect_no_take(lease(EQ_LEASE_OPEN | EQ_LEASE_BYTES, 7), EQ_LEASE_BYTES + 1);
	expect_no_take(lease(EQ_LEASE_OPEN | EQ_LEASE_BYTES, 7), UINT32_MAX);

	__u64 w = lease(EQ_LEASE_OPEN | 1500, 7);
	uint32_t seq;

	assert_true(eq_lease_take(&w, 1500, &seq));	/* exactly enough is enough */
	assert_int_equal(seq, 7);
}

static void shut__keeps_bytes_and_seq(void **state)
{
	__u64 w = lease(EQ_LEASE_OPEN | 5000, 42);
	uint32_t seq;

	assert_true(eq_lease_shut(&w));
	assert_int_equal(w, lease(EQ_LEASE_OPEN | EQ_LEASE_SHUT | 5000, 42));
	/* Another CPU's packet to the agent: the lease stays as it was,
	 * and that shut is not counted twice. */
	assert_false(eq_lease_shut(&w));
	assert_int_equal(w, lease(EQ_LEASE_OPEN | EQ_LEASE_SHUT | 5000, 42));
	assert_false(eq_lease_take(&w, 1, &seq));
	/* An empty lease is shut as well: it is still the agent's to close. */
	w = lease(EQ_LEASE_OPEN, 9);
	assert_true(eq_lease_shut(&w));
	assert_int_equal(w, lease(EQ_LEASE_OPEN | EQ_LEASE_SHUT, 9));
}

/* On a closed lease the shut leaves a stray flag (lease.h: opening stores
 * the whole word): it must not count as a shut, nor make anything TC or
 * the agent's top-up could spend. */
static void shut__on_a_closed_lease_counts_nothing_lends_nothing(void **state)
{
	__u64 w = 0;
	uint32_t seq = 0xdeadbeef;

	assert_false(eq_lease_shut(&w));
	assert_int_equal(bytes_of(w) & (EQ_LEASE_OPEN | EQ_LEASE_BYTES), 0);
	assert_int_equal(seq_of(w), 0);
	assert_false(eq_lease_take(&w, 0, &seq));
	assert_int_equal(seq, 0xdeadbeef);
	assert_false(eq_lease_shut(&w));
}

/* ---- TC and the agent at once ---- */

#define TC_THREADS	2
#define TC_MAX_TAKES	(1u << 20)
#define AGENT_STEPS	100000	/* at least; then until both threads took enough */
#define MIN_TAKES	2000
#define MAX_NS		20000000000LL	/* a starved thread on a loaded machine */
#define SEQ_START	(UINT32_MAX - 5000)	/* wraps during the test */

static union eq_lease_word shared_lease;
static volatile int stop_tc;

struct tc {
	pthread_t	thr;
	uint64_t	rng;
	uint32_t	*seqs;
	uint32_t	n;
	uint64_t	taken, shuts;	/* shuts: calls that shut an open lease */
};

static uint64_t tc_rnd(struct tc *t)
{
	uint64_t z = (t->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The edge queue's admission (TC's backpressure): refused only when
 * full; a GSO packet goes in whole while there is room for its first
 * segment (refused until all its segments fit, a TSO packet larger than
 * the room went only into an empty queue, and TCP's flow stopped and
 * waited at every round trip). */
static void edge__refused_only_when_full(void **state)
{
	(void)state;
	assert_false(eq_edge_refuses(0, 8));
	assert_false(eq_edge_refuses(7, 8));
	assert_true(eq_edge_refuses(8, 8));
	assert_true(eq_edge_refuses(9, 8));
	assert_true(eq_edge_refuses(0, 0));
}

/* What bpf/tc_egress.bpf.c does per packet: take, or shut the lease and
 * send the packet the slow way. */
static void *tc_main(void *arg)
{
	struct tc *t = arg;

	while (!__atomic_load_n(&stop_tc, __ATOMIC_ACQUIRE)) {
		uint32_t size = 1 + (uint32_t)(tc_rnd(t) % 3000), seq;

		if (t->n == TC_MAX_TAKES)
			continue;
		if (eq_lease_take(&shared_lease.word, size, &seq)) {
			t->seqs[t->n] = seq;
			__atomic_store_n(&t->n, t->n + 1, __ATOMIC_RELEASE);
			t->taken += size;
		} else if (tc_rnd(t) % 4 == 0 &&
			   (__atomic_load_n(&shared_lease.parts.bytes, __ATOMIC_RELAXED) &
			    EQ_LEASE_OPEN)) {
			/* The lease can close between the load and the shut:
			 * then a stray SHUT on a closed word, as in TC. */
			t->shuts += (uint64_t)eq_lease_shut(&shared_lease.word);
		}
	}
	return NULL;
}

/* fastpath.c's lease_add: the agent's top-up of an open, unshut lease. */
static uint32_t agent_add(uint32_t bytes)
{
	for (int i = 0; i < EQ_LEASE_TRIES; i++) {
		union eq_lease_word old, new;
		uint32_t have, add;

		old.word = __atomic_load_n(&shared_lease.word, __ATOMIC_ACQUIRE);
		have = old.parts.bytes & EQ_LEASE_BYTES;
		add = bytes < EQ_LEASE_BYTES - have ? bytes : EQ_LEASE_BYTES - have;
		if ((old.parts.bytes & (EQ_LEASE_OPEN | EQ_LEASE_SHUT)) != EQ_LEASE_OPEN || !add)
			return 0;
		new = old;
		new.parts.bytes += add;
		if (__atomic_compare_exchange_n(&shared_lease.word, &old.word, new.word, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return add;
	}
	return 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Each thread took MIN_TAKES, and the seqs wrapped: the stop condition
 * of the loop below must include every check made after it (each thread
 * taking 2,000 left the seqs 800 short of the wrap on a loaded machine). */
static bool tc_took_enough(struct tc *tc)
{
	uint32_t total = 0;

	for (int i = 0; i < TC_THREADS; i++) {
		uint32_t n = __atomic_load_n(&tc[i].n, __ATOMIC_ACQUIRE);

		if (n < MIN_TAKES)
			return false;
		total += n;
	}
	return total > UINT32_MAX - SEQ_START + 1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void lease__conserves_bytes_and_seqs_under_concurrency(void **state)
{
	struct tc tc[TC_THREADS] = {};
	uint64_t lent = 0, returned = 0, taken = 0, closes = 0, shut_closes = 0, shuts = 0;
	uint32_t next = SEQ_START, total = 0, *all;
	bool open = false;
	int64_t t0 = mono_ns();

	rng_state = 11;
	shared_lease.word = 0;
	stop_tc = 0;
	for (int i = 0; i < TC_THREADS; i++) {
		tc[i].rng = 100 + (uint64_t)i;
		tc[i].seqs = malloc(TC_MAX_TAKES * sizeof(uint32_t));
		assert_non_null(tc[i].seqs);
		assert_int_equal(pthread_create(&tc[i].thr, NULL, tc_main, &tc[i]), 0);
	}
	for (int step = 0;; step++) {
		uint32_t r = rnd32() % 8;
		union eq_lease_word w;

		if (open) {
			w.word = __atomic_load_n(&shared_lease.word, __ATOMIC_ACQUIRE);
			if (w.parts.bytes & EQ_LEASE_SHUT)
				r = 4;	/* as eqds_tx_lease_sync: a shut lease goes back */
		}
		if (r < 4 && open) {
			lent += agent_add(1 + rnd32() % 5000);
		} else if (r == 4 && open) {
			w.word = __atomic_exchange_n(&shared_lease.word, 0, __ATOMIC_ACQ_REL);
			assert_true(w.parts.bytes & EQ_LEASE_OPEN);
			/* TC only ever moves the seq forward from where we put it. */
			assert_false((int32_t)(w.parts.seq - next) < 0);
			shut_closes += !!(w.parts.bytes & EQ_LEASE_SHUT);
			returned += w.parts.bytes & EQ_LEASE_BYTES;
			next = w.parts.seq;
			open = false;
			closes++;
		} else if (r > 4 && !open) {
			uint32_t give = rnd32() % 20000;

			/* Closed: at most a stray SHUT, never bytes, OPEN or a seq. */
			w.word = __atomic_load_n(&shared_lease.word, __ATOMIC_ACQUIRE);
			assert_true(w.parts.bytes == 0 || w.parts.bytes == EQ_LEASE_SHUT);
			assert_int_equal(w.parts.seq, 0);
			w.parts.bytes = EQ_LEASE_OPEN | give;
			w.parts.seq = next;
			__atomic_store_n(&shared_lease.word, w.word, __ATOMIC_RELEASE);
			lent += give;
			open = true;
		}
		if (step % 128 == 0) {
			sched_yield();	/* two cores, three threads: let TC in */
			if (step >= AGENT_STEPS && tc_took_enough(tc) && shut_closes >= 100)
				break;
			if (mono_ns() - t0 > MAX_NS)
				break;	/* the checks below say what is missing */
		}
	}
	__atomic_store_n(&stop_tc, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < TC_THREADS; i++)
		assert_int_equal(pthread_join(tc[i].thr, NULL), 0);
	if (open) {
		union eq_lease_word w = { .word = __atomic_exchange_n(&shared_lease.word, 0,
								      __ATOMIC_ACQ_REL) };

		shut_closes += !!(w.parts.bytes & EQ_LEASE_SHUT);
		returned += w.parts.bytes & EQ_LEASE_BYTES;
		next = w.parts.seq;
	}

	for (int i = 0; i < TC_THREADS; i++) {
		taken += tc[i].taken;
		total += tc[i].n;
		shuts += tc[i].shuts;
		print_message("# TC %d: %u takes, %llu bytes, %llu shuts\n", i, tc[i].n,
			      (unsigned long long)tc[i].taken, (unsigned long long)tc[i].shuts);
	}
	print_message("# agent: %llu lent, %llu returned, %llu closes (%llu shut)\n",
		      (unsigned long long)lent, (unsigned long long)returned,
		      (unsigned long long)closes, (unsigned long long)shut_closes);
	/* The test proves nothing unless both sides really raced. */
	for (int i = 0; i < TC_THREADS; i++)
		assert_true(tc[i].n >= MIN_TAKES);
	assert_true(total > UINT32_MAX - SEQ_START + 1);	/* wrapped */
	assert_true(closes > 1000);
	assert_true(shut_closes >= 100);

	assert_true(lent == taken + returned);
	/* Each shut the agent took back was reported by exactly one call. */
	assert_int_equal(shuts, shut_closes);
	/* Seqs: exactly [SEQ_START, next), each once. */
	assert_int_equal(next - SEQ_START, total);
	all = malloc((size_t)total * sizeof(uint32_t));
	assert_non_null(all);
	for (int i = 0, k = 0; i < TC_THREADS; i++)
		for (uint32_t j = 0; j < tc[i].n; j++)
			all[k++] = tc[i].seqs[j] - SEQ_START;
	qsort(all, total, sizeof(uint32_t), cmp_u32);
	for (uint32_t j = 0; j < total; j++)
		if (all[j] != j)
			fail_msg("seq offset %u where %u was due (a duplicate or a hole)", all[j], j);
	free(all);
	for (int i = 0; i < TC_THREADS; i++)
		free(tc[i].seqs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(take__spends_exactly_and_numbers_on),
		cmocka_unit_test(take__fails_on_closed_shut_or_short),
		cmocka_unit_test(shut__keeps_bytes_and_seq),
		cmocka_unit_test(shut__on_a_closed_lease_counts_nothing_lends_nothing),
		cmocka_unit_test(lease__conserves_bytes_and_seqs_under_concurrency),
		cmocka_unit_test(edge__refused_only_when_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
