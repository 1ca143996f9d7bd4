#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every BPF program's stack, as this kernel's verifier measures it, fits
# the 512 bytes Linux 6.1 allows a call chain, where each frame is rounded
# up to 32 bytes (newer kernels round less).  tc_egress sits at that limit
# (352 + 144): one more spilled register made it 544, and on the VM
# layer's 6.1 kernel attach failed with "combined stack size of 2 calls
# is 544. Too large" while every host test passed.  The verifier log
# (`bpftool -d prog loadall`) gives "stack depth MAIN+SUB+...": the check
# takes the main frame and the deepest subprogram, each rounded to 32
# (the programs call one level deep).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

OBJ_DIR=${OUT:-build}/bpf
PIN=/sys/fs/bpf/eqtest-stack-$$
trap 'rm -rf "$PIN"' EXIT

round32() { echo $(( ($1 + 31) / 32 * 32 )); }

for obj in "$OBJ_DIR"/*.bpf.o; do
	name=$(basename "$obj" .bpf.o)
	mkdir -p "$PIN"
	depths=$(bpftool -d prog loadall "$obj" "$PIN" 2>&1 | sed -n 's/^stack depth \([0-9+]*\)$/\1/p')
	rm -rf "$PIN"
	if [ -z "$depths" ]; then
		not_ok "$name: loaded, with a stack depth in the verifier's log"
		continue
	fi
	while read -r d; do
		main=${d%%+*} deepest=0
		for s in $(tr '+' ' ' <<<"${d#"$main"}"); do
			[ "$s" -gt "$deepest" ] && deepest=$s
		done
		total=$(( $(round32 "$main") + $(round32 "$deepest") ))
		check "$name: stack $d, $total bytes as Linux 6.1 counts them (at most 512)" \
			test "$total" -le 512
	done <<<"$depths"
done
tap_done
