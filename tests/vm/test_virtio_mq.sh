#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# VM only: scheme eqds on multi-queue virtio-net, the NIC of most cloud
# VMs.  vmtests/run-vm.sh gives the guest two virtio-net NICs with two
# queue pairs each, bridged on the host; they become hosts A and B here
# (tests/lib/netns.sh, TB_DEVS).  With both queues in use and no
# `ethtool -L`, the agent has a socket on each receive queue, parallel TCP
# transfers both ways complete with identical bytes, both receive queues
# carried packets (the host's tap spreads flows over them), and no edgeq
# packet is lost for want of a socket (rx_agent_err).  Without such NICs
# (run-vm.sh not root, no /dev/net/tun, virtme-ng) it says so and skips.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

FLOWS=4
MB=1

# virtio-net interfaces of the initial namespace with at least 2 queue pairs.
mq_virtio_nics() {
	local d n
	for d in /sys/class/net/*; do
		n=${d##*/}
		[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = virtio_net ] || continue
		[ "$(ethtool -l "$n" 2>/dev/null | awk '/^Pre-set/ {p = 1} p && /^Combined/ {print $2; exit}')" -ge 2 ] \
			2>/dev/null && echo "$n"
	done
}

# (no process substitution: the guest has no /dev/fd)
read -r -a nics <<<"$(mq_virtio_nics | head -2 | paste -sd' ')"
if [ "${#nics[@]}" -lt 2 ]; then
	skip "no two multi-queue virtio-net NICs in this VM (vmtests/run-vm.sh adds them when run as root with /dev/net/tun, on its qemu path)"
	tap_done
	exit 0
fi
for n in "${nics[@]}"; do
	ethtool -L "$n" combined 2 2>/dev/null	# the driver's default is already all of them
done
q0=$(ethtool -l "${nics[0]}" | awk '/^Current/ {c = 1} c && /^Combined/ {print $2; exit}')
check "${nics[0]} and ${nics[1]} are virtio-net with $q0 queue pairs in use" test "${q0:-0}" -ge 2

TB_DEVS="${nics[0]} ${nics[1]}"	# tb_down gives them back
TB_OFFLOADS=default tb_start
for s in a b; do echo "scheme eqds" >>"$TB_TMP/$s.conf"; done
check "attach with scheme eqds on multi-queue virtio-net" tb_attach
q=$("$EDGEQ" --netns "$TB_A" status "$TB_IFA" --json | jq '.interfaces[0].agent_wire_queues')
check "A's agent has a socket on each receive queue ($q of $q0)" test "${q:-0}" = "$q0"
q=$("$EDGEQ" --netns "$TB_B" status "$TB_IFB" --json | jq '.interfaces[0].agent_wire_queues')
check "... and B's ($q of $q0)" test "${q:-0}" = "$q0"

rxq_pkts() {	# NS IFACE QUEUE: packets the driver received on that queue
	ip netns exec "$1" ethtool -S "$2" 2>/dev/null | awk -v k="rx_queue_$3_packets:" '$1 == k {print $2}'
}
check "ping through the agents" quiet in_a ping -c 3 -i 0.1 -W 2 10.77.0.2
b0=$(rxq_pkts "$TB_B" "$TB_IFB" 0) b1=$(rxq_pkts "$TB_B" "$TB_IFB" 1)
check "$FLOWS TCP transfers of $MB MB at once over IPv4, every SHA-256 matches" tb_parallel_transfers "$FLOWS" "$MB" 10.77.0.2
check "$FLOWS at once over IPv6, every SHA-256 matches" tb_parallel_transfers "$FLOWS" "$MB" fd77::2
d0=$(( $(rxq_pkts "$TB_B" "$TB_IFB" 0) - ${b0:-0} )) d1=$(( $(rxq_pkts "$TB_B" "$TB_IFB" 1) - ${b1:-0} ))
check "B received on both queues (queue 0: $d0 packets, queue 1: $d1)" test "$d0" -gt 0 -a "$d1" -gt 0
sleep 0.3
tb_check_agent_sockets

tb_stop
check "detach A" eq_a detach "$TB_IFA"
check "detach B" eq_b detach "$TB_IFB"
check "nothing left on A" nothing_left "$TB_A" "$TB_IFA"
check "nothing left on B" nothing_left "$TB_B" "$TB_IFB"
tb_down
check "the NICs are back under their own names" ip link show dev "${nics[0]}"
tap_done
