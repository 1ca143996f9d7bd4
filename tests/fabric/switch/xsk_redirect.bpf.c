// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The software switch's port program: every frame that arrives on a switch
 * port goes to the switch's AF_XDP socket for that port.  Frames that find
 * no socket (the switch not started yet, or gone) are dropped: a switch
 * that is not running forwards nothing, as a powered-off one would.
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
	return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_DROP);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
