/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The peer table in the pinned maps: overlay prefixes (eq_prefixes) point
 * at peer slots (eq_peers), one per underlay address, found again on
 * ingress through eq_underlay.  A slot lives as long as a prefix uses it.
 */
#ifndef EDGEQ_PEERS_H
#define EDGEQ_PEERS_H

#include <stdbool.h>
#include <stddef.h>
#include "pins.h"
#include "edgeq/auth.h"

/* Add prefix -> via, a peer of `scheme` (enum eq_scheme, what the agent
 * reads); plain: the peer is scheme none in an attachment whose agent runs
 * (EQ_PEER_PLAIN, what TC reads); keys: its keys for authenticated headers
 * (edgeq/auth.h), or NULL: none, or the peer's when it exists.  Idempotent
 * for the same pair; -EEXIST when the prefix already goes to another peer;
 * -EBUSY when the peer exists with the other scheme; -EKEYREJECTED when
 * it exists with other keys (or none); -EOPNOTSUPP for keys on an
 * attachment without eq_keys; -ENOSPC when no slot is free (or the prefix
 * table is full).  *slot receives the peer slot. */
int eq_peer_add(struct eq_maps *m, const struct eq_prefix_key *prefix,
		const struct eq_addr *via, __u8 scheme, bool plain,
		const struct eq_peer_keys *keys, __u32 *slot);
/* Remove a prefix (exact match); frees its slot when no prefix uses it
 * any more.  -ENOENT when the prefix is not configured. */
int eq_peer_del(const struct eq_maps *m, const struct eq_prefix_key *prefix);

/* Iterate the prefixes; stop early when fn returns non-zero. */
typedef int (*eq_prefix_fn)(const struct eq_prefix_key *k, const struct eq_prefix_val *v, void *arg);
int eq_prefix_foreach(const struct eq_maps *m, eq_prefix_fn fn, void *arg);
int eq_prefix_get(const struct eq_maps *m, const struct eq_prefix_key *k, struct eq_prefix_val *v);
int eq_prefix_set(const struct eq_maps *m, const struct eq_prefix_key *k, const struct eq_prefix_val *v);

#endif
