#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# N -> 1 incast (EQDS §6, SIRD, BFC): N senders on one ToR each send S
# bytes to one receiver, all starting at the same instant.  The receiver's
# switch port is the bottleneck.  Per N and transport: the last completion
# against the ideal (N x S on the wire at the line rate), slowest-to-
# fastest completion, Jain's index of per-flow goodput, the bottleneck
# queue (max, mean, p99, and its time series), drops and TCP
# retransmissions.
#
# SC_N (default "8 16 32"), SC_SIZE (default 1m), SC_RATE (50mbit: on two
# vCPUs, at 200 Mbit/s both CPUs were 90-96 % busy carrying the agents and
# the switch, and the last completion measured the CPUs, 1.6-1.8x ideal,
# against 1.11-1.16x at 50 Mbit/s: docs/performance.md), SC_SET (fabric
# settings, default "trim=8p": the switch trims edgeq data above 8
# packets; plain TCP is not trimmed), SC_DRAIN_MS (2).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/scenarios/lib.sh

NS=${SC_N:-8 16 32}
SIZE=${SC_SIZE:-1m}
RATE=${SC_RATE:-50mbit}
DRAIN_NS=$(( ${SC_DRAIN_MS:-2} * 1000000 ))	# "after the first RTTs": from then on the queue should stay near empty
BYTES=$(numfmt --from=iec "${SIZE^^}")
RATE_BPS=$(numfmt --from=si "$(tr a-z A-Z <<<"${RATE%bit}")")
SETS=(); for s in ${SC_SET-trim=8p}; do SETS+=(--set "$s"); done
TRANSPORTS=$(sc_transports)
SC_STEPS=$(( $(wc -w <<<"$NS") * $(wc -w <<<"$TRANSPORTS") ))
sc_init

# wire bytes per payload byte for MSS 1448 in a 1514-byte frame
ideal_ns() { awk -v n="$1" -v s="$BYTES" -v r="$RATE_BPS" 'BEGIN { printf "%.0f\n", n * s * 1514 / 1448 * 8 * 1e9 / r }'; }

run_one() {	# N TRANSPORT
	local n=$1 tr=$2 rx="h$1" raw="$FT_TMP/n$1-$2" t0 i
	mkdir -p "$raw"
	sc_progress "N=$n $tr"
	sc_up_tr "$tr" star --set hosts=$((n + 1)) --set rate="$RATE" "${SETS[@]}"
	ft_bg "$rx" "$EQLOAD" serve --port 5201
	sleep 0.3
	ft_ctl reset
	t0=$(( $(sc_now) + 1500000000 ))	# time for N processes to be ready
	for i in $(seq 0 $((n - 1))); do
		ft_bg "h$i" "$EQLOAD" bulk --dst "$(ft_ip "$rx")" --port 5201 --bytes "$BYTES" \
			--cc "$(sc_cc "$tr")" --start-at "$t0" --out "$raw/h$i.tsv"
	done
	sc_wait "${FT_PIDS[@]:1}"
	sc_agent_counters "$raw/agent"
	ft_stats
	cp "$(fab_dir "$FT_NAME")/ports.tsv" "$raw/"
	sc_queue "tor0-$rx" "$raw/queue.tsv" "$t0"
	for i in $(seq 0 $((n - 1))); do
		echo "$(( $(ft_sum "$raw/h$i.tsv" end_ns) - t0 )) $(ft_sum "$raw/h$i.tsv" retrans)"
	done >"$raw/fct"	# per flow: completion (ns after t0), retransmissions
	local last fast jain ideal drops rtx q qd trims
	last=$(cut -d' ' -f1 "$raw/fct" | sc_max)
	read -r -a q < <(sc_qstats "tor0-$rx" "$t0" $((t0 + last)))
	read -r -a qd < <(sc_qstats "tor0-$rx" $((t0 + DRAIN_NS)) $((t0 + last)))
	trims=$(ft_port "tor0-$rx" trims)
	fast=$(cut -d' ' -f1 "$raw/fct" | sc_min)
	jain=$(awk -v s="$BYTES" '{ print s * 8 / $1 }' "$raw/fct" | sc_jain)
	ideal=$(ideal_ns "$n")
	drops=$(ft_port "tor0-$rx" drop_full)
	rtx=$(awk '{ s += $2 } END { print s + 0 }' "$raw/fct")
	sc_md "| $n | $tr | $(sc_fmt "$last" 1e6 1) | $(sc_fmt "$ideal" 1e6 1) |" \
		"$(awk -v a="$last" -v b="$ideal" 'BEGIN { printf "%.2f", a / b }') |" \
		"$(awk -v a="$fast" -v b="$last" 'BEGIN { printf "%.2f", a / b }') | $jain |" \
		"${q[0]} | ${q[1]} | ${q[2]} | ${qd[1]} | $drops | $trims | $rtx |"
	sort -n "$raw/fct" | awk '{ printf "%d\t%.3f\n", NR, $1 / 1e6 }' >"$raw/fct_sorted"
	# Kill the server now, so the next run starts clean (raw data stays).
	sc_down
}

sc_md_begin "N→1 incast" "$(sed -n '3,/^set -u/{/^set -u/d;p}' "$0" | sed 's/^# \{0,1\}//')

Fabric: one ToR, $RATE links, 10 µs per link each way, 200-packet buffers$(
	[ ${#SETS[@]} -gt 0 ] && echo ", ${SC_SET-trim=8p}"); S = $SIZE per sender.
Ideal = N × S in 1514-byte frames (1448 payload bytes each) at the line rate, so the best
possible last/ideal is 1.00 plus the handshake and first RTT."
sc_md ""
sc_md "| N | transport | last done (ms) | ideal (ms) | last/ideal | fastest/slowest | Jain | queue max (pkts) | queue mean | queue p99 | queue mean after $((DRAIN_NS / 1000000)) ms | drops | trims | TCP retrans |"
sc_md "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in $NS; do
	for tr in $TRANSPORTS; do run_one "$n" "$tr"; done
done
sc_md ""
any_agent=false
for tr in $TRANSPORTS; do sc_is_edgeq "$tr" && any_agent=true; done
if $any_agent; then
	sc_md "The agents' counters in the runs through edgeq (every scheme), summed over every host (docs/agent.md):"
	sc_md "edge-queue drops and CE marks at the senders, trimmed headers the receivers"
	sc_md "got, NACKs and retransmission timeouts the senders acted on, retransmissions,"
	sc_md "the times a sender found its receiver silent for an RTO and ran without credit (EQDS),"
	sc_md "and SIRD's credit taken back unspent by the receivers (no DATA for 4 RTOs, or a new"
	sc_md "epoch) and given up by the senders (held for 4 RTOs with nothing to send), in bytes."
	sc_md ""
	sc_md "| N | transport | edge drops | edge marks | trimmed headers | NACKs | RTOs | retransmissions | receiver silent | credit reclaimed | credit dropped |"
	sc_md "|---|---|---|---|---|---|---|---|---|---|---|"
	for n in $NS; do
		for tr in $TRANSPORTS; do
			[ -s "$FT_TMP/n$n-$tr/agent" ] || continue
			sc_md "| $n | $tr | $(sed 's/ *$//; s/ / | /g' "$FT_TMP/n$n-$tr/agent") |"
		done
	done
	sc_md ""
fi
for n in $NS; do
	q=() f=()
	for tr in $TRANSPORTS; do
		q+=("$FT_TMP/n$n-$tr/queue.tsv:$tr")
		f+=("$FT_TMP/n$n-$tr/fct_sorted:$tr")
	done
	sc_plot "$SC_PNG/queue-n$n.png" "incast N=$n: bottleneck queue" "ms from start" "packets" \
		"steps" "${q[@]}"
	sc_plot "$SC_PNG/fct-n$n.png" "incast N=$n: completion of each flow" "flow (sorted)" "ms" \
		"linespoints" "${f[@]}"
	sc_md "![queue N=$n]($SC_NAME/queue-n$n.png) ![completions N=$n]($SC_NAME/fct-n$n.png)"
	sc_md ""
done
sc_md_end
