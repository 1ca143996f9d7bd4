// SPDX-License-Identifier: GPL-2.0-only
/*
 * Random loss for tests where netem is not in the kernel: a TC classifier
 * (direct action) that drops each packet with probability LOSS_PPM per
 * million.  tests/scenarios/soak.sh hangs it under a root `prio` qdisc,
 * so that it sees what leaves the interface after edgeq's TC program
 * encapsulated it.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#ifndef LOSS_PPM
#define LOSS_PPM 5000	/* 0.5 % */
#endif

SEC("tc")
int loss(struct __sk_buff *skb)
{
	return bpf_get_prandom_u32() % 1000000 < LOSS_PPM ? TC_ACT_SHOT : TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
