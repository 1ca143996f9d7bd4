/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The agent's control loops: one instance per scheme its peers use (a
 * peer's scheme is in eq_peers), created when the first peer of that
 * scheme shows up, and each event of a peer routed to its scheme's
 * instance; the events of time (run, lease_sync, sleep/awake) go to every
 * instance.  Pure C over the registry (schemes.h), so a unit test drives
 * it with mock schemes.
 */
#ifndef EDGEQ_AGENT_MODULES_H
#define EDGEQ_AGENT_MODULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "scheme.h"

#define EQ_MODS_MAX	16	/* scheme ids 0-15 */

struct eq_mod {
	const struct eqt_scheme_ops	*ops;
	void				*s;
};

struct eq_mods {
	struct eq_mod			m[EQ_MODS_MAX];	/* by enum eq_scheme */
	/* The registry: the module of a scheme id, or NULL. */
	const struct eqt_scheme_ops	*(*find)(uint32_t id);
	struct eqt_env			env;		/* what each is created with */
	struct eq_credit		*credit;	/* handed to each (set_maps) */
	struct eq_rx			*rx;
};

/* The instance of `scheme`, created now if it is not yet (env.now taken
 * as `now`): NULL with a message in err if no module has that id or it
 * refused its settings. */
struct eq_mod *eq_mods_get(struct eq_mods *m, uint32_t scheme, uint64_t now, char *err,
			   size_t len);
/* The instance of `scheme` if it runs, else NULL. */
struct eq_mod *eq_mods_of(struct eq_mods *m, uint32_t scheme);
/* The maps every instance shares with TC and XDP (now and later ones). */
void eq_mods_set_maps(struct eq_mods *m, struct eq_credit *credit, struct eq_rx *rx);
/* Every instance's run: the earliest of their deadlines (UINT64_MAX: none). */
uint64_t eq_mods_run(struct eq_mods *m, uint64_t now);
void eq_mods_lease_sync(struct eq_mods *m, uint64_t now);
/* True if any instance must not sleep; awake() goes to all. */
bool eq_mods_sleep(struct eq_mods *m, uint64_t until);
void eq_mods_awake(struct eq_mods *m);
/* Flush every instance's tunnel of `peer`, or all of them (EQ_NO_PEER or
 * any slot past the last). */
void eq_mods_flush(struct eq_mods *m, uint32_t peer, uint64_t now);
/* "A; B": each instance's describe(). */
void eq_mods_describe(const struct eq_mods *m, char *buf, size_t len);
void eq_mods_destroy(struct eq_mods *m);

#endif
