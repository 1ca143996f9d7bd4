#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Queueing delay equals occupancy over rate.  The port to h1 runs at
# 200 Mbit/s with a buffer of B frames, and h0 offers 300 Mbit/s of UDP
# carrying send timestamps, so the queue stands at its buffer.  The
# one-way delay the receiver measures, minus the same path's delay with an
# empty queue, must equal the switch's mean occupancy over the rate within
# 10%, for B = 50 and 150 frames (3 and 9 ms).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/fabric/testlib.sh

R=200000000
if ! ft_up "$(ft_topo star)" --set hosts=2; then
	not_ok "fabric up"; tap_done; exit 1
fi
ft_ctl port tor0-h1 rate $R
DST=$(ft_ip h1)

owd() {	# RATE_BPS SECS OUT: p50 one-way delay of a UDP stream
	ft_bg h1 "$EQLOAD" udp-recv --port 5202 --duration $(($2 + 2)) --idle-exit 1 --out "$3"
	sleep 0.3
	ft_on h0 "$EQLOAD" udp-send --dst "$DST" --port 5202 --size 1472 --rate "$1" \
		--duration "$2" --out /dev/null >/dev/null
	ft_wait
	ft_sum "$3" owd_p50_ns
}

base=$(owd 20000000 1 "$FT_TMP/idle")
echo "# empty-queue one-way delay p50: $base ns"
for b in 50 150; do
	ft_ctl port tor0-h1 buffer ${b}p
	ft_ctl reset
	loaded=$(owd 300000000 3 "$FT_TMP/load$b")
	ft_stats
	occ=$(ft_port tor0-h1 occ_mean_bytes)
	want=$(awk -v o="$occ" -v r=$R 'BEGIN { printf "%d", o * 8 * 1e9 / r }')
	got=$((loaded - base))
	echo "# buffer $b: mean occupancy $occ bytes -> $want ns; measured $got ns (p50 $loaded - $base)"
	check "buffer $b frames: queueing delay $got ns = occupancy/rate $want ns within 10%" \
		ft_within "$got" "$want" 10
done
tap_done
