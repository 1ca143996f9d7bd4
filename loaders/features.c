// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel features edgeq needs, probed with libbpf before anything is
 * loaded, so that a kernel lacking one gets a message naming it rather
 * than a verifier log.  `edgeq features` lists them all; attach checks
 * them first.  docs/vmtests.md lists them with the kernel versions.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include "cmd.h"

#define BPF_FS_MAGIC	0xcafe4a11

struct feature {
	const char *name;
	const char *why;
	int (*probe)(const struct feature *f);
	int arg0, arg1;
};

static int probe_prog(const struct feature *f)
{
	return libbpf_probe_bpf_prog_type(f->arg0, NULL);
}

static int probe_map(const struct feature *f)
{
	return libbpf_probe_bpf_map_type(f->arg0, NULL);
}

static int probe_helper(const struct feature *f)
{
	return libbpf_probe_bpf_helper(f->arg0, f->arg1, NULL);
}

static int probe_bpffs(const struct feature *f)
{
	struct statfs st;

	return statfs("/sys/fs/bpf", &st) == 0 && st.f_type == BPF_FS_MAGIC;
}

static const struct feature features[] = {
	{ "bpffs at /sys/fs/bpf", "state is pinned there (attach mounts it when it can)", probe_bpffs, 0, 0 },
	{ "BPF program type sched_cls", "TC egress program", probe_prog, BPF_PROG_TYPE_SCHED_CLS, 0 },
	{ "BPF program type xdp", "XDP ingress program", probe_prog, BPF_PROG_TYPE_XDP, 0 },
	{ "BPF map type array", "config, peers", probe_map, BPF_MAP_TYPE_ARRAY, 0 },
	{ "BPF map type percpu_array", "counters", probe_map, BPF_MAP_TYPE_PERCPU_ARRAY, 0 },
	{ "BPF map type hash", "underlay lookup", probe_map, BPF_MAP_TYPE_HASH, 0 },
	{ "BPF map type lpm_trie", "peer prefixes", probe_map, BPF_MAP_TYPE_LPM_TRIE, 0 },
	{ "helper bpf_skb_adjust_room (tc)", "encapsulation (tunnel flags: Linux 5.2)", probe_helper,
	  BPF_PROG_TYPE_SCHED_CLS, BPF_FUNC_skb_adjust_room },
	{ "helper bpf_skb_store_bytes (tc)", "writes the outer headers", probe_helper,
	  BPF_PROG_TYPE_SCHED_CLS, BPF_FUNC_skb_store_bytes },
	{ "helper bpf_skb_pull_data (tc)", "reads non-linear headers", probe_helper,
	  BPF_PROG_TYPE_SCHED_CLS, BPF_FUNC_skb_pull_data },
	{ "helper bpf_get_hash_recalc (tc)", "per-flow entropy", probe_helper,
	  BPF_PROG_TYPE_SCHED_CLS, BPF_FUNC_get_hash_recalc },
	{ "helper bpf_xdp_adjust_head (xdp)", "decapsulation", probe_helper,
	  BPF_PROG_TYPE_XDP, BPF_FUNC_xdp_adjust_head },
	{ "BPF map type ringbuf", "the agent's doorbell", probe_map, BPF_MAP_TYPE_RINGBUF, 0 },
	{ "helper bpf_timer_start (xdp)", "the ACK delay of direct delivery (Linux 5.15)",
	  probe_helper, BPF_PROG_TYPE_XDP, BPF_FUNC_timer_start },
};

/* bpffs at /sys/fs/bpf, mounted if it is not (as xdp-tools does): a
 * fresh machine may not have it, and attach needs it for its pins. */
int eq_mount_bpffs(void)
{
	struct statfs st;

	if (probe_bpffs(NULL) == 1)
		return 0;
	if (statfs("/sys/fs/bpf", &st) || mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700"))
		return -errno;
	fprintf(stderr, "edgeq: mounted bpffs at /sys/fs/bpf\n");
	return 0;
}

/* Print every missing feature; the number missing (0: all there), or -1
 * when the kernel cannot be asked at all. */
int eq_check_features(bool list)
{
	int missing = 0;

	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		const struct feature *f = &features[i];
		int rc = f->probe(f);

		if (list)
			printf("  %-36s %-8s %s\n", f->name, rc == 1 ? "ok" : "MISSING", f->why);
		else if (rc != 1)
			eq_err("the kernel lacks %s, needed for %s%s", f->name, f->why,
			       rc < 0 ? " (probe failed: are you root?)" : "");
		if (rc != 1)
			missing++;
	}
	return missing;
}

int cmd_features(void)
{
	int missing;

	printf("kernel features edgeq needs:\n");
	missing = eq_check_features(true);
	printf("%s\n", missing ? "some are missing: edgeq cannot attach" : "all present");
	return missing ? 1 : 0;
}
