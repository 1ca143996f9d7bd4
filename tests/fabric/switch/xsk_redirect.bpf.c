// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The software switch's port program: every frame that arrives on a switch
 * port goes to the switch's AF_XDP socket for that port.  Frames that find
 * no socket (the switch not started yet, or gone) are dropped: a switch
 * that is not running forwards nothing, as a powered-off one would.
 *
 * Each frame carries its arrival time (CLOCK_MONOTONIC ns) in the 8 bytes
 * of XDP metadata in front of it, which AF_XDP copies along in copy mode:
 * the switch reads its sockets in batches, and late when its CPU is taken
 * by other work, but queues every frame at the time it really arrived.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

SEC("xdp")
int xsk_redirect(struct xdp_md *ctx)
{
	__u64 *meta;

	if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(__u64)) == 0) {
		meta = (void *)(long)ctx->data_meta;
		if ((void *)(meta + 1) <= (void *)(long)ctx->data)
			*meta = bpf_ktime_get_ns();
	}
	return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_DROP);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
