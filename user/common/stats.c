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

int eq_stats_sum(int stats_fd, struct eq_stats *out)
{
	int ncpu = libbpf_num_possible_cpus();
	struct eq_stats *per;
	__u32 zero = 0;

	if (ncpu <= 0)
		return -EINVAL;
	per = calloc((size_t)ncpu, sizeof(*per));
	if (!per)
		return -ENOMEM;
	if (bpf_map_lookup_elem(stats_fd, &zero, per)) {
		int err = -errno;

		free(per);
		return err;
	}
	memset(out, 0, sizeof(*out));
	for (int c = 0; c < ncpu; c++) {
		const __u64 *src = (const __u64 *)&per[c];
		__u64 *dst = (__u64 *)out;

		for (size_t i = 0; i < sizeof(*out) / sizeof(__u64); i++)
			dst[i] += src[i];
	}
	free(per);
	return 0;
}
