#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `edgeq features` lists the kernel features edgeq needs; attach checks
# them first and names what is missing.  A missing one is made by hiding
# bpffs in a private mount namespace (unshare -m): the host is untouched.
# attach mounts a missing bpffs itself, when there is a place for it.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

out=$("$EDGEQ" features 2>&1); rc=$?
check "features: exit 0 and 'all present' on this kernel" test "$rc" -eq 0 -a -n "$(grep 'all present' <<<"$out")"
check "features: lists the LPM trie and bpf_skb_adjust_room as ok" \
	test "$(grep -cE '(lpm_trie|bpf_skb_adjust_room).* ok ' <<<"$out")" -eq 2

hidden() { unshare -m sh -c 'umount -l /sys/fs/bpf 2>/dev/null; mount -t tmpfs none /sys/fs/bpf; "$@"' sh "$@"; }
out=$(hidden "$EDGEQ" features 2>&1); rc=$?
check "features without bpffs: exit 1, names bpffs as MISSING" \
	test "$rc" -eq 1 -a -n "$(grep -E 'bpffs.*MISSING' <<<"$out")"

tb_up || { not_ok "testbed setup"; tap_done; exit 1; }
# attach mounts bpffs where it is missing, as xdp-tools do; attach, status
# and detach share that private mount, so they run in one namespace.
out=$(hidden sh -c "'$EDGEQ' --netns $TB_A attach $TB_IFA --config $TB_TMP/a.conf &&
	'$EDGEQ' --netns $TB_A status && '$EDGEQ' --netns $TB_A detach $TB_IFA" 2>&1); rc=$?
check "attach without bpffs mounts it and attaches; status and detach work (rc $rc)" \
	test "$rc" -eq 0 -a -n "$(grep 'mounted bpffs at /sys/fs/bpf' <<<"$out")"
check "... and detach left no XDP program on the interface" \
	bash -c "! ip -n $TB_A link show dev $TB_IFA | grep -q xdp"
# Nowhere to mount it (/sys/fs hidden): a clear error, nothing attached.
nomount() { unshare -m sh -c 'umount -l /sys/fs/bpf 2>/dev/null; mount -t tmpfs none /sys/fs; "$@"' sh "$@"; }
out=$(nomount "$EDGEQ" --netns "$TB_A" attach "$TB_IFA" --config "$TB_TMP/a.conf" 2>&1); rc=$?
check "attach where bpffs cannot be mounted: exit 1, 'the kernel lacks bpffs'" \
	test "$rc" -eq 1 -a -n "$(grep 'lacks bpffs at /sys/fs/bpf' <<<"$out")"
check "attach without bpffs left no XDP program on the interface" \
	bash -c "! ip -n $TB_A link show dev $TB_IFA | grep -q xdp"
tap_done
