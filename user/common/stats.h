/* SPDX-License-Identifier: GPL-2.0-only */
/* The eq_stats counters by name, and their sum over CPUs. */
#ifndef EDGEQ_STATS_H
#define EDGEQ_STATS_H

#include <stddef.h>
#include "edgeq/maps.h"

extern const char *const eq_stat_names[];
extern const size_t eq_stat_count;

__u64 eq_stat_get(const struct eq_stats *s, size_t i);
/* Read the per-CPU array of one behind fd and add the CPUs up. */
int eq_stats_sum(int stats_fd, struct eq_stats *out);
/* Per-peer counters of one slot (eq_peer_stats), summed; and zeroed. */
int eq_peer_stats_sum(int fd, __u32 slot, struct eq_peer_stats *out);
int eq_peer_stats_clear(int fd, __u32 slot);

#endif
