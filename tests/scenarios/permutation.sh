#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Permutation over a multipath core (EQDS §8 Fig. 7-8, SMaRTT-REPS §4.1):
# leaf-spine, 2 leaves x 4 hosts, 4 spines (1:1).  Every host sends one
# long flow to a distinct host on the other leaf (host i -> host i+4 mod 8)
# for D seconds, so every packet crosses the core.  With ECMP (per-flow
# hash, the baseline) flows collide on spines; with per-packet spraying
# every path is used but plain TCP sees reordering.  Per multipath mode
# and transport: per-flow goodput (min, mean, max) against the line rate,
# the total, Jain's index, the largest spine-port queue, drops, TCP
# retransmissions and the reordering the receivers saw.
#
# SC_SECS (default 15), SC_RATE (60mbit, every link), SC_MULTIPATH
# (default "ecmp spray"), SC_SET (extra fabric settings).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/scenarios/lib.sh

SECS=${SC_SECS:-15}
# edgeq sprays itself: a random UDP source port per packet, which the
# switch's ECMP hash spreads over the spines (SMaRTT-REPS, EQDS §8).
SC_EDGEQ=${SC_EDGEQ-entropy packet}
RATE=${SC_RATE:-60mbit}
MPS=${SC_MULTIPATH:-ecmp spray}
RATE_BPS=${RATE%bit}; RATE_BPS=$(numfmt --from=si "${RATE_BPS^^}")
SETS=(); for s in ${SC_SET:-}; do SETS+=(--set "$s"); done
TRANSPORTS=$(sc_transports)
NH=8	# hosts: 2 leaves x 4
SC_STEPS=$(( $(wc -w <<<"$MPS") * $(wc -w <<<"$TRANSPORTS") ))
sc_init

CORE='^(leaf[0-9]+-spine|spine[0-9]+-leaf)'

run_one() {	# MULTIPATH TRANSPORT
	local mp=$1 tr=$2 raw="$FT_TMP/$1-$2" t0 i pids=()
	mkdir -p "$raw"
	sc_progress "$mp $tr"
	sc_up_tr "$tr" leafspine --set spines=4 --set rate="$RATE" --set core_rate="$RATE" \
		--set multipath="$mp" "${SETS[@]}"
	sc_permutation "$raw" "$tr" "$SECS"
	t0=$SC_T0 pids=("${SC_PIDS[@]}")
	sc_wait "${pids[@]}"
	sc_agent_counters "$raw/agent"
	ft_stats
	cp "$(fab_dir "$FT_NAME")/ports.tsv" "$raw/"
	local p t1=$((t0 + SECS * 1000000000))
	for p in $(awk -F'\t' -v re="$CORE" 'NR > 1 && $1 ~ re { print $1 }' "$raw/ports.tsv"); do
		sc_qstats "$p" "$t0" "$t1"
	done >"$raw/coreq"	# max mean p99 per core port, over the flows
	for p in $(awk -F'\t' 'NR > 1 && $1 ~ /^h[0-9]+-leaf/ { print $1 }' "$raw/ports.tsv"); do
		sc_qstats "$p" "$t0" "$t1"
	done >"$raw/hostq"
	local ofo=0 dsack=0
	for i in $(seq 0 $((NH - 1))); do
		ofo=$((ofo + $(sc_netstat "h$i" TcpExtTCPOFOQueue)))
		dsack=$((dsack + $(sc_netstat "h$i" TcpExtTCPDSACKRecv)))
	done
	local ring; ring=$(sc_ring_drops)
	sc_down
	for i in $(seq 0 $((NH - 1))); do
		echo "$(ft_sum "$raw/h$i.tsv" goodput_bps) $(ft_sum "$raw/h$i.tsv" retrans)"
	done >"$raw/flows"	# per flow: goodput (bit/s), retransmissions
	awk -v r="$RATE_BPS" '{ print $1 / r * 100 }' "$raw/flows" >"$raw/pct"
	local total jain qmax hmax drops rtx
	total=$(cut -d' ' -f1 "$raw/flows" | sc_sum)
	jain=$(cut -d' ' -f1 "$raw/flows" | sc_jain)
	qmax=$(cut -d' ' -f1 "$raw/coreq" | sc_max)
	hmax=$(cut -d' ' -f1 "$raw/hostq" | sc_max)
	drops=$(sc_ports "$raw/ports.tsv" . drop_full | sc_sum)
	rtx=$(cut -d' ' -f2 "$raw/flows" | sc_sum)
	sc_md "| $mp | $tr | $(sc_fmt "$(sc_min <"$raw/pct")" 1 1) | $(sc_fmt "$(sc_mean <"$raw/pct")" 1 1) |" \
		"$(sc_fmt "$(sc_max <"$raw/pct")" 1 1) | $(sc_fmt "$total" 1e6 0) |" \
		"$(sc_fmt "$total" "$(( NH * RATE_BPS / 100 ))" 1) | $jain | $qmax | $drops | $ring | $rtx |" \
		"$ofo | $dsack | $hmax |"
	sort -g "$raw/pct" | awk '{ printf "%d\t%.2f\n", NR, $1 }' >"$raw/pct_sorted"
}

sc_md_begin "Permutation over a multipath core" "$(sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//')

Fabric: leaf-spine, 2 leaves × 4 hosts, 4 spines, every link $RATE (host and core: 1:1),
10 µs per link each way, 200-packet buffers$( [ ${#SETS[@]} -gt 0 ] && echo ", ${SC_SET}").
The rate is low because the switch forwards every link of the fabric in one thread and
the hosts' TCP stacks share the machine's other core. When this scenario was set up,
TCP over spraying (whose reordering makes the receive path costlier) stopped at about
500 Mbit/s in total with 8 × 100 and 8 × 150 Mbit/s links, while with 8 × 40 and 8 × 60
Mbit/s it reached the same share of the line rate (87 %): the machine, not the fabric,
was the limit above that. Each flow runs $SECS s; goodput is what the receiver acknowledged
over the whole flow (handshake and slow start included), in % of the line rate; a TCP
payload can fill at most 1448/1514 = 95.6 % of it. Total: the sum of the 8 flows, in
Mbit/s and in % of 8 × the line rate. Core queue: the largest occupancy of any
leaf→spine or spine→leaf port during the flows (packets; 200 full frames are
$(awk -v r="$RATE_BPS" 'BEGIN { printf "%.0f", 200 * 1514 * 8 / r * 1000 }') ms at $RATE). Drops: every port. Ring drops: frames lost before the switch
saw them (its AF_XDP receive ring was full). Reordering: out-of-order packets queued by
the receivers (TcpExtTCPOFOQueue) and the DSACKs the senders got back
(TcpExtTCPDSACKRecv: retransmissions that were not needed). Host-port queue: the largest
queue on a host→leaf port, which stays within the hosts' 10-frame burst unless the
switch fell behind."
sc_md ""
sc_md "| multipath | transport | flow min (%) | flow mean (%) | flow max (%) | total (Mbit/s) | total (% of 8 links) | Jain | core queue max (pkts) | drops | ring drops | TCP retrans | OFO pkts | DSACKs | host-port queue max |"
sc_md "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for mp in $MPS; do
	for tr in $TRANSPORTS; do run_one "$mp" "$tr"; done
done
sc_md ""
for mp in $MPS; do
	f=()
	for tr in $TRANSPORTS; do f+=("$FT_TMP/$mp-$tr/pct_sorted:$tr"); done
	sc_plot_ext "set yrange [0:*]" "$SC_PNG/goodput-$mp.png" "permutation, $mp: goodput of each flow" \
		"flow (sorted)" "% of line rate" "linespoints" "${f[@]}"
	sc_md "![goodput per flow, $mp]($SC_NAME/goodput-$mp.png)"
	sc_md ""
done
sc_md_end
ft_down
