#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench: figures, not tests.  Everything is measured in this one run,
# and every figure is given against a baseline measured alongside it:
#   1. ns per packet of the TC and XDP programs against empty programs
#      (BPF_PROG_TEST_RUN; bench/prog_bench.c);
#   2. TCP goodput between two namespaces on one veth pair: plain, with a
#      pass-only XDP program on both ends (what XDP on a veth costs by
#      itself), through the edgeq tunnel (scheme none) and through EQDS
#      (scheme eqds, agents on both hosts; with its inner TCP
#      retransmissions and the agents' edge-queue drops), SMaRTT (scheme
#      smartt, every packet through both agents) and SIRD (scheme sird, the
#      same, on the receiver's credit); then again with
#      GRO on, and both tunnels over the testbed's IPv6 underlay (inner IPv6
#      to fd77::2: GSO segments numbered by the segment option).  Configurations are interleaved round by round so that drift
#      and other tenants hit them alike.  iperf3 client on CPU 0, server on
#      CPU 1 (placement changes veth TCP by up to 3x: docs/performance.md);
#   3. the programs' own cost per packet under that TCP load (kernel BPF
#      stats), and segments per encapsulation (GSO);
#   4. idle ping RTT, plain and through the tunnel;
#   5. the agent (bench/agent.sh): datagrams per second through edgeqd
#      against a minimal AF_XDP forwarder on the same sockets, and the
#      idle RTT each adds.
# BENCH_ROUNDS (default 3) and BENCH_SECS (default 5) set the effort;
# BENCH_EQDS_CONF adds config lines to the `scheme eqds` rows (e.g.
# 'rx_poll_us 0', to measure a setting against its default).
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib/netns.sh
ROUNDS=${BENCH_ROUNDS:-3}
SECS=${BENCH_SECS:-5}
XDP_PASS=build/bench/xdp_pass
export TB_OFFLOADS=default	# keep the veths' offloads as a user has them

[ "$(id -u)" = 0 ] || { echo "bench: needs root"; exit 1; }
echo "bench: $(date -u +%FT%TZ), kernel $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "== 1. BPF programs, ns per packet (BPF_PROG_TEST_RUN)"
build/bench/prog_bench || exit 1

median() { sort -n | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print "nan"}'; }
minmax() { sort -n | awk 'NR==1{lo=$1} {hi=$1} END {printf "%s-%s", lo, hi}'; }

tb_up >/dev/null || { echo "bench: testbed setup failed"; exit 1; }

reset_config() {
	eq_a detach "$TB_IFA" >/dev/null 2>&1
	eq_b detach "$TB_IFB" >/dev/null 2>&1
	in_a "$XDP_PASS" "$TB_IFA" off 2>/dev/null
	in_b "$XDP_PASS" "$TB_IFB" off 2>/dev/null
	in_a ethtool -K "$TB_IFA" gro off >/dev/null
	in_b ethtool -K "$TB_IFB" gro off >/dev/null
}

scheme_attach() {	# SCHEME: both hosts with that scheme (eqds, smartt, sird)
	local s
	for s in a b; do
		{ cat "$TB_TMP/$s.conf"; echo "scheme $1"
		  [ "$1" = eqds ] && printf '%b\n' "${BENCH_EQDS_CONF:-}"; } >"$TB_TMP/$s.$1.conf"
	done
	eq_a attach "$TB_IFA" --config "$TB_TMP/a.$1.conf" >/dev/null &&
	eq_b attach "$TB_IFB" --config "$TB_TMP/b.$1.conf" >/dev/null
}

set_config() {		# plain | xdp_pass | edgeq | eqds | smartt | sird, each also with _gro
	reset_config
	case $1 in
	xdp_pass*) in_a "$XDP_PASS" "$TB_IFA" && in_b "$XDP_PASS" "$TB_IFB" ;;
	eqds*) scheme_attach eqds ;;
	smartt*) scheme_attach smartt ;;
	sird*) scheme_attach sird ;;
	edgeq*) tb_attach ;;
	esac || { echo "bench: cannot set up $1"; return 1; }
	case $1 in
	*_gro) in_a ethtool -K "$TB_IFA" gro on >/dev/null; in_b ethtool -K "$TB_IFB" gro on >/dev/null ;;
	esac
	TARGET=10.77.0.2
	case $1 in *_v6) TARGET=fd77::2 ;; esac	# the testbed tunnels it over IPv6
	sleep 0.3
}

IPERF_RTX=0 IPERF_SEGS=0
iperf_gbps() {		# prints Gbit/s; IPERF_RTX and IPERF_SEGS: the sender's
	local json
	ip netns exec "$TB_B" taskset -c 1 iperf3 -s -1 -D -p 5301 >/dev/null 2>&1
	sleep 0.3
	json=$(ip netns exec "$TB_A" taskset -c 0 iperf3 -c "$TARGET" -p 5301 -t "$SECS" -O 1 -J 2>/dev/null)
	IPERF_RTX=$(jq -r '.end.sum_sent.retransmits // 0' <<<"$json" 2>/dev/null)
	IPERF_SEGS=$(jq -r '(.end.sum_sent.bytes // 0) / 1400 | floor' <<<"$json" 2>/dev/null)
	jq -r '(.end.sum_received.bits_per_second // 0) / 1e9 | . * 100 | round / 100' <<<"$json" 2>/dev/null
}

edge_drops() {		# both agents' edge-queue drops
	{ eq_a status "$TB_IFA" --json; eq_b status "$TB_IFB" --json; } 2>/dev/null |
		jq -s '[.[].interfaces[0].peers[]?.agent.edge_drops // 0] | add // 0'
}

prog_stat() {		# PIN -> "run_time_ns run_cnt"
	bpftool -j prog show pinned "$1" 2>/dev/null |
		sed -n 's/.*"run_time_ns":\([0-9]*\).*"run_cnt":\([0-9]*\).*/\1 \2/p'
}
peer_stat() {		# FIELD of peer slot 0 of host A
	eq_a status "$TB_IFA" --json | grep -o "\"$1\":[0-9]*" | head -1 | cut -d: -f2
}

echo
echo "== 2. TCP goodput, 1 flow, ${SECS} s x ${ROUNDS} rounds (client CPU 0, server CPU 1)"
CONFIGS="plain xdp_pass edgeq eqds smartt sird xdp_pass_gro edgeq_gro eqds_gro edgeq_v6 eqds_v6 smartt_v6
	sird_v6"
declare -A results rtx segs drops
insitu=""
for r in $(seq "$ROUNDS"); do
	for c in $CONFIGS; do
		set_config "$c" || continue
		if [ "$c" = edgeq ] && [ "$r" = 1 ]; then
			# In-situ cost under real traffic (kernel BPF stats, this run only).
			old=$(sysctl -n kernel.bpf_stats_enabled)
			sysctl -qw kernel.bpf_stats_enabled=1
			dir=$(eq_a status "$TB_IFA" --json | grep -o '"pin_dir":"[^"]*"' | cut -d'"' -f4)
			dirb=$(eq_b status "$TB_IFB" --json | grep -o '"pin_dir":"[^"]*"' | cut -d'"' -f4)
			seg0=$(peer_stat tx_packets)
			g=$(iperf_gbps)
			read -r tct tcn < <(prog_stat "$dir/prog_tc_egress")
			read -r xdt xdn < <(prog_stat "$dirb/prog_xdp_ingress")
			seg1=$(peer_stat tx_packets)
			enc=$(eq_stat a tx_encap)
			sysctl -qw kernel.bpf_stats_enabled="$old"
			insitu=$(awk -v tt="${tct:-0}" -v tn="${tcn:-0}" -v xt="${xdt:-0}" -v xn="${xdn:-0}" \
				-v s="$((${seg1:-0} - ${seg0:-0}))" -v e="${enc:-0}" 'BEGIN {
				printf "  tc_egress  on A: %.0f ns per call over %d calls (%.1f segments per call: %.1f ns per segment)\n",
					tn ? tt/tn : 0, tn, e ? s/e : 0, s ? tt/s : 0;
				printf "  xdp_ingress on B: %.0f ns per packet over %d packets\n", xn ? xt/xn : 0, xn }')
		else
			iperf_gbps >"$TB_TMP/g"
			g=$(cat "$TB_TMP/g")
		fi
		results[$c]+="${g:-0} "
		extra=""
		case ${c%_*} in eqds | smartt | sird) agent=1 ;; *) agent= ;; esac
		if [ -n "$agent" ]; then	# eqds*, smartt*, sird*
			rtx[$c]=$(( ${rtx[$c]:-0} + ${IPERF_RTX:-0} ))
			segs[$c]=$(( ${segs[$c]:-0} + ${IPERF_SEGS:-0} ))
			d=$(edge_drops)
			drops[$c]=$(( ${drops[$c]:-0} + ${d:-0} ))
			extra="  (inner TCP retransmits ${IPERF_RTX:-?}, edge-queue drops ${d:-?})"
		fi
		printf '  round %d  %-13s %6s Gbit/s%s\n' "$r" "$c" "${g:-?}" "$extra"
	done
done
reset_config

echo
printf '  %-13s %8s  %-13s  %s\n' config median range "ratio"
for c in $CONFIGS; do
	med=$(tr ' ' '\n' <<<"${results[$c]}" | grep . | median)
	rng=$(tr ' ' '\n' <<<"${results[$c]}" | grep . | minmax)
	eval "med_$c=$med"
	case $c in
	plain) ratio="baseline" ;;
	xdp_pass) ratio=$(awk -v a="$med" -v b="$med_plain" 'BEGIN {printf "%.2fx plain", a/b}') ;;
	edgeq) ratio=$(awk -v a="$med" -v b="$med_plain" -v x="$med_xdp_pass" 'BEGIN {printf "%.2fx plain, %.2fx xdp_pass", a/b, a/x}') ;;
	xdp_pass_gro) ratio=$(awk -v a="$med" -v b="$med_plain" 'BEGIN {printf "%.2fx plain", a/b}') ;;
	edgeq_gro) ratio=$(awk -v a="$med" -v b="$med_plain" -v x="$med_xdp_pass_gro" 'BEGIN {printf "%.2fx plain, %.2fx xdp_pass_gro", a/b, a/x}') ;;
	eqds) ratio=$(awk -v a="$med" -v b="$med_edgeq" 'BEGIN {printf "%.2fx scheme none", a/b}') ;;
	smartt) ratio=$(awk -v a="$med" -v b="$med_edgeq" -v e="$med_eqds" 'BEGIN {printf "%.2fx scheme none, %.2fx eqds", a/b, a/e}') ;;
	eqds_gro) ratio=$(awk -v a="$med" -v b="$med_edgeq_gro" 'BEGIN {printf "%.2fx scheme none (gro)", a/b}') ;;
	edgeq_v6) ratio=$(awk -v a="$med" -v b="$med_edgeq" 'BEGIN {printf "%.2fx scheme none over IPv4", a/b}') ;;
	eqds_v6) ratio=$(awk -v a="$med" -v b="$med_edgeq_v6" 'BEGIN {printf "%.2fx scheme none (IPv6 underlay)", a/b}') ;;
	smartt_v6 | sird_v6) ratio=$(awk -v a="$med" -v b="$med_edgeq_v6" 'BEGIN {printf "%.2fx scheme none (IPv6 underlay)", a/b}') ;;
	sird) ratio=$(awk -v a="$med" -v b="$med_edgeq" -v e="$med_eqds" 'BEGIN {printf "%.2fx scheme none, %.2fx eqds", a/b, a/e}') ;;
	esac
	printf '  %-13s %8s  %-13s  %s\n' "$c" "$med" "[$rng]" "$ratio"
	echo "bench tcp_$c gbps=$med range=$rng"
done
echo "  target: edgeq >= 0.8x plain TCP on the same path"
for c in eqds eqds_gro eqds_v6 smartt smartt_v6 sird sird_v6; do
	pct=$(awk -v r="${rtx[$c]:-0}" -v s="${segs[$c]:-0}" 'BEGIN {printf "%.3f", s ? 100 * r / s : 0}')
	echo "  $c: inner TCP retransmits ${rtx[$c]:-0} of ~${segs[$c]:-0} segments (${pct} %), edge-queue drops ${drops[$c]:-0}"
	echo "bench tcp_${c}_quality retrans=${rtx[$c]:-0} segs=${segs[$c]:-0} retrans_pct=$pct edge_drops=${drops[$c]:-0}"
done
echo "  target: scheme eqds >= 0.5x scheme none, inner retransmits < 0.1 %, no edge-queue drops"

echo
echo "== 3. the programs' own cost under that TCP load (kernel.bpf_stats_enabled)"
echo "${insitu:-  (not measured)}"

echo
echo "== 4. idle ping RTT A -> B: 3 interleaved runs of 300 pings at 5 ms each (µs)"
rtt() {		# prints "p50 p99"
	in_a ping -n -c 300 -i 0.005 "$1" 2>/dev/null | sed -n 's/.*time=\([0-9.]*\) ms/\1/p' |
		awk '{printf "%.1f\n", $1 * 1000}' | sort -n |
		awk '{v[NR]=$1} END {printf "%s %s\n", v[int(NR*0.5)], v[int(NR*0.99)]}'
}
declare -A r50 r99
for r in 1 2 3; do
	for c in plain edgeq; do
		set_config "$c" || continue
		read -r a b < <(rtt 10.77.0.2)
		r50[$c]+="$a "; r99[$c]+="$b "
	done
done
reset_config
for c in plain edgeq; do
	m50=$(tr ' ' '\n' <<<"${r50[$c]}" | grep . | median)
	m99=$(tr ' ' '\n' <<<"${r99[$c]}" | grep . | median)
	eval "rtt50_$c=$m50"
	printf '  %-6s p50 %6s  p99 %6s   (runs: p50 %s)\n' "$c" "$m50" "$m99" "${r50[$c]}"
	echo "bench rtt_$c p50_us=$m50 p99_us=$m99"
done
awk -v a="$rtt50_edgeq" -v b="$rtt50_plain" 'BEGIN {printf "  added p50: %.1f µs (target: at most 10 µs; the spread between runs is of the same order)\n", a - b}'

# 5. the agent, on a testbed of its own (bench/agent.sh)
tb_down
echo
bash bench/agent.sh
