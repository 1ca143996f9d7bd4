#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# No reordering within one path, and multipath as configured, on the
# leaf-spine fabric (2 leaves x 2 hosts, 2 spines):
#  1. a UDP stream from h0 to h2 through a congested port (drops allowed)
#     arrives in order: reordered = 0, duplicates = 0;
#  2. with ECMP one flow stays on one spine (the other spine's leaf uplink
#     carries none of it), and 16 flows use both spines;
#  3. with spraying one flow uses both spines;
#  4. failing the spine a flow uses: after the reroute delay the flow
#     moves to the other spine and keeps arriving; bringing it back up
#     restores both; the switch counted the packets lost on the dead link.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/fabric/testlib.sh

up() {
	ft_up "$(ft_topo leafspine)" --set hosts_per_leaf=2 --set spines=2 "$@" && return
	not_ok "fabric up"; tap_done; exit 1
}

stream() {	# SPORT RATE SECS OUT [udp-send options]
	local sport=$1 rate=$2 secs=$3 out=$4; shift 4
	ft_bg h2 "$EQLOAD" udp-recv --port 5202 --duration $((secs + 2)) --idle-exit 1 --out "$out"
	sleep 0.3
	ft_on h0 "$EQLOAD" udp-send --dst "$(ft_ip h2)" --port 5202 --sport "$sport" --size 1200 \
		--rate "$rate" --duration "$secs" --out /dev/null "$@" >/dev/null
	ft_wait
}

up --set buffer=30p
ft_ctl port spine0-leaf1 rate 300mbit
ft_ctl port spine1-leaf1 rate 300mbit
ft_ctl reset
stream 40000 500m 2 "$FT_TMP/o1"
ft_stats
drops=$(( $(ft_port spine0-leaf1 drop_full) + $(ft_port spine1-leaf1 drop_full) ))
echo "# $(ft_sum "$FT_TMP/o1" pkts) received, $drops dropped at the congested spine port"
check "congested path: datagrams arrived ($(ft_sum "$FT_TMP/o1" pkts))" [ "$(ft_sum "$FT_TMP/o1" pkts)" -gt 10000 ]
check "congested path: some drops (got $drops)" [ "$drops" -gt 0 ]
check "congested path: reordered = 0" [ "$(ft_sum "$FT_TMP/o1" reordered)" = 0 ]
check "congested path: duplicates = 0" [ "$(ft_sum "$FT_TMP/o1" dups)" = 0 ]
used=0
for s in 0 1; do [ "$(ft_port leaf0-spine$s tx_pkts)" -gt 1000 ] && used=$((used + 1)); done
check "ECMP: one flow on one spine" [ "$used" = 1 ]
ft_down

up --set multipath=spray
ft_ctl reset
stream 40000 200m 1 "$FT_TMP/o2"
ft_stats
a=$(ft_port leaf0-spine0 tx_pkts) b=$(ft_port leaf0-spine1 tx_pkts)
echo "# spray: spine0 $a, spine1 $b packets"
check "spray: one flow uses both spines evenly (within 20%)" ft_within "$a" "$b" 20
ft_down

up --set reroute=20ms
ft_ctl reset
# 16 flows (source ports) spread over both spines
for p in $(seq 41000 41015); do
	ft_on h0 "$EQLOAD" udp-send --dst "$(ft_ip h2)" --port 5203 --sport "$p" --size 200 \
		--burst 20 --out /dev/null >/dev/null
done
ft_stats
a=$(ft_port leaf0-spine0 tx_pkts) b=$(ft_port leaf0-spine1 tx_pkts)
check "ECMP: 16 flows use both spines ($a / $b)" [ "$a" -gt 0 -a "$b" -gt 0 ]
# Which spine does our flow take?
ft_ctl reset
ft_on h0 "$EQLOAD" udp-send --dst "$(ft_ip h2)" --port 5202 --sport 40000 --size 200 --burst 50 \
	--out /dev/null >/dev/null
ft_stats
if [ "$(ft_port leaf0-spine0 tx_pkts)" -ge 50 ]; then s=0 o=1; else s=1 o=0; fi
ft_ctl reset
ft_bg h2 "$EQLOAD" udp-recv --port 5202 --duration 4 --idle-exit 2 --rows --out "$FT_TMP/o3"
sleep 0.3
ft_bg h0 "$EQLOAD" udp-send --dst "$(ft_ip h2)" --port 5202 --sport 40000 --size 1200 \
	--rate 100m --duration 2 --out /dev/null
sleep 0.7
ft_ctl link leaf0 spine$s down
sleep 0.6
ft_ctl link leaf0 spine$s up
ft_wait
ft_stats
lost=$(ft_sum "$FT_TMP/o3" lost)
down=$(ft_port leaf0-spine$s drop_down)
moved=$(ft_port leaf0-spine$o tx_pkts)
echo "# failure of leaf0-spine$s: $lost lost at the receiver, $down dropped on the dead link, $moved via spine$o"
check "failure: the flow moved to spine$o" [ "$moved" -gt 100 ]
check "failure: losses bounded by the reroute delay (lost $lost <= 2 x 20 ms at 100 Mbit/s)" \
	[ "$lost" -gt 0 -a "$lost" -le 420 ]
check "failure: the switch counted the losses on the dead link" [ "$down" -gt 0 ]
check "failure: traffic arrived after the failure" \
	awk '!/^#/ { n++ } END { exit !(n > 15000) }' "$FT_TMP/o3"
tap_done
