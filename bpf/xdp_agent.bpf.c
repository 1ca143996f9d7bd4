// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * XDP on eqb<ifindex> and eqd<ifindex>, the agent's ends of the internal
 * veth pairs.  TC egress redirected each encapsulated packet out of eqa
 * (where the kernel segmented and checksummed it), and cloned each fast
 * send out of eqc; here every such frame goes to the agent's host socket,
 * eq_xsks[EQ_XSK_AGENT], or its copy socket, eq_xsks[EQ_XSK_COPY].
 * Anything that is not IP (the kernel talking on eqa) goes to the stack of
 * eqb or eqd, which has no use for it.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "maps.bpf.h"

SEC("xdp")
int xdp_agent(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 zero = 0, key = EQ_XSK_AGENT;
	struct eq_stats *st = bpf_map_lookup_elem(&eq_stats, &zero);
	struct eq_config *cfg = bpf_map_lookup_elem(&eq_config, &zero);

	if (cfg && cfg->copy_peer_ifindex && ctx->ingress_ifindex == cfg->copy_peer_ifindex)
		key = EQ_XSK_COPY;
	if (!st || (void *)(eth + 1) > end ||
	    (eth->h_proto != bpf_htons(ETH_P_IP) && eth->h_proto != bpf_htons(ETH_P_IPV6)))
		return XDP_PASS;
	if (!bpf_map_lookup_elem(&eq_xsks, &key)) {
		/* The agent died within agent_dead_ms: TC still sends here.
		 * The inner transport recovers the packet. */
		st->agent_rx_err++;
		return XDP_DROP;
	}
	st->agent_rx++;
	return bpf_redirect_map(&eq_xsks, key, XDP_DROP);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
