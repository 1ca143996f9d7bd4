#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# scheme eqds on multi-queue interfaces: two hosts on a veth pair with four
# receive and transmit queues each (flows spread over them by their hash),
# no `ethtool -L` needed.  The agent binds a socket to every receive queue,
# so the control packets and out-of-order DATA that arrive on any queue
# reach it: parallel TCP transfers both ways complete with identical
# bytes, and no edgeq packet is lost for want of a socket
# (rx_agent_err).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

MB=${EDGEQ_IN_VM:+1}
MB=${MB:-4}
FLOWS=${EDGEQ_IN_VM:+4}	# the VM (TCG) is ~50x slower
FLOWS=${FLOWS:-8}

TB_QUEUES=4 TB_OFFLOADS=default tb_start
for s in a b; do echo "scheme eqds" >>"$TB_TMP/$s.conf"; done
check "attach with scheme eqds on 4-queue veths" tb_attach
q=$("$EDGEQ" --netns "$TB_A" status "$TB_IFA" --json | jq '.interfaces[0].agent_wire_queues')
check "A's agent has a socket on each of the 4 receive queues ($q)" test "${q:-0}" = 4
q=$("$EDGEQ" --netns "$TB_B" status "$TB_IFB" --json | jq '.interfaces[0].agent_wire_queues')
check "... and B's ($q)" test "${q:-0}" = 4

check "ping through the agents" quiet in_a ping -c 3 -i 0.1 -W 2 10.77.0.2
check "$FLOWS TCP transfers of $MB MB at once over IPv4, every SHA-256 matches" tb_parallel_transfers "$FLOWS" "$MB" 10.77.0.2
[ -z "${EDGEQ_IN_VM:-}" ] &&
	check "$FLOWS at once over IPv6, every SHA-256 matches" tb_parallel_transfers "$FLOWS" "$MB" fd77::2
sleep 0.3
tb_check_agent_sockets

tb_stop
check "detach A" eq_a detach "$TB_IFA"
check "detach B" eq_b detach "$TB_IFB"
check "nothing left on A" nothing_left "$TB_A" "$TB_IFA"
check "nothing left on B" nothing_left "$TB_B" "$TB_IFB"
tap_done
