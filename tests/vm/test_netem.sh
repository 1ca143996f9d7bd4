#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# VM only (the host kernel has no netem): the tunnel under delay and loss.
# netem on both veths (5 ms each way, 1% loss) sits behind edgeq's TC
# egress, so it delays and drops tunnel packets.  Ping shows the delay; a
# TCP transfer recovers from the loss end to end with identical bytes; no
# edgeq packet is dropped as malformed.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

tb_up || { not_ok "testbed setup"; tap_done; exit 1; }
check "netem on A and B (5 ms, 1% loss)" \
	bash -c "ip -n $TB_A link set $TB_IFA up && tc -n $TB_A qdisc add dev $TB_IFA root netem delay 5ms loss 1% &&
		 tc -n $TB_B qdisc add dev $TB_IFB root netem delay 5ms loss 1%"
check "attach on both hosts beside netem" tb_attach

rtt=$(in_a ping -c 20 -i 0.05 -W 2 10.77.0.2 | sed -n 's|.*= [0-9.]*/\([0-9.]*\)/.*|\1|p')
check "ping through the tunnel sees the delay (avg ${rtt:-?} ms, >= 9.5)" \
	awk -v r="${rtt:-0}" 'BEGIN {exit !(r >= 9.5)}'
check "TCP 4 MB through the tunnel with 1% loss each way, SHA-256 matches" tcp_transfer_ok 10.77.0.2 4
check "TCP 2 MB over IPv6 with loss, SHA-256 matches" tcp_transfer_ok fd77::2 2
bad=$( { eq_a status "$TB_IFA" --json; eq_b status "$TB_IFB" --json; } | grep -oE '"(rx_drop|tx_err)[a-z_]*":[1-9][0-9]*')
check "no edgeq drops on either host (${bad:-none})" test -z "$bad"
check "detach on both hosts" bash -c "$EDGEQ --netns $TB_A detach $TB_IFA >/dev/null && $EDGEQ --netns $TB_B detach $TB_IFB >/dev/null"
check "netem qdisc left in place by detach" bash -c "tc -n $TB_A qdisc show dev $TB_IFA | grep -q netem"
tap_done
