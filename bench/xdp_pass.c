// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attach (or detach) a pass-only XDP program on an interface of the
 * current network namespace: the benchmark's "XDP on the veth, nothing
 * else" baseline, so that what XDP on a veth costs by itself is measured
 * apart from what edgeq adds.  The program is two instructions; the
 * attachment outlives this process.
 *
 *   xdp_pass IFACE [generic] | xdp_pass IFACE off
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

int main(int argc, char **argv)
{
	const struct bpf_insn pass[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int ifindex, fd, rc;
	__u32 flags = XDP_FLAGS_DRV_MODE;

	if (argc < 2 || !(ifindex = (int)if_nametoindex(argv[1]))) {
		fprintf(stderr, "usage: xdp_pass IFACE [generic|off] (interface not found?)\n");
		return 2;
	}
	if (argc > 2 && !strcmp(argv[2], "off"))
		return bpf_xdp_detach(ifindex, 0, NULL) ? 1 : 0;
	if (argc > 2 && !strcmp(argv[2], "generic"))
		flags = XDP_FLAGS_SKB_MODE;
	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "xdp_pass", "GPL", pass, 2, NULL);
	if (fd < 0) {
		fprintf(stderr, "xdp_pass: load: %s\n", strerror(errno));
		return 1;
	}
	rc = bpf_xdp_attach(ifindex, fd, flags | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL);
	if (rc)
		fprintf(stderr, "xdp_pass: attach to %s: %s\n", argv[1], strerror(-rc));
	close(fd);
	return rc ? 1 : 0;
}
