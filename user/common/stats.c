// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "stats.h"

/* struct eq_stats is nothing but __u64 counters, in this order. */
const char *const eq_stat_names[] = {
	"tx_encap", "tx_miss", "tx_non_ip", "tx_err_too_big", "tx_err_peer", "tx_err_adjust",
	"tx_err_malformed", "rx_decap", "rx_pass", "rx_drop_short", "rx_drop_version",
	"rx_drop_type", "rx_drop_peer", "rx_drop_len", "rx_drop_inner", "rx_drop_ecn",
	"rx_drop_frag", "rx_drop_csum", "rx_ctrl", "rx_trimmed",
	"tx_to_agent", "tx_agent_down", "rx_to_agent", "rx_agent_err", "agent_rx", "agent_rx_err",
	"tx_fast", "tx_fast_noclone", "tx_lease_shut", "agent_deliver", "rx_agent_too_big",
	"rx_direct", "tx_backpressure", "tx_credit_wait", "rx_agent_down",
	"rx_drop_seg", "rx_drop_src", "tx_bare_ack",
	"bell_rx_now", "bell_rx_timer", "bell_tx_held", "rx_ack_timers", "bell_rx_polled",
	"tx_err_auth", "rx_drop_auth", "tx_fast_ring",
};
const size_t eq_stat_count = sizeof(eq_stat_names) / sizeof(eq_stat_names[0]);

_Static_assert(sizeof(eq_stat_names) / sizeof(eq_stat_names[0]) == sizeof(struct eq_stats) / sizeof(__u64),
	       "every counter of struct eq_stats has a name here");
/* Spot-check that the order follows the struct. */
_Static_assert(offsetof(struct eq_stats, rx_decap) == 7 * sizeof(__u64), "order");
_Static_assert(offsetof(struct eq_stats, rx_drop_csum) == 17 * sizeof(__u64), "order");
_Static_assert(offsetof(struct eq_stats, rx_trimmed) == 19 * sizeof(__u64), "order");

__u64 eq_stat_get(const struct eq_stats *s, size_t i)
{
	__u64 v;

	memcpy(&v, (const char *)s + i * sizeof(__u64), sizeof(v));
	return v;
}

/* Sum n_u64 counters over the CPUs of a per-CPU map's value at key. */
static int percpu_sum(int fd, __u32 key, void *out, size_t size)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *per, *dst = out;

	if (ncpu <= 0)
		return -EINVAL;
	per = calloc((size_t)ncpu, size);
	if (!per)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, per)) {
		int err = -errno;

		free(per);
		return err;
	}
	memset(out, 0, size);
	for (int c = 0; c < ncpu; c++)
		for (size_t i = 0; i < size / sizeof(__u64); i++)
			dst[i] += per[(size_t)c * (size / sizeof(__u64)) + i];
	free(per);
	return 0;
}

int eq_stats_sum(int stats_fd, struct eq_stats *out)
{
	return percpu_sum(stats_fd, 0, out, sizeof(*out));
}

int eq_peer_stats_sum(int fd, __u32 slot, struct eq_peer_stats *out)
{
	return percpu_sum(fd, slot, out, sizeof(*out));
}

int eq_peer_stats_clear(int fd, __u32 slot)
{
	int ncpu = libbpf_num_possible_cpus(), rc;
	void *zero;

	if (ncpu <= 0)
		return -EINVAL;
	zero = calloc((size_t)ncpu, sizeof(struct eq_peer_stats));
	if (!zero)
		return -ENOMEM;
	rc = bpf_map_update_elem(fd, &slot, zero, BPF_ANY) ? -errno : 0;
	free(zero);
	return rc;
}
