// SPDX-License-Identifier: GPL-2.0-only
/*
 * user/eqds/ops.c: EQDS behind the scheme interface.  Its settings come
 * from the pinned config (defaults where a setting is 0, bad ones refused
 * with a message); the events reach the module (a packet from the host is
 * sent, under its SYN, through the agent's I/O); what it publishes is its
 * state; a flush of every peer ends every tunnel.
 */
#include "testlib.h"
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include <stdio.h>
#include "config.h"
#include "eqds.h"

#define PEER	3

struct rec {
	unsigned	data, ctl;
	struct eqt_hdr	last;
};

static void rec_send_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	struct rec *r = ctx;

	assert_int_equal(peer, PEER);
	r->data++;
	r->last = *h;
}

static void rec_send_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	((struct rec *)ctx)->ctl++;
}

static void rec_deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
}

struct fx {
	struct rec		rec;
	struct eqt_io		io;
	struct eqt_pool		pool;
	struct eq_config	cfg;
	struct eqt_env		env;
};

static struct fx *fx_new(void)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(eqt_pool_init(&f->pool, 256), 0);
	f->io = (struct eqt_io){ &f->rec, rec_send_data, rec_send_ctl, rec_deliver, NULL };
	f->cfg.mtu = 1500;
	f->cfg.link_rate_bps = 1000000000ULL;
	f->env = (struct eqt_env){ .cfg = &f->cfg, .io = &f->io, .pool = &f->pool, .now = 1000,
				   .rand = 42 };
	return f;
}

static void fx_free(struct fx *f)
{
	eqt_pool_fini(&f->pool);
	free(f);
}

/* A config with no EQDS settings at all (what attach pins, less its
 * defaults): the module runs with its defaults and says so. */
static void create__defaults_from_an_empty_config(void **state)
{
	struct fx *f = fx_new();
	char err[200] = "", what[200];
	void *s = eqds_ops.create(&f->env, err, sizeof(err));

	assert_non_null(s);
	eqds_ops.describe(s, what, sizeof(what));
	assert_string_equal(what, "EQDS, link 1000000000 bit/s with 0 bytes of framing a frame, "
			    "mtu 1500, BDP 7500 bytes, trimming mode");
	f->cfg.schemes.eqds.mode = 1;
	f->cfg.tunnel.bdp_bytes = 30000;
	f->cfg.link_framing = 24;	/* as the config sets it unless told */
	eqds_ops.destroy(s);
	s = eqds_ops.create(&f->env, err, sizeof(err));
	assert_non_null(s);
	eqds_ops.describe(s, what, sizeof(what));
	assert_non_null(strstr(what, "BDP 30000 bytes, RTS mode"));
	assert_non_null(strstr(what, "with 24 bytes of framing"));
	eqds_ops.destroy(s);
	fx_free(f);
}

/* EQDS's own settings as the config file writes them (`eqds.mode`,
 * `eqds.asl`, and the old names) reach the module: the parser's table and
 * the module agree on where each one goes. */
static void create__takes_its_settings_from_the_config_file(void **state)
{
	static const struct { const char *text; const char *want; } cases[] = {
		{ "eqds.mode rts\n", "RTS mode" },
		{ "eqds_mode rts\n", "RTS mode" },
		{ "eqds.mode rts\neqds_mode trim\n", "trimming mode" },
		{ "", "trimming mode" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fx *f = fx_new();
		char text[200], err[200] = "", what[200];
		struct eq_cfg cfg;
		void *s;

		snprintf(text, sizeof(text), "local 10.0.0.1\nscheme eqds\nlink_rate 1gbit\n%s",
			 cases[i].text);
		assert_int_equal(eq_cfg_parse(text, "t.conf", &cfg, err, sizeof(err)), 0);
		f->cfg = cfg.bpf;
		eq_cfg_free(&cfg);
		s = eqds_ops.create(&f->env, err, sizeof(err));
		assert_non_null(s);
		eqds_ops.describe(s, what, sizeof(what));
		if (!strstr(what, cases[i].want))
			fail_msg("%s: '%s', wanted %s", cases[i].text, what, cases[i].want);
		eqds_ops.destroy(s);
		fx_free(f);
	}
}

/* An MTU the pool's frames cannot hold: refused, with the reason. */
static void create__refuses_bad_settings(void **state)
{
	struct fx *f = fx_new();
	char err[200] = "";

	f->cfg.mtu = 9000;	/* the pool's frames are 2,048 bytes */
	assert_null(eqds_ops.create(&f->env, err, sizeof(err)));
	assert_non_null(strstr(err, "bad EQDS settings in the config"));
	fx_free(f);
}

/* A packet from the host goes out at once (one BDP unscheduled, trimming
 * mode) with SYN; the state published shows it; flushing every peer
 * (EQ_MAX_PEERS) ends the tunnel, and the next packet starts a new one. */
static void events__reach_the_module(void **state)
{
	struct fx *f = fx_new();
	char err[200];
	void *s = eqds_ops.create(&f->env, err, sizeof(err));
	struct eq_agent_peer v;
	struct eqt_pkt *p = eqt_pkt_get(&f->pool);

	assert_non_null(s);
	assert_non_null(p);
	p->len = 1000;
	assert_int_equal(eqds_ops.from_host(s, PEER, p, 2000), 0);
	eqds_ops.run(s, 1000000);	/* the wire pacer starts empty */
	assert_int_equal(f->rec.data, 1);
	assert_true(f->rec.last.flags & EQ_F_SYN);
	struct eqds_published own;

	memset(&own, 0xa5, sizeof(own));
	eqds_ops.publish(s, PEER, &v, &own);
	assert_int_equal(v.tx_data, 1);
	assert_int_equal(v.tx_state, EQDS_TX_SYN_SENT);
	/* its own state, every field written: nothing pulled either way yet,
	 * no RTS (trimming mode), nothing refused */
	assert_int_equal(own.highest_pull, 0);
	assert_int_equal(own.pull_no, 0);
	assert_int_equal(own.pull_target, 0);
	assert_int_equal(own.pulls_sent, 0);
	assert_int_equal(own.pull_pkts, 0);
	assert_int_equal(own.rts_sent, 0);
	assert_int_equal(own.bad_pull, 0);
	eqds_ops.flush(s, EQ_MAX_PEERS, 2000000);
	eqds_ops.publish(s, PEER, &v, NULL);	/* own not wanted: not written */
	assert_int_equal(v.tx_state, EQDS_TX_CLOSED);
	eqds_ops.destroy(s);
	assert_int_equal(f->pool.in_use, 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(create__defaults_from_an_empty_config),
		cmocka_unit_test(create__takes_its_settings_from_the_config_file),
		cmocka_unit_test(create__refuses_bad_settings),
		cmocka_unit_test(events__reach_the_module),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
