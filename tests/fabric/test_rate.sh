#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The fabric delivers its configured rate, measured by the receiving host.
# A switch port to h1 is made the bottleneck (its rate R, h0's link 1.5R)
# and h0 offers UDP at 1.3R: the receiver must see R within 5% (frame
# bytes, as the switch counts them).
# R = 1 Gbit/s is always asserted.  Above that the machine, not the
# model, is the limit: on a 2-CPU VM the sender, the switch (whose
# AF_XDP sends run the receiver's whole stack) and the receiver share
# two cores.  When the switch loses its CPU for longer than its
# receive rings cover, frames reach it after the port has moved on and
# the port idles: the switch counts those stalls and the frames lost
# before it (hosts.tsv).  Frames can also be lost after the port: the
# switch could not hand them to h1's kernel (hosts.tsv, tx_drop), or
# h1's socket overflowed (udp-recv's sock_drops).  So a shortfall is
# retried once, and a third time if the machine lost time or frames
# again (at 1 Gbit/s too: another tenant took the CPU for 22-30 stalls
# of 0.5 ms in 3 s once); at 2.5 and 5 Gbit/s, if it stays and the
# machine lost time or frames,
# the figures are printed and the case counts a skip ("the highest
# rate this machine sustains, stated"); a shortfall without either, or
# any rate above R+5%, fails.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/fabric/testlib.sh

SECS=${FT_RATE_SECS:-3}

measure() {	# R -> sets GOT, OFFERED, DROPS
	local r=$1 rx=$FT_TMP/rx.$1 tx=$FT_TMP/tx.$1
	ft_ctl port tor0-h1 rate "$r"
	ft_ctl reset
	ft_bg h1 "$EQLOAD" udp-recv --port 5202 --duration $((SECS + 2)) --idle-exit 1 --out "$rx"
	sleep 0.3
	ft_on h0 "$EQLOAD" udp-send --dst "$(ft_ip h1)" --port 5202 --size 1472 \
		--rate $((r * 13 / 10)) --duration "$SECS" --out "$tx" >/dev/null
	ft_wait
	ft_stats
	GOT=$(ft_sum "$rx" rate_bps)
	OFFERED=$(ft_sum "$tx" rate_bps)
	DROPS=$(ft_port tor0-h1 drop_full)
	STALLS=$(awk '/^# loop_stalls_over_500us=/ { split($2, kv, "="); print kv[2] }' "$(fab_dir "$FT_NAME")/hosts.tsv")
	LOST=$(awk -F'\t' '$1 == "h0" { print $6 }' "$(fab_dir "$FT_NAME")/hosts.tsv")
	# After the port: frames the switch could not hand to h1's kernel,
	# and datagrams h1's socket dropped (SO_RXQ_OVFL).
	AFTER=$(( $(awk -F'\t' '$1 == "h1" { print $4 }' "$(fab_dir "$FT_NAME")/hosts.tsv") + 0 +
		  $(ft_sum "$rx" sock_drops) + 0 ))
	echo "# R=$r: offered $OFFERED, delivered $GOT bit/s; switch: $DROPS drops," \
		"mean queue $(ft_port tor0-h1 occ_mean_pkts) pkts," \
		"switch stalls > 0.5 ms: ${STALLS:-?}, frames lost before it: ${LOST:-?}," \
		"after it: $AFTER"
}

# The machine lost time or frames outside the model: switch stalls,
# frames lost before the switch or after its port.
machine_lost() { [ $(( ${STALLS:-0} + ${LOST:-0} + ${AFTER:-0} )) -gt 0 ]; }

above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

rate_at() {	# R in bit/s, [soft]: a shortfall the machine explains is a skip
	local r=$1 soft=${2:-}
	local tries=1
	measure "$r"
	# Short, and the switch says it lost its CPU (or frames never reached
	# it): the machine's other tenants, not the model.  Once more, and a
	# third time if it stalled again; a shortfall with no stall is never
	# retried away.
	while ! ft_within "$GOT" "$r" 5 && ! above "$GOT" "$((r * 105 / 100))" &&
	      { [ "$tries" = 1 ] || machine_lost; } && [ "$tries" -lt 3 ]; do
		echo "# R=$r: short of the rate, measuring once more"
		measure "$r"
		tries=$((tries + 1))
	done
	if [ -n "$soft" ] && ! ft_within "$GOT" "$r" 5 && ! above "$GOT" "$r" && machine_lost; then
		skip "rate $r: this machine delivered $GOT bit/s (offered $OFFERED) with $STALLS switch stalls, $LOST frames lost before the switch and $AFTER after its port: not testable here"
		return
	fi
	check "rate $r: delivered $GOT bit/s within 5%" ft_within "$GOT" "$r" 5
	check "rate $r: the port was the bottleneck (drop-tail drops: $DROPS)" [ "${DROPS:-0}" -gt 0 ]
}

fabric_at() {	# link rate
	ft_down
	if ! ft_up "$(ft_topo star)" --set hosts=2 --set rate="$1" --set buffer=100p; then
		not_ok "fabric up"; tap_done; exit 1
	fi
}

fabric_at 1500mbit
rate_at 1000000000
fabric_at 3750000000
rate_at 2500000000 soft
fabric_at 7500000000
rate_at 5000000000 soft
tap_done
