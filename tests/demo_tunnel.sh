#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The tunnel demo (`make demo-tunnel`): two hosts (network namespaces A and B on a
# veth pair), edgeq attached to both, then
#   1. ping and a TCP bulk transfer (iperf3) through the tunnel,
#   2. what the wire carries, decoded by tshark with our dissector,
#   3. `edgeq status` and a bpftool dump of the pinned state,
#   4. detach, and the same transfer over plain veth for comparison.
# Everything it creates is removed when it ends, however it ends.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

say() { printf '\n== %s\n' "$*"; }

iperf_gbps() {		# DST: one 5 s TCP flow A -> B, client and server pinned apart
	local dst=$1 json
	ip netns exec "$TB_B" taskset -c 1 iperf3 -s -1 -D -p 5299 >/dev/null 2>&1
	sleep 0.5
	json=$(ip netns exec "$TB_A" taskset -c 0 iperf3 -c "$dst" -p 5299 -t 5 -O 1 -J 2>/dev/null)
	echo "$json" | grep -A8 '"sum_received"' | grep -m1 bits_per_second |
		awk -F: '{gsub(/[ ,]/, "", $2); printf "%.2f", $2 / 1e9}'
}

say "testbed: namespaces $TB_A (10.77.0.1, fd77::1) and $TB_B (10.77.0.2, fd77::2)"
tb_up || { echo "demo: testbed setup failed (run as root; 'make deps' installs the tools)"; exit 1; }
echo "config of host A ($TB_TMP/a.conf):"
sed 's/^/    /' "$TB_TMP/a.conf"

say "edgeq attach on both hosts"
eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf" || exit 1
eq_b attach "$TB_IFB" --config "$TB_TMP/b.conf" || exit 1
echo "routes edgeq gave the peer prefixes in A (MTU left for the inner packet):"
ip -n "$TB_A" route show proto 233 | sed 's/^/    /'
ip -n "$TB_A" -6 route show proto 233 | sed 's/^/    /'

tb_bg ip netns exec "$TB_A" tcpdump -Q out -i "$TB_IFA" -s 0 -c 6 -U -w "$TB_TMP/wire.pcap" udp port 7446
sleep 0.5
say "ping through the tunnel"
in_a ping -c 3 -i 0.2 10.77.0.2 | tail -2
in_a ping -6 -c 3 -i 0.2 fd77::2 | tail -1
tb_stop

say "on the wire (A's egress), decoded by tools/wireshark/edgeq.lua"
tshark -n -r "$TB_TMP/wire.pcap" -X lua_script:tools/wireshark/edgeq.lua \
	-o udp.ignore_ipv6_zero_checksum:TRUE 2>/dev/null | sed 's/^/    /'

say "TCP through the tunnel (iperf3, 5 s, client on CPU 0, server on CPU 1)"
tun=$(iperf_gbps 10.77.0.2)
echo "    ${tun:-?} Gbit/s"

say "edgeq status (host A)"
eq_a status "$TB_IFA"

say "the same state with bpftool (pinned, BTF-typed): peer slot 0 of host A"
dir=$(eq_a status "$TB_IFA" --json | grep -o '"pin_dir":"[^"]*"' | cut -d'"' -f4)
echo "    bpftool map lookup pinned $dir/eq_peers key 0 0 0 0"
bpftool map lookup pinned "$dir/eq_peers" key 0 0 0 0 | sed 's/^/    /'

say "edgeq detach on both hosts: plain veth again"
eq_a detach "$TB_IFA"
eq_b detach "$TB_IFB"
plain=$(iperf_gbps 10.77.0.2)
echo "    plain TCP: ${plain:-?} Gbit/s; through the tunnel: ${tun:-?} Gbit/s"
echo "    (XDP on a veth costs the peer its TSO: see docs/performance.md)"
say "done: everything the demo made is removed on exit"
