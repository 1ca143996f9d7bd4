#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# edgeq with scheme eqds on the test fabric, end to end: a 4 -> 1 incast of
# 1 MB TCP transfers (eqload bulk, cubic inside the tunnel) on a star whose
# switch trims edgeq data above 8 packets, then the same in RTS mode on a
# switch that does not trim.  Asserted: every transfer completes; in
# trimming mode every trim the switch made reached the receiver's agent as
# a trimmed header (none lost, none invented) and the senders retransmitted
# each one; in trimming mode the fast path carried packets (TC sending on
# credit its agent lent it: the receiver's TCP ACKs, at least) and every
# copy of them reached an agent; in RTS mode the switch trims nothing;
# and again in RTS mode with 1 % of the packets to the receiver lost at
# random (a link that drops, no trimming): the receiver NACKs losses
# (EQ_F_LOST) and the transfers complete.  The queue and
# completion figures are printed (the targets live in the experiments,
# tests/scenarios/incast.sh, not in timed tests).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/fabric/testlib.sh

N=4
RATE=${FT_EDGEQ_RATE:-200mbit}
BDP=${FT_EDGEQ_BDP:-24000}	# 16 packets: the first RTT of 4 senders overflows the 8-packet trim threshold

incast() {	# MODE: trim | rts
	local mode=$1 i ok raw=$FT_TMP/$1 trims last
	ft_incast "$N" "$raw"
	ok=$FT_INCAST_OK last=$FT_INCAST_LAST
	check "$mode: all $N transfers of 1 MB complete through the agents ($ok)" [ "$ok" -eq "$N" ]
	trims=$(ft_port "tor0-h$N" trims)
	echo "# $mode: last done at $((last / 1000000)) ms; bottleneck: $(ft_port "tor0-h$N" occ_max_pkts) pkts max," \
		"$(ft_port "tor0-h$N" occ_mean_pkts) mean, $trims trims, $(ft_port "tor0-h$N" drop_full) drops;" \
		"TCP retransmissions $(for i in $(seq 0 $((N - 1))); do ft_sum "$raw/h$i.tsv" retrans; done | paste -sd+ | bc)"
	if [ "$mode" = trim ]; then
		local rxt rtx nacks rtos gaps xdp_trims
		read -r rxt nacks rtx rtos gaps < <(ft_agent_sum rx_trimmed rx_nacks tx_rtx rto_fired reorder_gaps)
		# A bare TCP ACK goes without the agent (frame_len 0: nobody
		# resends it), and XDP counts its trimmed header and drops it:
		# the switch's trims are the agents' and those.
		read -r xdp_trims < <(ft_edgeq_stat_sum rx_trimmed)
		check "trim: the switch trimmed the first RTT ($trims trims)" [ "$trims" -gt 0 ]
		check "trim: every trim reached the receiver ($trims at the switch; $rxt to the agent, $xdp_trims without one)" \
			[ $((rxt + xdp_trims)) -eq "$trims" ]
		# A NACK that arrives after the RTO already resent its packet
		# finds nothing in flight and is not counted: the two together
		# cover every trim.  One short is a trimmed packet the sender
		# never resent: its NACK was lost or forgotten (a fast send's,
		# come before the copy: tests/unit/test_eqds_fastpath.c,
		# late_copy__*), the receiver gave its gap up (reorder_timeout)
		# before any RTO and its PULLs acknowledged it.
		check "trim: NACKs brought retransmissions (NACKs $nacks + RTOs $rtos >= $rxt trims at the agents; retransmissions $rtx; gaps given up $gaps)" \
			[ "$nacks" -gt 0 -a $((nacks + rtos)) -ge "$rxt" -a "$rtx" -ge "$rxt" ]
		# Every fast send TC counted (eq_stats) came to its agent as a
		# copy (the agents' tx_fast): a copy lost on the way would leave
		# a packet the tunnel can neither resend nor time out.
		local fast tc_fast noclone
		read -r fast < <(ft_agent_sum tx_fast)
		read -r tc_fast noclone < <(ft_edgeq_stat_sum tx_fast tx_fast_noclone)
		check "trim: TC sent packets on the fast path ($tc_fast), every copy reached an agent ($fast kept, $noclone not made)" \
			[ "$tc_fast" -gt 0 -a "$fast" -eq "$tc_fast" -a "$noclone" -eq 0 ]
	else
		check "$mode: the switch trimmed nothing ($trims)" [ "$trims" -eq 0 ]
	fi
	# Nothing here is spoofed: every packet lies within the windows the
	# ends check (docs/eqds.md, "What a packet may change").
	local refused
	refused=$(ft_agent_sum bad_ack bad_pull bad_rst rx_bad_seq rx_bad_epoch)
	check "$mode: no genuine packet refused (bad_ack bad_pull bad_rst rx_bad_seq rx_bad_epoch: $refused)" \
		[ "$refused" = "0 0 0 0 0" ]
	if [ "$mode" = loss ]; then
		local dropped lost late rtx rtos gaps
		dropped=$(ft_port "tor0-h$N" drop_loss)
		read -r lost late rtx rtos gaps < <(ft_agent_sum rx_lost rx_late tx_rtx rto_fired reorder_gaps)
		echo "# loss: the switch dropped $dropped; NACKed lost $lost (late $late), RTOs $rtos," \
			"retransmissions $rtx, gaps given up $gaps"
		check "loss: the switch dropped packets ($dropped)" [ "$dropped" -gt 0 ]
		check "loss: the receivers NACKed losses ($lost) and the senders resent ($rtx)" \
			[ "$lost" -gt 0 -a "$rtx" -gt 0 ]
	fi
}

for mode in trim rts loss; do
	trim=8p eqmode=$mode
	[ "$mode" = trim ] || trim=off
	[ "$mode" = loss ] && eqmode=rts
	if ! ft_up "$(ft_topo star)" --set hosts=$((N + 1)) --set rate="$RATE" --set trim="$trim"; then
		not_ok "fabric up"; tap_done; exit 1
	fi
	if ! ft_edgeq_up scheme eqds link_rate "$RATE" eqds.mode "$eqmode" bdp "$BDP"; then
		not_ok "$mode: edgeq (scheme eqds) attached on every host"
		ft_down; continue
	fi
	[ "$mode" = loss ] && ft_ctl port "tor0-h$N" loss 1
	ok "$mode: edgeq (scheme eqds, eqds.mode $eqmode) attached on every host"
	incast "$mode"
	ft_down
done
tap_done
