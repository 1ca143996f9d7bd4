#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# edgeq with scheme smartt on the test fabric, end to end: a 4 -> 1 incast
# of 1 MB TCP transfers (eqload bulk, cubic inside the tunnel) on a star
# whose switch CE-marks ECT packets above 6000 bytes and trims edgeq data
# above 8 packets; then again on a switch that does not trim and drops 1 %
# of the packets to the receiver at random.  Asserted: every transfer
# completes; the switch's marks reached the senders' windows (ACKs
# echoing CE, decreases) and no marked packet was dropped at
# decapsulation; every trim reached the receiver's agent as a
# trimmed header and was NACKed and resent; with random loss the
# receivers NACKed losses and the senders resent; no genuine packet was
# refused.  The queue and completion figures are printed (the targets
# live in the experiments, tests/scenarios/, with SC_TRANSPORTS=smartt).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/fabric/testlib.sh

N=4
RATE=${FT_EDGEQ_RATE:-200mbit}

incast() {	# MODE: trim | loss
	local mode=$1 i ok raw=$FT_TMP/$1 trims marks last
	ft_incast "$N" "$raw"
	ok=$FT_INCAST_OK last=$FT_INCAST_LAST
	check "$mode: all $N transfers of 1 MB complete through SMaRTT's tunnels ($ok)" [ "$ok" -eq "$N" ]
	trims=$(ft_port "tor0-h$N" trims); marks=$(ft_port "tor0-h$N" marks)
	local ce dec rxt nacks rtx rtos lost
	read -r ce dec rxt nacks rtx rtos lost < <(ft_agent_sum acks_ce decreases rx_trimmed rx_nacks tx_rtx rto_fired rx_lost)
	echo "# $mode: last done at $((last / 1000000)) ms; bottleneck: $(ft_port "tor0-h$N" occ_max_pkts) pkts max," \
		"$(ft_port "tor0-h$N" occ_mean_pkts) mean, $marks marks, $trims trims, $(ft_port "tor0-h$N" drop_full) drops;" \
		"ACKs echoing CE $ce, window decreases $dec; trimmed headers $rxt, NACKs $nacks, RTOs $rtos," \
		"resends $rtx, NACKed lost $lost"
	if [ "$mode" = trim ]; then
		local xdp_trims
		read -r xdp_trims < <(ft_edgeq_stat_sum rx_trimmed)
		check "trim: the switch marked ($marks) and the marks reached the windows ($ce ACKs echoing CE, $dec decreases)" \
			[ "$marks" -gt 0 -a "$ce" -gt 0 -a "$dec" -gt 0 ]
		# Inner TCP here is Not-ECT: the agents made the outer header
		# ECT, and a CE mark the window took must not drop the packet
		# at decapsulation (RFC 6040 would: docs/wire.md §8).
		local h ecn_drops=0 d
		for h in "${FT_EDGEQ_HOSTS[@]}"; do
			d=$(nsenter --net="/run/netns/$FT_NAME-$h" "$EDGEQ" status eth0 --json 2>/dev/null |
				jq -r '.interfaces[0].agent_counters.ecn_drops // "missing"')
			[ "$d" = missing ] && ecn_drops=missing && break
			ecn_drops=$((ecn_drops + d))
		done
		check "trim: no marked packet dropped at decapsulation (the agents' ecn_drops: $ecn_drops)" \
			[ "$ecn_drops" = 0 ]
		# Bare TCP ACKs go without the agents (frame_len 0); XDP counts
		# their trimmed headers.
		check "trim: every trim reached the receiver ($trims at the switch; $rxt to the agent, $xdp_trims without one)" \
			[ $((rxt + xdp_trims)) -eq "$trims" ]
		check "trim: the trims were NACKed and resent (NACKs $nacks + RTOs $rtos >= $rxt; resends $rtx)" \
			[ $((nacks + rtos)) -ge "$rxt" -a "$rtx" -ge "$rxt" ]
	else
		local dropped
		dropped=$(ft_port "tor0-h$N" drop_loss)
		check "loss: the switch dropped packets ($dropped)" [ "$dropped" -gt 0 ]
		check "loss: the receivers NACKed losses ($lost) and the senders resent ($rtx)" \
			[ "$lost" -gt 0 -a "$rtx" -gt 0 ]
	fi
	local refused
	refused=$(ft_agent_sum bad_ack bad_rst rx_bad_seq rx_bad_epoch)
	check "$mode: no genuine packet refused (bad_ack bad_rst rx_bad_seq rx_bad_epoch: $refused)" \
		[ "$refused" = "0 0 0 0" ]
}

for mode in trim loss; do
	trim=8p
	[ "$mode" = loss ] && trim=off
	if ! ft_up "$(ft_topo star)" --set hosts=$((N + 1)) --set rate="$RATE" --set trim="$trim" \
		--set ecn_k=6000; then
		not_ok "fabric up"; tap_done; exit 1
	fi
	if ! ft_edgeq_up scheme smartt link_rate "$RATE"; then
		not_ok "$mode: edgeq (scheme smartt) attached on every host"
		ft_down; continue
	fi
	[ "$mode" = loss ] && ft_ctl port "tor0-h$N" loss 1
	ok "$mode: edgeq (scheme smartt) attached on every host"
	incast "$mode"
	ft_down
done
tap_done
