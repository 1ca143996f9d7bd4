#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# VM only (needs a kernel that accepts freplace programs, for libxdp's
# dispatcher): edgeq shares an interface with another XDP program,
# xdp-filter from xdp-tools, whichever attaches first.  Both keep working,
# and detaching edgeq leaves the other program in place.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

in_b_ns() { nsenter --net="/run/netns/$TB_B" "$@"; }	# keeps bpffs (libxdp needs it)
progs_b() { in_b_ns xdp-loader status "$TB_IFB" 2>/dev/null; }
multiprog_b() { eq_b status "$TB_IFB" --json | grep -q '"xdp_multiprog":true'; }

tb_up || { not_ok "testbed setup"; tap_done; exit 1; }
check "A: attach" eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf"

for order in filter-first edgeq-first; do
	if [ $order = filter-first ]; then
		check "$order: xdp-filter loads on B" in_b_ns xdp-filter load -m native "$TB_IFB"
		check "$order: edgeq attaches on B beside it" eq_b attach "$TB_IFB" --config "$TB_TMP/b.conf"
	else
		check "$order: edgeq attaches on B" eq_b attach "$TB_IFB" --config "$TB_TMP/b.conf"
		check "$order: xdp-filter loads on B beside it" in_b_ns xdp-filter load -m native "$TB_IFB"
	fi
	check "$order: edgeq went through libxdp's dispatcher (status: xdp_multiprog)" multiprog_b
	out=$(progs_b)
	check "$order: xdp-loader lists both xdp_ingress and xdp-filter's program" \
		test -n "$(grep xdp_ingress <<<"$out")" -a -n "$(grep xdpfilt <<<"$out")"
	check "$order: ping through the tunnel" in_a ping -c 3 -i 0.2 -W 2 10.77.0.2
	check "$order: TCP 2 MB through the tunnel, SHA-256 matches" tcp_transfer_ok 10.77.0.2 2
	d=$(eq_stat b rx_decap)
	check "$order: B decapsulated the traffic ($d)" test "${d:-0}" -gt 100
	# The other program still acts: denying A's address stops the tunnel.
	check "$order: xdp-filter denies A's address" in_b_ns xdp-filter ip 10.77.0.1 --mode src
	check "$order: ... and the tunnel ping then fails" bash -c "! ip netns exec $TB_A ping -c 2 -i 0.2 -W 1 10.77.0.2 >/dev/null"
	check "$order: rule removed" in_b_ns xdp-filter ip 10.77.0.1 --mode src --remove
	check "$order: ... and the tunnel ping works again" in_a ping -c 2 -i 0.2 -W 2 10.77.0.2
	check "$order: edgeq detaches from B" eq_b detach "$TB_IFB"
	out=$(progs_b)
	check "$order: xdp-filter's program is still attached after edgeq's detach" \
		test -n "$(grep xdpfilt <<<"$out")" -a -z "$(grep xdp_ingress <<<"$out")"
	check "$order: xdp-filter unloads" in_b_ns xdp-filter unload "$TB_IFB"
	check "$order: nothing left on B's interface" bash -c "! ip -n $TB_B link show dev $TB_IFB | grep -q xdp"
done
tap_done
