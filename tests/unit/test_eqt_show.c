// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for user/core/show.c: what a tunnel's core halves show in
 * eq_agent_peers.  A sending half that sent, was NACKed and holds a
 * resend, and a receiving half with a packet held out of order, shown
 * field by field; fields the halves do not own stay as they were.
 */
#include "testlib.h"
#include <string.h>
#include "show.h"

static struct eqt_pkt *pkt(struct eqt_pool *pool, uint16_t len)
{
	struct eqt_pkt *p = eqt_pkt_get(pool);

	assert_non_null(p);
	p->len = len;
	return p;
}

static void tx__every_field(void **state)
{
	struct eqt_pool pool;
	struct eqt_tx t;
	struct eqt_hdr h;
	struct eq_agent_peer v;

	(void)state;
	assert_int_equal(eqt_pool_init(&pool, 16), 0);
	assert_int_equal(eqt_tx_init(&t, 8, 1024), 0);
	for (int i = 0; i < 3; i++)
		eqt_q_push(&t.q[EQT_CLS_TCP], pkt(&pool, 1000));
	eqt_q_push(&t.q[EQT_CLS_OTHER], pkt(&pool, 100));
	assert_non_null(eqt_tx_take(&t, &t.q[EQT_CLS_TCP], &h, &pool, 1000000, 10));
	assert_non_null(eqt_tx_take(&t, &t.q[EQT_CLS_TCP], &h, &pool, 1000000, 20));
	assert_int_equal(eqt_tx_nack(&t, 1024), 1000);	/* the first goes again */
	memset(&v, 0xab, sizeof(v));
	v.credit = -5;
	eqt_tx_show(&t, &v);
	assert_int_equal(v.tx_state, 2);		/* the NACK answered the SYN */
	assert_int_equal(v.tx_epoch, 1024);
	assert_int_equal(v.backlog_pkts, 3);		/* one TCP, one other, one resend */
	assert_int_equal(v.backlog_bytes, 2100);
	assert_int_equal(v.inflight_bytes, 1000);
	assert_int_equal(v.tx_data, 2);
	assert_int_equal(v.tx_rtx, 0);
	assert_int_equal(v.rx_nacks, 1);
	assert_int_equal(v.rto_fired, 0);
	assert_int_equal(v.tx_next_seq, 1026);
	assert_int_equal(v.tx_cum_ack, 1024);
	assert_int_equal(v.srtt_us, 0);
	assert_int_equal(v.credit, -5);		/* the scheme's, untouched */
	eqt_tx_fini(&t, &pool);
	assert_int_equal(pool.in_use, 0);
	eqt_pool_fini(&pool);
}

static void rx__every_field(void **state)
{
	struct eqt_pool pool;
	struct eqt_rx r;
	struct eq_agent_peer v;
	const struct eqt_reorder_io io = { NULL, &pool, NULL, NULL, NULL };

	(void)state;
	assert_int_equal(eqt_pool_init(&pool, 16), 0);
	assert_int_equal(eqt_rx_init(&r, 64, 1000000, 0), 0);
	assert_int_equal(eqt_rx_in(&r, 1024, true, 64, &io, 0, 0), EQT_ADMIT_NEW_EPOCH);
	assert_int_equal(eqt_rx_in(&r, 1026, false, 64, &io, 0, 0), EQT_ADMIT);
	struct eqt_pkt *p = pkt(&pool, 500);

	p->seq = 1026;
	eqt_reorder_in(&r.q, p, &io, 0, 0);		/* held: 1024 and 1025 missing */
	r.st.data = 1;
	memset(&v, 0xab, sizeof(v));
	v.bdp = 7;
	eqt_rx_show(&r, &v);
	assert_int_equal(v.rx_expected, 1024);
	assert_int_equal(v.reorder_pkts, 1);
	assert_int_equal(v.rx_data, 1);
	assert_int_equal(v.rx_ooo, 1);
	assert_int_equal(v.rx_dup, 0);
	assert_int_equal(v.rx_bad_seq, 0);
	assert_int_equal(v.bdp, 7);			/* the scheme's, untouched */
	eqt_rx_fini(&r, &pool);
	assert_int_equal(pool.in_use, 0);
	eqt_pool_fini(&pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tx__every_field),
		cmocka_unit_test(rx__every_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
