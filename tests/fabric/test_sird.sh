#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# edgeq with scheme sird on the test fabric, end to end: a 4 -> 1 incast
# of 1 MB TCP transfers (eqload bulk, cubic inside the tunnel) on a star
# whose switch CE-marks ECT packets above 6000 bytes (NThr) and trims
# edgeq data above 8 packets; then again on a switch that does not trim
# and drops 1 % of the packets to the receiver at random.  Asserted:
# every transfer completes; the senders sent a burst's first bytes
# unscheduled and the rest on credit, and the receiver granted at least
# what they spent; the switch's marks reached the receiver's limits (CE
# seen); every trim reached the receiver's agent and was NACKed and
# resent; with random loss the receiver NACKed losses and the senders
# resent; no genuine packet was refused; once idle, no credit is held,
# wanted or outstanding anywhere.  The queue and completion figures are
# printed (the targets live in the experiments, tests/scenarios/, with
# SC_TRANSPORTS=sird).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/fabric/testlib.sh

N=4
RATE=${FT_EDGEQ_RATE:-200mbit}

idle_credit() {	# held + wanted + outstanding, over every host
	ft_agent_sum credit_held credit_wanted granted bucket_out | awk '{ print $1 + $2 + $3 + $4 }'
}

incast() {	# MODE: trim | loss
	local mode=$1 ok raw=$FT_TMP/$1 trims marks last
	ft_incast "$N" "$raw"
	ok=$FT_INCAST_OK last=$FT_INCAST_LAST
	check "$mode: all $N transfers of 1 MB complete through SIRD's tunnels ($ok)" [ "$ok" -eq "$N" ]
	trims=$(ft_port "tor0-h$N" trims); marks=$(ft_port "tor0-h$N" marks)
	local un sch sent ce csn rxt nacks rtx rtos lost
	read -r un sch sent ce csn rxt nacks rtx rtos lost < <(ft_agent_sum unsched_bytes sched_bytes \
		credit_sent ce_seen csn_seen rx_trimmed rx_nacks tx_rtx rto_fired rx_lost)
	echo "# $mode: last done at $((last / 1000000)) ms; bottleneck: $(ft_port "tor0-h$N" occ_max_pkts) pkts max," \
		"$(ft_port "tor0-h$N" occ_mean_pkts) mean, $marks marks, $trims trims, $(ft_port "tor0-h$N" drop_full) drops;" \
		"unscheduled $un B, on credit $sch B, credit granted $sent B, CE seen $ce, csn seen $csn;" \
		"trimmed headers $rxt, NACKs $nacks, RTOs $rtos, resends $rtx, NACKed lost $lost"
	check "$mode: bursts began unscheduled ($un B) and the rest went on credit ($sch B), all of it granted ($sent B)" \
		[ "$un" -gt 0 -a "$sch" -gt $((N * 500000)) -a "$sent" -ge "$sch" ]
	if [ "$mode" = trim ]; then
		local xdp_trims
		read -r xdp_trims < <(ft_edgeq_stat_sum rx_trimmed)
		check "trim: the switch marked ($marks) and the receiver's limits saw it (CE seen $ce)" \
			[ "$marks" -gt 0 -a "$ce" -gt 0 ]
		if [ "$trims" = 0 ]; then
			# The credit kept the queue within the trimming threshold
			# (the switch trims DATA that would take the data queue
			# above 8 full packets; 8 of them fit): then that is what
			# is checked.
			local qmax
			qmax=$(ft_port "tor0-h$N" occ_max_pkts)
			check "trim: nothing trimmed, the queue stayed within the threshold (max $qmax <= 8 packets)" \
				[ "$qmax" -le 8 ]
		else
			# Bare TCP ACKs go without the agents (frame_len 0); XDP
			# counts their trimmed headers.
			check "trim: every trim reached the receiver ($trims at the switch; $rxt to the agent, $xdp_trims without one)" \
				[ $((rxt + xdp_trims)) -eq "$trims" ]
			check "trim: the trims were NACKed and resent (NACKs $nacks + RTOs $rtos >= $rxt; resends $rtx)" \
				[ $((nacks + rtos)) -ge "$rxt" -a "$rtx" -ge "$rxt" ]
		fi
	else
		local dropped
		dropped=$(ft_port "tor0-h$N" drop_loss)
		check "loss: the switch dropped packets ($dropped)" [ "$dropped" -gt 0 ]
		check "loss: the receivers NACKed losses ($lost) and the senders resent ($rtx)" \
			[ "$lost" -gt 0 -a "$rtx" -gt 0 ]
	fi
	local refused
	refused=$(ft_agent_sum bad_ack bad_rst rx_bad_seq rx_bad_epoch bad_credit)
	check "$mode: no genuine packet refused (bad_ack bad_rst rx_bad_seq rx_bad_epoch bad_credit: $refused)" \
		[ "$refused" = "0 0 0 0 0" ]
	local left i
	for i in $(seq 30); do
		left=$(idle_credit)
		[ "$left" = 0 ] && break
		sleep 0.1
	done
	check "$mode: idle, no credit held, wanted or outstanding on any host ($left B)" [ "$left" = 0 ]
}

for mode in trim loss; do
	trim=8p
	[ "$mode" = loss ] && trim=off
	if ! ft_up "$(ft_topo star)" --set hosts=$((N + 1)) --set rate="$RATE" --set trim="$trim" \
		--set ecn_k=6000; then
		not_ok "fabric up"; tap_done; exit 1
	fi
	if ! ft_edgeq_up scheme sird link_rate "$RATE"; then
		not_ok "$mode: edgeq (scheme sird) attached on every host"
		ft_down; continue
	fi
	[ "$mode" = loss ] && ft_ctl port "tor0-h$N" loss 1
	ok "$mode: edgeq (scheme sird) attached on every host"
	incast "$mode"
	ft_down
done
tap_done
