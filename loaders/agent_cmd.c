// SPDX-License-Identifier: GPL-2.0-only
/*
 * edgeq agent start|stop IFACE, edgeq flush IFACE [--peer ADDR].
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include "addr.h"
#include "cmd.h"

/* The pin dir and config of an attachment with scheme eqds; 0 or exit status. */
static int agent_attachment(const struct eq_opts *o, char *dir, size_t len, struct eq_config *cfg)
{
	struct eq_maps m;
	struct stat st;

	if (!o->ifname) {
		eq_err("which interface?");
		return 2;
	}
	if (eq_pin_dir(o->ifname, dir, len))
		return 1;
	if (stat(dir, &st) || eq_maps_open(dir, &m)) {
		eq_err("edgeq is not attached to %s (nothing at %s)", o->ifname, dir);
		return 1;
	}
	eq_config_read(&m, cfg);
	eq_maps_close(&m);
	if (!eq_scheme_has_agent(cfg->scheme)) {
		eq_err("%s is attached with 'scheme none' alone: it has no agent", o->ifname);
		return 1;
	}
	return 0;
}

int cmd_agent(const struct eq_opts *o, const char *action)
{
	char dir[512], err[512] = "", log[600];
	struct eq_config cfg = {};
	struct eq_agent ag;
	__u64 age;
	int rc, lock;

	if (strcmp(action, "start") && strcmp(action, "stop")) {
		eq_err("usage: edgeq agent start|stop IFACE");
		return 2;
	}
	if ((rc = agent_attachment(o, dir, sizeof(dir), &cfg)))
		return rc;
	lock = eq_lock();
	if (lock < 0)
		return 1;
	eq_agent_log_where(dir, log, sizeof(log));
	if (!strcmp(action, "stop")) {
		rc = eq_agent_stop(dir);
		if (rc)
			eq_err("%s: the agent would not stop", o->ifname);
		else
			eq_info("%s: agent stopped; peer traffic now follows on_agent_down", o->ifname);
	} else if (!(cfg.flags & EQ_CFG_COMPLETE)) {
		eq_err("%s is half attached (an attach was killed before it finished): 'edgeq "
		       "attach' again rolls it back, or 'edgeq detach %s'", o->ifname, o->ifname);
		rc = 1;
	} else if (eq_agent_state(dir, &cfg, &ag, &age)) {
		eq_err("%s: an agent (pid %u) already runs; 'edgeq agent stop %s' first", o->ifname,
		       ag.pid, o->ifname);
		rc = 1;
	} else {
		eq_agent_stop(dir);	/* a hung one that stopped beating */
		rc = eq_agent_start(o->ifname, dir, err, sizeof(err));
		if (rc)
			eq_err("%s: %s", o->ifname, err);
		else if (eq_agent_state(dir, &cfg, &ag, &age))
			eq_info("%s: agent started (pid %u, log %s)", o->ifname, ag.pid, log);
	}
	eq_unlock(lock);
	return rc ? 1 : 0;
}

int cmd_flush(const struct eq_opts *o)
{
	char dir[512], err[512] = "";
	struct eq_config cfg = {};
	struct eq_agent ag;
	__u32 slot = EQ_NO_PEER;	/* every tunnel */
	__u64 age;
	int rc;

	if ((rc = agent_attachment(o, dir, sizeof(dir), &cfg)))
		return rc;
	if (!eq_agent_state(dir, &cfg, &ag, &age)) {
		eq_err("%s: no live agent to flush ('edgeq agent start %s')", o->ifname, o->ifname);
		return 1;
	}
	if (o->peer) {
		struct eq_addr a;
		struct eq_underlay_val v;
		struct eq_maps m;

		if (eq_addr_parse(o->peer, &a)) {
			eq_err("--peer '%s' is not an address", o->peer);
			return 2;
		}
		if (eq_maps_open(dir, &m))
			return 1;
		rc = bpf_map_lookup_elem(m.underlay, &a, &v);
		eq_maps_close(&m);
		if (rc) {
			eq_err("%s: %s is no peer's underlay address ('edgeq peer list dev %s')",
			       o->ifname, o->peer, o->ifname);
			return 1;
		}
		slot = v.peer;
	}
	rc = eq_agent_flush(dir, slot, err, sizeof(err));
	if (rc) {
		eq_err("%s: %s", o->ifname, err);
		return 1;
	}
	eq_info("%s: flushed %s", o->ifname, o->peer ? o->peer : "every tunnel");
	return 0;
}
