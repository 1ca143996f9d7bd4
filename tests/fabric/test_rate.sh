#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The fabric delivers its configured rate, measured by the receiving host.
# A switch port to h1 is made the bottleneck (its rate R, h0's link 1.5R)
# and h0 offers UDP at 1.3R: the receiver must see R within 5% (frame
# bytes, as the switch counts them).  R = 1 Gbit/s, then 5 Gbit/s.
# When this machine cannot offer more than R (a 2-CPU VM: the sender, the
# switch and the receiver's stack share two cores), the rate cannot be
# tested at R: the test says so, with the figures, and counts a skip.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/fabric/testlib.sh

SECS=${FT_RATE_SECS:-3}

rate_at() {	# R in bit/s
	local r=$1 rx tx got offered drops
	ft_ctl port tor0-h1 rate "$r"
	ft_ctl reset
	rx=$FT_TMP/rx.$r tx=$FT_TMP/tx.$r
	ft_bg h1 "$EQLOAD" udp-recv --port 5202 --duration $((SECS + 2)) --idle-exit 1 --out "$rx"
	sleep 0.3
	ft_on h0 "$EQLOAD" udp-send --dst "$(ft_ip h1)" --port 5202 --size 1472 \
		--rate $((r * 13 / 10)) --duration "$SECS" --out "$tx" >/dev/null
	ft_wait
	ft_stats
	got=$(ft_sum "$rx" rate_bps)
	offered=$(ft_sum "$tx" rate_bps)
	drops=$(ft_port tor0-h1 drop_full)
	echo "# R=$r: offered $offered, delivered $got bit/s; switch: $drops drops, " \
		"mean queue $(ft_port tor0-h1 occ_mean_pkts) pkts"
	if ! awk -v o="$offered" -v r="$r" 'BEGIN { exit !(o > r * 1.05) }'; then
		skip "rate $r: this machine offered only $offered bit/s, not above the rate"
		return
	fi
	check "rate $r: delivered $got bit/s within 5%" ft_within "$got" "$r" 5
	check "rate $r: the port was the bottleneck (drop-tail drops: $drops)" [ "${drops:-0}" -gt 0 ]
}

if ! ft_up "$(ft_topo star)" --set hosts=2 --set rate=1500mbit --set buffer=100p; then
	not_ok "fabric up"; tap_done; exit 1
fi
rate_at 1000000000
ft_down
if ! ft_up "$(ft_topo star)" --set hosts=2 --set rate=7500mbit --set buffer=100p; then
	not_ok "fabric up"; tap_done; exit 1
fi
rate_at 5000000000
tap_done
