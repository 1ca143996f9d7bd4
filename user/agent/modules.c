// SPDX-License-Identifier: GPL-2.0-only
/* The agent's instances of the schemes its peers use (modules.h). */
#include <stdio.h>
#include <string.h>
#include "modules.h"

struct eq_mod *eq_mods_of(struct eq_mods *m, uint32_t scheme)
{
	return scheme < EQ_MODS_MAX && m->m[scheme].s ? &m->m[scheme] : NULL;
}

struct eq_mod *eq_mods_get(struct eq_mods *m, uint32_t scheme, uint64_t now, char *err,
			   size_t len)
{
	const struct eqt_scheme_ops *ops;
	struct eqt_env env = m->env;
	struct eq_mod *md = eq_mods_of(m, scheme);

	if (md)
		return md;
	ops = scheme < EQ_MODS_MAX ? m->find(scheme) : NULL;
	if (!ops) {
		snprintf(err, len, "no control loop for scheme %u in this agent", scheme);
		return NULL;
	}
	env.now = now;
	md = &m->m[scheme];
	md->s = ops->create(&env, err, len);
	if (!md->s)
		return NULL;
	md->ops = ops;
	if (m->credit || m->rx)
		ops->set_maps(md->s, m->credit, m->rx);
	return md;
}

void eq_mods_set_maps(struct eq_mods *m, struct eq_credit *credit, struct eq_rx *rx)
{
	if (credit)
		m->credit = credit;
	if (rx)
		m->rx = rx;
	for (int i = 0; i < EQ_MODS_MAX; i++)
		if (m->m[i].s)
			m->m[i].ops->set_maps(m->m[i].s, credit, rx);
}

uint64_t eq_mods_run(struct eq_mods *m, uint64_t now)
{
	uint64_t next = UINT64_MAX;

	for (int i = 0; i < EQ_MODS_MAX; i++)
		if (m->m[i].s) {
			uint64_t t = m->m[i].ops->run(m->m[i].s, now);

			if (t < next)
				next = t;
		}
	return next;
}

void eq_mods_lease_sync(struct eq_mods *m, uint64_t now)
{
	for (int i = 0; i < EQ_MODS_MAX; i++)
		if (m->m[i].s)
			m->m[i].ops->lease_sync(m->m[i].s, now);
}

bool eq_mods_sleep(struct eq_mods *m, uint64_t until)
{
	for (int i = 0; i < EQ_MODS_MAX; i++)
		if (m->m[i].s && m->m[i].ops->sleep(m->m[i].s, until))
			return true;
	return false;
}

void eq_mods_awake(struct eq_mods *m)
{
	for (int i = 0; i < EQ_MODS_MAX; i++)
		if (m->m[i].s)
			m->m[i].ops->awake(m->m[i].s);
}

void eq_mods_flush(struct eq_mods *m, uint32_t peer, uint64_t now)
{
	/* A slot is one scheme's at a time, but the one it had before a
	 * `peer del` and `peer add` may still hold a tunnel for it: all. */
	for (int i = 0; i < EQ_MODS_MAX; i++)
		if (m->m[i].s)
			m->m[i].ops->flush(m->m[i].s, peer, now);
}

void eq_mods_describe(const struct eq_mods *m, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < EQ_MODS_MAX && n + 1 < len; i++) {
		if (!m->m[i].s)
			continue;
		if (n)
			n += (size_t)snprintf(buf + n, len - n, "; ");
		if (n + 1 < len) {
			m->m[i].ops->describe(m->m[i].s, buf + n, len - n);
			n += strlen(buf + n);
		}
	}
}

void eq_mods_destroy(struct eq_mods *m)
{
	for (int i = 0; i < EQ_MODS_MAX; i++)
		if (m->m[i].s) {
			m->m[i].ops->destroy(m->m[i].s);
			m->m[i].s = NULL;
			m->m[i].ops = NULL;
		}
}
