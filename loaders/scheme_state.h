/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the tools read of a peer's scheme: which scheme a peer slot runs,
 * and the scheme's own per-peer state, from the map the agent made for it
 * (eq_<scheme>_peers), by its BTF (btf_fields.h): no code per scheme.
 */
#ifndef EDGEQ_SCHEME_STATE_H
#define EDGEQ_SCHEME_STATE_H

#include <stdbool.h>
#include "btf_fields.h"
#include "edgeq/maps.h"
#include "settings.h"

#define EQ_SCHEME_IDS		16
#define EQ_SCHEME_VALUE_MAX	512	/* bytes of a scheme's per-peer value */

struct eq_scheme_maps {
	const char		*dir;		/* the attachment's pins */
	int			fd[EQ_SCHEME_IDS];	/* -2: not looked for yet */
	struct eq_btf_value	*v[EQ_SCHEME_IDS];
};

void eq_scheme_maps_init(struct eq_scheme_maps *s, const char *dir);
void eq_scheme_maps_close(struct eq_scheme_maps *s);
/* The fields of `scheme`'s own map, with slot's value into val
 * (EQ_SCHEME_VALUE_MAX bytes); NULL if it has none or it cannot be read. */
const struct eq_btf_value *eq_scheme_own(struct eq_scheme_maps *s, __u32 scheme, __u32 slot,
					 void *val);
/* A peer slot's scheme: its own, or for a slot an older edgeq wrote (none
 * said), none if plain or the attachment runs no agent, else the
 * attachment's. */
__u32 eq_peer_scheme(const struct eq_peer *p, const struct eq_config *c);
/* eq_scheme_name(): settings.h. */

#endif
