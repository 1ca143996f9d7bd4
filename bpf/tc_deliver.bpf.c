// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * TC ingress on eqa<ifindex>: the packets the agent delivers (decapsulated,
 * in order) enter the stack on the attached interface, as XDP's own
 * deliveries do, not on eqa.  The stack takes some packets only from the
 * interface they belong to: an IPv6 neighbour advertisement arriving on
 * eqa is ignored, and the neighbour entry of an on-link peer stays
 * INCOMPLETE; a socket bound to the interface, reverse-path filtering and
 * per-interface firewall rules would see the wrong device too.
 *
 * The agent sends them out of eqb, its end of the pair, with the attached
 * interface's MAC as destination, so the stack takes them as addressed to
 * this host.  Nothing else arrives on eqa: both ends have no addresses.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "maps.bpf.h"

SEC("tc")
int tc_deliver(struct __sk_buff *skb)
{
	__u32 zero = 0;
	struct eq_config *cfg = bpf_map_lookup_elem(&eq_config, &zero);
	struct eq_stats *st = bpf_map_lookup_elem(&eq_stats, &zero);

	if (!cfg || !st || !cfg->ifindex)
		return TC_ACT_SHOT;
	if (skb->protocol != bpf_htons(ETH_P_IP) && skb->protocol != bpf_htons(ETH_P_IPV6))
		return TC_ACT_SHOT;
	st->agent_deliver++;
	return bpf_redirect(cfg->ifindex, BPF_F_INGRESS);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
