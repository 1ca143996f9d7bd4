/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A scheme's own per-peer state in a pinned map of its own,
 * eq_<scheme>_peers (an array by peer slot), whose BTF the agent builds
 * from the scheme's table of fields (core/scheme.h, struct eqt_stat): so
 * `bpftool map dump` and `edgeq status` print it by name, and a new
 * scheme's state needs no code in either.
 */
#ifndef EDGEQ_AGENT_SCHEME_MAP_H
#define EDGEQ_AGENT_SCHEME_MAP_H

#include <stddef.h>
#include <stdint.h>
#include "scheme.h"

#define EQ_SCHEME_STATS_MAX	256	/* bytes of a scheme's published struct */

/* The map's fd: the pinned one under pin_dir if its shape is this
 * scheme's (else remade: an older agent's), or a new one, pinned.  -1 if
 * the scheme publishes nothing of its own; -errno with a message in err
 * if it cannot be made. */
int eq_scheme_map_open(const char *pin_dir, const struct eqt_scheme_ops *ops, uint32_t slots,
		       char *err, size_t len);

#endif
